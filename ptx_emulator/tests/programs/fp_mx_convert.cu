// Runtime program: fp6, fp4 and ue8m0 conversions through cuda_fp6.h,
// cuda_fp4.h and cuda_fp8.h. For family-specific sm_100 targets nvcc
// compiles them to cvt.rn.satfinite.{e2m3x2,e3m2x2,e2m1x2}.f32,
// cvt.rn.f16x2.{e2m3x2,e3m2x2,e2m1x2}, cvt.{rz,rp}{.satfinite}.ue8m0x2.{f32,bf16x2}
// and cvt.rn.bf16x2.ue8m0x2; the same headers' host code (no PTX) is the
// oracle: every result is compared bit for bit.
// Built for compute_100a (ptx_emulator/runtime/CMakeLists.txt): older targets
// compile the headers' software path instead of the cvt instructions.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp4.h>
#include <cuda_fp6.h>
#include <cuda_fp8.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#define CHECK(call)                                                                              \
  do {                                                                                           \
    cudaError_t e_ = (call);                                                                     \
    if (e_ != cudaSuccess) {                                                                     \
      std::printf("FAIL: %s: %s (%s:%d)\n", #call, cudaGetErrorString(e_), __FILE__, __LINE__); \
      std::exit(1);                                                                              \
    }                                                                                            \
  } while (0)

constexpr int kN = 8192;

struct Out {
  unsigned char f4[kN];                          // float2 (in[i], in[i ^ 1]) -> e2m1x2
  unsigned short f6a[kN], f6b[kN];               // float2 -> e2m3x2, e3m2x2
  unsigned short sz[kN], szs[kN], sp[kN], sps[kN];  // float2 -> ue8m0x2: rz, rz satfinite, rp, rp satfinite
  unsigned short bz[kN], bp[kN];                 // bf16x2 -> ue8m0x2: rz satfinite, rp
};
struct Back {
  unsigned int h4[256];                          // e2m1x2 code pair -> half2 bits
  unsigned int h6a[4096], h6b[4096];             // e2m3x2 / e3m2x2 pairs (6-bit codes) -> half2 bits
  unsigned int b8[256];                          // ue8m0x2 pair (c, 255 - c) -> bf16x2 bits
};

__global__ void encode(const float* in, Out* out) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= kN) return;
  const float2 xy = make_float2(in[i], in[i ^ 1]);
  out->f4[i] = __nv_cvt_float2_to_fp4x2(xy, __NV_E2M1, cudaRoundNearest);
  out->f6a[i] = __nv_cvt_float2_to_fp6x2(xy, __NV_E2M3, cudaRoundNearest);
  out->f6b[i] = __nv_cvt_float2_to_fp6x2(xy, __NV_E3M2, cudaRoundNearest);
  out->sz[i] = __nv_cvt_float2_to_e8m0x2(xy, __NV_NOSAT, cudaRoundZero);
  out->szs[i] = __nv_cvt_float2_to_e8m0x2(xy, __NV_SATFINITE, cudaRoundZero);
  out->sp[i] = __nv_cvt_float2_to_e8m0x2(xy, __NV_NOSAT, cudaRoundPosInf);
  out->sps[i] = __nv_cvt_float2_to_e8m0x2(xy, __NV_SATFINITE, cudaRoundPosInf);
  __nv_bfloat162_raw b;
  b.x = static_cast<unsigned short>(__float_as_uint(xy.x) >> 16);
  b.y = static_cast<unsigned short>(__float_as_uint(xy.y) >> 16);
  out->bz[i] = __nv_cvt_bfloat162raw_to_e8m0x2(b, __NV_SATFINITE, cudaRoundZero);
  out->bp[i] = __nv_cvt_bfloat162raw_to_e8m0x2(b, __NV_NOSAT, cudaRoundPosInf);
}

__global__ void decode(Back* back) {
  const int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c < 256) {
    __half2_raw r = __nv_cvt_fp4x2_to_halfraw2(static_cast<__nv_fp4x2_storage_t>(c), __NV_E2M1);
    back->h4[c] = r.x | static_cast<unsigned>(r.y) << 16;
    __nv_bfloat162_raw e = __nv_cvt_e8m0x2_to_bf162raw(static_cast<__nv_fp8x2_storage_t>(c | (255 - c) << 8));
    back->b8[c] = e.x | static_cast<unsigned>(e.y) << 16;
  }
  if (c < 4096) {
    const auto pair = static_cast<__nv_fp6x2_storage_t>((c & 63) | (c >> 6) << 8);
    __half2_raw a = __nv_cvt_fp6x2_to_halfraw2(pair, __NV_E2M3), b = __nv_cvt_fp6x2_to_halfraw2(pair, __NV_E3M2);
    back->h6a[c] = a.x | static_cast<unsigned>(a.y) << 16;
    back->h6b[c] = b.x | static_cast<unsigned>(b.y) << 16;
  }
}

