/*@barracuda
{
  "what": "the bfs bug of paper \u00a76.3: threads of two blocks set a global 'changed' flag to the same value 1: unordered writes, a race by the PTX model; both stored 1, so barracuda reports them as same-value warnings (within the warp instruction and across the blocks), not as a data race",
  "arch": 75,
  "expect": {
    "its": {"verdict": "no-race", "races": [
      {"kind": "SAME_VALUE", "space": "global", "class": "inter-block", "lines": [29, 29]},
      {"kind": "SAME_VALUE", "space": "global", "class": "intra-warp", "lines": [29, 29]}
    ]},
    "lockstep": {"verdict": "no-race", "races": [
      {"kind": "SAME_VALUE", "space": "global", "class": "inter-block", "lines": [29, 29]},
      {"kind": "SAME_VALUE", "space": "global", "class": "intra-warp", "lines": [29, 29]}
    ]}
  }
}
@*/
// Twin: same_value_flag_atomic_ok.cu. One warp per block, so the only unfiltered pairs
// are between the two blocks' store instructions.
#include <cstdio>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("CUDA error: %s (%s:%d)\n", cudaGetErrorString(e_), __FILE__, __LINE__); return 2; } } while (0)

__global__ void Relax(const int *dist_in, int *dist_out, int *changed) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int d = dist_in[i];
  int nd = d > 0 ? d - 1 : 0;
  dist_out[i] = nd;
  if (nd != d)
    *changed = 1;  // @w
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
  int c;
  CK(cudaMemcpy(&c, d_changed, sizeof(int), cudaMemcpyDeviceToHost));
  std::printf("changed=%d (1; the stores race by definition)\n", c);
  return 0;
}
