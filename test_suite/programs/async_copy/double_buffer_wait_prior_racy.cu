/*@barracuda
{
  "what": "double-buffered tile loop with __pipeline_memcpy_async (cp.async): tile k+1 is prefetched while tile k is used; __pipeline_wait_prior(2) (one stage too early) + __syncthreads before reading tile k: tile k may still be in flight, and the prefetch of tile k+1 is issued while the copy of tile k-1 into the same buffer may be in flight too",
  "arch": 80,
  "expect": {
    "its": {"verdict": "race", "races": [
      {"kind": "RAW", "space": "shared", "class": "async-copy", "lines": [33, 43]},
      {"kind": "RAW", "space": "shared", "class": "async-copy", "lines": [38, 43]},
      {"kind": "WAW", "space": "shared", "class": "async-copy", "lines": [33, 38]},
      {"kind": "WAW", "space": "shared", "class": "async-copy", "lines": [38, 38]}
    ]},
    "lockstep": {"verdict": "race", "races": [
      {"kind": "RAW", "space": "shared", "class": "async-copy", "lines": [33, 43]},
      {"kind": "RAW", "space": "shared", "class": "async-copy", "lines": [38, 43]},
      {"kind": "WAW", "space": "shared", "class": "async-copy", "lines": [33, 38]},
      {"kind": "WAW", "space": "shared", "class": "async-copy", "lines": [38, 38]}
    ]}
  }
}
@*/
// Needs sm_80 (cp.async): build with -gencode arch=compute_80,code=[sm_80,compute_80].
// Block b sums, per thread t, the elements t+1 (mod 128) of the 8 tiles of row b.
#include <cstdio>
#include <cuda_pipeline.h>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("CUDA error: %s (%s:%d)\n", cudaGetErrorString(e_), __FILE__, __LINE__); return 2; } } while (0)
constexpr int kTile = 128, kTiles = 8;

__global__ void Kernel(const int *in, int *out) {
  __shared__ int buf[2][kTile];
  const int t = threadIdx.x;
  const int *row = in + blockIdx.x * kTile * kTiles;
  __pipeline_memcpy_async(&buf[0][t], &row[t], sizeof(int));
  __pipeline_commit();
  int sum = 0;
  for (int k = 0; k < kTiles; ++k) {
    if (k + 1 < kTiles) {
      __pipeline_memcpy_async(&buf[(k + 1) % 2][t], &row[(k + 1) * kTile + t], sizeof(int));
    }
    __pipeline_commit();
    __pipeline_wait_prior(2);  // BUG: one stage too early: tile k may still be in flight
    __syncthreads();
    sum += buf[k % 2][(t + 1) % kTile];
    __syncthreads();  // tile k is read before iteration k+1 prefetches into its buffer
  }
  out[blockIdx.x * kTile + t] = sum;
}

int main() {
  const int blocks = 2, n = blocks * kTile * kTiles;
  static int h[n];
  int *in, *out, o[blocks * kTile];
  for (int i = 0; i < n; ++i) h[i] = i % 1000;
  CK(cudaMalloc(&in, sizeof(h)));
  CK(cudaMalloc(&out, sizeof(o)));
  CK(cudaMemcpy(in, h, sizeof(h), cudaMemcpyHostToDevice));
  Kernel<<<blocks, kTile>>>(in, out);
  CK(cudaGetLastError());
  CK(cudaMemcpy(o, out, sizeof(o), cudaMemcpyDeviceToHost));
  std::printf("done\n");
  return 0;
}
