/*@barracuda
{
  "what": "float atomicMax built from an atomicCAS loop whose first read of the target is a PLAIN load: it races with the other blocks' CAS (atomic vs plain)",
  "arch": 75,
  "expect": {
    "its": {"verdict": "race", "races": [
      {"kind": "ATOMIC_PLAIN", "space": "global", "class": "inter-block", "lines": [23, 28]}
    ]},
    "lockstep": {"verdict": "race", "races": [
      {"kind": "ATOMIC_PLAIN", "space": "global", "class": "inter-block", "lines": [23, 28]}
    ]}
  }
}
@*/
// Twin: cas_loop_atomic_initial_read_ok.cu. Thread 0 of each of four blocks updates the
// maximum. No fence follows the CAS, so it is a plain atomic (no acquire).
#include <cstdio>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("CUDA error: %s (%s:%d)\n", cudaGetErrorString(e_), __FILE__, __LINE__); return 2; } } while (0)

__device__ float AtomicMaxFloat(float *addr, float value) {
  int *p = reinterpret_cast<int *>(addr);
  int old = *p;  // @read
  int assumed;
  do {
    assumed = old;
    if (__int_as_float(assumed) >= value) break;
    old = atomicCAS(p, assumed, __float_as_int(value));  // @cas
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
  std::printf("max=%f (7.25; the initial read races by definition)\n", r);
  return 0;
}
