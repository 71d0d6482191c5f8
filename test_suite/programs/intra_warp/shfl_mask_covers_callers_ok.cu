/*@barracuda
{
  "what": "the fixed tail-warp reduction: every lane executes __shfl_down_sync with the full mask, lanes without input contribute 0",
  "arch": 75,
  "expect": {
    "its": {"verdict": "no-race", "races": []},
    "lockstep": {"verdict": "no-race", "races": []}
  }
}
@*/
// Twin: shfl_mask_omits_caller_racy.cu. The member mask names exactly the lanes that
// call the shuffle (all 32), as PTX requires.
#include <cstdio>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("CUDA error: %s (%s:%d)\n", cudaGetErrorString(e_), __FILE__, __LINE__); return 2; } } while (0)

__global__ void Kernel(const int *in, int valid, int *out) {
  int lane = threadIdx.x;
  int v = lane < valid ? in[lane] : 0;
  for (int offset = 16; offset > 0; offset /= 2) {
    v += __shfl_down_sync(0xffffffffu, v, offset);
  }
  if (lane == 0) out[0] = v;
}

int main() {
  int h[32];
  for (int i = 0; i < 32; ++i) h[i] = i + 1;
  int *d_in, *d_out, r = 0;
  CK(cudaMalloc(&d_in, sizeof(h)));
  CK(cudaMalloc(&d_out, sizeof(int)));
  CK(cudaMemcpy(d_in, h, sizeof(h), cudaMemcpyHostToDevice));
  Kernel<<<1, 32>>>(d_in, 16, d_out);
  CK(cudaGetLastError());
  CK(cudaMemcpy(&r, d_out, sizeof(int), cudaMemcpyDeviceToHost));
  if (r != 16 * 17 / 2) { std::printf("FAIL sum=%d\n", r); return 1; }
  std::printf("PASS\n");
  return 0;
}
