/*@barracuda
{
  "what": "dynamic parallelism: each block of the parent launches a child grid from device code; the child sums its tile in shared memory with the __syncthreads after the first store missing: inter-warp RAW on shared memory inside each child grid",
  "arch": 75,
  "nvcc_flags": "-rdc=true -lcudadevrt",
  "expect": {
    "its": {"verdict": "race", "races": [
      {"kind": "RAW", "space": "shared", "class": "intra-block", "lines": [30, 32]}
    ]},
    "lockstep": {"verdict": "race", "races": [
      {"kind": "RAW", "space": "shared", "class": "intra-block", "lines": [30, 32]}
    ]}
  }
}
@*/
// Twin: child_grid_tile_sum_ok.cu. The parent fills its block's slice, one
// thread launches the child (<<<>>> in device code: CUDA's device runtime,
// -rdc=true -lcudadevrt), which writes its slice's sum; the host checks every
// sum. The children run after their parent (one of the executions CDP allows).
// barracuda-corpus: flags -rdc=true
#include <cstdio>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("CUDA error: %s (%s:%d)\n", cudaGetErrorString(e_), __FILE__, __LINE__); return 2; } } while (0)

constexpr int kTile = 64;

__global__ void TileSum(const int *in, int *sum) {
  __shared__ int s[kTile];
  int t = threadIdx.x;
  s[t] = in[t];  // no __syncthreads: the first step reads a neighbour warp's store
  for (int stride = kTile / 2; stride > 0; stride /= 2) {
    if (t < stride) s[t] += s[t + stride];
    __syncthreads();
  }
  if (t == 0) *sum = s[0];
}

__global__ void Parent(int *data, int *sums) {
  int *slice = data + blockIdx.x * kTile;
  slice[threadIdx.x] = blockIdx.x * 100 + threadIdx.x;
  __syncthreads();
  if (threadIdx.x == 0) TileSum<<<1, kTile>>>(slice, sums + blockIdx.x);
}

int main() {
  const int blocks = 8;
  int *d_data, *d_sums;
  CK(cudaMalloc(&d_data, blocks * kTile * sizeof(int)));
  CK(cudaMalloc(&d_sums, blocks * sizeof(int)));
  CK(cudaMemset(d_sums, 0, blocks * sizeof(int)));
  Parent<<<blocks, kTile>>>(d_data, d_sums);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  int h[blocks];
  CK(cudaMemcpy(h, d_sums, sizeof h, cudaMemcpyDeviceToHost));
  bool ok = true;
  for (int b = 0; b < blocks; ++b) {
    int want = 0;
    for (int t = 0; t < kTile; ++t) want += b * 100 + t;
    if (h[b] != want) { std::printf("block %d: %d, want %d\n", b, h[b], want); ok = false; }
  }
  std::printf("%s\n", ok ? "PASS" : "FAIL");
  return 0;  // racy: the sums depend on the schedule
}
