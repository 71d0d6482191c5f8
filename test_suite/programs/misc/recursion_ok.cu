/*@barracuda
{
  "what": "the same recursive descent with the path taken from blockIdx.x: every block reaches its own leaf",
  "arch": 75,
  "expect": {
    "its": {"verdict": "no-race", "races": []},
    "lockstep": {"verdict": "no-race", "races": []}
  }
}
@*/
// Twin: recursion_racy.cu.
#include <cstdio>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("CUDA error: %s (%s:%d)\n", cudaGetErrorString(e_), __FILE__, __LINE__); return 2; } } while (0)

// Not a tail call: the result is combined after the call returns, so nvcc keeps a real
// recursive call (check the PTX: call.uni Descend inside Descend).
__device__ __noinline__ int Descend(int *tree, int node, int depth, int path, int value) {
  if (depth == 0) {
    tree[node] = value;
    return node;
  }
  int child = 2 * node + 1 + (path & 1);
  int leaf = Descend(tree, child, depth - 1, path >> 1, value);
  return leaf * 3 + node - 2 * leaf;  // == leaf + node
}

__global__ void Kernel(int *tree) {
  if (threadIdx.x == 0) tree[15 + blockIdx.x] = Descend(tree, 0, 3, blockIdx.x, blockIdx.x + 1);
}

int main() {
  int *d;
  CK(cudaMalloc(&d, 19 * sizeof(int)));
  CK(cudaMemset(d, 0, 19 * sizeof(int)));
  Kernel<<<4, 32>>>(d);
  CK(cudaGetLastError());
  int h[19];
  CK(cudaMemcpy(h, d, sizeof(h), cudaMemcpyDeviceToHost));
  // path bits are consumed LSB first: block b reaches leaf 7 + bitreverse3(b)
  const int leaf[4] = {7, 11, 9, 13};
  for (int b = 0; b < 4; ++b)
    if (h[leaf[b]] != b + 1) { std::printf("FAIL leaf of block %d = %d\n", b, h[leaf[b]]); return 1; }
  std::printf("PASS\n");
  return 0;
}
