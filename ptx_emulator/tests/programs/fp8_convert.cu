// Runtime program: fp8 conversions through the cuda_fp8.h API. On sm_89+
// nvcc compiles them to cvt.rn.satfinite.{e4m3x2,e5m2x2}.{f32,f16x2} and
// cvt.rn.f16x2.{e4m3x2,e5m2x2}; the same header's host code (no PTX) is the
// oracle: every result byte / half is compared bit for bit.
//  - floats -> __nv_fp8_e4m3 / __nv_fp8_e5m2 (one value), __nv_fp8x2_* (pairs
//    from float2 and from __half2), all with __NV_SATFINITE;
//  - every one of the 256 codes back to half and float (and as pairs).
// Built for compute_90 (ptx_emulator/runtime/CMakeLists.txt); prints PASS.
// barracuda-corpus: arch 90 (the fp8 cvt instructions need sm_89+)
#include <cuda_fp16.h>
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

constexpr int kN = 4096;

struct Out {
  unsigned char e4[kN], e5[kN];          // one float each
  unsigned short p4[kN], p5[kN];         // float2 pairs (in[i], in[i ^ 1])
  unsigned short h4[kN], h5[kN];         // __half2 pairs
};
struct Back {
  unsigned short h4[256], h5[256];       // code -> half
  float f4[256], f5[256];                // code -> float
  unsigned int x4[256], x5[256];         // code pair (c, 255 - c) -> half2 bits
};

__global__ void encode(const float* in, Out* out) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= kN) return;
  const float x = in[i], y = in[i ^ 1];
  out->e4[i] = __nv_cvt_float_to_fp8(x, __NV_SATFINITE, __NV_E4M3);
  out->e5[i] = __nv_fp8_e5m2(x).__x;
  out->p4[i] = __nv_cvt_float2_to_fp8x2(make_float2(x, y), __NV_SATFINITE, __NV_E4M3);
  out->p5[i] = __nv_fp8x2_e5m2(make_float2(x, y)).__x;
  __half2_raw h;
  h.x = __half_as_ushort(__float2half_rn(x));
  h.y = __half_as_ushort(__float2half_rn(y));
  out->h4[i] = __nv_cvt_halfraw2_to_fp8x2(h, __NV_SATFINITE, __NV_E4M3);
  out->h5[i] = __nv_cvt_halfraw2_to_fp8x2(h, __NV_SATFINITE, __NV_E5M2);
}

__global__ void decode(Back* back) {
  const int c = threadIdx.x;
  back->h4[c] = __nv_cvt_fp8_to_halfraw(static_cast<__nv_fp8_storage_t>(c), __NV_E4M3).x;
  back->h5[c] = __nv_cvt_fp8_to_halfraw(static_cast<__nv_fp8_storage_t>(c), __NV_E5M2).x;
  __nv_fp8_e4m3 a;
  a.__x = static_cast<__nv_fp8_storage_t>(c);
  __nv_fp8_e5m2 b;
  b.__x = static_cast<__nv_fp8_storage_t>(c);
  back->f4[c] = static_cast<float>(a);
  back->f5[c] = static_cast<float>(b);
  const auto pair = static_cast<__nv_fp8x2_storage_t>(c | (255 - c) << 8);
  __half2_raw r4 = __nv_cvt_fp8x2_to_halfraw2(pair, __NV_E4M3), r5 = __nv_cvt_fp8x2_to_halfraw2(pair, __NV_E5M2);
  back->x4[c] = r4.x | static_cast<unsigned>(r4.y) << 16;
  back->x5[c] = r5.x | static_cast<unsigned>(r5.y) << 16;
}

