/*@barracuda
{
  "what": "shared-memory tree reduction inside a cg::tiled_partition<32> tile with tile.sync() only before the loop, not between the halving steps: lane r reads the partial sum lane r+off stored one step earlier (a RAW under independent thread scheduling, class divergence: at the load, lane r+off is on the skipped side of the open if (r < off); ordered in lockstep)",
  "arch": 75,
  "expect": {
    "its": {"verdict": "race", "races": [
      {"kind": "RAW", "space": "shared", "class": "divergence", "lines": [36, 36]}
    ]},
    "lockstep": {"verdict": "no-race", "races": []}
  }
}
@*/
// 2 blocks x 128 threads, four 32-thread tiles per block, each reducing its own 32-slot
// slice of shared memory. The tile.sync() that must follow every step is missing, so
// nothing orders lane r+off's store of step k with lane r's load in step k+1. In the
// lockstep model the warp executes each step's loads and stores together, in order.
// Class: when lane r loads s[r + off] (step k+1), lane r+off, which stored it in step k,
// is on the other side of the open branch if (r < off) of step k+1 (SEMANTICS.md:
// "the two lanes were on different sides of an open if/else of that warp").
#include <cooperative_groups.h>
#include <cstdio>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("CUDA error: %s (%s:%d)\n", cudaGetErrorString(e_), __FILE__, __LINE__); return 2; } } while (0)
namespace cg = cooperative_groups;

__global__ void TileSums(const int *in, int *out) {
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);
  __shared__ int buf[128];
  int *s = buf + tile.meta_group_rank() * 32;
  int r = tile.thread_rank();
  s[r] = in[blockIdx.x * 128 + threadIdx.x];
  tile.sync();
  for (int off = 16; off > 0; off /= 2) {
    if (r < off)
      s[r] += s[r + off];
    // BUG: missing tile.sync()
  }
  if (r == 0) out[blockIdx.x * 4 + tile.meta_group_rank()] = s[0];
}

int main() {
  int h[256], want[8] = {0}, got[8];
  for (int i = 0; i < 256; ++i) { h[i] = i % 11; want[i / 32] += h[i]; }
  int *d_in, *d_out;
  CK(cudaMalloc(&d_in, sizeof(h)));
  CK(cudaMalloc(&d_out, sizeof(got)));
  CK(cudaMemcpy(d_in, h, sizeof(h), cudaMemcpyHostToDevice));
  TileSums<<<2, 128>>>(d_in, d_out);
  CK(cudaGetLastError());
  CK(cudaMemcpy(got, d_out, sizeof(got), cudaMemcpyDeviceToHost));
  std::printf("tile 0: %d (want %d), tile 7: %d (want %d)\n", got[0], want[0], got[7], want[7]);
  return 0;
}
