/*@barracuda
{
  "what": "the fix of surface_write_texture_read_racy: the surface stores run in a first launch and the texture and surface reads in a second one on the same stream, so kernel order separates them",
  "arch": 75,
  "expect": {
    "its": {"verdict": "no-race", "races": []},
    "lockstep": {"verdict": "no-race", "races": []}
  }
}
@*/
// An 8 x 4 float array written by one launch, read back by the next.
#include <cstdio>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("CUDA error: %s (%s:%d)\n", cudaGetErrorString(e_), __FILE__, __LINE__); return 2; } } while (0)

constexpr int kW = 8, kH = 4;

__global__ void Write(cudaSurfaceObject_t surf) {
  const int x = threadIdx.x % kW, y = threadIdx.x / kW;
  surf2Dwrite(1.0f + x + 10 * y, surf, x * 4, y);
}

__global__ void Read(cudaSurfaceObject_t surf, cudaTextureObject_t tex, float* out) {
  const int x = threadIdx.x % kW, y = threadIdx.x / kW;
  const float t = tex2D<float>(tex, x + 0.5f, y + 0.5f);
  const float s = surf2Dread<float>(surf, x * 4, y);
  out[blockIdx.x * kW * kH + threadIdx.x] = t + s;
}

int main() {
  cudaChannelFormatDesc desc = cudaCreateChannelDesc<float>();
  cudaArray_t array;
  CK(cudaMallocArray(&array, &desc, kW, kH, cudaArraySurfaceLoadStore));
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
  CK(cudaMalloc(&out, sizeof(float) * 2 * kW * kH));
  Write<<<1, kW * kH>>>(surf);
  CK(cudaGetLastError());
  Read<<<2, kW * kH>>>(surf, tex, out);
  CK(cudaGetLastError());
  float h[2 * kW * kH];
  CK(cudaMemcpy(h, out, sizeof(h), cudaMemcpyDeviceToHost));
  int wrong = 0;
  for (int b = 0; b < 2; ++b)
    for (int i = 0; i < kW * kH; ++i)
      if (h[b * kW * kH + i] != 2.0f * (1.0f + i % kW + 10 * (i / kW))) ++wrong;
  CK(cudaDestroyTextureObject(tex));
  CK(cudaDestroySurfaceObject(surf));
  CK(cudaFreeArray(array));
  CK(cudaFree(out));
  if (wrong) {
    std::printf("FAIL: %d wrong\n", wrong);
    return 1;
  }
  std::printf("PASS\n");
  return 0;
}
