// cub::BlockReduce: per-block sum (raking, commutative) and max (warp
// reductions) of 4 items per thread, plus a partial-tile sum where only
// valid_items threads contribute. Part of the PTX corpus; it checks its own
// results so that it can also run on the emulator.
#include <cstdio>
#include <vector>

#include <cub/block/block_reduce.cuh>
#include <cuda/functional>

#define CHECK_CUDA(call)                                                    \
  do {                                                                      \
    cudaError_t err_ = (call);                                              \
    if (err_ != cudaSuccess) {                                              \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,    \
                   cudaGetErrorString(err_));                               \
      return 1;                                                             \
    }                                                                       \
  } while (0)

constexpr int kThreads = 128;
constexpr int kItems = 4;
constexpr int kBlocks = 6;
constexpr int kTile = kThreads * kItems;
constexpr int kPartialValid = 77;  // threads taking part in the partial reduction

__global__ void BlockSumMax(const int* in, int* sums, int* maxes, int* partial) {
  using SumReduce = cub::BlockReduce<int, kThreads, cub::BLOCK_REDUCE_RAKING_COMMUTATIVE_ONLY>;
  using MaxReduce = cub::BlockReduce<int, kThreads, cub::BLOCK_REDUCE_WARP_REDUCTIONS>;
  __shared__ typename SumReduce::TempStorage sum_storage;
  __shared__ typename MaxReduce::TempStorage max_storage;

  int items[kItems];
  const int* tile = in + blockIdx.x * kTile;
  for (int i = 0; i < kItems; ++i) items[i] = tile[threadIdx.x * kItems + i];

  int sum = SumReduce(sum_storage).Sum(items);
  int max = MaxReduce(max_storage).Reduce(items, cuda::maximum<>{});
  __syncthreads();  // sum_storage is reused below
  int part = SumReduce(sum_storage).Sum(items[0], kPartialValid);
  if (threadIdx.x == 0) {
    sums[blockIdx.x] = sum;
    maxes[blockIdx.x] = max;
    partial[blockIdx.x] = part;
  }
}

int main() {
  std::vector<int> in(kBlocks * kTile);
  unsigned seed = 12345u;
  for (int& v : in) {
    seed = seed * 1664525u + 1013904223u;
    v = static_cast<int>(seed >> 20) - 2048;
  }
  int *d_in, *d_sums, *d_maxes, *d_partial;
  CHECK_CUDA(cudaMalloc(&d_in, in.size() * sizeof(int)));
  CHECK_CUDA(cudaMalloc(&d_sums, kBlocks * sizeof(int)));
  CHECK_CUDA(cudaMalloc(&d_maxes, kBlocks * sizeof(int)));
  CHECK_CUDA(cudaMalloc(&d_partial, kBlocks * sizeof(int)));
  CHECK_CUDA(cudaMemcpy(d_in, in.data(), in.size() * sizeof(int), cudaMemcpyHostToDevice));
  BlockSumMax<<<kBlocks, kThreads>>>(d_in, d_sums, d_maxes, d_partial);
  CHECK_CUDA(cudaGetLastError());
  CHECK_CUDA(cudaDeviceSynchronize());
  std::vector<int> sums(kBlocks), maxes(kBlocks), partial(kBlocks);
  CHECK_CUDA(cudaMemcpy(sums.data(), d_sums, kBlocks * sizeof(int), cudaMemcpyDeviceToHost));
  CHECK_CUDA(cudaMemcpy(maxes.data(), d_maxes, kBlocks * sizeof(int), cudaMemcpyDeviceToHost));
  CHECK_CUDA(cudaMemcpy(partial.data(), d_partial, kBlocks * sizeof(int), cudaMemcpyDeviceToHost));

  int failures = 0;
  for (int b = 0; b < kBlocks; ++b) {
    int sum = 0, max = in[b * kTile], part = 0;
    for (int i = 0; i < kTile; ++i) {
      int v = in[b * kTile + i];
      sum += v;
      max = v > max ? v : max;
    }
    for (int t = 0; t < kPartialValid; ++t) part += in[b * kTile + t * kItems];
    if (sums[b] != sum || maxes[b] != max || partial[b] != part) {
      std::fprintf(stderr, "block %d: sum %d (want %d) max %d (want %d) partial %d (want %d)\n",
                   b, sums[b], sum, maxes[b], max, partial[b], part);
      ++failures;
    }
  }
  CHECK_CUDA(cudaFree(d_in));
  CHECK_CUDA(cudaFree(d_sums));
  CHECK_CUDA(cudaFree(d_maxes));
  CHECK_CUDA(cudaFree(d_partial));
  std::printf("block_reduce: %s\n", failures ? "FAIL" : "PASS");
  return failures ? 1 : 0;
}
