/*@barracuda
{
  "what": "the host reads managed memory after cudaStreamSynchronize of the cudaMemsetAsync clearing it",
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
// Race-free twin of host_reads_managed_before_memset_sync_racy.cu: the host
// synchronises with the stream before it reads the cleared buffer.
#include <cstdio>
#include <cuda_runtime.h>

int main() {
  int* data = nullptr;
  if (cudaMallocManaged(&data, 256 * sizeof(int)) != cudaSuccess) return 2;
  for (int i = 0; i < 256; ++i) data[i] = 7;
  cudaStream_t s;
  cudaStreamCreate(&s);
  cudaMemsetAsync(data, 0, 256 * sizeof(int), s);
  cudaStreamSynchronize(s);  // the set has cleared the buffer
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
