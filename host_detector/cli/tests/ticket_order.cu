// A CUDA program with a ticket-order assumption: each block takes a ticket
// with atomicAdd and assumes that block b gets ticket b. The emulator's default
// (round-robin) schedule runs the blocks' atomics in block order, so the
// assumption holds there; other interleavings break it. For schedule
// exploration (barracuda --schedules N):
//   race:  a block whose ticket is not its index writes the shared `winner`
//          word with a plain store: a write-write race between blocks, seen
//          only under schedules that reorder the tickets;
//   check: every block stores its ticket, and the host checks the assumption
//          and exits 1 when it fails: a schedule-dependent outcome, no race.
// Built with -lineinfo for sm_75 (cli.cmake).
#include <cstdio>
#include <cstring>

constexpr int kBlocks = 8;

__global__ void TakeTicket(unsigned* counter, unsigned* tickets, unsigned* winner, bool race) {
  if (threadIdx.x != 0) return;
  const unsigned ticket = atomicAdd(counter, 1u);
  if (race) {
    if (ticket != blockIdx.x) *winner = blockIdx.x;  // racy only when tickets are out of order
  } else {
    tickets[blockIdx.x] = ticket;
  }
}

int main(int argc, char** argv) {
  const bool race = argc > 1 && std::strcmp(argv[1], "race") == 0;
  unsigned *counter = nullptr, *tickets = nullptr, *winner = nullptr;
  if (cudaMalloc(&counter, sizeof(unsigned)) != cudaSuccess ||
      cudaMalloc(&tickets, kBlocks * sizeof(unsigned)) != cudaSuccess ||
      cudaMalloc(&winner, sizeof(unsigned)) != cudaSuccess)
    return 2;
  cudaMemset(counter, 0, sizeof(unsigned));
  TakeTicket<<<kBlocks, 32>>>(counter, tickets, winner, race);
  if (cudaDeviceSynchronize() != cudaSuccess) return 2;
  if (race) return 0;
  unsigned host[kBlocks];
  cudaMemcpy(host, tickets, sizeof host, cudaMemcpyDeviceToHost);
  for (int b = 0; b < kBlocks; ++b) {
    if (host[b] != static_cast<unsigned>(b)) {
      std::printf("block %d got ticket %u: the tickets are out of order\n", b, host[b]);
      return 1;
    }
  }
  std::printf("tickets in block order\n");
  return 0;
}
