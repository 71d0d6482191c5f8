// The same four computations as the emulator benchmark programs, in plain C++
// (one thread, -O2), for the "at most 30x the plain C++ time" comparison.
// Prints one "BENCH name=... plain_ms=..." line per computation.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

double Ms(std::chrono::steady_clock::time_point a) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - a).count();
}

// Keeps the optimiser from deleting the computation.
volatile unsigned g_sink;

void VectorAdd(int n) {
  std::vector<float> a(n), b(n), c(n);
  for (int i = 0; i < n; ++i) { a[i] = i * 0.5f; b[i] = 1.0f - i; }
  auto t = std::chrono::steady_clock::now();
  for (int i = 0; i < n; ++i) c[i] = a[i] + b[i];
  double ms = Ms(t);
  g_sink = static_cast<unsigned>(c[n / 2]);
  std::printf("BENCH name=vector_add n=%d plain_ms=%.3f\n", n, ms);
}

void MatMul(int n) {
  const int kTile = 16;
  std::vector<float> a(size_t(n) * n), b(size_t(n) * n), c(size_t(n) * n, 0.0f);
  for (size_t i = 0; i < a.size(); ++i) { a[i] = float(i % 7) - 3.0f; b[i] = float(i % 5) * 0.25f; }
  auto t = std::chrono::steady_clock::now();
  // Same tiling as the kernel, the loop order a C++ programmer would use.
  for (int i0 = 0; i0 < n; i0 += kTile)
    for (int k0 = 0; k0 < n; k0 += kTile)
      for (int i = i0; i < i0 + kTile; ++i)
        for (int k = k0; k < k0 + kTile; ++k) {
          const float av = a[size_t(i) * n + k];
          float* crow = &c[size_t(i) * n];
          const float* brow = &b[size_t(k) * n];
          for (int j = 0; j < n; ++j) crow[j] += av * brow[j];
        }
  double ms = Ms(t);
  g_sink = static_cast<unsigned>(c[n + 1]);
  std::printf("BENCH name=matmul n=%d plain_ms=%.3f\n", n, ms);
}

void Histogram(int n) {
  std::vector<unsigned char> data(n);
  unsigned seed = 12345;
  for (int i = 0; i < n; ++i) { seed = seed * 1664525u + 1013904223u; data[i] = (seed >> 24) & 0xff; }
  unsigned bins[256] = {};
  auto t = std::chrono::steady_clock::now();
  for (int i = 0; i < n; ++i) ++bins[data[i]];
  double ms = Ms(t);
  g_sink = bins[7];
  std::printf("BENCH name=histogram n=%d plain_ms=%.3f\n", n, ms);
}

void RadixSort(int n) {
  std::vector<unsigned> keys(n), tmp(n);
  unsigned seed = 777;
  for (int i = 0; i < n; ++i) { seed = seed * 1664525u + 1013904223u; keys[i] = seed; }
  auto t = std::chrono::steady_clock::now();
  // LSD radix sort, 8 bits per pass (what CUB does, in plain C++).
  for (int shift = 0; shift < 32; shift += 8) {
    size_t count[257] = {};
    for (unsigned k : keys) ++count[((k >> shift) & 0xff) + 1];
    for (int d = 0; d < 256; ++d) count[d + 1] += count[d];
    for (unsigned k : keys) tmp[count[(k >> shift) & 0xff]++] = k;
    keys.swap(tmp);
  }
  double ms = Ms(t);
  g_sink = keys[n / 2];
  if (!std::is_sorted(keys.begin(), keys.end())) { std::printf("FAIL radix sort\n"); std::exit(1); }
  std::printf("BENCH name=radix_sort n=%d plain_ms=%.3f\n", n, ms);
}

}  // namespace

int main(int argc, char** argv) {
  // Sizes as the emulator programs' defaults; "name=N" overrides.
  int vector_n = 16 << 20, matmul_n = 1024, hist_n = 16 << 20, sort_n = 4 << 20;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto v = [&](const char* p) { return std::atoi(a.c_str() + std::strlen(p)); };
    if (a.rfind("vector_add=", 0) == 0) vector_n = v("vector_add=");
    if (a.rfind("matmul=", 0) == 0) matmul_n = v("matmul=");
    if (a.rfind("histogram=", 0) == 0) hist_n = v("histogram=");
    if (a.rfind("radix_sort=", 0) == 0) sort_n = v("radix_sort=");
  }
  VectorAdd(vector_n);
  MatMul(matmul_n);
  Histogram(hist_n);
  RadixSort(sort_n);
  return 0;
}
