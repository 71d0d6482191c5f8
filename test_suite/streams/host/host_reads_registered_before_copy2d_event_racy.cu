/*@barracuda
{
  "what": "the host reads registered memory that a cudaMemcpy2DAsync into it may not have written yet",
  "arch": 75,
  "expect": {
    "its": {
      "verdict": "race",
      "races": [],
      "stream_order_races": [
        {
          "lines": [
            60,
            64
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
            60,
            64
          ]
        }
      ]
    }
  }
}
@*/
// Seeded bug; twin: host_reads_registered_before_copy2d_event_ok.cu. A kernel
// fills a pitched device matrix and cudaMemcpy2DAsync copies it into part of a
// cudaHostRegister'd host matrix; the host sums it without waiting for the
// event recorded after the copy (cudaEventSynchronize orders the two).
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

__global__ void Fill(int* data, size_t pitch) {
  int* row = reinterpret_cast<int*>(reinterpret_cast<char*>(data) + blockIdx.x * pitch);
  row[threadIdx.x] = blockIdx.x + threadIdx.x;
}

int main() {
  // A 16x32 int matrix, copied into the left half of a 16x64 host matrix.
  int* host = static_cast<int*>(std::aligned_alloc(4096, 16 * 64 * sizeof(int)));
  if (host == nullptr) return 2;
  for (int i = 0; i < 16 * 64; ++i) host[i] = 0;
  if (cudaHostRegister(host, 16 * 64 * sizeof(int), cudaHostRegisterDefault) != cudaSuccess) return 2;
  int* dev = nullptr;
  size_t pitch = 0;
  if (cudaMallocPitch(&dev, &pitch, 32 * sizeof(int), 16) != cudaSuccess) return 2;
  cudaStream_t s;
  cudaStreamCreate(&s);
  cudaEvent_t copied;
  cudaEventCreate(&copied);
  Fill<<<16, 32, 0, s>>>(dev, pitch);
  cudaMemcpy2DAsync(host, 64 * sizeof(int), dev, pitch, 32 * sizeof(int), 16, cudaMemcpyDeviceToHost, s);
  cudaEventRecord(copied, s);
  long sum = 0;
  for (int r = 0; r < 16; ++r)
    for (int c = 0; c < 32; ++c) sum += host[r * 64 + c];
  cudaStreamSynchronize(s);
  std::printf("sum %ld\n", sum);
  std::printf(sum == 11776 ? "PASS\n" : "FAIL\n");
  std::printf("done\n");
  cudaEventDestroy(copied);
  cudaStreamDestroy(s);
  cudaHostUnregister(host);
  std::free(host);
  cudaFree(dev);
  return 0;
}
