/*@barracuda
{
  "what": "thread 0 initialises a shared accumulator with a plain store, __syncthreads, then every thread atomicAdds, __syncthreads, then thread 0 reads it plainly",
  "arch": 75,
  "expect": {
    "its": {"verdict": "no-race", "races": []},
    "lockstep": {"verdict": "no-race", "races": []}
  }
}
@*/
#include <cstdio>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("CUDA error: %s (%s:%d)\n", cudaGetErrorString(e_), __FILE__, __LINE__); return 2; } } while (0)

__global__ void Kernel(const int *in, int *out) {
  __shared__ int acc;
  if (threadIdx.x == 0) acc = 5;
  __syncthreads();
  atomicAdd(&acc, in[threadIdx.x]);
  __syncthreads();
  if (threadIdx.x == 0) *out = acc;
}

int main() {
  int h[96];
  for (int i = 0; i < 96; ++i) h[i] = 1;
  int *d_in, *d_out;
  CK(cudaMalloc(&d_in, sizeof(h)));
  CK(cudaMalloc(&d_out, sizeof(int)));
  CK(cudaMemcpy(d_in, h, sizeof(h), cudaMemcpyHostToDevice));
  Kernel<<<1, 96>>>(d_in, d_out);
  CK(cudaGetLastError());
  int r;
  CK(cudaMemcpy(&r, d_out, sizeof(int), cudaMemcpyDeviceToHost));
  if (r != 101) { std::printf("FAIL acc=%d\n", r); return 1; }
  std::printf("PASS\n");
  return 0;
}
