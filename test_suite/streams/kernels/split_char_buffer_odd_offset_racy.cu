/*@barracuda
{
  "what": "two streams fill the two parts of a char buffer split at an odd offset, the upper part starting one byte too low",
  "arch": 75,
  "expect": {
    "its": {
      "verdict": "race",
      "races": [],
      "stream_order_races": [
        {
          "lines": [
            44,
            49
          ]
        }
      ]
    },
    "lockstep": {
      "verdict": "race",
      "races": [],
      "stream_order_races": [
        {
          "lines": [
            44,
            49
          ]
        }
      ]
    }
  }
}
@*/
// Twin: split_char_buffer_odd_offset_ok.cu. A text buffer of 1001 bytes is
// split between two streams, each filling its part with one kernel, and
// nothing orders the streams; the upper part starts at byte 500, the last
// byte of the lower part: both kernels write byte 500.
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
  FillUpper<<<(kSize - kSplit + 128) / 128, 128, 0, upper>>>(buf, kSplit - 1, kSize);
  char host[kSize];
  cudaMemcpy(host, buf, kSize, cudaMemcpyDeviceToHost);
  for (int i = 0; i < kSize; ++i)
    if (host[i] != (i < kSplit - 1 ? 'a' : 'A') + i % 26 && i != kSplit - 1) {
      std::printf("FAIL at %d\n", i);
      return 1;
    }
  std::printf("PASS done\n");
  return 0;
}
