/*@barracuda
{
  "what": "extern __shared__ (dynamic shared memory) RAW between warps without __syncthreads",
  "arch": 75,
  "expect": {
    "its": {"verdict": "race", "races": [
      {"kind": "RAW", "space": "shared", "class": "intra-block", "lines": [24, 25]}
    ]},
    "lockstep": {"verdict": "race", "races": [
      {"kind": "RAW", "space": "shared", "class": "intra-block", "lines": [24, 25]}
    ]}
  }
}
@*/
// Twin: dynamic_shared_ok.cu. 128 threads, 4 warps; thread t reads the slot of
// thread (t + 32) % 128, i.e. the next warp's.
#include <cstdio>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("CUDA error: %s (%s:%d)\n", cudaGetErrorString(e_), __FILE__, __LINE__); return 2; } } while (0)

__global__ void Kernel(float *out) {
  extern __shared__ float buf[];
  int t = threadIdx.x;
  buf[t] = t + 0.5f;  // @w
  float v = buf[(t + 32) % blockDim.x];  // @r
  out[t] = v;
}

int main() {
  float *d_out;
  CK(cudaMalloc(&d_out, 128 * sizeof(float)));
  Kernel<<<1, 128, 128 * sizeof(float)>>>(d_out);
  CK(cudaGetLastError());
  float h[128];
  CK(cudaMemcpy(h, d_out, sizeof(h), cudaMemcpyDeviceToHost));
  std::printf("out[0]=%f (racy)\n", h[0]);
  return 0;
}
