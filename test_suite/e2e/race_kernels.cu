// Kernels for the emulator -> detector end-to-end test (emulator_detector_test.cpp).
// Compiled to PTX at build time; each kernel's race (or its absence) is stated
// next to it, with the source lines the test expects in the report.

// Shared-memory RAW across warps: thread t writes s[t], then reads s[t+32]
// without a barrier (line of the write: WRITE_LINE_1, of the read: READ_LINE_1).
__global__ void SharedNoBarrier(int* out) {
  __shared__ int s[128];
  int t = threadIdx.x;
  s[t] = t;                              // WRITE_LINE_1
  out[t] = s[(t + 32) % blockDim.x];     // READ_LINE_1
}

// The same with __syncthreads between write and read: no race.
__global__ void SharedWithBarrier(int* out) {
  __shared__ int s[128];
  int t = threadIdx.x;
  s[t] = t;
  __syncthreads();
  out[blockIdx.x * blockDim.x + t] = s[(t + 32) % blockDim.x];
}

// Inter-block WAW on global memory: every block writes out[0].
__global__ void GlobalInterBlock(int* out) {
  if (threadIdx.x == 0) out[0] = blockIdx.x;  // WAW_LINE
}

// Atomics only: no race.
__global__ void AtomicCounter(int* out) { atomicAdd(out, 1); }

// Atomic vs plain on the same word from different blocks.
__global__ void AtomicVsPlain(int* out) {
  if (blockIdx.x == 0) atomicAdd(out, 1);      // ATOMIC_LINE
  else if (threadIdx.x == 0) out[0] = 7;       // PLAIN_LINE
}

// Divergent branch inside a warp: even lanes update their word, odd lanes read
// the even neighbour's word, each in a loop (so nvcc keeps a real branch rather
// than predicating both sides): a divergence-class race under independent
// thread scheduling.
__global__ void DivergentExchange(int* buf) {
  int t = threadIdx.x;
  if (t % 2 == 0) {
    for (int i = 0; i < blockDim.x; ++i) buf[t] += i;                // DIV_WRITE_LINE
  } else {
    for (int i = 0; i < blockDim.x; ++i) buf[64 + t] += buf[t - 1];  // DIV_READ_LINE
  }
}
