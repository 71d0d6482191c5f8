// TMA im2col loads (cuTensorMapEncodeIm2col through cudaGetDriverEntryPoint,
// cp.async.bulk.tensor.4d ... .im2col with im2col offsets) and
// cp.reduce.async.bulk.tensor (add.u32, min.s32), checked against a CPU
// convolution gather / reduction. Prints one line per case and ALL OK.
// Run natively on an H200 (driver 580.159.04, 2026-11-28) every case matched:
// 45 im2col gathers (3x3 filter taps, padding 1, strides 1 and 2, columns that
// cross into the next image, a channel offset). The reductions here start at a
// 16-byte aligned, non-negative box corner: the H200 raised "illegal
// instruction" for TMA stores and reductions whose box starts at a negative
// coordinate or at a global address not 16-byte aligned (x = 2, 5 of u32), and
// wrote whole 16-byte chunks past globalDim[0] when that is not a multiple of
// 16 bytes, so the tensor's rows here are exactly 16-byte multiples.
// barracuda-corpus: arch 90 (TMA, mbarrier phases and cp.reduce.async.bulk.tensor need sm_90)
#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_runtime.h>
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <vector>

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("CUDA error %s line %d\n", cudaGetErrorString(e_), __LINE__); return 2; } } while (0)
constexpr int N = 2, H = 5, W = 6, C = 8;
constexpr int CPP = 4, PIX = 16;

__global__ void Gather(const __grid_constant__ CUtensorMap map, uint32_t* out, int c0, int w0, int h0, int n0,
                       int ow, int oh) {
  __shared__ alignas(128) uint32_t tile[PIX * CPP];
  __shared__ alignas(8) uint64_t bar;
  if (threadIdx.x != 0) return;
  for (int i = 0; i < PIX * CPP; ++i) tile[i] = 0xdddddddd;
  const uint32_t b = static_cast<uint32_t>(__cvta_generic_to_shared(&bar));
  const uint32_t t = static_cast<uint32_t>(__cvta_generic_to_shared(tile));
  const uint16_t o0 = static_cast<uint16_t>(ow), o1 = static_cast<uint16_t>(oh);
  asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(b) : "memory");
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(b), "r"(PIX * CPP * 4) : "memory");
  asm volatile(
      "cp.async.bulk.tensor.4d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3, %4, "
      "%5}], [%6], {%7, %8};" ::"r"(t),
      "l"(&map), "r"(c0), "r"(w0), "r"(h0), "r"(n0), "r"(b), "h"(o0), "h"(o1)
      : "memory");
  asm volatile(
      "{\n .reg .pred p;\n WAIT%=:\n mbarrier.try_wait.parity.shared::cta.b64 p, [%0], 0;\n @!p bra WAIT%=;\n}" ::"r"(b)
      : "memory");
  for (int i = 0; i < PIX * CPP; ++i) out[i] = tile[i];
}

constexpr int BW = 8, BH = 4;
__global__ void Reduce(const __grid_constant__ CUtensorMap map, const uint32_t* in, int x, int y, int op) {
  __shared__ alignas(128) uint32_t tile[BW * BH];
  if (threadIdx.x != 0) return;
  for (int i = 0; i < BW * BH; ++i) tile[i] = in[i];
  const uint32_t t = static_cast<uint32_t>(__cvta_generic_to_shared(tile));
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  if (op == 0)
    asm volatile("cp.reduce.async.bulk.tensor.2d.global.shared::cta.add.tile.bulk_group [%0, {%1, %2}], [%3];" ::"l"(&map),
                 "r"(x), "r"(y), "r"(t) : "memory");
  else
    asm volatile("cp.reduce.async.bulk.tensor.2d.global.shared::cta.min.tile.bulk_group [%0, {%1, %2}], [%3];" ::"l"(&map),
                 "r"(x), "r"(y), "r"(t) : "memory");
  asm volatile("cp.async.bulk.commit_group;" ::: "memory");
  asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
}

