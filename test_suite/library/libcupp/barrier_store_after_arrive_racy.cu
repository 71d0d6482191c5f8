/*@barracuda
{
  "what": "split arrive/wait on a cuda::barrier<thread_scope_block> in shared memory with the published store placed between arrive() and wait(): the barrier orders only what precedes arrive(), so another warp's load after its wait() races with the store (RAW)",
  "arch": 75,
  "expect": {
    "its": {"verdict": "race", "races": [
      {"kind": "RAW", "space": "shared", "class": "intra-block", "lines": [33, 35]}
    ]},
    "lockstep": {"verdict": "race", "races": [
      {"kind": "RAW", "space": "shared", "class": "intra-block", "lines": [33, 35]}
    ]}
  }
}
@*/
// 1 block x 128 threads: thread t arrives, stores slot[t], waits for the phase, then
// loads slot[(t + 64) % 128] (a thread two warps away). Overlapping independent work
// with the barrier phase is what split arrive/wait is for, but the data that the other
// threads read after wait() must be stored before arrive(). Nothing after the store
// releases it (wait() only acquires), whatever the schedule.
#include <cuda/barrier>
#include <utility>
#include <cstdio>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("CUDA error: %s (%s:%d)\n", cudaGetErrorString(e_), __FILE__, __LINE__); return 2; } } while (0)

__global__ void Publish(int *out) {
  __shared__ cuda::barrier<cuda::thread_scope_block> bar;
  __shared__ int slot[128];
  int t = threadIdx.x;
  if (t == 0) init(&bar, blockDim.x);
  __syncthreads();
  auto token = bar.arrive();
  slot[t] = t * 9;  // BUG: must come before arrive()
  bar.wait(std::move(token));
  out[t] = slot[(t + 64) % 128];
}

int main() {
  int *d_out, h[128];
  CK(cudaMalloc(&d_out, sizeof(h)));
  Publish<<<1, 128>>>(d_out);
  CK(cudaGetLastError());
  CK(cudaMemcpy(h, d_out, sizeof(h), cudaMemcpyDeviceToHost));
  std::printf("out[0] = %d (want 576)\n", h[0]);
  return 0;
}
