// Benchmark: C = A * B for N x N floats (default 1024), 16x16 shared-memory
// tiles with two __syncthreads per tile step.
#include <cmath>
#include <vector>
#include "bench_common.h"

constexpr int kTile = 16;

__global__ void MatMul(const float* a, const float* b, float* c, int n) {
  __shared__ float ta[kTile][kTile];
  __shared__ float tb[kTile][kTile];
  int row = blockIdx.y * kTile + threadIdx.y, col = blockIdx.x * kTile + threadIdx.x;
  float acc = 0.0f;
  for (int k0 = 0; k0 < n; k0 += kTile) {
    ta[threadIdx.y][threadIdx.x] = a[row * n + k0 + threadIdx.x];
    tb[threadIdx.y][threadIdx.x] = b[(k0 + threadIdx.y) * n + col];
    __syncthreads();
#pragma unroll
    for (int k = 0; k < kTile; ++k) acc += ta[threadIdx.y][k] * tb[k][threadIdx.x];
    __syncthreads();
  }
  c[row * n + col] = acc;
}

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 1024;  // multiple of 16
  std::vector<float> a(size_t(n) * n), b(size_t(n) * n), c(size_t(n) * n);
  for (size_t i = 0; i < a.size(); ++i) { a[i] = float(i % 7) - 3.0f; b[i] = float(i % 5) * 0.25f; }
  float *da, *db, *dc;
  size_t bytes = a.size() * sizeof(float);
  BENCH_CHECK(cudaMalloc(&da, bytes));
  BENCH_CHECK(cudaMalloc(&db, bytes));
  BENCH_CHECK(cudaMalloc(&dc, bytes));
  BENCH_CHECK(cudaMemcpy(da, a.data(), bytes, cudaMemcpyHostToDevice));
  BENCH_CHECK(cudaMemcpy(db, b.data(), bytes, cudaMemcpyHostToDevice));
  EventTimer t;
  MatMul<<<dim3(n / kTile, n / kTile), dim3(kTile, kTile)>>>(da, db, dc, n);
  BENCH_CHECK(cudaGetLastError());
  float ms = t.StopMs();
  BENCH_CHECK(cudaMemcpy(c.data(), dc, bytes, cudaMemcpyDeviceToHost));
  // Spot-check rows against a host computation (inputs are small integers and
  // quarters, so the sums are exact in float).
  for (int r = 0; r < n; r += n / 8 + 1)
    for (int col = 0; col < n; col += 37) {
      float want = 0;
      for (int k = 0; k < n; ++k) want += a[size_t(r) * n + k] * b[size_t(k) * n + col];
      if (c[size_t(r) * n + col] != want) { std::printf("FAIL c[%d][%d]=%f want %f\n", r, col, c[size_t(r) * n + col], want); return 1; }
    }
  std::printf("BENCH name=matmul n=%d kernel_ms=%.3f\nPASS\n", n, ms);
  return 0;
}
