// cub::BlockRadixSort: each block sorts a tile of 4 keys per thread with their
// values (key-value pairs, blocked arrangement), then the same keys descending
// in striped arrangement. Part of the PTX corpus; it checks its own results so
// that it can also run on the emulator.
#include <algorithm>
#include <cstdio>
#include <functional>
#include <utility>
#include <vector>

#include <cub/block/block_radix_sort.cuh>

#define CHECK_CUDA(call)                                                    \
  do {                                                                      \
    cudaError_t err_ = (call);                                              \
    if (err_ != cudaSuccess) {                                              \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,    \
                   cudaGetErrorString(err_));                               \
      return 1;                                                             \
    }                                                                       \
  } while (0)

constexpr int kThreads = 64;
constexpr int kItems = 4;
constexpr int kBlocks = 4;
constexpr int kTile = kThreads * kItems;
constexpr int kN = kBlocks * kTile;

__global__ void BlockSorts(const unsigned* keys_in, unsigned* keys_out, int* values_out,
                           unsigned* desc_out) {
  using Sort = cub::BlockRadixSort<unsigned, kThreads, kItems, int>;
  using KeySort = cub::BlockRadixSort<unsigned, kThreads, kItems>;  // keys only
  __shared__ union {
    typename Sort::TempStorage pairs;
    typename KeySort::TempStorage keys;
  } storage;

  const int base = blockIdx.x * kTile + threadIdx.x * kItems;
  unsigned keys[kItems];
  int values[kItems];
  for (int i = 0; i < kItems; ++i) {
    keys[i] = keys_in[base + i];
    values[i] = base + i;  // original position, to check the permutation
  }
  Sort(storage.pairs).Sort(keys, values);
  for (int i = 0; i < kItems; ++i) {
    keys_out[base + i] = keys[i];
    values_out[base + i] = values[i];
  }
  __syncthreads();  // storage is reused below

  unsigned desc[kItems];
  for (int i = 0; i < kItems; ++i) desc[i] = keys_in[base + i];
  KeySort(storage.keys).SortDescendingBlockedToStriped(desc);
  // Striped: item i of thread t is element i * kThreads + t of the tile.
  for (int i = 0; i < kItems; ++i)
    desc_out[blockIdx.x * kTile + i * kThreads + threadIdx.x] = desc[i];
}

int main() {
  std::vector<unsigned> keys(kN);
  unsigned seed = 4242u;
  for (unsigned& k : keys) {
    seed = seed * 1664525u + 1013904223u;
    k = seed >> 8;  // 24-bit keys with some duplicates
    if (k % 7 == 0) k = 1000;
  }
  unsigned *d_keys, *d_sorted, *d_desc;
  int* d_values;
  CHECK_CUDA(cudaMalloc(&d_keys, kN * sizeof(unsigned)));
  CHECK_CUDA(cudaMalloc(&d_sorted, kN * sizeof(unsigned)));
  CHECK_CUDA(cudaMalloc(&d_desc, kN * sizeof(unsigned)));
  CHECK_CUDA(cudaMalloc(&d_values, kN * sizeof(int)));
  CHECK_CUDA(cudaMemcpy(d_keys, keys.data(), kN * sizeof(unsigned), cudaMemcpyHostToDevice));
  BlockSorts<<<kBlocks, kThreads>>>(d_keys, d_sorted, d_values, d_desc);
  CHECK_CUDA(cudaGetLastError());
  CHECK_CUDA(cudaDeviceSynchronize());
  std::vector<unsigned> sorted(kN), desc(kN);
  std::vector<int> values(kN);
  CHECK_CUDA(cudaMemcpy(sorted.data(), d_sorted, kN * sizeof(unsigned), cudaMemcpyDeviceToHost));
  CHECK_CUDA(cudaMemcpy(values.data(), d_values, kN * sizeof(int), cudaMemcpyDeviceToHost));
  CHECK_CUDA(cudaMemcpy(desc.data(), d_desc, kN * sizeof(unsigned), cudaMemcpyDeviceToHost));

  int failures = 0;
  for (int b = 0; b < kBlocks; ++b) {
    const int lo = b * kTile, hi = lo + kTile;
    // Radix sort is stable: pairs sorted by (key, original index) are exact.
    std::vector<std::pair<unsigned, int>> want;
    for (int i = lo; i < hi; ++i) want.emplace_back(keys[i], i);
    std::sort(want.begin(), want.end());
    std::vector<unsigned> want_desc(keys.begin() + lo, keys.begin() + hi);
    std::sort(want_desc.begin(), want_desc.end(), std::greater<unsigned>());
    for (int i = 0; i < kTile; ++i) {
      if (sorted[lo + i] != want[i].first || values[lo + i] != want[i].second ||
          desc[lo + i] != want_desc[i]) {
        if (failures < 10)
          std::fprintf(stderr, "block %d rank %d: key %u value %d desc %u (want %u %d %u)\n", b,
                       i, sorted[lo + i], values[lo + i], desc[lo + i], want[i].first,
                       want[i].second, want_desc[i]);
        ++failures;
      }
    }
  }
  CHECK_CUDA(cudaFree(d_keys));
  CHECK_CUDA(cudaFree(d_sorted));
  CHECK_CUDA(cudaFree(d_desc));
  CHECK_CUDA(cudaFree(d_values));
  std::printf("block_radix_sort: %s\n", failures ? "FAIL" : "PASS");
  return failures ? 1 : 0;
}
