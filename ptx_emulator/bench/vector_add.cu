// Benchmark: c = a + b over N floats (default 16M), 256 threads per block.
#include <vector>
#include "bench_common.h"

__global__ void VectorAdd(const float* a, const float* b, float* c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : (16 << 20);
  std::vector<float> a(n), b(n), c(n);
  for (int i = 0; i < n; ++i) { a[i] = i * 0.5f; b[i] = 1.0f - i; }
  float *da, *db, *dc;
  BENCH_CHECK(cudaMalloc(&da, n * sizeof(float)));
  BENCH_CHECK(cudaMalloc(&db, n * sizeof(float)));
  BENCH_CHECK(cudaMalloc(&dc, n * sizeof(float)));
  BENCH_CHECK(cudaMemcpy(da, a.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  BENCH_CHECK(cudaMemcpy(db, b.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  EventTimer t;
  VectorAdd<<<(n + 255) / 256, 256>>>(da, db, dc, n);
  BENCH_CHECK(cudaGetLastError());
  float ms = t.StopMs();
  BENCH_CHECK(cudaMemcpy(c.data(), dc, n * sizeof(float), cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; ++i)
    if (c[i] != a[i] + b[i]) { std::printf("FAIL c[%d]\n", i); return 1; }
  std::printf("BENCH name=vector_add n=%d kernel_ms=%.3f\nPASS\n", n, ms);
  return 0;
}
