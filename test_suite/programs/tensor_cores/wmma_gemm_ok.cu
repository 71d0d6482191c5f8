/*@barracuda
{
  "what": "tiled 64x64x64 WMMA GEMM (half in, float accumulate): 4 blocks of 4 warps, the block stages A and B k-slices in shared memory between two __syncthreads, each warp stores its own 16x16 tile",
  "arch": 80,
  "expect": {
    "its": {"verdict": "no-race", "races": []},
    "lockstep": {"verdict": "no-race", "races": []}
  }
}
@*/
// Needs sm_70+ (WMMA; built for sm_80): -gencode arch=compute_80,code=[sm_80,compute_80].
// C = A * B, all row-major. Block b computes the 16-row strip b of C; warp w of the block
// computes the tile (b, w). Per 16-wide k-step the block copies A[strip][k-slice] (16x16)
// and B[k-slice][all] (16x64) into shared memory, __syncthreads, every warp loads its
// fragments from shared memory and multiplies, __syncthreads (before the next fill).
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
  const int row0 = blockIdx.x * 16, col0 = warp * 16;
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
    __syncthreads();  // every warp has read the slices before they are refilled
  }
  wmma::store_matrix_sync(&c[row0 * kN + col0], acc, kN, wmma::mem_row_major);
}

int main() {
  static half ha[kM * kK], hb[kK * kN];
  static float fa[kM * kK], fb[kK * kN], hc[kM * kN];
  for (int i = 0; i < kM * kK; ++i) { fa[i] = float(i % 7 - 3); ha[i] = __float2half(fa[i]); }
  for (int i = 0; i < kK * kN; ++i) { fb[i] = float(i % 5 - 2); hb[i] = __float2half(fb[i]); }
  half *da, *db;
  float *dc;
  CK(cudaMalloc(&da, sizeof(ha)));
  CK(cudaMalloc(&db, sizeof(hb)));
  CK(cudaMalloc(&dc, sizeof(hc)));
  CK(cudaMemcpy(da, ha, sizeof(ha), cudaMemcpyHostToDevice));
  CK(cudaMemcpy(db, hb, sizeof(hb), cudaMemcpyHostToDevice));
  Gemm<<<kM / 16, kThreads>>>(da, db, dc);
  CK(cudaGetLastError());
  CK(cudaMemcpy(hc, dc, sizeof(hc), cudaMemcpyDeviceToHost));
  // Small integer inputs: every partial sum is an exact float, so the check is exact.
  for (int i = 0; i < kM; ++i)
    for (int j = 0; j < kN; ++j) {
      float ref = 0.0f;
      for (int k = 0; k < kK; ++k) ref += fa[i * kK + k] * fb[k * kN + j];
      if (hc[i * kN + j] != ref) { std::printf("FAIL c[%d][%d]=%g expected %g\n", i, j, hc[i * kN + j], ref); return 1; }
    }
  std::printf("PASS\n");
  return 0;
}
