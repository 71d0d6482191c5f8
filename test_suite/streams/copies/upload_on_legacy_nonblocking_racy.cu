/*@barracuda
{
  "what": "an upload on the legacy stream and a kernel on a non-blocking stream that reads it",
  "arch": 75,
  "expect": {
    "its": {
      "verdict": "race",
      "races": [],
      "stream_order_races": [
        {
          "lines": [
            49,
            40
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
            49,
            40
          ]
        }
      ]
    }
  }
}
@*/
// Twin: upload_on_legacy_nonblocking_ok.cu. The input is uploaded with
// cudaMemcpyAsync on the legacy default stream (stream 0) and read by a kernel
// on a stream created with cudaStreamNonBlocking: such a stream does not wait
// for the legacy stream, so the kernel may read the input before it arrives.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void Square(const int* in, int* out) { out[threadIdx.x] = in[threadIdx.x] * in[threadIdx.x]; }

int main() {
  int *in = nullptr, *out = nullptr;
  if (cudaMalloc(&in, 32 * sizeof(int)) != cudaSuccess || cudaMalloc(&out, 32 * sizeof(int)) != cudaSuccess) return 2;
  static int host[32];
  for (int i = 0; i < 32; ++i) host[i] = i;
  cudaStream_t work;
  cudaStreamCreateWithFlags(&work, cudaStreamNonBlocking);
  cudaMemcpyAsync(in, host, sizeof host, cudaMemcpyHostToDevice, 0);
  Square<<<1, 32, 0, work>>>(in, out);
  cudaDeviceSynchronize();
  std::printf("done\n");
  return 0;
}
