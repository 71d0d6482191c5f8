/*@barracuda
{
  "what": "two streams each fill their half of a char buffer split at an odd offset (the word at the split holds bytes of both halves)",
  "arch": 75,
  "expect": {
    "its": {
      "verdict": "race-free",
      "races": [],
      "stream_order_races": []
    },
    "lockstep": {
      "verdict": "race-free",
      "races": [],
      "stream_order_races": []
    }
  }
}
@*/
// Twin: split_char_buffer_odd_offset_racy.cu. A text buffer of 1001 bytes is
// split at byte 501 between two streams, each filling its part with one
// kernel; nothing orders the streams, but no byte is written by both: the
// 4-byte word 500..503 holds bytes of both parts, and that is not a race.
#include <cstdio>
#include <cuda_runtime.h>

constexpr int kSize = 1001, kSplit = 501;

__global__ void FillLower(char* buf, int end) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < end) buf[i] = 'a' + i % 26;
}

__global__ void FillUpper(char* buf, int begin, int end) {
  const int i = begin + blockIdx.x * blockDim.x + threadIdx.x;
  if (i < end) buf[i] = 'A' + i % 26;
}

int main() {
  char* buf = nullptr;
  if (cudaMalloc(&buf, kSize) != cudaSuccess) return 2;
  cudaStream_t lower, upper;
  cudaStreamCreate(&lower);
  cudaStreamCreate(&upper);
  FillLower<<<(kSplit + 127) / 128, 128, 0, lower>>>(buf, kSplit);
  FillUpper<<<(kSize - kSplit + 127) / 128, 128, 0, upper>>>(buf, kSplit, kSize);
  char host[kSize];
  cudaMemcpy(host, buf, kSize, cudaMemcpyDeviceToHost);
  for (int i = 0; i < kSize; ++i)
    if (host[i] != (i < kSplit ? 'a' : 'A') + i % 26) {
      std::printf("FAIL at %d\n", i);
      return 1;
    }
  std::printf("PASS done\n");
  return 0;
}
