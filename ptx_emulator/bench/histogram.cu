// Benchmark: 256-bin histogram of N bytes (default 16M) with global atomics.
#include <vector>
#include "bench_common.h"

__global__ void Histogram(const unsigned char* data, int n, unsigned* bins) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    atomicAdd(&bins[data[i]], 1u);
}

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : (16 << 20);
  std::vector<unsigned char> data(n);
  unsigned seed = 12345;
  for (int i = 0; i < n; ++i) { seed = seed * 1664525u + 1013904223u; data[i] = (seed >> 24) & 0xff; }
  unsigned char* dd;
  unsigned* dbins;
  BENCH_CHECK(cudaMalloc(&dd, n));
  BENCH_CHECK(cudaMalloc(&dbins, 256 * sizeof(unsigned)));
  BENCH_CHECK(cudaMemcpy(dd, data.data(), n, cudaMemcpyHostToDevice));
  BENCH_CHECK(cudaMemset(dbins, 0, 256 * sizeof(unsigned)));
  EventTimer t;
  Histogram<<<256, 256>>>(dd, n, dbins);
  BENCH_CHECK(cudaGetLastError());
  float ms = t.StopMs();
  unsigned bins[256], want[256] = {};
  BENCH_CHECK(cudaMemcpy(bins, dbins, sizeof(bins), cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; ++i) ++want[data[i]];
  for (int b = 0; b < 256; ++b)
    if (bins[b] != want[b]) { std::printf("FAIL bin %d: %u want %u\n", b, bins[b], want[b]); return 1; }
  std::printf("BENCH name=histogram n=%d kernel_ms=%.3f\nPASS\n", n, ms);
  return 0;
}
