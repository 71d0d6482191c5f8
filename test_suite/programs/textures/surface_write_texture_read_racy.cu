/*@barracuda
{
  "what": "block 0 writes a CUDA array through a surface (surf2Dwrite) while block 1 of the same launch reads the same elements through a texture object (tex2D) and the surface (surf2Dread): texture fetches and surface loads are reads of the array's memory, surface stores writes, and nothing orders the blocks (the texture cache is not even coherent with the kernel's own writes)",
  "arch": 75,
  "expect": {
    "its": {"verdict": "race", "races": [
      {"kind": "RAW", "space": "global", "class": "inter-block", "lines": [27, 29]},
      {"kind": "RAW", "space": "global", "class": "inter-block", "lines": [27, 30]}
    ]},
    "lockstep": {"verdict": "race", "races": [
      {"kind": "RAW", "space": "global", "class": "inter-block", "lines": [27, 29]},
      {"kind": "RAW", "space": "global", "class": "inter-block", "lines": [27, 30]}
    ]}
  }
}
@*/
// An 8 x 4 float array; block 0 stores every element, block 1 reads every element.
#include <cstdio>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("CUDA error: %s (%s:%d)\n", cudaGetErrorString(e_), __FILE__, __LINE__); return 2; } } while (0)

constexpr int kW = 8, kH = 4;

__global__ void Update(cudaSurfaceObject_t surf, cudaTextureObject_t tex, float* out) {
  const int x = threadIdx.x % kW, y = threadIdx.x / kW;
  if (blockIdx.x == 0) {
    surf2Dwrite(1.0f + x + 10 * y, surf, x * 4, y);  // @w
  } else {
    const float t = tex2D<float>(tex, x + 0.5f, y + 0.5f);  // @t
    const float s = surf2Dread<float>(surf, x * 4, y);  // @s
    out[threadIdx.x] = t + s;
  }
}

int main() {
  cudaChannelFormatDesc desc = cudaCreateChannelDesc<float>();
  cudaArray_t array;
  CK(cudaMallocArray(&array, &desc, kW, kH, cudaArraySurfaceLoadStore));
  float zeros[kW * kH] = {};
  CK(cudaMemcpy2DToArray(array, 0, 0, zeros, kW * 4, kW * 4, kH, cudaMemcpyHostToDevice));
  cudaResourceDesc res{};
  res.resType = cudaResourceTypeArray;
  res.res.array.array = array;
  cudaSurfaceObject_t surf;
  CK(cudaCreateSurfaceObject(&surf, &res));
  cudaTextureDesc td{};
  td.readMode = cudaReadModeElementType;
  cudaTextureObject_t tex;
  CK(cudaCreateTextureObject(&tex, &res, &td, nullptr));
  float* out;
  CK(cudaMalloc(&out, sizeof(float) * kW * kH));
  Update<<<2, kW * kH>>>(surf, tex, out);
  CK(cudaGetLastError());
  float h[kW * kH];
  CK(cudaMemcpy(h, out, sizeof(h), cudaMemcpyDeviceToHost));
  std::printf("out[9]=%g (racy: 0, 12 or 24)\n", h[9]);
  CK(cudaDestroyTextureObject(tex));
  CK(cudaDestroySurfaceObject(surf));
  CK(cudaFreeArray(array));
  CK(cudaFree(out));
  return 0;
}
