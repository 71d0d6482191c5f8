/*@barracuda
{
  "what": "fix of the branch-ordering race: the then-path writes, the read moves after the branch behind a __syncwarp",
  "arch": 75,
  "expect": {
    "its": {"verdict": "no-race", "races": []},
    "lockstep": {"verdict": "no-race", "races": []}
  }
}
@*/
// Twin: then_write_else_read_racy.cu.
#include <cstdio>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("CUDA error: %s (%s:%d)\n", cudaGetErrorString(e_), __FILE__, __LINE__); return 2; } } while (0)

__global__ void Kernel(const int *in, int *out) {
  __shared__ int s[32];
  int lane = threadIdx.x;
  s[lane] = 0;
  __syncwarp();
  int acc = 0;
  if (lane < 16) {
    for (int k = 0; k <= lane; ++k) acc += in[k];
    s[lane + 16] = acc;
  } else {
    for (int k = lane; k < 32; ++k) acc += in[k];
  }
  __syncwarp();
  if (lane >= 16) acc += s[lane];
  out[lane] = acc;
}

int main() {
  int h[32];
  for (int i = 0; i < 32; ++i) h[i] = 1;
  int *d_in, *d_out;
  CK(cudaMalloc(&d_in, sizeof(h)));
  CK(cudaMalloc(&d_out, sizeof(h)));
  CK(cudaMemcpy(d_in, h, sizeof(h), cudaMemcpyHostToDevice));
  Kernel<<<1, 32>>>(d_in, d_out);
  CK(cudaGetLastError());
  CK(cudaMemcpy(h, d_out, sizeof(h), cudaMemcpyDeviceToHost));
  for (int i = 0; i < 32; ++i) {
    int want = i < 16 ? i + 1 : (32 - i) + (i - 16 + 1);
    if (h[i] != want) { std::printf("FAIL out[%d]=%d want %d\n", i, h[i], want); return 1; }
  }
  std::printf("PASS\n");
  return 0;
}
