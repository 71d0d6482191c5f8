// Copies to, from and between CUDA arrays: cudaMemcpy2DToArray /
// 2DFromArray round trips with offsets, 2DArrayToArray, the deprecated
// linear ToArray / FromArray, cudaMemcpy3D with a 3D and a layered array, the
// Async variants on a stream, and the errors for copies leaving the array.
#include <cstdio>
#include <vector>

#include <cuda_runtime.h>

#include "texture_programs.h"


// A kernel that sees the 3D array through a texture (point fetch at (x, y, z)).
__global__ void Fetch3D(cudaTextureObject_t t, int* out, int w, int h, int d) {
  const int x = threadIdx.x, y = threadIdx.y, z = blockIdx.x;
  if (x < w && y < h) out[(z * h + y) * w + x] = tex3D<int>(t, x + 0.5f, y + 0.5f, z + 0.5f);
}

__global__ void FetchLayers(cudaTextureObject_t t, short* out, int w, int h) {
  const int x = threadIdx.x, y = threadIdx.y, layer = blockIdx.x;
  out[(layer * h + y) * w + x] = tex2DLayered<short>(t, x + 0.5f, y + 0.5f, layer);
}

// cudaMemcpy3D of dense host rows `pitch` bytes apart into a whole array
// (the extent counts elements when an array takes part).
cudaError_t HostToArray3D(cudaArray_t array, void* host, size_t pitch, cudaExtent extent) {
  cudaMemcpy3DParms p{};
  p.srcPtr = make_cudaPitchedPtr(host, pitch, extent.width, extent.height);
  p.dstArray = array;
  p.extent = extent;
  p.kind = cudaMemcpyHostToDevice;
  return cudaMemcpy3D(&p);
}

