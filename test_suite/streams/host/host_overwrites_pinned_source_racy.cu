/*@barracuda
{
  "what": "the host overwrites page-locked memory that a cudaMemcpyAsync from it may still be reading",
  "arch": 75,
  "expect": {
    "its": {
      "verdict": "race",
      "races": [],
      "stream_order_races": [
        {
          "lines": [
            50,
            52
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
            50,
            52
          ]
        }
      ]
    }
  }
}
@*/
// Seeded bug; twin: host_overwrites_pinned_source_ok.cu. The host fills a
// page-locked staging buffer, queues cudaMemcpyAsync from it to the device and
// a kernel on a stream, then refills the buffer for the next batch without
// synchronising: the copy may not have read it yet, so the kernel can see the
// new batch (cudaStreamSynchronize of the stream orders the two).
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
