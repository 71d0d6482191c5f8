/*@barracuda
{
  "what": "the same persistent kernel with the barrier's fences left out: the barrier counts and waits but orders nothing, so each phase's reads race with the writes of the phase before",
  "arch": 75,
  "expect": {
    "its": {"verdict": "race", "races": [
      {"kind": "RAW", "space": "global", "class": "inter-block", "lines": [50, 50]}
    ]},
    "lockstep": {"verdict": "race", "races": [
      {"kind": "RAW", "space": "global", "class": "inter-block", "lines": [50, 50]}
    ]}
  }
}
@*/
// The grid is what the device holds at once (cudaOccupancyMaxActiveBlocksPerMultiprocessor
// times multiProcessorCount, as persistent kernels size it), and every block waits for
// every other at each barrier: a block that is not resident would hang the launch.
// Each phase, a block reads what the block half a grid away wrote in the phase before.
// Twin of persistent_grid_barrier_occupancy_ok.cu, without the __threadfence() calls.
#include <cstdio>
#include <vector>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("CUDA error: %s (%s:%d)\n", cudaGetErrorString(e_), __FILE__, __LINE__); return 2; } } while (0)

constexpr int kThreads = 128;
constexpr int kPhases = 3;

__device__ void GridBarrier(unsigned *count, volatile unsigned *generation, unsigned nblocks) {
  __syncthreads();
  if (threadIdx.x == 0) {
    const unsigned gen = *generation;
    if (atomicAdd(count, 1u) == nblocks - 1) {
      atomicExch(count, 0u);
      atomicAdd((unsigned *)generation, 1u);
    } else {
      while (*generation == gen) {
      }
    }
  }
  __syncthreads();
}

__global__ void Persistent(int *buf, unsigned *count, unsigned *generation) {
  const int nb = gridDim.x, b = blockIdx.x;
  const int i = b * blockDim.x + threadIdx.x;
  const int partner = ((b + nb / 2) % nb) * blockDim.x + threadIdx.x;
  for (int p = 0; p < kPhases; ++p) {
    int *cur = buf + (p % 2) * nb * blockDim.x;
    const int *prev = buf + ((p + 1) % 2) * nb * blockDim.x;
    cur[i] = p == 0 ? i : prev[partner] + 1;
    GridBarrier(count, generation, nb);
  }
}

int main() {
  int sms = 0, per_sm = 0;
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, Persistent, kThreads, 0));
  const int blocks = sms * per_sm, n = blocks * kThreads;
  int *d_buf;
  unsigned *d_sync;
  CK(cudaMalloc(&d_buf, 2 * n * sizeof(int)));
  CK(cudaMalloc(&d_sync, 2 * sizeof(unsigned)));
  CK(cudaMemset(d_sync, 0, 2 * sizeof(unsigned)));
  Persistent<<<blocks, kThreads>>>(d_buf, d_sync, d_sync + 1);
  CK(cudaGetLastError());
  std::vector<int> h(2 * n);
  CK(cudaMemcpy(h.data(), d_buf, h.size() * sizeof(int), cudaMemcpyDeviceToHost));
  // Host reference: the same phases.
  std::vector<int> cur(n), prev(n);
  for (int p = 0; p < kPhases; ++p) {
    for (int i = 0; i < n; ++i) {
      const int b = i / kThreads, partner = ((b + blocks / 2) % blocks) * kThreads + i % kThreads;
      cur[i] = p == 0 ? i : prev[partner] + 1;
    }
    std::swap(cur, prev);
  }
  const int *out = h.data() + ((kPhases - 1) % 2) * n;
  for (int i = 0; i < n; ++i)
    if (out[i] != prev[i]) { std::printf("FAIL at %d: %d, expected %d\n", i, out[i], prev[i]); return 1; }
  std::printf("PASS (%d blocks of %d threads)\n", blocks, kThreads);
  return 0;
}
