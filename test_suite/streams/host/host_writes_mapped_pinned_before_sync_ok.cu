/*@barracuda
{
  "what": "the host rewrites mapped pinned memory after cudaStreamSynchronize of the kernel's stream",
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
// Race-free twin of host_writes_mapped_pinned_before_sync_racy.cu. A kernel on
// a stream reads its input from mapped pinned memory (cudaHostAlloc with
// cudaHostAllocMapped, a zero-copy buffer) and the host refills the buffer for
// the next round after synchronising: the kernel may still be reading it
// (cudaStreamSynchronize of the kernel's stream orders the two).
#include <cstdio>
#include <cuda_runtime.h>

__global__ void Sum(const int* in, int* out) { atomicAdd(out, in[threadIdx.x]); }

int main() {
  int *in = nullptr, *in_dev = nullptr, *out = nullptr;
  if (cudaHostAlloc(&in, 64 * sizeof(int), cudaHostAllocMapped) != cudaSuccess) return 2;
  if (cudaHostGetDevicePointer(&in_dev, in, 0) != cudaSuccess) return 2;
  if (cudaMalloc(&out, sizeof(int)) != cudaSuccess) return 2;
  cudaMemset(out, 0, sizeof(int));
  for (int i = 0; i < 64; ++i) in[i] = 1;
  cudaStream_t s;
  cudaStreamCreate(&s);
  Sum<<<1, 64, 0, s>>>(in_dev, out);
  cudaStreamSynchronize(s);
  for (int i = 0; i < 64; ++i) in[i] = 2;
  Sum<<<1, 64, 0, s>>>(in_dev, out);
  int total = 0;
  cudaMemcpy(&total, out, sizeof(int), cudaMemcpyDeviceToHost);
  std::printf("total %d\n", total);
  std::printf(total == 192 ? "PASS\n" : "FAIL\n");
  std::printf("done\n");
  cudaStreamDestroy(s);
  cudaFreeHost(in);
  cudaFree(out);
  return 0;
}
