/*@barracuda
{
  "what": "the fix of the bfs flag: threads of two blocks set the global 'changed' flag with atomicExch (atomics never race)",
  "arch": 75,
  "expect": {
    "its": {"verdict": "no-race", "races": []},
    "lockstep": {"verdict": "no-race", "races": []}
  }
}
@*/
// Twin: same_value_flag_interblock_warn.cu.
#include <cstdio>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("CUDA error: %s (%s:%d)\n", cudaGetErrorString(e_), __FILE__, __LINE__); return 2; } } while (0)

__global__ void Relax(const int *dist_in, int *dist_out, int *changed) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int d = dist_in[i];
  int nd = d > 0 ? d - 1 : 0;
  dist_out[i] = nd;
  if (nd != d) atomicExch(changed, 1);
}

int main() {
  int h[64];
  for (int i = 0; i < 64; ++i) h[i] = i % 3;
  int *d_in, *d_out, *d_changed;
  CK(cudaMalloc(&d_in, sizeof(h)));
  CK(cudaMalloc(&d_out, sizeof(h)));
  CK(cudaMalloc(&d_changed, sizeof(int)));
  CK(cudaMemcpy(d_in, h, sizeof(h), cudaMemcpyHostToDevice));
  CK(cudaMemset(d_changed, 0, sizeof(int)));
  Relax<<<2, 32>>>(d_in, d_out, d_changed);
  CK(cudaGetLastError());
  int c, r[64];
  CK(cudaMemcpy(&c, d_changed, sizeof(int), cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(r, d_out, sizeof(r), cudaMemcpyDeviceToHost));
  if (c != 1) { std::printf("FAIL changed=%d\n", c); return 1; }
  for (int i = 0; i < 64; ++i)
    if (r[i] != (h[i] > 0 ? h[i] - 1 : 0)) { std::printf("FAIL dist[%d]=%d\n", i, r[i]); return 1; }
  std::printf("PASS\n");
  return 0;
}
