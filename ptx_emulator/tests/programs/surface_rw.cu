// Surfaces: one kernel writes a 2D float surface and a 1D layered-free
// uchar4 surface (surf2Dwrite / surf1Dwrite), a second kernel reads them back
// (surf2Dread / surf1Dread), including the out-of-range modes: zero reads 0
// and drops stores, clamp reads and writes the edge element.
#include <cstdio>
#include <vector>

#include <cuda_runtime.h>

#include "texture_programs.h"


constexpr int kW = 20, kH = 7;

__global__ void Write(cudaSurfaceObject_t s, cudaSurfaceObject_t bytes) {
  const int x = threadIdx.x, y = blockIdx.x;
  if (x < kW) surf2Dwrite(static_cast<float>(100 * y + x), s, x * 4, y);
  // Row 0 only: one element past the edge, dropped with cudaBoundaryModeZero.
  if (y == 0 && x == kW) surf2Dwrite(-1.0f, s, x * 4, y, cudaBoundaryModeZero);
  if (y == 0 && x < 16) surf1Dwrite(make_uchar4(x, x + 1, x + 2, 255 - x), bytes, x * 4);
}

__global__ void Read(cudaSurfaceObject_t s, cudaSurfaceObject_t bytes, float* out, uchar4* bout, float* edges) {
  const int x = threadIdx.x, y = blockIdx.x;
  if (x < kW) out[y * kW + x] = surf2Dread<float>(s, x * 4, y);
  if (y == 0 && x < 16) bout[x] = surf1Dread<uchar4>(bytes, x * 4);
  if (y == 0 && x == 0) {
    edges[0] = surf2Dread<float>(s, kW * 4, 2, cudaBoundaryModeZero);    // 0
    edges[1] = surf2Dread<float>(s, kW * 4 + 40, 2, cudaBoundaryModeClamp);  // element (kW-1, 2)
    edges[2] = surf2Dread<float>(s, -8, kH + 3, cudaBoundaryModeClamp);  // element (0, kH-1)
  }
}

int main() {
  cudaChannelFormatDesc fdesc = cudaCreateChannelDesc<float>();
  cudaChannelFormatDesc bdesc = cudaCreateChannelDesc<uchar4>();
  cudaArray_t fa, ba;
  CHECK(cudaMallocArray(&fa, &fdesc, kW, kH, cudaArraySurfaceLoadStore));
  CHECK(cudaMallocArray(&ba, &bdesc, 16, 0, cudaArraySurfaceLoadStore));
  cudaResourceDesc res{};
  res.resType = cudaResourceTypeArray;
  res.res.array.array = fa;
  cudaSurfaceObject_t s, sb;
  CHECK(cudaCreateSurfaceObject(&s, &res));
  res.res.array.array = ba;
  CHECK(cudaCreateSurfaceObject(&sb, &res));
  cudaResourceDesc back;
  CHECK(cudaGetSurfaceObjectResourceDesc(&back, s));
  int failures = back.res.array.array == fa ? 0 : 1;

  Write<<<kH, 32>>>(s, sb);
  CHECK(cudaGetLastError());
  float *d_out, *d_edges;
  uchar4* d_bout;
  CHECK(cudaMalloc(&d_out, sizeof(float) * kW * kH));
  CHECK(cudaMalloc(&d_bout, sizeof(uchar4) * 16));
  CHECK(cudaMalloc(&d_edges, sizeof(float) * 3));
  Read<<<kH, 32>>>(s, sb, d_out, d_bout, d_edges);
  CHECK(cudaGetLastError());
  std::vector<float> out(kW * kH);
  uchar4 bout[16];
  float edges[3];
  CHECK(cudaMemcpy(out.data(), d_out, sizeof(float) * kW * kH, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(bout, d_bout, sizeof(bout), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(edges, d_edges, sizeof(edges), cudaMemcpyDeviceToHost));
  for (int y = 0; y < kH; ++y)
    for (int x = 0; x < kW; ++x)
      if (out[y * kW + x] != 100.0f * y + x && failures++ < 5) std::printf("(%d, %d): %g\n", x, y, out[y * kW + x]);
  for (int x = 0; x < 16; ++x)
    if (bout[x].x != x || bout[x].y != x + 1 || bout[x].z != x + 2 || bout[x].w != 255 - x) ++failures;
  if (edges[0] != 0.0f || edges[1] != 200.0f + kW - 1 || edges[2] != 100.0f * (kH - 1)) {
    std::printf("edges: %g %g %g\n", edges[0], edges[1], edges[2]);
    ++failures;
  }
  // The host sees the same bytes.
  std::vector<float> host(kW * kH);
  CHECK(cudaMemcpy2DFromArray(host.data(), kW * sizeof(float), fa, 0, 0, kW * sizeof(float), kH,
                              cudaMemcpyDeviceToHost));
  if (host != out) ++failures;
  // A surface needs an array made with cudaArraySurfaceLoadStore.
  cudaArray_t plain;
  CHECK(cudaMallocArray(&plain, &fdesc, 4, 4));
  res.res.array.array = plain;
  cudaSurfaceObject_t none;
  ExpectError(cudaCreateSurfaceObject(&none, &res), cudaErrorInvalidValue, failures);

  CHECK(cudaDestroySurfaceObject(s));
  CHECK(cudaDestroySurfaceObject(sb));
  CHECK(cudaFreeArray(fa));
  CHECK(cudaFreeArray(ba));
  CHECK(cudaFreeArray(plain));
  return Finish(failures);
}
