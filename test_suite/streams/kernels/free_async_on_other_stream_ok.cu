/*@barracuda
{
  "what": "cudaFreeAsync on another stream after an event recorded behind the kernel that reads the buffer",
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
// Twin of free_async_on_other_stream_racy.cu: stream `cleanup` waits for an
// event recorded on `work` after the kernel, so the free follows the reads.
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
  cudaEvent_t used;
  cudaEventCreateWithFlags(&used, cudaEventDisableTiming);
  cudaEventRecord(used, work);
  cudaStreamWaitEvent(cleanup, used, 0);
  cudaFreeAsync(scratch, cleanup);
  if (cudaDeviceSynchronize() != cudaSuccess) return 2;
  int got = 0;
  cudaMemcpy(&got, out, sizeof got, cudaMemcpyDeviceToHost);
  if (got != 64 * 63 / 2) {
    std::printf("FAIL: %d\n", got);
    return 1;
  }
  std::printf("PASS\n");
  return 0;
}
