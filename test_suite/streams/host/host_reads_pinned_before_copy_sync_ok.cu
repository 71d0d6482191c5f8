/*@barracuda
{
  "what": "the host reads page-locked memory after cudaStreamSynchronize of the cudaMemcpyAsync into it",
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
// Race-free twin of host_reads_pinned_before_copy_sync_racy.cu: the host
// synchronises with the stream before it reads what the copy wrote.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void Fill(int* data) { data[threadIdx.x] = 3 * threadIdx.x; }

int main() {
  int *dev = nullptr, *pinned = nullptr;
  if (cudaMalloc(&dev, 64 * sizeof(int)) != cudaSuccess) return 2;
  if (cudaMallocHost(&pinned, 64 * sizeof(int)) != cudaSuccess) return 2;
  cudaStream_t s;
  cudaStreamCreate(&s);
  Fill<<<1, 64, 0, s>>>(dev);
  cudaMemcpyAsync(pinned, dev, 64 * sizeof(int), cudaMemcpyDeviceToHost, s);
  cudaStreamSynchronize(s);  // the copy has written the buffer
  long sum = 0;
  for (int i = 0; i < 64; ++i) sum += pinned[i];
  cudaStreamSynchronize(s);
  std::printf("sum %ld\n", sum);
  std::printf(sum == 6048 ? "PASS\n" : "FAIL\n");
  std::printf("done\n");
  cudaStreamDestroy(s);
  cudaFreeHost(pinned);
  cudaFree(dev);
  return 0;
}
