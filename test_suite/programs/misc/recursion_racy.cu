/*@barracuda
{
  "what": "a recursive device function walks down a binary tree in global memory and stores at the leaf; two blocks reach the same leaf",
  "arch": 75,
  "expect": {
    "its": {"verdict": "race", "races": [
      {"kind": "WAW", "space": "global", "class": "inter-block", "lines": [25, 25]}
    ]},
    "lockstep": {"verdict": "race", "races": [
      {"kind": "WAW", "space": "global", "class": "inter-block", "lines": [25, 25]}
    ]}
  }
}
@*/
// Twin: recursion_ok.cu. Thread 0 of each block descends depth 3 with a path derived
// from blockIdx.x / 2, so blocks 0 and 1 reach the same leaf.
#include <cstdio>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("CUDA error: %s (%s:%d)\n", cudaGetErrorString(e_), __FILE__, __LINE__); return 2; } } while (0)

// Not a tail call: the result is combined after the call returns, so nvcc keeps a real
// recursive call (check the PTX: call.uni Descend inside Descend).
__device__ __noinline__ int Descend(int *tree, int node, int depth, int path, int value) {
  if (depth == 0) {
    tree[node] = value;  // @w
    return node;
  }
  int child = 2 * node + 1 + (path & 1);
  int leaf = Descend(tree, child, depth - 1, path >> 1, value);
  return leaf * 3 + node - 2 * leaf;  // == leaf + node
}

__global__ void Kernel(int *tree) {
  if (threadIdx.x == 0) tree[15 + blockIdx.x] = Descend(tree, 0, 3, blockIdx.x / 2, blockIdx.x + 1);
}

int main() {
  int *d;
  CK(cudaMalloc(&d, 19 * sizeof(int)));
  CK(cudaMemset(d, 0, 19 * sizeof(int)));
  Kernel<<<2, 32>>>(d);
  CK(cudaGetLastError());
  int h[19];
  CK(cudaMemcpy(h, d, sizeof(h), cudaMemcpyDeviceToHost));
  std::printf("leaf=%d (racy: 1 or 2)\n", h[7]);
  return 0;
}
