/*@barracuda
{
  "what": "tiled WMMA GEMM with a tile-index bug: warps 0 and 3 of each block compute the same 16x16 tile and both wmma::store_matrix_sync it with nothing ordering the two stores (WAW, intra-block)",
  "arch": 80,
  "expect": {
    "its": {"verdict": "race", "races": [
      {"kind": "WAW", "space": "global", "class": "intra-block", "lines": [47, 47]}
    ]},
    "lockstep": {"verdict": "race", "races": [
      {"kind": "WAW", "space": "global", "class": "intra-block", "lines": [47, 47]}
    ]}
  }
}
@*/
// Needs sm_70+ (WMMA; built for sm_80): -gencode arch=compute_80,code=[sm_80,compute_80].
// wmma_gemm_ok with the tile column taken modulo 3 instead of modulo the 4 warps: warp 3
// recomputes warp 0's tile (the same values) and the two warps store it after the last
// __syncthreads. Equal values do not help: the store site writes many different values
// per lane, so the pair is a write-write data race, not a same-value warning. Tile
// column 3 of C is never written; the program prints "done" without checking.
#include <cstdio>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <mma.h>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("CUDA error: %s (%s:%d)\n", cudaGetErrorString(e_), __FILE__, __LINE__); return 2; } } while (0)
using namespace nvcuda;
constexpr int kM = 64, kN = 64, kK = 64, kWarps = 4, kThreads = 32 * kWarps;

__global__ void Gemm(const half *a, const half *b, float *c) {
  __shared__ __align__(32) half sa[16 * 16];
  __shared__ __align__(32) half sb[16 * kN];
  const int t = threadIdx.x, warp = t / 32;
  const int row0 = blockIdx.x * 16, col0 = (warp % 3) * 16;  // BUG: % kWarps
  wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::row_major> fb;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
  wmma::fill_fragment(acc, 0.0f);
  for (int k0 = 0; k0 < kK; k0 += 16) {
    for (int i = t; i < 16 * 16; i += kThreads) sa[i] = a[(row0 + i / 16) * kK + k0 + i % 16];
    for (int i = t; i < 16 * kN; i += kThreads) sb[i] = b[(k0 + i / kN) * kN + i % kN];
    __syncthreads();
    wmma::load_matrix_sync(fa, &sa[0], 16);
    wmma::load_matrix_sync(fb, &sb[col0], kN);
    wmma::mma_sync(acc, fa, fb, acc);
    __syncthreads();
  }
  wmma::store_matrix_sync(&c[row0 * kN + col0], acc, kN, wmma::mem_row_major);  // @w (warps 0 and 3)
}

int main() {
  static half ha[kM * kK], hb[kK * kN];
  static float hc[kM * kN];
  for (int i = 0; i < kM * kK; ++i) ha[i] = __float2half(float(i % 7 - 3));
  for (int i = 0; i < kK * kN; ++i) hb[i] = __float2half(float(i % 5 - 2));
  half *da, *db;
  float *dc;
  CK(cudaMalloc(&da, sizeof(ha)));
  CK(cudaMalloc(&db, sizeof(hb)));
  CK(cudaMalloc(&dc, sizeof(hc)));
  CK(cudaMemcpy(da, ha, sizeof(ha), cudaMemcpyHostToDevice));
  CK(cudaMemcpy(db, hb, sizeof(hb), cudaMemcpyHostToDevice));
  CK(cudaMemset(dc, 0, sizeof(hc)));
  Gemm<<<kM / 16, kThreads>>>(da, db, dc);
  CK(cudaGetLastError());
  CK(cudaMemcpy(hc, dc, sizeof(hc), cudaMemcpyDeviceToHost));
  std::printf("c[0][0]=%g done\n", hc[0]);
  return 0;
}
