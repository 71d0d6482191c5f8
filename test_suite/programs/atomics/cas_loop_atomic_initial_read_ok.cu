/*@barracuda
{
  "what": "float atomicMax from an atomicCAS loop whose first read is itself atomic (atomicOr with 0): only atomics touch the target",
  "arch": 75,
  "expect": {
    "its": {"verdict": "no-race", "races": []},
    "lockstep": {"verdict": "no-race", "races": []}
  }
}
@*/
// Twin: cas_loop_plain_initial_read_racy.cu.
#include <cstdio>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("CUDA error: %s (%s:%d)\n", cudaGetErrorString(e_), __FILE__, __LINE__); return 2; } } while (0)

__device__ float AtomicMaxFloat(float *addr, float value) {
  int *p = reinterpret_cast<int *>(addr);
  int old = atomicOr(p, 0);
  int assumed;
  do {
    assumed = old;
    if (__int_as_float(assumed) >= value) break;
    old = atomicCAS(p, assumed, __float_as_int(value));
  } while (assumed != old);
  return __int_as_float(old);
}

__global__ void Kernel(const float *in, float *result) {
  if (threadIdx.x == 0) AtomicMaxFloat(result, in[blockIdx.x]);
}

int main() {
  float h[4] = {1.5f, 7.25f, 3.0f, 6.0f}, zero = 0.0f;
  float *d_in, *d_res;
  CK(cudaMalloc(&d_in, sizeof(h)));
  CK(cudaMalloc(&d_res, sizeof(float)));
  CK(cudaMemcpy(d_in, h, sizeof(h), cudaMemcpyHostToDevice));
  CK(cudaMemcpy(d_res, &zero, sizeof(float), cudaMemcpyHostToDevice));
  Kernel<<<4, 32>>>(d_in, d_res);
  CK(cudaGetLastError());
  float r;
  CK(cudaMemcpy(&r, d_res, sizeof(float), cudaMemcpyDeviceToHost));
  if (r != 7.25f) { std::printf("FAIL max=%f\n", r); return 1; }
  std::printf("PASS\n");
  return 0;
}
