// A 2D float texture on a CUDA array fetched with point and linear filtering,
// clamp / wrap / mirror / border addressing and normalized coordinates, checked
// against a CPU reference that uses the emulator's documented rules
// (ptx_emulator/ops/texture_sampling.h): linear weights are 1.8 fixed point,
// rounded to nearest; wrap and mirror need normalized coordinates. Also an
// uchar4 texture read as normalized floats, and the descriptor queries.
#include <cmath>
#include <cstdio>
#include <cstring>
#include <vector>

#include <cuda_runtime.h>

#include "texture_programs.h"


constexpr int kW = 8, kH = 5, kSamples = 64;

__global__ void Fetch(cudaTextureObject_t t, const float2* at, float* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = tex2D<float>(t, at[i].x, at[i].y);
}

__global__ void FetchColour(cudaTextureObject_t t, float4* out) {
  const int i = threadIdx.x;
  out[i] = tex2D<float4>(t, i + 0.5f, 0.5f);
}

// ---- CPU reference
float Q(float f) { return std::floor(f * 256.0f + 0.5f) / 256.0f; }

int Index(int i, int n, cudaTextureAddressMode m, bool normalized) {
  if (!normalized && (m == cudaAddressModeWrap || m == cudaAddressModeMirror)) m = cudaAddressModeClamp;
  switch (m) {
    case cudaAddressModeClamp: return i < 0 ? 0 : i >= n ? n - 1 : i;
    case cudaAddressModeBorder: return i < 0 || i >= n ? -1 : i;
    case cudaAddressModeWrap: return ((i % n) + n) % n;
    default: {
      int p = ((i % (2 * n)) + 2 * n) % (2 * n);
      return p < n ? p : 2 * n - 1 - p;
    }
  }
}

float Texel(const std::vector<float>& img, int x, int y, float border) {
  return x < 0 || y < 0 ? border : img[y * kW + x];
}

float Reference(const std::vector<float>& img, float u, float v, cudaTextureAddressMode m, bool linear,
                bool normalized, float border) {
  const float x = normalized ? u * kW : u, y = normalized ? v * kH : v;
  if (!linear) {
    return Texel(img, Index(static_cast<int>(std::floor(x)), kW, m, normalized),
                 Index(static_cast<int>(std::floor(y)), kH, m, normalized), border);
  }
  const float xb = x - 0.5f, yb = y - 0.5f;
  const float fx = std::floor(xb), fy = std::floor(yb);
  const float a = Q(xb - fx), b = Q(yb - fy);
  const int i = static_cast<int>(fx), j = static_cast<int>(fy);
  const int x0 = Index(i, kW, m, normalized), x1 = Index(i + 1, kW, m, normalized);
  const int y0 = Index(j, kH, m, normalized), y1 = Index(j + 1, kH, m, normalized);
  // The emulator's tap order: (i,j), (i+1,j), (i,j+1), (i+1,j+1).
  float acc = 0;
  acc += (1.0f - a) * (1.0f - b) * Texel(img, x0, y0, border);
  acc += a * (1.0f - b) * Texel(img, x1, y0, border);
  acc += (1.0f - a) * b * Texel(img, x0, y1, border);
  acc += a * b * Texel(img, x1, y1, border);
  return acc;
}