int main() {
  void* fn = nullptr;
  cudaDriverEntryPointQueryResult q;
  CK(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeIm2col", &fn, 12000, cudaEnableDefault, &q));
  auto im2col = reinterpret_cast<PFN_cuTensorMapEncodeIm2col_v12000>(fn);
  CK(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &fn, 12000, cudaEnableDefault, &q));
  auto tiled = reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(fn);
  if (!im2col || !tiled) { std::printf("entry points missing\n"); return 2; }
  std::vector<uint32_t> in(N * H * W * C);
  for (size_t i = 0; i < in.size(); ++i) in[i] = static_cast<uint32_t>(i + 1);
  uint32_t *din, *dout;
  CK(cudaMalloc(&din, in.size() * 4));
  CK(cudaMalloc(&dout, PIX * CPP * 4));
  CK(cudaMemcpy(din, in.data(), in.size() * 4, cudaMemcpyHostToDevice));
  const cuuint64_t dim[4] = {C, W, H, N}, str[3] = {C * 4, W * C * 4, H * W * C * 4};
  bool all = true;
  struct Case { int stride, c0, m0; };
  for (Case cs : {Case{1, 4, 22}, Case{1, 0, 0}, Case{1, 4, 50}, Case{2, 0, 3}, Case{2, 4, 7}}) {
    const int s = cs.stride, pad = 1, f = 3;
    const int OW = (W + 2 * pad - f) / s + 1, OH = (H + 2 * pad - f) / s + 1;
    const int lower[2] = {-pad, -pad};
    const int upper[2] = {(OW - 1) * s - pad - (W - 1), (OH - 1) * s - pad - (H - 1)};
    const cuuint32_t es[4] = {1, (cuuint32_t)s, (cuuint32_t)s, 1};
    alignas(64) CUtensorMap map;
    CUresult r = im2col(&map, CU_TENSOR_MAP_DATA_TYPE_UINT32, 4, din, dim, str, lower, upper, CPP, PIX, es,
                        CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_L2_PROMOTION_NONE,
                        CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    if (r != CUDA_SUCCESS) { std::printf("im2col encode failed %d\n", (int)r); all = false; continue; }
    const int wo = cs.m0 % OW, ho = cs.m0 / OW % OH, n0 = cs.m0 / (OW * OH);
    for (int tap = 0; tap < 9; ++tap) {
      const int tw = tap % 3, th = tap / 3;
      Gather<<<1, 32>>>(map, dout, cs.c0, wo * s - pad, ho * s - pad, n0, tw, th);
      CK(cudaGetLastError());
      uint32_t got[PIX * CPP];
      CK(cudaMemcpy(got, dout, sizeof(got), cudaMemcpyDeviceToHost));
      int bad = 0, first = -1;
      for (int k = 0; k < PIX; ++k) {
        const int m = cs.m0 + k, x = m % OW, y = m / OW % OH, n = m / (OW * OH);
        const int iw = x * s - pad + tw, ih = y * s - pad + th;
        for (int c = 0; c < CPP; ++c) {
          const int cc = cs.c0 + c;
          const bool inside = n < N && iw >= 0 && iw < W && ih >= 0 && ih < H && cc < C;
          const uint32_t want = inside ? in[((n * H + ih) * W + iw) * C + cc] : 0;
          if (got[k * CPP + c] != want) { ++bad; if (first < 0) first = k * CPP + c; }
        }
      }
      std::printf("im2col stride %d c0 %d m0 %d tap (%d,%d): %s", s, cs.c0, cs.m0, tw, th, bad ? "MISMATCH" : "ok");
      if (bad) {
        std::printf(" (%d wrong, first at %d); got:", bad, first);
        for (int k = 0; k < PIX; ++k) std::printf(" %u", got[k * CPP]);
      }
      std::printf("\n");
      all = all && !bad;
    }
  }
  // Reductions over a 12 x 6 tensor, box 8 x 4 at (0, 0), (4, 3) (clipped in x
  // and y) and (8, 1) (clipped in x).
  for (int op = 0; op < 2; ++op)
    for (int corner = 0; corner < 3; ++corner) {
      const int TW = 12, TH = 6, RW = 12;
      std::vector<uint32_t> g(RW * TH), box(BW * BH);
      for (size_t i = 0; i < g.size(); ++i) g[i] = static_cast<uint32_t>(static_cast<int>(i * 37 % 101) - 50);
      for (size_t i = 0; i < box.size(); ++i) box[i] = static_cast<uint32_t>(static_cast<int>(i * 53 % 89) - 40);
      uint32_t *dg, *db;
      CK(cudaMalloc(&dg, g.size() * 4));
      CK(cudaMalloc(&db, box.size() * 4));
      CK(cudaMemcpy(dg, g.data(), g.size() * 4, cudaMemcpyHostToDevice));
      CK(cudaMemcpy(db, box.data(), box.size() * 4, cudaMemcpyHostToDevice));
      const cuuint64_t d2[2] = {(cuuint64_t)TW, (cuuint64_t)TH}, s2[1] = {RW * 4};
      const cuuint32_t b2[2] = {BW, BH}, e2[2] = {1, 1};
      alignas(64) CUtensorMap map;
      if (tiled(&map, op == 0 ? CU_TENSOR_MAP_DATA_TYPE_UINT32 : CU_TENSOR_MAP_DATA_TYPE_INT32, 2, dg, d2, s2, b2, e2,
                CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_L2_PROMOTION_NONE,
                CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) != CUDA_SUCCESS) { std::printf("tiled encode failed\n"); return 2; }
      const int x0 = corner * 4, y0 = corner == 2 ? 1 : corner * 3;
      Reduce<<<1, 32>>>(map, db, x0, y0, op);
      CK(cudaGetLastError());
      std::vector<uint32_t> got(g.size());
      CK(cudaMemcpy(got.data(), dg, g.size() * 4, cudaMemcpyDeviceToHost));
      std::vector<uint32_t> want = g;
      for (int j = 0; j < BH; ++j)
        for (int i = 0; i < BW; ++i) {
          const int x = x0 + i, y = y0 + j;
          if (x < 0 || x >= TW || y < 0 || y >= TH) continue;
          uint32_t& w = want[y * RW + x];
          const uint32_t v = box[j * BW + i];
          w = op == 0 ? w + v : static_cast<uint32_t>(std::min(static_cast<int>(w), static_cast<int>(v)));
        }
      const bool ok = got == want;
      std::printf("reduce %s at (%d,%d): %s\n", op == 0 ? "add.u32" : "min.s32", x0, y0, ok ? "ok" : "MISMATCH");
      all = all && ok;
      cudaFree(dg);
      cudaFree(db);
    }
  std::printf(all ? "ALL OK\n" : "MISMATCH\n");
  return all ? 0 : 1;
}
