/*@barracuda
{
  "what": "the host overwrites a page-locked copy source after cudaStreamSynchronize",
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
// Race-free twin of host_overwrites_pinned_source_racy.cu: the host
// synchronises with the stream before it refills the staging buffer.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void Double(int* data) { data[threadIdx.x] *= 2; }

int main() {
  int *dev = nullptr, *src = nullptr;
  if (cudaMalloc(&dev, 64 * sizeof(int)) != cudaSuccess) return 2;
  if (cudaMallocHost(&src, 64 * sizeof(int)) != cudaSuccess) return 2;
  cudaStream_t s;
  cudaStreamCreate(&s);
  for (int i = 0; i < 64; ++i) src[i] = i;
  cudaMemcpyAsync(dev, src, 64 * sizeof(int), cudaMemcpyHostToDevice, s);
  Double<<<1, 64, 0, s>>>(dev);
  cudaStreamSynchronize(s);  // the copy has read the buffer
  for (int i = 0; i < 64; ++i) src[i] = -1;  // the next batch
  int out[64];
  cudaMemcpy(out, dev, sizeof out, cudaMemcpyDeviceToHost);
  long sum = 0;
  for (int i = 0; i < 64; ++i) sum += out[i];
  std::printf("sum %ld\n", sum);
  std::printf(sum == 4032 ? "PASS\n" : "FAIL\n");
  std::printf("done\n");
  cudaStreamDestroy(s);
  cudaFreeHost(src);
  cudaFree(dev);
  return 0;
}
