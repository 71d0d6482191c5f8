/*@barracuda
{
  "what": "the host reads managed memory a kernel writes before synchronising with it",
  "arch": 75,
  "expect": {
    "its": {
      "verdict": "race",
      "races": [],
      "stream_order_races": [
        {
          "lines": [
            41,
            48
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
            48
          ]
        }
      ]
    }
  }
}
@*/
// Seeded bug; twin: host_reads_managed_before_sync_ok.cu. A kernel fills a
// cudaMallocManaged array on the legacy stream and the host sums it without
// synchronising first: a launch returns before the kernel has run, so on a GPU
// with concurrent managed access the host reads values the kernel is still
// writing (on one without, the host's access faults).
#include <cstdio>
#include <cuda_runtime.h>

__global__ void Fill(int* data) { data[threadIdx.x] = 2 * threadIdx.x; }

int main() {
  int* data = nullptr;
  if (cudaMallocManaged(&data, 64 * sizeof(int)) != cudaSuccess) return 2;
  Fill<<<1, 64>>>(data);
  long sum = 0;
  for (int i = 0; i < 64; ++i) sum += data[i];
  cudaDeviceSynchronize();
  std::printf("sum %ld\n", sum);
  std::printf(sum == 4032 ? "PASS\n" : "FAIL\n");
  std::printf("done\n");
  cudaFree(data);
  return 0;
}
