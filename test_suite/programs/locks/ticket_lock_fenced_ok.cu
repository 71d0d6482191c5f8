/*@barracuda
{
  "what": "ticket lock: atomicAdd takes a ticket, poll a volatile now-serving word then __threadfence (acquire), __threadfence then store ticket+1 (release)",
  "arch": 75,
  "expect": {
    "its": {"verdict": "no-race", "races": []},
    "lockstep": {"verdict": "no-race", "races": []}
  }
}
@*/
// Twin: ticket_lock_no_fence_racy.cu. The ticket counter sees only atomics; the
// now-serving word sees only synchronisation accesses.
#include <cstdio>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("CUDA error: %s (%s:%d)\n", cudaGetErrorString(e_), __FILE__, __LINE__); return 2; } } while (0)

__global__ void Increment(int *counter, int *next_ticket, volatile int *serving) {
  if (threadIdx.x != 0) return;
  int my = atomicAdd(next_ticket, 1);
  while (*serving != my) {
  }
  __threadfence();
  int v = *counter;
  *counter = v + 1;
  __threadfence();
  *serving = my + 1;
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
  if (h != 4) { std::printf("FAIL counter=%d\n", h); return 1; }
  std::printf("PASS\n");
  return 0;
}
