/*@barracuda
{
  "what": "spin-lock in shared memory between warps without fences: the critical sections on the shared total race (intra-block)",
  "arch": 75,
  "expect": {
    "its": {"verdict": "race", "races": [
      {"kind": "RAW", "space": "shared", "class": "intra-block", "lines": [32, 31]},
      {"kind": "WAW", "space": "shared", "class": "intra-block", "lines": [32, 32]}
    ]},
    "lockstep": {"verdict": "race", "races": [
      {"kind": "RAW", "space": "shared", "class": "intra-block", "lines": [32, 31]},
      {"kind": "WAW", "space": "shared", "class": "intra-block", "lines": [32, 32]}
    ]}
  }
}
@*/
// Twin: shared_lock_block_fence_ok.cu.
#include <cstdio>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("CUDA error: %s (%s:%d)\n", cudaGetErrorString(e_), __FILE__, __LINE__); return 2; } } while (0)

__global__ void Kernel(const int *in, int *out) {
  __shared__ int mutex;
  __shared__ int total;
  int t = threadIdx.x;
  if (t == 0) { mutex = 0; total = 0; }
  __syncthreads();
  if (t % 32 == 0) {
    while (atomicCAS(&mutex, 0, 1) != 0) {
    }
    int v = total;  // @r
    total = v + in[t / 32];  // @w
    atomicExch(&mutex, 0);
  }
  __syncthreads();
  if (t == 0) *out = total;
}

int main() {
  int h[4] = {1, 2, 3, 4};
  int *d_in, *d_out;
  CK(cudaMalloc(&d_in, sizeof(h)));
  CK(cudaMalloc(&d_out, sizeof(int)));
  CK(cudaMemcpy(d_in, h, sizeof(h), cudaMemcpyHostToDevice));
  Kernel<<<1, 128>>>(d_in, d_out);
  CK(cudaGetLastError());
  int r;
  CK(cudaMemcpy(&r, d_out, sizeof(int), cudaMemcpyDeviceToHost));
  std::printf("total=%d (want 10; racy)\n", r);
  return 0;
}
