// Runtime program: tensor cores through the CUDA APIs real code uses.
//  - A 64x64x64 GEMM with the WMMA API (half inputs, float accumulators, 4
//    blocks of 4 warps, A staged through shared memory, B column-major),
//    checked against a CPU reference.
//  - One tile per WMMA flavour nvcc emits for sm_80 (bf16, tf32, f64, s8 with
//    saturation, u8 m32n8k16, f16 m8n32k16 with half accumulators stored
//    column-major).
//  - mma.sync m16n8k16 fed by ldmatrix (x4 for A, x2.trans for B) in inline
//    PTX, the way hand-written kernels (CUTLASS-style) use them.
// Built for compute_80 (ptx_emulator/runtime/CMakeLists.txt); prints PASS.
// barracuda-corpus: arch 80 (bf16, tf32 and f64 WMMA need sm_80; the PTX corpus builds it for compute_90 only)
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <mma.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

using namespace nvcuda;

#define CHECK(call)                                                                              \
  do {                                                                                           \
    cudaError_t e_ = (call);                                                                     \
    if (e_ != cudaSuccess) {                                                                     \
      std::printf("FAIL: %s: %s (%s:%d)\n", #call, cudaGetErrorString(e_), __FILE__, __LINE__); \
      std::exit(1);                                                                              \
    }                                                                                            \
  } while (0)

constexpr int kM = 64, kN = 64, kK = 64;

// Warp w of the grid computes output tile (w / 4, w % 4). A is row-major
// (M x K), B column-major (b[n * K + k]), C row-major.
__global__ void gemm_f16(const half* a, const half* b, float* c) {
  __shared__ __align__(32) half staged[4][16 * 16];
  const int warp_in_block = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int warp = blockIdx.x * (blockDim.x / 32) + warp_in_block;
  const int tm = warp / 4, tn = warp % 4;
  wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> fb;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> fc;
  wmma::fill_fragment(fc, 0.0f);
  for (int k0 = 0; k0 < kK; k0 += 16) {
    for (int i = lane; i < 256; i += 32) staged[warp_in_block][i] = a[(tm * 16 + i / 16) * kK + k0 + i % 16];
    __syncwarp();
    wmma::load_matrix_sync(fa, staged[warp_in_block], 16);
    wmma::load_matrix_sync(fb, b + tn * 16 * kK + k0, kK);
    wmma::mma_sync(fc, fa, fb, fc);
    __syncwarp();
  }
  wmma::store_matrix_sync(c + tm * 16 * kN + tn * 16, fc, kN, wmma::mem_row_major);
}

// One 16x16x16 tile per flavour; inputs row-major A, column-major B.
__global__ void tile_bf16(const __nv_bfloat16* a, const __nv_bfloat16* b, float* c) {
  wmma::fragment<wmma::matrix_a, 16, 16, 16, __nv_bfloat16, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16, wmma::col_major> fb;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> fc;
  wmma::load_matrix_sync(fa, a, 16);
  wmma::load_matrix_sync(fb, b, 16);
  wmma::fill_fragment(fc, 1.0f);
  wmma::mma_sync(fc, fa, fb, fc);
  wmma::store_matrix_sync(c, fc, 16, wmma::mem_row_major);
}

__global__ void tile_tf32(const float* a, const float* b, float* c) {
  wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 16, 16, 8, wmma::precision::tf32, wmma::col_major> fb;
  wmma::fragment<wmma::accumulator, 16, 16, 8, float> fc;
  wmma::load_matrix_sync(fa, a, 8);
  wmma::load_matrix_sync(fb, b, 8);
  for (int i = 0; i < fa.num_elements; ++i) fa.x[i] = wmma::__float_to_tf32(fa.x[i]);
  for (int i = 0; i < fb.num_elements; ++i) fb.x[i] = wmma::__float_to_tf32(fb.x[i]);
  wmma::fill_fragment(fc, 0.0f);
  wmma::mma_sync(fc, fa, fb, fc);
  wmma::store_matrix_sync(c, fc, 16, wmma::mem_row_major);
}

__global__ void tile_f64(const double* a, const double* b, double* c) {
  wmma::fragment<wmma::matrix_a, 8, 8, 4, double, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 8, 8, 4, double, wmma::col_major> fb;
  wmma::fragment<wmma::accumulator, 8, 8, 4, double> fc;
  wmma::load_matrix_sync(fa, a, 4);
  wmma::load_matrix_sync(fb, b, 4);
  wmma::load_matrix_sync(fc, c, 8, wmma::mem_row_major);
  wmma::mma_sync(fc, fa, fb, fc);
  wmma::store_matrix_sync(c, fc, 8, wmma::mem_row_major);
}

__global__ void tile_s8(const signed char* a, const signed char* b, int* c) {
  wmma::fragment<wmma::matrix_a, 16, 16, 16, signed char, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, signed char, wmma::col_major> fb;
  wmma::fragment<wmma::accumulator, 16, 16, 16, int> fc;
  wmma::load_matrix_sync(fa, a, 16);
  wmma::load_matrix_sync(fb, b, 16);
  wmma::load_matrix_sync(fc, c, 16, wmma::mem_row_major);
  wmma::mma_sync(fc, fa, fb, fc, true);  // satfinite
  wmma::store_matrix_sync(c, fc, 16, wmma::mem_row_major);
}

__global__ void tile_u8(const unsigned char* a, const unsigned char* b, int* c) {
  wmma::fragment<wmma::matrix_a, 32, 8, 16, unsigned char, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 32, 8, 16, unsigned char, wmma::col_major> fb;
  wmma::fragment<wmma::accumulator, 32, 8, 16, int> fc;
  wmma::load_matrix_sync(fa, a, 16);
  wmma::load_matrix_sync(fb, b, 16);
  wmma::fill_fragment(fc, 0);
  wmma::mma_sync(fc, fa, fb, fc);
  wmma::store_matrix_sync(c, fc, 8, wmma::mem_row_major);
}

// m8n32k16, half accumulators, D stored column-major.
__global__ void tile_half_acc(const half* a, const half* b, half* c) {
  wmma::fragment<wmma::matrix_a, 8, 32, 16, half, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 8, 32, 16, half, wmma::col_major> fb;
  wmma::fragment<wmma::accumulator, 8, 32, 16, half> fc;
  wmma::load_matrix_sync(fa, a, 16);
  wmma::load_matrix_sync(fb, b, 16);
  wmma::fill_fragment(fc, __float2half(0.0f));
  wmma::mma_sync(fc, fa, fb, fc);
  wmma::store_matrix_sync(c, fc, 8, wmma::mem_col_major);
}

// C (16 x 8, row-major) = A (16 x 16, row-major) * B (16 x 8, row-major, k x n).
__global__ void mma_ldmatrix(const half* a, const half* b, float* c) {
  __shared__ __align__(16) half sa[16 * 16];
  __shared__ __align__(16) half sb[16 * 8];
  const int lane = threadIdx.x;
  for (int i = lane; i < 256; i += 32) sa[i] = a[i];
  for (int i = lane; i < 128; i += 32) sb[i] = b[i];
  __syncwarp();
  unsigned a0, a1, a2, a3, b0, b1;
  // A: matrices (rows 0-7, cols 0-7), (rows 8-15, cols 0-7), (rows 0-7, cols 8-15), (rows 8-15, cols 8-15).
  const unsigned pa = static_cast<unsigned>(__cvta_generic_to_shared(&sa[(lane % 16) * 16 + (lane / 16) * 8]));
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
               : "=r"(a0), "=r"(a1), "=r"(a2), "=r"(a3) : "r"(pa));
  // B: k rows 0-7 and 8-15, transposed into the column-major fragment.
  const unsigned pb = static_cast<unsigned>(__cvta_generic_to_shared(&sb[(lane % 16) * 8]));
  asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0, %1}, [%2];" : "=r"(b0), "=r"(b1) : "r"(pb));
  float d0, d1, d2, d3;
  const float z = 0.0f;
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
      "{%10, %10, %10, %10};"
      : "=f"(d0), "=f"(d1), "=f"(d2), "=f"(d3)
      : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1), "f"(z));
  const int g = lane / 4, t = lane % 4;
  c[g * 8 + 2 * t] = d0;
  c[g * 8 + 2 * t + 1] = d1;
  c[(g + 8) * 8 + 2 * t] = d2;
  c[(g + 8) * 8 + 2 * t + 1] = d3;
}

