/*@barracuda
{
  "what": "the host reads page-locked memory that a cudaMemcpyAsync into it may not have written yet",
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
// Seeded bug; twin: host_reads_pinned_before_copy_sync_ok.cu. A kernel fills
// device memory and cudaMemcpyAsync copies it back into page-locked memory on
// the same stream; the host sums the buffer without synchronising first. The
// call only queues the copy: its DMA writes the buffer whenever the stream gets
// to it (cudaStreamSynchronize of the stream orders the two).
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
