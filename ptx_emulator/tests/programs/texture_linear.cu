// Textures on linear memory (cudaResourceTypeLinear, tex1Dfetch: integer
// indices, zeros outside) and on pitched 2D memory (cudaResourceTypePitch2D,
// point fetches at element centres), with int, float and uchar4 elements.
#include <cstdio>
#include <vector>

#include <cuda_runtime.h>

#include "texture_programs.h"


constexpr int kN = 100;

// Thread i fetches index i - 10: the first and last ten are outside.
__global__ void FetchInts(cudaTextureObject_t t, int* out) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < kN + 20) out[i] = tex1Dfetch<int>(t, i - 10);
}

__global__ void FetchBytes(cudaTextureObject_t t, uchar4* out) {
  const int i = threadIdx.x;
  out[i] = tex1Dfetch<uchar4>(t, i);
}

__global__ void FetchPitched(cudaTextureObject_t t, float* out, int w, int h) {
  const int x = threadIdx.x, y = blockIdx.x;
  if (x < w && y < h) out[y * w + x] = tex2D<float>(t, x + 0.5f, y + 0.5f);
}

int main() {
  int failures = 0;
  // ---- ints
  std::vector<int> values(kN);
  for (int i = 0; i < kN; ++i) values[i] = i * i - 50;
  int *d_values, *d_out;
  CHECK(cudaMalloc(&d_values, sizeof(int) * kN));
  CHECK(cudaMalloc(&d_out, sizeof(int) * (kN + 20)));
  CHECK(cudaMemcpy(d_values, values.data(), sizeof(int) * kN, cudaMemcpyHostToDevice));
  cudaResourceDesc res{};
  res.resType = cudaResourceTypeLinear;
  res.res.linear.devPtr = d_values;
  res.res.linear.desc = cudaCreateChannelDesc<int>();
  res.res.linear.sizeInBytes = sizeof(int) * kN;
  cudaTextureDesc td{};
  td.readMode = cudaReadModeElementType;
  cudaTextureObject_t ti;
  CHECK(cudaCreateTextureObject(&ti, &res, &td, nullptr));
  FetchInts<<<(kN + 20 + 63) / 64, 64>>>(ti, d_out);
  CHECK(cudaGetLastError());
  std::vector<int> out(kN + 20);
  CHECK(cudaMemcpy(out.data(), d_out, sizeof(int) * (kN + 20), cudaMemcpyDeviceToHost));
  for (int i = 0; i < kN + 20; ++i) {
    const int j = i - 10;
    const int expect = j >= 0 && j < kN ? values[j] : 0;
    if (out[i] != expect && failures++ < 5) std::printf("int %d: %d, expected %d\n", j, out[i], expect);
  }
  cudaResourceDesc back;
  CHECK(cudaGetTextureObjectResourceDesc(&back, ti));
  if (back.resType != cudaResourceTypeLinear || back.res.linear.devPtr != d_values) ++failures;
  CHECK(cudaDestroyTextureObject(ti));

  // ---- uchar4 as element type
  uchar4 bytes[32];
  for (int i = 0; i < 32; ++i) bytes[i] = make_uchar4(i, 2 * i, 255 - i, 7);
  uchar4 *d_bytes, *d_bout;
  CHECK(cudaMalloc(&d_bytes, sizeof(bytes)));
  CHECK(cudaMalloc(&d_bout, sizeof(bytes)));
  CHECK(cudaMemcpy(d_bytes, bytes, sizeof(bytes), cudaMemcpyHostToDevice));
  res.res.linear.devPtr = d_bytes;
  res.res.linear.desc = cudaCreateChannelDesc<uchar4>();
  res.res.linear.sizeInBytes = sizeof(bytes);
  cudaTextureObject_t tb;
  CHECK(cudaCreateTextureObject(&tb, &res, &td, nullptr));
  FetchBytes<<<1, 32>>>(tb, d_bout);
  uchar4 bout[32];
  CHECK(cudaMemcpy(bout, d_bout, sizeof(bout), cudaMemcpyDeviceToHost));
  for (int i = 0; i < 32; ++i)
    if (bout[i].x != bytes[i].x || bout[i].y != bytes[i].y || bout[i].z != bytes[i].z || bout[i].w != 7) {
      std::printf("uchar4 %d differs\n", i);
      ++failures;
    }
  CHECK(cudaDestroyTextureObject(tb));

  // ---- pitch2D floats
  const int w = 13, h = 6;
  float* d_img;
  size_t pitch;
  CHECK(cudaMallocPitch(&d_img, &pitch, w * sizeof(float), h));
  std::vector<float> img(w * h);
  for (int i = 0; i < w * h; ++i) img[i] = 0.5f * i;
  CHECK(cudaMemcpy2D(d_img, pitch, img.data(), w * sizeof(float), w * sizeof(float), h, cudaMemcpyHostToDevice));
  cudaResourceDesc pres{};
  pres.resType = cudaResourceTypePitch2D;
  pres.res.pitch2D.devPtr = d_img;
  pres.res.pitch2D.desc = cudaCreateChannelDesc<float>();
  pres.res.pitch2D.width = w;
  pres.res.pitch2D.height = h;
  pres.res.pitch2D.pitchInBytes = pitch;
  cudaTextureObject_t tp;
  CHECK(cudaCreateTextureObject(&tp, &pres, &td, nullptr));
  float* d_fout;
  CHECK(cudaMalloc(&d_fout, sizeof(float) * w * h));
  FetchPitched<<<h, 32>>>(tp, d_fout, w, h);
  std::vector<float> fout(w * h);
  CHECK(cudaMemcpy(fout.data(), d_fout, sizeof(float) * w * h, cudaMemcpyDeviceToHost));
  for (int i = 0; i < w * h; ++i)
    if (fout[i] != img[i] && failures++ < 5) std::printf("pitched %d: %g\n", i, fout[i]);
  CHECK(cudaDestroyTextureObject(tp));
  // A linear texture outside device memory is refused.
  res.res.linear.devPtr = bytes;
  ExpectError(cudaCreateTextureObject(&tb, &res, &td, nullptr), cudaErrorInvalidValue, failures);

  CHECK(cudaFree(d_values));
  CHECK(cudaFree(d_out));
  CHECK(cudaFree(d_bytes));
  CHECK(cudaFree(d_bout));
  CHECK(cudaFree(d_img));
  CHECK(cudaFree(d_fout));
  return Finish(failures);
}
