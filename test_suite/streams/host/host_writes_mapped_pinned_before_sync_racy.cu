/*@barracuda
{
  "what": "the host rewrites mapped pinned memory a kernel of a stream may still be reading",
  "arch": 75,
  "expect": {
    "its": {
      "verdict": "race",
      "races": [],
      "stream_order_races": [
        {
          "lines": [
            41,
            53
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
            41,
            53
          ]
        }
      ]
    }
  }
}
@*/
// Seeded bug; twin: host_writes_mapped_pinned_before_sync_ok.cu. A kernel on a
// stream reads its input from mapped pinned memory (cudaHostAlloc with
// cudaHostAllocMapped, a zero-copy buffer) and the host refills the buffer for
// the next round without synchronising first: the kernel may still be reading
// it (cudaStreamSynchronize of the kernel's stream orders the two).
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