int main() {
  std::vector<float> img(kW * kH);
  for (int i = 0; i < kW * kH; ++i) img[i] = static_cast<float>((i * 37) % 23) - 4.5f;
  cudaChannelFormatDesc desc = cudaCreateChannelDesc<float>();
  cudaArray_t array;
  CHECK(cudaMallocArray(&array, &desc, kW, kH));
  CHECK(cudaMemcpy2DToArray(array, 0, 0, img.data(), kW * sizeof(float), kW * sizeof(float), kH,
                            cudaMemcpyHostToDevice));
  cudaExtent extent;
  cudaChannelFormatDesc got;
  unsigned flags = 99;
  CHECK(cudaArrayGetInfo(&got, &extent, &flags, array));
  if (extent.width != kW || extent.height != kH || extent.depth != 0 || got.x != 32 || flags != 0) {
    std::printf("FAIL: cudaArrayGetInfo\n");
    return 1;
  }

  // Sample points in and around the texture (unnormalized units).
  std::vector<float2> at(kSamples);
  for (int s = 0; s < kSamples; ++s)
    at[s] = make_float2(-3.0f + 0.37f * s, -2.0f + 0.23f * ((s * 7) % kSamples) * 0.5f);
  float2* d_at;
  float* d_out;
  CHECK(cudaMalloc(&d_at, sizeof(float2) * kSamples));
  CHECK(cudaMalloc(&d_out, sizeof(float) * kSamples));

  const cudaTextureAddressMode modes[] = {cudaAddressModeClamp, cudaAddressModeWrap, cudaAddressModeMirror,
                                          cudaAddressModeBorder};
  int failures = 0, cases = 0;
  for (cudaTextureAddressMode mode : modes)
    for (int linear = 0; linear < 2; ++linear)
      for (int normalized = 0; normalized < 2; ++normalized) {
        cudaResourceDesc res{};
        res.resType = cudaResourceTypeArray;
        res.res.array.array = array;
        cudaTextureDesc td{};
        td.addressMode[0] = td.addressMode[1] = mode;
        td.filterMode = linear ? cudaFilterModeLinear : cudaFilterModePoint;
        td.readMode = cudaReadModeElementType;
        td.normalizedCoords = normalized;
        td.borderColor[0] = 42.0f;
        cudaTextureObject_t t;
        CHECK(cudaCreateTextureObject(&t, &res, &td, nullptr));
        std::vector<float2> coords(at);
        if (normalized)
          for (float2& c : coords) c = make_float2(c.x / kW, c.y / kH);
        CHECK(cudaMemcpy(d_at, coords.data(), sizeof(float2) * kSamples, cudaMemcpyHostToDevice));
        Fetch<<<2, 32>>>(t, d_at, d_out, kSamples);
        CHECK(cudaGetLastError());
        std::vector<float> out(kSamples);
        CHECK(cudaMemcpy(out.data(), d_out, sizeof(float) * kSamples, cudaMemcpyDeviceToHost));
        for (int s = 0; s < kSamples; ++s) {
          const float expect = Reference(img, coords[s].x, coords[s].y, mode, linear, normalized, 42.0f);
          if (out[s] != expect && failures++ < 8)
            std::printf("mismatch: mode %d linear %d normalized %d at (%g, %g): %.9g, expected %.9g\n", mode,
                        linear, normalized, coords[s].x, coords[s].y, out[s], expect);
        }
        ++cases;
        cudaTextureDesc back;
        CHECK(cudaGetTextureObjectTextureDesc(&back, t));
        if (back.filterMode != td.filterMode || back.addressMode[1] != mode) ++failures;
        CHECK(cudaDestroyTextureObject(t));
      }

  // uchar4 read as normalized floats, point sampled.
  const int kN = 4;
  unsigned char rgba[kN * 4];
  for (int i = 0; i < kN * 4; ++i) rgba[i] = static_cast<unsigned char>(i * 17);
  cudaChannelFormatDesc cdesc = cudaCreateChannelDesc<uchar4>();
  cudaArray_t colours;
  CHECK(cudaMallocArray(&colours, &cdesc, kN, 1));
  CHECK(cudaMemcpy2DToArray(colours, 0, 0, rgba, sizeof(rgba), sizeof(rgba), 1, cudaMemcpyHostToDevice));
  cudaResourceDesc cres{};
  cres.resType = cudaResourceTypeArray;
  cres.res.array.array = colours;
  cudaTextureDesc ctd{};
  ctd.readMode = cudaReadModeNormalizedFloat;
  cudaTextureObject_t ct;
  CHECK(cudaCreateTextureObject(&ct, &cres, &ctd, nullptr));
  float4* d_c;
  CHECK(cudaMalloc(&d_c, sizeof(float4) * kN));
  FetchColour<<<1, kN>>>(ct, d_c);
  float4 c[kN];
  CHECK(cudaMemcpy(c, d_c, sizeof(c), cudaMemcpyDeviceToHost));
  for (int i = 0; i < kN; ++i) {
    const float* f = &c[i].x;
    for (int k = 0; k < 4; ++k)
      if (f[k] != rgba[4 * i + k] / 255.0f) {
        std::printf("mismatch: colour %d channel %d: %g\n", i, k, f[k]);
        ++failures;
      }
  }
  // Linear filtering of an element-type integer texture is refused.
  cudaTextureDesc bad{};
  bad.filterMode = cudaFilterModeLinear;
  bad.readMode = cudaReadModeElementType;
  cudaTextureObject_t none;
  ExpectError(cudaCreateTextureObject(&none, &cres, &bad, nullptr), cudaErrorInvalidFilterSetting, failures);

  CHECK(cudaDestroyTextureObject(ct));
  CHECK(cudaFreeArray(colours));
  CHECK(cudaFreeArray(array));
  CHECK(cudaFree(d_at));
  CHECK(cudaFree(d_out));
  CHECK(cudaFree(d_c));
  std::printf("%d filter/address/coordinate cases, normalized uchar4\n", cases);
  return Finish(failures);
}
