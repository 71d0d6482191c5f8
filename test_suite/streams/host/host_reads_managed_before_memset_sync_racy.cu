/*@barracuda
{
  "what": "the host reads managed memory that a cudaMemsetAsync may not have cleared yet",
  "arch": 75,
  "expect": {
    "its": {
      "verdict": "race",
      "races": [],
      "stream_order_races": [
        {
          "lines": [
            46,
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
            46,
            48
          ]
        }
      ]
    }
  }
}
@*/
// Seeded bug; twin: host_reads_managed_before_memset_sync_ok.cu. The host
// clears a cudaMallocManaged buffer with cudaMemsetAsync on a stream and sums
// it at once: the set is only queued, so the host may read the old values
// (cudaStreamSynchronize of the stream orders the two).
#include <cstdio>
#include <cuda_runtime.h>

int main() {
  int* data = nullptr;
  if (cudaMallocManaged(&data, 256 * sizeof(int)) != cudaSuccess) return 2;
  for (int i = 0; i < 256; ++i) data[i] = 7;
  cudaStream_t s;
  cudaStreamCreate(&s);
  cudaMemsetAsync(data, 0, 256 * sizeof(int), s);
  long sum = 0;
  for (int i = 0; i < 256; ++i) sum += data[i];
  cudaStreamSynchronize(s);
  std::printf("sum %ld\n", sum);
  std::printf(sum == 0 ? "PASS\n" : "FAIL\n");
  std::printf("done\n");
  cudaStreamDestroy(s);
  cudaFree(data);
  return 0;
}