static unsigned FBits(float f) {
  unsigned u;
  std::memcpy(&u, &f, 4);
  return u;
}
static float FromBits(unsigned u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

int main() {
  // Inputs: every tie and neighbour of the e4m3/e5m2 grids is hit by a
  // scaled integer sweep, plus specials and pseudo-random bit patterns.
  std::vector<float> in(kN);
  uint32_t s = 12345;
  for (int i = 0; i < kN; ++i) {
    s = s * 1664525u + 1013904223u;
    if (i < 1024) in[i] = std::ldexp(static_cast<float>(i - 512), -10);       // ties of the subnormals too
    else if (i < 2048) in[i] = static_cast<float>((i - 1536) * 4) + 0.5f;     // around 448 and beyond
    else if (i < 2304) in[i] = static_cast<float>((i - 2176) * 512);          // around 57344 and beyond
    else in[i] = FromBits((s & 0x807fffffu) | ((102u + (s >> 8) % 43u) << 23));
  }
  const float specials[] = {0.0f, -0.0f, INFINITY, -INFINITY, NAN, 448.0f, 464.0f, 480.0f, 57344.0f, 61440.0f,
                            -61440.0f, 0x1p-10f, 0x1p-17f, 0x1p-9f, 1e30f, -1e-30f};
  for (size_t k = 0; k < sizeof specials / sizeof specials[0]; ++k) in[kN - 1 - k] = specials[k];

  float* d_in;
  Out* d_out;
  Back* d_back;
  CHECK(cudaMalloc(&d_in, kN * sizeof(float)));
  CHECK(cudaMalloc(&d_out, sizeof(Out)));
  CHECK(cudaMalloc(&d_back, sizeof(Back)));
  CHECK(cudaMemcpy(d_in, in.data(), kN * sizeof(float), cudaMemcpyHostToDevice));
  encode<<<kN / 256, 256>>>(d_in, d_out);
  CHECK(cudaGetLastError());
  decode<<<1, 256>>>(d_back);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  static Out out;
  static Back back;
  CHECK(cudaMemcpy(&out, d_out, sizeof out, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(&back, d_back, sizeof back, cudaMemcpyDeviceToHost));

  int bad = 0;
  auto expect = [&](const char* what, int i, unsigned got, unsigned want) {
    if (got != want && bad++ < 20)
      std::printf("mismatch %s [%d] (input %a): got 0x%x want 0x%x\n", what, i, i < kN ? in[i] : 0.0f, got, want);
  };
  for (int i = 0; i < kN; ++i) {
    const float x = in[i], y = in[i ^ 1];
    // Host oracle: cuda_fp8.hpp's C++ code path.
    expect("e4m3", i, out.e4[i], __nv_cvt_float_to_fp8(x, __NV_SATFINITE, __NV_E4M3));
    expect("e5m2", i, out.e5[i], __nv_cvt_float_to_fp8(x, __NV_SATFINITE, __NV_E5M2));
    expect("e4m3x2", i, out.p4[i], __nv_cvt_float2_to_fp8x2(make_float2(x, y), __NV_SATFINITE, __NV_E4M3));
    expect("e5m2x2", i, out.p5[i], __nv_cvt_float2_to_fp8x2(make_float2(x, y), __NV_SATFINITE, __NV_E5M2));
    __half2_raw h;
    h.x = __half_as_ushort(__float2half_rn(x));
    h.y = __half_as_ushort(__float2half_rn(y));
    expect("e4m3x2<-half2", i, out.h4[i], __nv_cvt_halfraw2_to_fp8x2(h, __NV_SATFINITE, __NV_E4M3));
    expect("e5m2x2<-half2", i, out.h5[i], __nv_cvt_halfraw2_to_fp8x2(h, __NV_SATFINITE, __NV_E5M2));
  }
  for (int c = 0; c < 256; ++c) {
    const auto code = static_cast<__nv_fp8_storage_t>(c);
    expect("e4m3->half", c, back.h4[c], __nv_cvt_fp8_to_halfraw(code, __NV_E4M3).x);
    expect("e5m2->half", c, back.h5[c], __nv_cvt_fp8_to_halfraw(code, __NV_E5M2).x);
    __nv_fp8_e4m3 a;
    a.__x = code;
    __nv_fp8_e5m2 b;
    b.__x = code;
    const float fa = static_cast<float>(a), fb = static_cast<float>(b);
    // NaN: compare as NaN (the float widening of a NaN half is any NaN).
    if (!(std::isnan(fa) && std::isnan(back.f4[c]))) expect("e4m3->float", c, FBits(back.f4[c]), FBits(fa));
    if (!(std::isnan(fb) && std::isnan(back.f5[c]))) expect("e5m2->float", c, FBits(back.f5[c]), FBits(fb));
    const auto pair = static_cast<__nv_fp8x2_storage_t>(c | (255 - c) << 8);
    const __half2_raw r4 = __nv_cvt_fp8x2_to_halfraw2(pair, __NV_E4M3), r5 = __nv_cvt_fp8x2_to_halfraw2(pair, __NV_E5M2);
    expect("e4m3x2->half2", c, back.x4[c], r4.x | static_cast<unsigned>(r4.y) << 16);
    expect("e5m2x2->half2", c, back.x5[c], r5.x | static_cast<unsigned>(r5.y) << 16);
  }
  CHECK(cudaFree(d_in));
  CHECK(cudaFree(d_out));
  CHECK(cudaFree(d_back));
  if (bad) {
    std::printf("FAIL: %d mismatches\n", bad);
    return 1;
  }
  std::printf("PASS (%d inputs x 6 encodings, 256 codes x 5 decodings)\n", kN);
  return 0;
}