static float FromBits(unsigned u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

int main() {
  // Inputs: edges of every format (ties, ranges, subnormals, inf, NaN) and
  // random floats around the formats' ranges.
  std::vector<float> in;
  for (float v : {0.0f, -0.0f, INFINITY, -INFINITY, NAN, 0.25f, 0.75f, 1.25f, 5.0f, 6.0f, 6.5f, 7.0f, 7.5f, 7.75f, 28.0f,
                  30.0f, 0x1p-4f, 0x1p-5f, 0x1.8p-5f, 0x1p-127f, 0x1.02p-127f, 0x1p-149f, 1.0f, 0x1.000002p0f,
                  0x1.fffffep127f, 0x1.00ff00p-1f, 3.0e38f, 1e-40f})
    in.push_back(v), in.push_back(-v);
  unsigned seed = 12345;
  while (in.size() < kN) {
    seed = seed * 1664525u + 1013904223u;
    unsigned bits = seed;
    if (in.size() % 3 != 0) bits = (bits & 0x807fffffu) | ((127 - 10 + (seed >> 7) % 16) << 23);
    in.push_back(FromBits(bits));
  }
  float* din;
  Out* dout;
  Back* dback;
  CHECK(cudaMalloc(&din, kN * sizeof(float)));
  CHECK(cudaMalloc(&dout, sizeof(Out)));
  CHECK(cudaMalloc(&dback, sizeof(Back)));
  CHECK(cudaMemcpy(din, in.data(), kN * sizeof(float), cudaMemcpyHostToDevice));
  encode<<<kN / 256, 256>>>(din, dout);
  decode<<<16, 256>>>(dback);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  static Out out;
  static Back back;
  CHECK(cudaMemcpy(&out, dout, sizeof(Out), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(&back, dback, sizeof(Back), cudaMemcpyDeviceToHost));
  int bad = 0;
  auto expect = [&](const char* what, int i, unsigned got, unsigned want) {
    if (got != want && bad++ < 10) std::printf("mismatch %s [%d]: got 0x%x want 0x%x\n", what, i, got, want);
  };
  for (int i = 0; i < kN; ++i) {
    const float2 xy = make_float2(in[i], in[i ^ 1]);
    expect("e2m1x2", i, out.f4[i], __nv_cvt_float2_to_fp4x2(xy, __NV_E2M1, cudaRoundNearest));
    expect("e2m3x2", i, out.f6a[i], __nv_cvt_float2_to_fp6x2(xy, __NV_E2M3, cudaRoundNearest));
    expect("e3m2x2", i, out.f6b[i], __nv_cvt_float2_to_fp6x2(xy, __NV_E3M2, cudaRoundNearest));
    expect("ue8m0x2 rz", i, out.sz[i], __nv_cvt_float2_to_e8m0x2(xy, __NV_NOSAT, cudaRoundZero));
    expect("ue8m0x2 rz sat", i, out.szs[i], __nv_cvt_float2_to_e8m0x2(xy, __NV_SATFINITE, cudaRoundZero));
    expect("ue8m0x2 rp", i, out.sp[i], __nv_cvt_float2_to_e8m0x2(xy, __NV_NOSAT, cudaRoundPosInf));
    expect("ue8m0x2 rp sat", i, out.sps[i], __nv_cvt_float2_to_e8m0x2(xy, __NV_SATFINITE, cudaRoundPosInf));
    unsigned ux, uy;
    std::memcpy(&ux, &xy.x, 4);
    std::memcpy(&uy, &xy.y, 4);
    __nv_bfloat162_raw b;
    b.x = static_cast<unsigned short>(ux >> 16);
    b.y = static_cast<unsigned short>(uy >> 16);
    expect("ue8m0x2.bf16x2 rz sat", i, out.bz[i], __nv_cvt_bfloat162raw_to_e8m0x2(b, __NV_SATFINITE, cudaRoundZero));
    expect("ue8m0x2.bf16x2 rp", i, out.bp[i], __nv_cvt_bfloat162raw_to_e8m0x2(b, __NV_NOSAT, cudaRoundPosInf));
  }
  for (int c = 0; c < 256; ++c) {
    __half2_raw r = __nv_cvt_fp4x2_to_halfraw2(static_cast<__nv_fp4x2_storage_t>(c), __NV_E2M1);
    expect("f16x2.e2m1x2", c, back.h4[c], r.x | static_cast<unsigned>(r.y) << 16);
    __nv_bfloat162_raw e = __nv_cvt_e8m0x2_to_bf162raw(static_cast<__nv_fp8x2_storage_t>(c | (255 - c) << 8));
    expect("bf16x2.ue8m0x2", c, back.b8[c], e.x | static_cast<unsigned>(e.y) << 16);
  }
  for (int c = 0; c < 4096; ++c) {
    const auto pair = static_cast<__nv_fp6x2_storage_t>((c & 63) | (c >> 6) << 8);
    __half2_raw a = __nv_cvt_fp6x2_to_halfraw2(pair, __NV_E2M3), b = __nv_cvt_fp6x2_to_halfraw2(pair, __NV_E3M2);
    expect("f16x2.e2m3x2", c, back.h6a[c], a.x | static_cast<unsigned>(a.y) << 16);
    expect("f16x2.e3m2x2", c, back.h6b[c], b.x | static_cast<unsigned>(b.y) << 16);
  }
  if (bad) {
    std::printf("FAIL: %d mismatches\n", bad);
    return 1;
  }
  std::printf("PASS\n");
  return 0;
}