int main() {
  int failures = 0;
  const int w = 9, h = 6;
  std::vector<unsigned short> src(w * h), dst(w * h, 0);
  for (int i = 0; i < w * h; ++i) src[i] = static_cast<unsigned short>(1000 + i);
  cudaChannelFormatDesc desc = cudaCreateChannelDesc<unsigned short>();
  cudaArray_t a, b;
  CHECK(cudaMallocArray(&a, &desc, w, h));
  CHECK(cudaMallocArray(&b, &desc, w, h));
  // Round trip of the whole array.
  CHECK(cudaMemcpy2DToArray(a, 0, 0, src.data(), w * 2, w * 2, h, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy2DFromArray(dst.data(), w * 2, a, 0, 0, w * 2, h, cudaMemcpyDeviceToHost));
  if (dst != src) ++failures;
  // A 3 x 2 sub-rectangle at element (4, 3) of b, through a device buffer and array to array.
  CHECK(cudaMemcpy2DArrayToArray(b, 4 * 2, 3, a, 1 * 2, 2, 3 * 2, 2, cudaMemcpyDeviceToDevice));
  std::vector<unsigned short> sub(3 * 2);
  CHECK(cudaMemcpy2DFromArray(sub.data(), 3 * 2, b, 4 * 2, 3, 3 * 2, 2, cudaMemcpyDeviceToHost));
  for (int y = 0; y < 2; ++y)
    for (int x = 0; x < 3; ++x)
      if (sub[y * 3 + x] != src[(2 + y) * w + 1 + x]) ++failures;
  // Linear (deprecated) copies: row-major with no padding.
  unsigned short line[5] = {1, 2, 3, 4, 5}, line_back[5] = {};
  CHECK(cudaMemcpyToArray(a, 2 * 2, 1, line, sizeof(line), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpyFromArray(line_back, a, 2 * 2, 1, sizeof(line), cudaMemcpyDeviceToHost));
  for (int i = 0; i < 5; ++i)
    if (line_back[i] != line[i]) ++failures;
  // Async on a stream.
  cudaStream_t stream;
  CHECK(cudaStreamCreate(&stream));
  CHECK(cudaMemcpy2DToArrayAsync(b, 0, 0, src.data(), w * 2, w * 2, h, cudaMemcpyHostToDevice, stream));
  std::fill(dst.begin(), dst.end(), 0);
  CHECK(cudaMemcpy2DFromArrayAsync(dst.data(), w * 2, b, 0, 0, w * 2, h, cudaMemcpyDeviceToHost, stream));
  CHECK(cudaStreamSynchronize(stream));
  if (dst != src) ++failures;
  // Leaving the array is an error.
  ExpectError(cudaMemcpy2DToArray(a, 2, 0, src.data(), w * 2, w * 2, h, cudaMemcpyHostToDevice),
              cudaErrorInvalidValue, failures);
  ExpectError(cudaMemcpy2DFromArray(dst.data(), w * 2, a, 0, 1, w * 2, h, cudaMemcpyDeviceToHost),
              cudaErrorInvalidValue, failures);

  // cudaMemcpy3D into a 3D int array (extent in elements), read by a texture.
  const int d = 3;
  std::vector<int> vol(w * h * d);
  for (int i = 0; i < w * h * d; ++i) vol[i] = i * 3 - 7;
  cudaChannelFormatDesc idesc = cudaCreateChannelDesc<int>();
  cudaArray_t v;
  CHECK(cudaMalloc3DArray(&v, &idesc, make_cudaExtent(w, h, d)));
  CHECK(HostToArray3D(v, vol.data(), w * sizeof(int), make_cudaExtent(w, h, d)));
  cudaResourceDesc res{};
  res.resType = cudaResourceTypeArray;
  res.res.array.array = v;
  cudaTextureDesc td{};
  td.readMode = cudaReadModeElementType;
  cudaTextureObject_t t;
  CHECK(cudaCreateTextureObject(&t, &res, &td, nullptr));
  int* d_out;
  CHECK(cudaMalloc(&d_out, sizeof(int) * w * h * d));
  Fetch3D<<<d, dim3(16, 8)>>>(t, d_out, w, h, d);
  CHECK(cudaGetLastError());
  std::vector<int> got(w * h * d);
  CHECK(cudaMemcpy(got.data(), d_out, sizeof(int) * w * h * d, cudaMemcpyDeviceToHost));
  if (got != vol) ++failures;
  // And back with cudaMemcpy3D from the array, one inner box.
  std::vector<int> box(2 * 2 * 2, 0);
  cudaMemcpy3DParms q{};
  q.srcArray = v;
  q.srcPos = make_cudaPos(3, 1, 1);
  q.dstPtr = make_cudaPitchedPtr(box.data(), 2 * sizeof(int), 2, 2);
  q.extent = make_cudaExtent(2, 2, 2);
  q.kind = cudaMemcpyDeviceToHost;
  CHECK(cudaMemcpy3D(&q));
  for (int z = 0; z < 2; ++z)
    for (int y = 0; y < 2; ++y)
      for (int x = 0; x < 2; ++x)
        if (box[(z * 2 + y) * 2 + x] != vol[((1 + z) * h + 1 + y) * w + 3 + x]) ++failures;

  // A layered 2D array of shorts: one layer per z.
  const int lw = 4, lh = 2, layers = 3;
  std::vector<short> lay(lw * lh * layers);
  for (int i = 0; i < lw * lh * layers; ++i) lay[i] = static_cast<short>(-i);
  cudaChannelFormatDesc sdesc = cudaCreateChannelDesc<short>();
  cudaArray_t l;
  CHECK(cudaMalloc3DArray(&l, &sdesc, make_cudaExtent(lw, lh, layers), cudaArrayLayered));
  CHECK(HostToArray3D(l, lay.data(), lw * sizeof(short), make_cudaExtent(lw, lh, layers)));
  res.res.array.array = l;
  cudaTextureObject_t tl;
  CHECK(cudaCreateTextureObject(&tl, &res, &td, nullptr));
  short* d_lay;
  CHECK(cudaMalloc(&d_lay, sizeof(short) * lw * lh * layers));
  FetchLayers<<<layers, dim3(lw, lh)>>>(tl, d_lay, lw, lh);
  std::vector<short> lay_back(lw * lh * layers);
  CHECK(cudaMemcpy(lay_back.data(), d_lay, sizeof(short) * lw * lh * layers, cudaMemcpyDeviceToHost));
  if (lay_back != lay) ++failures;

  CHECK(cudaDestroyTextureObject(t));
  CHECK(cudaDestroyTextureObject(tl));
  CHECK(cudaFreeArray(a));
  CHECK(cudaFreeArray(b));
  CHECK(cudaFreeArray(v));
  CHECK(cudaFreeArray(l));
  ExpectError(cudaFreeArray(a), cudaErrorInvalidValue, failures);
  CHECK(cudaFree(d_out));
  CHECK(cudaFree(d_lay));
  CHECK(cudaStreamDestroy(stream));
  return Finish(failures);
}
