/*@barracuda
{
  "what": "the host reads managed memory after cudaDeviceSynchronize",
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
// Race-free twin of host_reads_managed_before_sync_racy.cu. A kernel fills a
// cudaMallocManaged array on the legacy stream and the host sums it after
// synchronising: a launch returns before the kernel has run, so on a GPU with
// concurrent managed access the host reads values the kernel is still writing
// (on one without, the host's access faults).
#include <cstdio>
#include <cuda_runtime.h>

__global__ void Fill(int* data) { data[threadIdx.x] = 2 * threadIdx.x; }

int main() {
  int* data = nullptr;
  if (cudaMallocManaged(&data, 64 * sizeof(int)) != cudaSuccess) return 2;
  Fill<<<1, 64>>>(data);
  cudaDeviceSynchronize();
  long sum = 0;
  for (int i = 0; i < 64; ++i) sum += data[i];
  cudaDeviceSynchronize();
  std::printf("sum %ld\n", sum);
  std::printf(sum == 4032 ? "PASS\n" : "FAIL\n");
  std::printf("done\n");
  cudaFree(data);
  return 0;
}
