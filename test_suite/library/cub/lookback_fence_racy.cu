/*@barracuda
{
  "what": "the chained scan of lookback_fence_ok WITHOUT its two __threadfence calls: the volatile flag accesses are strong (relaxed.sys, not a race with each other) but order nothing, so the load of the predecessor's total races with its plain store",
  "arch": 75,
  "expect": {
    "its": {"verdict": "race", "races": [
      {"kind": "RAW", "space": "global", "class": "inter-block", "lines": [45, 43]}
    ]},
    "lockstep": {"verdict": "race", "races": [
      {"kind": "RAW", "space": "global", "class": "inter-block", "lines": [45, 43]}
    ]}
  }
}
@*/
// 8 blocks x 128 threads, one 128-item tile per block. Thread 0 takes a tile number
// from an atomic counter (so tiles are in arrival order and every predecessor is
// running), the block scans its tile with cub::BlockScan, then thread 0 waits for the
// predecessor's flag, reads its inclusive total, publishes its own total and flag:
// the serial version of CUB's decoupled look-back. Under the PTX memory model a
// volatile access is a strong relaxed.sys access: a fence followed by the flag store
// is a release pattern, the flag load followed by a fence an acquire pattern.
#include <cub/cub.cuh>
#include <cstdio>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("CUDA error: %s (%s:%d)\n", cudaGetErrorString(e_), __FILE__, __LINE__); return 2; } } while (0)

constexpr int kTile = 128, kTiles = 8;
using Scan = cub::BlockScan<int, kTile>;

__global__ void ChainedScan(const int *in, int *out, int *total, volatile int *flag, int *ticket) {
  __shared__ typename Scan::TempStorage temp;
  __shared__ int tile, prefix;
  if (threadIdx.x == 0) tile = atomicAdd(ticket, 1);
  __syncthreads();
  int i = tile * kTile + threadIdx.x, y, aggregate;
  Scan(temp).InclusiveSum(in[i], y, aggregate);
  if (threadIdx.x == 0) {
    int p = 0;
    if (tile > 0) {
      while (flag[tile - 1] == 0) {
      }
      // BUG: missing __threadfence()
      p = total[tile - 1];
    }
    total[tile] = p + aggregate;
    // BUG: missing __threadfence()
    flag[tile] = 1;
    prefix = p;
  }
  __syncthreads();
  out[i] = prefix + y;
}

int main() {
  const int n = kTile * kTiles;
  int h[n], got[n];
  for (int i = 0; i < n; ++i) h[i] = (i * 31) % 17 - 5;
  int *d_in, *d_out, *d_total, *d_flag, *d_ticket;
  CK(cudaMalloc(&d_in, sizeof(h)));
  CK(cudaMalloc(&d_out, sizeof(h)));
  CK(cudaMalloc(&d_total, kTiles * sizeof(int)));
  CK(cudaMalloc(&d_flag, kTiles * sizeof(int)));
  CK(cudaMalloc(&d_ticket, sizeof(int)));
  CK(cudaMemset(d_flag, 0, kTiles * sizeof(int)));
  CK(cudaMemset(d_ticket, 0, sizeof(int)));
  CK(cudaMemcpy(d_in, h, sizeof(h), cudaMemcpyHostToDevice));
  ChainedScan<<<kTiles, kTile>>>(d_in, d_out, d_total, d_flag, d_ticket);
  CK(cudaGetLastError());
  CK(cudaMemcpy(got, d_out, sizeof(got), cudaMemcpyDeviceToHost));
  int acc = 0;
  for (int i = 0; i < n; ++i) {
    acc += h[i];
    if (got[i] != acc) {
      std::printf("%s out[%d] = %d, want %d\n", "wrong:", i, got[i], acc);
      return 0;
    }
  }
  std::printf("result correct this time\n");
  return 0;
}
