/*@barracuda
{
  "what": "two warps update different fields of the same structs in global memory (disjoint bytes), then __syncthreads and a whole-struct read",
  "arch": 75,
  "expect": {
    "its": {"verdict": "no-race", "races": []},
    "lockstep": {"verdict": "no-race", "races": []}
  }
}
@*/
#include <cstdio>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("CUDA error: %s (%s:%d)\n", cudaGetErrorString(e_), __FILE__, __LINE__); return 2; } } while (0)

struct Particle {
  float x, y;
  int id;
  short kind;
  char alive;
};

__global__ void Kernel(Particle *p, float *out) {
  int t = threadIdx.x, lane = t % 32;
  if (t < 32) {
    p[lane].x = lane * 1.0f;
    p[lane].y = lane * 2.0f;
  } else {
    p[lane].id = lane;
    p[lane].kind = (short)(lane % 3);
    p[lane].alive = 1;
  }
  __syncthreads();
  if (t < 32) {
    Particle q = p[31 - lane];
    out[lane] = q.x + q.y + q.id + q.kind + q.alive;
  }
}

int main() {
  Particle *d_p;
  float *d_out;
  CK(cudaMalloc(&d_p, 32 * sizeof(Particle)));
  CK(cudaMalloc(&d_out, 32 * sizeof(float)));
  Kernel<<<1, 64>>>(d_p, d_out);
  CK(cudaGetLastError());
  float h[32];
  CK(cudaMemcpy(h, d_out, sizeof(h), cudaMemcpyDeviceToHost));
  for (int l = 0; l < 32; ++l) {
    int k = 31 - l;
    float want = k * 3.0f + k + k % 3 + 1;
    if (h[l] != want) { std::printf("FAIL out[%d]=%f\n", l, h[l]); return 1; }
  }
  std::printf("PASS\n");
  return 0;
}
