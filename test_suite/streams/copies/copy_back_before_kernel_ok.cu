/*@barracuda
{
  "what": "the transfer stream waits for the compute stream's event",
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
// Twin: copy_back_before_kernel_racy.cu: the transfer stream waits for the
// compute stream's event before copying back.
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
  cudaEvent_t scaled;
  cudaEventCreate(&scaled);
  Scale<<<1, 64, 0, compute>>>(data, 2.0f);
  cudaEventRecord(scaled, compute);
  cudaStreamWaitEvent(transfer, scaled, 0);
  cudaMemcpyAsync(host, data, sizeof host, cudaMemcpyDeviceToHost, transfer);
  if (cudaStreamSynchronize(transfer) != cudaSuccess) return 2;
  for (int i = 0; i < 64; ++i)
    if (host[i] != 2.0f * i) {
      std::printf("FAIL at %d\n", i);
      return 1;
    }
  std::printf("PASS\n");
  return 0;
}
