// Benchmark: cub::DeviceRadixSort::SortKeys of N unsigned keys (default 4M).
#include <algorithm>
#include <vector>
#include <cub/device/device_radix_sort.cuh>
#include "bench_common.h"

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : (4 << 20);
  std::vector<unsigned> keys(n);
  unsigned seed = 777;
  for (int i = 0; i < n; ++i) { seed = seed * 1664525u + 1013904223u; keys[i] = seed; }
  unsigned *din, *dout;
  BENCH_CHECK(cudaMalloc(&din, n * sizeof(unsigned)));
  BENCH_CHECK(cudaMalloc(&dout, n * sizeof(unsigned)));
  BENCH_CHECK(cudaMemcpy(din, keys.data(), n * sizeof(unsigned), cudaMemcpyHostToDevice));
  size_t temp_bytes = 0;
  BENCH_CHECK(cub::DeviceRadixSort::SortKeys(nullptr, temp_bytes, din, dout, n));
  void* temp;
  BENCH_CHECK(cudaMalloc(&temp, temp_bytes));
  EventTimer t;
  BENCH_CHECK(cub::DeviceRadixSort::SortKeys(temp, temp_bytes, din, dout, n));
  float ms = t.StopMs();
  std::vector<unsigned> out(n);
  BENCH_CHECK(cudaMemcpy(out.data(), dout, n * sizeof(unsigned), cudaMemcpyDeviceToHost));
  std::sort(keys.begin(), keys.end());
  if (out != keys) { std::printf("FAIL: not sorted\n"); return 1; }
  std::printf("BENCH name=radix_sort n=%d kernel_ms=%.3f\nPASS\n", n, ms);
  return 0;
}
