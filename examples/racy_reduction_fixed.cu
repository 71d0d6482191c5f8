// The bundled example, fixed: racy_reduction.cu with the missing barrier.
//
// Same shared-memory block sum; the __syncthreads() at the end of each
// halving step orders thread t + stride's write of partial[t + stride] in one
// step before thread t reads it in the next, for every stride (also below 32:
// since Volta the lanes of a warp are not in lock-step either). `barracuda
// ./racy_reduction_fixed` reports no race.
//
// Build: nvcc -cudart shared -lineinfo -gencode arch=compute_75,code=[sm_75,compute_75]
//          racy_reduction_fixed.cu -o racy_reduction_fixed
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
    if (t < stride) partial[t] += partial[t + stride];
    __syncthreads();  // step k's writes are visible before step k+1 reads them
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
    std::fprintf(stderr, "racy_reduction_fixed: CUDA set-up failed: %s\n",
                 cudaGetErrorString(cudaGetLastError()));
    return 2;
  }
  block_sum<<<kBlocks, kThreads>>>(d_in, d_sums, kN);
  std::vector<int> sums(kBlocks);
  cudaError_t err = cudaDeviceSynchronize();
  if (err == cudaSuccess)
    err = cudaMemcpy(sums.data(), d_sums, kBlocks * sizeof(int), cudaMemcpyDeviceToHost);
  if (err != cudaSuccess) {
    std::fprintf(stderr, "racy_reduction_fixed: kernel failed: %s\n", cudaGetErrorString(err));
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
  std::printf("racy_reduction_fixed: %s\n", wrong ? "FAIL" : "PASS");
  return wrong ? 1 : 0;
}
