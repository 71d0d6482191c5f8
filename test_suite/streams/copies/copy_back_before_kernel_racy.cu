/*@barracuda
{
  "what": "cudaMemcpyAsync on a transfer stream copies back a buffer a compute stream's kernel is still writing",
  "arch": 75,
  "expect": {
    "its": {
      "verdict": "race",
      "races": [],
      "stream_order_races": [
        {
          "lines": [
            40,
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
            40,
            52
          ]
        }
      ]
    }
  }
}
@*/
// Twin: copy_back_before_kernel_ok.cu. The result is copied back with
// cudaMemcpyAsync on a second stream (an overlapped-transfer pattern) without
// waiting for the kernel of the first stream: the copy may read the buffer
// before the kernel has written it.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void Scale(float* data, float factor) { data[threadIdx.x] *= factor; }

int main() {
  float* data = nullptr;
  if (cudaMalloc(&data, 64 * sizeof(float)) != cudaSuccess) return 2;
  static float host[64];
  for (int i = 0; i < 64; ++i) host[i] = static_cast<float>(i);
  cudaMemcpy(data, host, sizeof host, cudaMemcpyHostToDevice);
  cudaStream_t compute, transfer;
  cudaStreamCreate(&compute);
  cudaStreamCreate(&transfer);
  Scale<<<1, 64, 0, compute>>>(data, 2.0f);
  cudaMemcpyAsync(host, data, sizeof host, cudaMemcpyDeviceToHost, transfer);
  cudaDeviceSynchronize();
  std::printf("done\n");
  return 0;
}
