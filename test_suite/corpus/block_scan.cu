// cub::BlockScan: exclusive prefix sum (raking, with the block aggregate) and
// inclusive max-scan (warp scans) of 4 items per thread in each block. Part of
// the PTX corpus; it checks its own results so that it can also run on the
// emulator.
#include <cstdio>
#include <vector>

#include <cub/block/block_scan.cuh>
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
constexpr int kBlocks = 5;
constexpr int kTile = kThreads * kItems;
constexpr int kN = kBlocks * kTile;

__global__ void BlockScans(const int* in, int* excl, int* incl_max, int* totals) {
  using SumScan = cub::BlockScan<int, kThreads, cub::BLOCK_SCAN_RAKING>;
  using MaxScan = cub::BlockScan<int, kThreads, cub::BLOCK_SCAN_WARP_SCANS>;
  __shared__ typename SumScan::TempStorage sum_storage;
  __shared__ typename MaxScan::TempStorage max_storage;

  const int base = blockIdx.x * kTile + threadIdx.x * kItems;
  int items[kItems], sums[kItems], maxes[kItems];
  for (int i = 0; i < kItems; ++i) items[i] = in[base + i];

  int total;
  SumScan(sum_storage).ExclusiveSum(items, sums, total);
  MaxScan(max_storage).InclusiveScan(items, maxes, cuda::maximum<>{});
  for (int i = 0; i < kItems; ++i) {
    excl[base + i] = sums[i];
    incl_max[base + i] = maxes[i];
  }
  if (threadIdx.x == 0) totals[blockIdx.x] = total;
}

int main() {
  std::vector<int> in(kN);
  unsigned seed = 777u;
  for (int& v : in) {
    seed = seed * 1664525u + 1013904223u;
    v = static_cast<int>(seed >> 22) - 512;
  }
  int *d_in, *d_excl, *d_max, *d_totals;
  CHECK_CUDA(cudaMalloc(&d_in, kN * sizeof(int)));
  CHECK_CUDA(cudaMalloc(&d_excl, kN * sizeof(int)));
  CHECK_CUDA(cudaMalloc(&d_max, kN * sizeof(int)));
  CHECK_CUDA(cudaMalloc(&d_totals, kBlocks * sizeof(int)));
  CHECK_CUDA(cudaMemcpy(d_in, in.data(), kN * sizeof(int), cudaMemcpyHostToDevice));
  BlockScans<<<kBlocks, kThreads>>>(d_in, d_excl, d_max, d_totals);
  CHECK_CUDA(cudaGetLastError());
  CHECK_CUDA(cudaDeviceSynchronize());
  std::vector<int> excl(kN), incl_max(kN), totals(kBlocks);
  CHECK_CUDA(cudaMemcpy(excl.data(), d_excl, kN * sizeof(int), cudaMemcpyDeviceToHost));
  CHECK_CUDA(cudaMemcpy(incl_max.data(), d_max, kN * sizeof(int), cudaMemcpyDeviceToHost));
  CHECK_CUDA(cudaMemcpy(totals.data(), d_totals, kBlocks * sizeof(int), cudaMemcpyDeviceToHost));

  int failures = 0;
  for (int b = 0; b < kBlocks; ++b) {
    int running = 0, max = in[b * kTile];
    for (int i = 0; i < kTile; ++i) {
      const int at = b * kTile + i;
      max = in[at] > max ? in[at] : max;
      if (excl[at] != running || incl_max[at] != max) {
        if (failures < 10)
          std::fprintf(stderr, "element %d: exclusive sum %d (want %d) inclusive max %d (want %d)\n",
                       at, excl[at], running, incl_max[at], max);
        ++failures;
      }
      running += in[at];
    }
    if (totals[b] != running) {
      std::fprintf(stderr, "block %d: aggregate %d (want %d)\n", b, totals[b], running);
      ++failures;
    }
  }
  CHECK_CUDA(cudaFree(d_in));
  CHECK_CUDA(cudaFree(d_excl));
  CHECK_CUDA(cudaFree(d_max));
  CHECK_CUDA(cudaFree(d_totals));
  std::printf("block_scan: %s\n", failures ? "FAIL" : "PASS");
  return failures ? 1 : 0;
}
