// cub::DeviceRadixSort: SortPairs (ascending, with a DoubleBuffer so the
// passes ping-pong between two buffers) and SortKeysDescending over 3000
// 32-bit keys. Part of the PTX corpus; it checks its own results so that it
// can also run on the emulator.
#include <algorithm>
#include <cstdio>
#include <functional>
#include <utility>
#include <vector>

#include <cub/device/device_radix_sort.cuh>

#define CHECK_CUDA(call)                                                    \
  do {                                                                      \
    cudaError_t err_ = (call);                                              \
    if (err_ != cudaSuccess) {                                              \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,    \
                   cudaGetErrorString(err_));                               \
      return 1;                                                             \
    }                                                                       \
  } while (0)

constexpr int kN = 3000;

int main() {
  std::vector<unsigned> keys(kN);
  std::vector<int> values(kN);
  unsigned seed = 8086u;
  for (int i = 0; i < kN; ++i) {
    seed = seed * 1664525u + 1013904223u;
    keys[i] = (i % 11 == 0) ? 77u : seed;  // full 32-bit keys plus duplicates
    values[i] = i;
  }
  unsigned *d_keys[2], *d_desc_in, *d_desc_out;
  int* d_values[2];
  for (int b = 0; b < 2; ++b) {
    CHECK_CUDA(cudaMalloc(&d_keys[b], kN * sizeof(unsigned)));
    CHECK_CUDA(cudaMalloc(&d_values[b], kN * sizeof(int)));
  }
  CHECK_CUDA(cudaMalloc(&d_desc_in, kN * sizeof(unsigned)));
  CHECK_CUDA(cudaMalloc(&d_desc_out, kN * sizeof(unsigned)));
  CHECK_CUDA(cudaMemcpy(d_keys[0], keys.data(), kN * sizeof(unsigned), cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemcpy(d_values[0], values.data(), kN * sizeof(int), cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemcpy(d_desc_in, keys.data(), kN * sizeof(unsigned), cudaMemcpyHostToDevice));

  cub::DoubleBuffer<unsigned> key_buf(d_keys[0], d_keys[1]);
  cub::DoubleBuffer<int> value_buf(d_values[0], d_values[1]);
  size_t bytes = 0, need = 0;
  CHECK_CUDA(cub::DeviceRadixSort::SortPairs(nullptr, need, key_buf, value_buf, kN));
  bytes = need > bytes ? need : bytes;
  CHECK_CUDA(cub::DeviceRadixSort::SortKeysDescending(nullptr, need, d_desc_in, d_desc_out, kN));
  bytes = need > bytes ? need : bytes;
  void* d_temp;
  CHECK_CUDA(cudaMalloc(&d_temp, bytes));
  need = bytes;
  CHECK_CUDA(cub::DeviceRadixSort::SortPairs(d_temp, need, key_buf, value_buf, kN));
  need = bytes;
  CHECK_CUDA(cub::DeviceRadixSort::SortKeysDescending(d_temp, need, d_desc_in, d_desc_out, kN));
  CHECK_CUDA(cudaDeviceSynchronize());

  std::vector<unsigned> sorted(kN), desc(kN);
  std::vector<int> sorted_values(kN);
  CHECK_CUDA(cudaMemcpy(sorted.data(), key_buf.Current(), kN * sizeof(unsigned),
                        cudaMemcpyDeviceToHost));
  CHECK_CUDA(cudaMemcpy(sorted_values.data(), value_buf.Current(), kN * sizeof(int),
                        cudaMemcpyDeviceToHost));
  CHECK_CUDA(cudaMemcpy(desc.data(), d_desc_out, kN * sizeof(unsigned), cudaMemcpyDeviceToHost));

  // Radix sort is stable: pairs sorted by (key, original index) are exact.
  std::vector<std::pair<unsigned, int>> want(kN);
  for (int i = 0; i < kN; ++i) want[i] = {keys[i], i};
  std::sort(want.begin(), want.end());
  std::vector<unsigned> want_desc = keys;
  std::sort(want_desc.begin(), want_desc.end(), std::greater<unsigned>());
  int failures = 0;
  for (int i = 0; i < kN; ++i) {
    if (sorted[i] != want[i].first || sorted_values[i] != want[i].second ||
        desc[i] != want_desc[i]) {
      if (failures < 10)
        std::fprintf(stderr, "rank %d: key %u value %d desc %u (want %u %d %u)\n", i, sorted[i],
                     sorted_values[i], desc[i], want[i].first, want[i].second, want_desc[i]);
      ++failures;
    }
  }
  CHECK_CUDA(cudaFree(d_temp));
  for (int b = 0; b < 2; ++b) {
    CHECK_CUDA(cudaFree(d_keys[b]));
    CHECK_CUDA(cudaFree(d_values[b]));
  }
  CHECK_CUDA(cudaFree(d_desc_in));
  CHECK_CUDA(cudaFree(d_desc_out));
  std::printf("device_radix_sort: %s\n", failures ? "FAIL" : "PASS");
  return failures ? 1 : 0;
}
