/*@barracuda
{
  "what": "double buffering: the host fills the buffer no running kernel uses (it may share a page with the one in use)",
  "arch": 75,
  "expect": {
    "its": {
      "verdict": "no-race",
      "races": []
    },
    "lockstep": {
      "verdict": "no-race",
      "races": []
    }
  }
}
@*/
// Race-free twin of host_fills_next_buffer_racy.cu. Double buffering with two
// managed buffers: while a kernel consumes one buffer, the host fills the other
// for the next round. The two buffers may share a page: only the bytes of the
// allocation the host touched count.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void Consume(const int* in, int* sum) { atomicAdd(sum, in[threadIdx.x]); }

int main() {
  int *buf[2] = {nullptr, nullptr}, *sum = nullptr;
  for (int b = 0; b < 2; ++b)
    if (cudaMallocManaged(&buf[b], 64 * sizeof(int)) != cudaSuccess) return 2;
  if (cudaMallocManaged(&sum, sizeof(int)) != cudaSuccess) return 2;
  *sum = 0;
  for (int i = 0; i < 64; ++i) buf[0][i] = 1;
  int expected = 0;
  for (int round = 0; round < 4; ++round) {
    const int cur = round % 2;
    Consume<<<1, 64>>>(buf[cur], sum);
    expected += 64 * (round + 1);
    const int next = 1 - cur;
    for (int i = 0; i < 64; ++i) buf[next][i] = round + 2;
    cudaDeviceSynchronize();  // the next round's kernel reads the buffer just filled
  }
  std::printf("sum %d\n", *sum);
  std::printf(*sum == expected ? "PASS\n" : "FAIL\n");
  std::printf("done\n");
  return 0;
}
