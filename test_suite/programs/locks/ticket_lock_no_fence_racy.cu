/*@barracuda
{
  "what": "ticket lock without fences: the now-serving word is volatile, i.e. strong (.relaxed.sys in the PTX memory model), so its accesses do not race with each other, but nothing is ordered and the critical sections race",
  "arch": 75,
  "expect": {
    "its": {"verdict": "race", "races": [
      {"kind": "RAW", "space": "global", "class": "inter-block", "lines": [31, 30]},
      {"kind": "WAW", "space": "global", "class": "inter-block", "lines": [31, 31]}
    ]},
    "lockstep": {"verdict": "race", "races": [
      {"kind": "RAW", "space": "global", "class": "inter-block", "lines": [31, 30]},
      {"kind": "WAW", "space": "global", "class": "inter-block", "lines": [31, 31]}
    ]}
  }
}
@*/
// Twin: ticket_lock_fenced_ok.cu. Nothing synchronises. The owners' volatile stores to
// serving (@sw) and the polling loads (@sr) are strong and morally strong (no race,
// wave 2; the paper counted them as plain and racing), but without fences they order
// nothing, so the critical sections race as in the unfenced spin-lock.
#include <cstdio>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("CUDA error: %s (%s:%d)\n", cudaGetErrorString(e_), __FILE__, __LINE__); return 2; } } while (0)

__global__ void Increment(int *counter, int *next_ticket, volatile int *serving) {
  if (threadIdx.x != 0) return;
  int my = atomicAdd(next_ticket, 1);
  while (*serving != my) {  // @sr
  }
  int v = *counter;  // @r
  *counter = v + 1;  // @w
  *serving = my + 1;  // @sw
}

int main() {
  int *dc, *dt, *ds;
  CK(cudaMalloc(&dc, sizeof(int)));
  CK(cudaMalloc(&dt, sizeof(int)));
  CK(cudaMalloc(&ds, sizeof(int)));
  CK(cudaMemset(dc, 0, sizeof(int)));
  CK(cudaMemset(dt, 0, sizeof(int)));
  CK(cudaMemset(ds, 0, sizeof(int)));
  Increment<<<4, 32>>>(dc, dt, ds);
  CK(cudaGetLastError());
  int h;
  CK(cudaMemcpy(&h, dc, sizeof(int), cudaMemcpyDeviceToHost));
  std::printf("counter=%d (want 4; racy)\n", h);
  return 0;
}
