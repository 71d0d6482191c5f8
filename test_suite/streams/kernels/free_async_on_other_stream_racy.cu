/*@barracuda
{
  "what": "cudaFreeAsync on one stream of a buffer a kernel on another stream still reads (no event orders the free after the kernel)",
  "arch": 75,
  "expect": {
    "its": {
      "verdict": "race",
      "races": [],
      "stream_order_races": [
        {
          "lines": [
            52,
            66
          ]
        },
        {
          "lines": [
            53,
            66
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
            52,
            66
          ]
        },
        {
          "lines": [
            53,
            66
          ]
        }
      ]
    }
  }
}
@*/
// Twin: free_async_on_other_stream_ok.cu. A scratch buffer from the stream-
// ordered allocator is filled and read on stream `work`, and given back with
// cudaFreeAsync on stream `cleanup`, which does not wait for `work`: the pool
// may hand the memory to the next allocation while the kernel still reads it.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void Fill(int* scratch) { scratch[threadIdx.x] = static_cast<int>(threadIdx.x); }
__global__ void Sum(const int* scratch, int* out) { atomicAdd(out, scratch[threadIdx.x]); }

int main() {
  int* out = nullptr;
  if (cudaMalloc(&out, sizeof(int)) != cudaSuccess) return 2;
  cudaMemset(out, 0, sizeof(int));
  cudaStream_t work, cleanup;
  cudaStreamCreateWithFlags(&work, cudaStreamNonBlocking);
  cudaStreamCreateWithFlags(&cleanup, cudaStreamNonBlocking);
  int* scratch = nullptr;
  if (cudaMallocAsync(&scratch, 64 * sizeof(int), work) != cudaSuccess) return 2;
  Fill<<<1, 64, 0, work>>>(scratch);
  Sum<<<1, 64, 0, work>>>(scratch, out);
  cudaFreeAsync(scratch, cleanup);
  cudaDeviceSynchronize();
  std::printf("done\n");
  return 0;
}
