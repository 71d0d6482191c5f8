// The bundled example: a shared-memory block sum with a data race.
//
// Each block of 256 threads loads 256 ints into shared memory and halves the
// number of active threads until partial[0] holds the block's sum. The
// barrier that must separate one halving step from the next is missing (see
// RACE below), so a thread can read a partial sum before the thread that
// computes it has written it. On a GPU this usually still prints PASS because
// warps happen to run in step often enough: the bug is silent, which is what
// `barracuda ./racy_reduction` is for. racy_reduction_fixed.cu is the same
// program with the barrier; `diff racy_reduction.cu racy_reduction_fixed.cu`
// shows the fix.
//
// Build: nvcc -cudart shared -lineinfo -gencode arch=compute_75,code=[sm_75,compute_75]
//          racy_reduction.cu -o racy_reduction
#include <cstdio>
#include <vector>

constexpr int kThreads = 256;
constexpr int kN = 2000;  // not a multiple of kThreads: the last block is partial
constexpr int kBlocks = (kN + kThreads - 1) / kThreads;

// extern "C": the PTX entry is plain "block_sum" (barracuda-ptx cfg --kernel block_sum).
extern "C" __global__ void block_sum(const int* in, int* block_sums, int n) {
  __shared__ int partial[kThreads];
  const unsigned t = threadIdx.x;
  const int i = blockIdx.x * kThreads + t;
  partial[t] = i < n ? in[i] : 0;
  __syncthreads();  // every load is visible before the first halving step
  for (unsigned stride = kThreads / 2; stride > 0; stride /= 2) {
    // RACE (read-after-write, shared memory, intra-block and intra-warp): in
    // step k, thread t reads partial[t + stride], which thread t + stride wrote
    // in step k-1 on this very line. Nothing orders that write before this
    // read: different warps (stride >= 32) run independently, and since Volta
    // so do the lanes of one warp (stride < 32; with --warp-model=lockstep,
    // the paper's semantics, only the cross-warp steps stride >= 32 race).
    // partial[t] itself, and the final read of partial[0] by thread 0, are
    // only touched by the thread that wrote them: no race there.
    if (t < stride) partial[t] += partial[t + stride];
    // BUG: a __syncthreads() belongs here (racy_reduction_fixed.cu has it).
  }
  if (t == 0) block_sums[blockIdx.x] = partial[0];
}

int main() {
  std::vector<int> in(kN);
  for (int i = 0; i < kN; ++i) in[i] = (i * 37) % 101 - 50;
  int *d_in = nullptr, *d_sums = nullptr;
  if (cudaMalloc(&d_in, kN * sizeof(int)) != cudaSuccess ||
      cudaMalloc(&d_sums, kBlocks * sizeof(int)) != cudaSuccess ||
      cudaMemcpy(d_in, in.data(), kN * sizeof(int), cudaMemcpyHostToDevice) != cudaSuccess) {
    std::fprintf(stderr, "racy_reduction: CUDA set-up failed: %s\n",
                 cudaGetErrorString(cudaGetLastError()));
    return 2;
  }
  block_sum<<<kBlocks, kThreads>>>(d_in, d_sums, kN);
  std::vector<int> sums(kBlocks);
  cudaError_t err = cudaDeviceSynchronize();
  if (err == cudaSuccess)
    err = cudaMemcpy(sums.data(), d_sums, kBlocks * sizeof(int), cudaMemcpyDeviceToHost);
  if (err != cudaSuccess) {
    std::fprintf(stderr, "racy_reduction: kernel failed: %s\n", cudaGetErrorString(err));
    return 2;
  }
  int wrong = 0;
  for (int b = 0; b < kBlocks; ++b) {
    int want = 0;
    for (int i = b * kThreads; i < (b + 1) * kThreads && i < kN; ++i) want += in[i];
    if (sums[b] != want) {
      std::fprintf(stderr, "block %d: sum %d, want %d\n", b, sums[b], want);
      ++wrong;
    }
  }
  cudaFree(d_in);
  cudaFree(d_sums);
  std::printf("racy_reduction: %s\n", wrong ? "FAIL" : "PASS");
  return wrong ? 1 : 0;
}
