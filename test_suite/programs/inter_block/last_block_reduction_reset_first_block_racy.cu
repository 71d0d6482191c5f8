/*@barracuda
{
  "what": "ticket counter reset by the block that drew the FIRST ticket: its plain store is ordered after the atomicInc it read, but not before the later blocks' atomicInc, which read the plain value (a weak write starts no observation chain)",
  "arch": 75,
  "expect": {
    "its": {"verdict": "race", "races": [
      {"kind": "ATOMIC_PLAIN", "space": "global", "class": "inter-block", "lines": [24, 26]}
    ]},
    "lockstep": {"verdict": "race", "races": [
      {"kind": "ATOMIC_PLAIN", "space": "global", "class": "inter-block", "lines": [24, 26]}
    ]}
  }
}
@*/
// A misplaced reset of the sample's ticket counter: the block with ticket 0
// resets it, while later blocks still take tickets. Twin:
// last_block_reduction_reset_ok.cu.
#include <cstdio>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("CUDA error: %s (%s:%d)\n", cudaGetErrorString(e_), __FILE__, __LINE__); return 2; } } while (0)

__global__ void Tickets(unsigned *retired, unsigned *tickets) {
  if (threadIdx.x != 0) return;
  unsigned ticket = atomicInc(retired, gridDim.x);
  tickets[blockIdx.x] = ticket;
  if (ticket == 0) *retired = 0;
}

int main() {
  const int blocks = 4;
  unsigned *d_retired, *d_tickets;
  CK(cudaMalloc(&d_retired, sizeof(unsigned)));
  CK(cudaMalloc(&d_tickets, blocks * sizeof(unsigned)));
  CK(cudaMemset(d_retired, 0, sizeof(unsigned)));
  Tickets<<<blocks, 32>>>(d_retired, d_tickets);
  CK(cudaGetLastError());
  unsigned h[blocks];
  CK(cudaMemcpy(h, d_tickets, sizeof(h), cudaMemcpyDeviceToHost));
  std::printf("tickets %u %u %u %u\n", h[0], h[1], h[2], h[3]);
  return 0;
}
