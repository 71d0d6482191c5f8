// Scaling benchmark (issue 16 item 4): many readers and writers of few hot shared
// locations. Each of 64 blocks of 256 threads adds SCALE values per thread into 32
// shared bins with atomics, then after a barrier every thread reads SCALE bins.
//   hot_histogram SCALE      (work grows linearly with SCALE)
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

__global__ void HotHistogram(int scale, unsigned* global_bins, unsigned* out) {
  __shared__ unsigned bins[32];
  const unsigned t = threadIdx.x;
  if (t < 32) bins[t] = 0;
  __syncthreads();
  unsigned x = blockIdx.x * blockDim.x + t;
  for (int k = 0; k < scale; ++k) {
    x = x * 1664525u + 1013904223u;
    atomicAdd(&bins[x >> 27], 1u);
  }
  __syncthreads();
  unsigned sum = 0;
  for (int k = 0; k < scale; ++k) sum += bins[(t + k) & 31];
  out[blockIdx.x * blockDim.x + t] = sum;
  if (t < 32) atomicAdd(&global_bins[t], bins[t]);
}

int main(int argc, char** argv) {
  const int scale = argc > 1 ? std::atoi(argv[1]) : 1;
  const int blocks = 64, threads = 256;
  unsigned *bins, *out;
  if (cudaMalloc(&bins, 32 * sizeof(unsigned)) != cudaSuccess ||
      cudaMalloc(&out, blocks * threads * sizeof(unsigned)) != cudaSuccess)
    return 2;
  cudaMemset(bins, 0, 32 * sizeof(unsigned));
  HotHistogram<<<blocks, threads>>>(scale, bins, out);
  unsigned h[32];
  if (cudaMemcpy(h, bins, sizeof h, cudaMemcpyDeviceToHost) != cudaSuccess) return 2;
  unsigned long long total = 0;
  for (unsigned v : h) total += v;
  const unsigned long long want = 1ull * blocks * threads * scale;
  if (total != want) { std::printf("FAIL total %llu want %llu\n", total, want); return 1; }
  std::printf("PASS\n");
  return 0;
}
