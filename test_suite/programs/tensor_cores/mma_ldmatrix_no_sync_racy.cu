/*@barracuda
{
  "what": "mma.sync m16n8k16 fed by ldmatrix.x4 with the __syncthreads between the loader warps' shared-memory fill and the MMA warps' ldmatrix missing (RAW shared, intra-block, A and B^T)",
  "arch": 80,
  "expect": {
    "its": {"verdict": "race", "races": [
      {"kind": "RAW", "space": "shared", "class": "intra-block", "lines": [42, 54]},
      {"kind": "RAW", "space": "shared", "class": "intra-block", "lines": [43, 59]}
    ]},
    "lockstep": {"verdict": "race", "races": [
      {"kind": "RAW", "space": "shared", "class": "intra-block", "lines": [42, 54]},
      {"kind": "RAW", "space": "shared", "class": "intra-block", "lines": [43, 59]}
    ]}
  }
}
@*/
// Needs sm_80 (mma.sync.m16n8k16): -gencode arch=compute_80,code=[sm_80,compute_80].
// One block of 4 warps, warp-specialised: warps 0-1 copy A (32x32, row-major) and B
// (32x32, given column-major, i.e. B^T row-major) into shared memory with 16-byte stores;
// warps 2-3 each compute a 16x32 strip of C = A * B with inline PTX ldmatrix.sync.aligned.
// m8n8.x4 (one for A's 16x16 k-step, one per pair of 8-wide n-tiles of B) and
// mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32.
// mma_ldmatrix_ok without its __syncthreads: the MMA warps' ldmatrix reads of sa / sbt
// are not ordered after the loader warps' stores (the loaders are other warps, so this
// is an inter-warp race under both warp models). Prints "done" without checking.
#include <cstdio>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("CUDA error: %s (%s:%d)\n", cudaGetErrorString(e_), __FILE__, __LINE__); return 2; } } while (0)
constexpr int kM = 32, kN = 32, kK = 32, kPad = 8;

// a: A row-major (a[m * kK + k]); bt: B column-major (bt[n * kK + k]); c: C row-major.
__global__ void Mma(const half *a, const half *bt, float *c) {
  __shared__ __align__(16) half sa[kM][kK + kPad];
  __shared__ __align__(16) half sbt[kN][kK + kPad];
  const int t = threadIdx.x, warp = t / 32, lane = t % 32;
  if (warp < 2) {  // loader warps: 128 16-byte rows of each matrix, 2 per thread
    for (int v = t; v < kM * kK / 8; v += 64) {
      const int r = v / (kK / 8), col = v % (kK / 8) * 8;
      const uint4 va = *reinterpret_cast<const uint4 *>(&a[r * kK + col]);
      const uint4 vb = *reinterpret_cast<const uint4 *>(&bt[r * kK + col]);
      *reinterpret_cast<uint4 *>(&sa[r][col]) = va;  // @w A
      *reinterpret_cast<uint4 *>(&sbt[r][col]) = vb;  // @w B
    }
  }
  // BUG: __syncthreads() missing here
  if (warp < 2) return;
  const int m0 = (warp - 2) * 16, g = lane / 4, q = lane % 4;
  float acc[kN / 8][4] = {};
  for (int k0 = 0; k0 < kK; k0 += 16) {
    // A: lanes 0-15 address rows 0-15 at k0, lanes 16-31 the same rows at k0 + 8.
    unsigned a0, a1, a2, a3;
    const unsigned pa = static_cast<unsigned>(__cvta_generic_to_shared(&sa[m0 + lane % 16][k0 + lane / 16 * 8]));
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];" : "=r"(a0), "=r"(a1), "=r"(a2), "=r"(a3) : "r"(pa));  // @r A
    for (int n0 = 0; n0 < kN; n0 += 16) {
      // B^T: matrix j = lane / 8 is rows n0 + (j / 2) * 8 .. +7 at k0 + (j % 2) * 8.
      unsigned b0, b1, b2, b3;
      const unsigned pb = static_cast<unsigned>(__cvta_generic_to_shared(&sbt[n0 + lane / 16 * 8 + lane % 8][k0 + lane / 8 % 2 * 8]));
      asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];" : "=r"(b0), "=r"(b1), "=r"(b2), "=r"(b3) : "r"(pb));  // @r B
      float *d0 = acc[n0 / 8], *d1 = acc[n0 / 8 + 1];
      asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
                   : "+f"(d0[0]), "+f"(d0[1]), "+f"(d0[2]), "+f"(d0[3]) : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
      asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
                   : "+f"(d1[0]), "+f"(d1[1]), "+f"(d1[2]), "+f"(d1[3]) : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b2), "r"(b3));
    }
  }
  // D fragment: d[0..1] = row g, columns 2q, 2q+1 of the n-tile; d[2..3] = row g + 8.
  for (int j = 0; j < kN / 8; ++j) {
    c[(m0 + g) * kN + j * 8 + 2 * q] = acc[j][0];
    c[(m0 + g) * kN + j * 8 + 2 * q + 1] = acc[j][1];
    c[(m0 + g + 8) * kN + j * 8 + 2 * q] = acc[j][2];
    c[(m0 + g + 8) * kN + j * 8 + 2 * q + 1] = acc[j][3];
  }
}

int main() {
  static half ha[kM * kK], hbt[kN * kK];
  static float hc[kM * kN];
  for (int i = 0; i < kM * kK; ++i) ha[i] = __float2half(float(i % 7 - 3));
  for (int i = 0; i < kN * kK; ++i) hbt[i] = __float2half(float(i % 5 - 2));
  half *da, *dbt;
  float *dc;
  CK(cudaMalloc(&da, sizeof(ha)));
  CK(cudaMalloc(&dbt, sizeof(hbt)));
  CK(cudaMalloc(&dc, sizeof(hc)));
  CK(cudaMemcpy(da, ha, sizeof(ha), cudaMemcpyHostToDevice));
  CK(cudaMemcpy(dbt, hbt, sizeof(hbt), cudaMemcpyHostToDevice));
  Mma<<<1, 128>>>(da, dbt, dc);
  CK(cudaGetLastError());
  CK(cudaMemcpy(hc, dc, sizeof(hc), cudaMemcpyDeviceToHost));
  std::printf("c[0][0]=%g done\n", hc[0]);
  return 0;
}