template <typename T>
T* Upload(const std::vector<T>& v) {
  T* d = nullptr;
  CHECK(cudaMalloc(&d, v.size() * sizeof(T)));
  CHECK(cudaMemcpy(d, v.data(), v.size() * sizeof(T), cudaMemcpyHostToDevice));
  return d;
}
template <typename T>
std::vector<T> Download(const T* d, size_t n) {
  std::vector<T> v(n);
  CHECK(cudaMemcpy(v.data(), d, n * sizeof(T), cudaMemcpyDeviceToHost));
  return v;
}

int failures = 0;
void Expect(bool ok, const char* what, int i, double got, double want) {
  if (!ok && failures++ < 10) std::printf("FAIL: %s[%d] = %g, expected %g\n", what, i, got, want);
}
bool Close(double got, double want) { return std::fabs(got - want) <= 1e-3 * std::fabs(want) + 1e-3; }

// Small exact values: products and sums of these are exact in every precision used.
float Small(int i, int salt) { return static_cast<float>(((i * 7 + salt * 13) % 9) - 4) / 4.0f; }

int main() {
  // ---- 64x64x64 half GEMM
  {
    std::vector<half> a(kM * kK), b(kK * kN);
    std::vector<float> fa(kM * kK), fb(kK * kN);
    for (int i = 0; i < kM * kK; ++i) {
      fa[i] = static_cast<float>((i * 37) % 101 - 50) / 64.0f;
      a[i] = __float2half(fa[i]);
    }
    for (int i = 0; i < kK * kN; ++i) {
      fb[i] = static_cast<float>((i * 53) % 97 - 48) / 32.0f;
      b[i] = __float2half(fb[i]);
    }
    half* da = Upload(a);
    half* db = Upload(b);
    float* dc = nullptr;
    CHECK(cudaMalloc(&dc, kM * kN * sizeof(float)));
    gemm_f16<<<4, 128>>>(da, db, dc);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    const std::vector<float> c = Download(dc, kM * kN);
    for (int i = 0; i < kM; ++i)
      for (int j = 0; j < kN; ++j) {
        double want = 0;
        for (int k = 0; k < kK; ++k) want += static_cast<double>(fa[i * kK + k]) * fb[j * kK + k];
        Expect(Close(c[i * kN + j], want), "gemm_f16 C", i * kN + j, c[i * kN + j], want);
      }
  }
  // ---- one tile per flavour
  {
    std::vector<__nv_bfloat16> a(256), b(256);
    for (int i = 0; i < 256; ++i) a[i] = __float2bfloat16(Small(i, 1)), b[i] = __float2bfloat16(Small(i, 2));
    auto* da = Upload(a);
    auto* db = Upload(b);
    float* dc = nullptr;
    CHECK(cudaMalloc(&dc, 256 * sizeof(float)));
    tile_bf16<<<1, 32>>>(da, db, dc);
    CHECK(cudaDeviceSynchronize());
    const auto c = Download(dc, 256);
    for (int i = 0; i < 16; ++i)
      for (int j = 0; j < 16; ++j) {
        double want = 1.0;
        for (int k = 0; k < 16; ++k) want += static_cast<double>(Small(i * 16 + k, 1)) * Small(j * 16 + k, 2);
        Expect(c[i * 16 + j] == want, "tile_bf16", i * 16 + j, c[i * 16 + j], want);
      }
  }
  {
    std::vector<float> a(128), b(128);
    for (int i = 0; i < 128; ++i) a[i] = Small(i, 3) * (1.0f + 1e-5f), b[i] = Small(i, 4);  // below tf32 precision
    float* da = Upload(a);
    float* db = Upload(b);
    float* dc = nullptr;
    CHECK(cudaMalloc(&dc, 256 * sizeof(float)));
    tile_tf32<<<1, 32>>>(da, db, dc);
    CHECK(cudaDeviceSynchronize());
    const auto c = Download(dc, 256);
    for (int i = 0; i < 16; ++i)
      for (int j = 0; j < 16; ++j) {
        double want = 0;
        for (int k = 0; k < 8; ++k) want += static_cast<double>(Small(i * 8 + k, 3)) * Small(j * 8 + k, 4);
        Expect(c[i * 16 + j] == want, "tile_tf32", i * 16 + j, c[i * 16 + j], want);
      }
  }
  {
    std::vector<double> a(32), b(32), c0(64);
    for (int i = 0; i < 32; ++i) a[i] = Small(i, 5) + 1.0 / 3, b[i] = Small(i, 6) - 1.0 / 7;
    for (int i = 0; i < 64; ++i) c0[i] = i / 10.0;
    double* da = Upload(a);
    double* db = Upload(b);
    double* dc = Upload(c0);
    tile_f64<<<1, 32>>>(da, db, dc);
    CHECK(cudaDeviceSynchronize());
    const auto c = Download(dc, 64);
    for (int i = 0; i < 8; ++i)
      for (int j = 0; j < 8; ++j) {
        double want = c0[i * 8 + j];
        for (int k = 0; k < 4; ++k) want = std::fma(a[i * 4 + k], b[j * 4 + k], want);
        Expect(c[i * 8 + j] == want, "tile_f64", i * 8 + j, c[i * 8 + j], want);
      }
  }
  {
    std::vector<signed char> a(256), b(256);
    std::vector<int> c0(256);
    for (int i = 0; i < 256; ++i) a[i] = static_cast<signed char>(i * 29), b[i] = static_cast<signed char>(i * 31 + 7);
    for (int i = 0; i < 256; ++i) c0[i] = i % 3 == 0 ? 2147483000 : i % 3 == 1 ? -2147483000 : i;
    auto* da = Upload(a);
    auto* db = Upload(b);
    int* dc = Upload(c0);
    tile_s8<<<1, 32>>>(da, db, dc);
    CHECK(cudaDeviceSynchronize());
    const auto c = Download(dc, 256);
    for (int i = 0; i < 16; ++i)
      for (int j = 0; j < 16; ++j) {
        long long want = c0[i * 16 + j];
        for (int k = 0; k < 16; ++k) want += static_cast<long long>(a[i * 16 + k]) * b[j * 16 + k];
        want = want > 2147483647LL ? 2147483647LL : want < -2147483648LL ? -2147483648LL : want;
        Expect(c[i * 16 + j] == want, "tile_s8", i * 16 + j, c[i * 16 + j], static_cast<double>(want));
      }
  }
  {
    std::vector<unsigned char> a(512), b(128);
    for (int i = 0; i < 512; ++i) a[i] = static_cast<unsigned char>(i * 17);
    for (int i = 0; i < 128; ++i) b[i] = static_cast<unsigned char>(i * 5 + 3);
    auto* da = Upload(a);
    auto* db = Upload(b);
    int* dc = nullptr;
    CHECK(cudaMalloc(&dc, 256 * sizeof(int)));
    tile_u8<<<1, 32>>>(da, db, dc);
    CHECK(cudaDeviceSynchronize());
    const auto c = Download(dc, 256);
    for (int i = 0; i < 32; ++i)
      for (int j = 0; j < 8; ++j) {
        long long want = 0;
        for (int k = 0; k < 16; ++k) want += static_cast<long long>(a[i * 16 + k]) * b[j * 16 + k];
        Expect(c[i * 8 + j] == want, "tile_u8", i * 8 + j, c[i * 8 + j], static_cast<double>(want));
      }
  }
  {
    std::vector<half> a(128), b(512);
    for (int i = 0; i < 128; ++i) a[i] = __float2half(Small(i, 7));
    for (int i = 0; i < 512; ++i) b[i] = __float2half(Small(i, 8));
    half* da = Upload(a);
    half* db = Upload(b);
    half* dc = nullptr;
    CHECK(cudaMalloc(&dc, 256 * sizeof(half)));
    tile_half_acc<<<1, 32>>>(da, db, dc);
    CHECK(cudaDeviceSynchronize());
    const auto c = Download(dc, 256);
    for (int i = 0; i < 8; ++i)
      for (int j = 0; j < 32; ++j) {
        double want = 0;
        for (int k = 0; k < 16; ++k) want += static_cast<double>(Small(i * 16 + k, 7)) * Small(j * 16 + k, 8);
        const double got = __half2float(c[j * 8 + i]);  // column-major
        Expect(got == want, "tile_half_acc", j * 8 + i, got, want);
      }
  }
  // ---- ldmatrix + mma.sync
  {
    std::vector<half> a(256), b(128);
    for (int i = 0; i < 256; ++i) a[i] = __float2half(Small(i, 9));
    for (int i = 0; i < 128; ++i) b[i] = __float2half(Small(i, 10));
    half* da = Upload(a);
    half* db = Upload(b);
    float* dc = nullptr;
    CHECK(cudaMalloc(&dc, 128 * sizeof(float)));
    mma_ldmatrix<<<1, 32>>>(da, db, dc);
    CHECK(cudaDeviceSynchronize());
    const auto c = Download(dc, 128);
    for (int i = 0; i < 16; ++i)
      for (int j = 0; j < 8; ++j) {
        double want = 0;
        for (int k = 0; k < 16; ++k) want += static_cast<double>(Small(i * 16 + k, 9)) * Small(k * 8 + j, 10);
        Expect(c[i * 8 + j] == want, "mma_ldmatrix", i * 8 + j, c[i * 8 + j], want);
      }
  }
  if (failures != 0) {
    std::printf("FAIL: %d mismatches\n", failures);
    return 1;
  }
  std::printf("PASS\n");
  return 0;
}
