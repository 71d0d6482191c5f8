/*@barracuda
{
  "what": "cub::BlockRadixSort then cub::BlockScan on one union of TempStorage WITHOUT the __syncthreads CUB requires between them: the scan's warp-aggregate stores race with the other warps' last reads of the sort's exchange buffer (WAR)",
  "arch": 75,
  "expect": {
    "its": {"verdict": "race", "races": [
      {"kind": "WAR", "space": "shared", "class": "intra-block", "lines": [36, 38]}
    ]},
    "lockstep": {"verdict": "race", "races": [
      {"kind": "WAR", "space": "shared", "class": "intra-block", "lines": [36, 38]}
    ]}
  }
}
@*/
// One block of 128 threads, 4 keys each. BlockRadixSort ends by scattering the keys into
// its exchange buffer, __syncthreads, and every thread reading its 4 sorted keys back
// (blocked). BlockScan (BLOCK_SCAN_WARP_SCANS) first has lane 31 of each warp store the
// warp's aggregate into the same bytes (the union). Without a __syncthreads between the
// two calls those stores race with the reads of threads in other warps. Both accesses
// are CUB code inlined into this file, so the lines are those of the two calls.
#include <cub/cub.cuh>
#include <cstdio>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("CUDA error: %s (%s:%d)\n", cudaGetErrorString(e_), __FILE__, __LINE__); return 2; } } while (0)

using Sort = cub::BlockRadixSort<int, 128, 4>;
using Scan = cub::BlockScan<int, 128, cub::BLOCK_SCAN_WARP_SCANS>;

__global__ void SortThenScan(const int *in, int *out) {
  __shared__ union {
    typename Sort::TempStorage sort;
    typename Scan::TempStorage scan;
  } temp;
  int items[4];
  cub::LoadDirectBlocked(threadIdx.x, in, items);
  Sort(temp.sort).Sort(items);
  // BUG: missing __syncthreads() before the union is reused
  Scan(temp.scan).ExclusiveSum(items, items);
  cub::StoreDirectBlocked(threadIdx.x, out, items);
}

int main() {
  int h[512];
  for (int i = 0; i < 512; ++i) h[i] = (i * 7919) % 1000;
  int *d_in, *d_out;
  CK(cudaMalloc(&d_in, sizeof(h)));
  CK(cudaMalloc(&d_out, sizeof(h)));
  CK(cudaMemcpy(d_in, h, sizeof(h), cudaMemcpyHostToDevice));
  SortThenScan<<<1, 128>>>(d_in, d_out);
  CK(cudaGetLastError());
  CK(cudaMemcpy(h, d_out, sizeof(h), cudaMemcpyDeviceToHost));
  std::printf("prefix sums of the sorted keys: %d %d ... %d\n", h[0], h[1], h[511]);
  return 0;
}
