/*@barracuda
{
  "what": "lanes leave a data-dependent loop at different iterations; a __syncwarp after the loop orders lane 1's stores before every lane's read",
  "arch": 75,
  "expect": {
    "its": {"verdict": "no-race", "races": []},
    "lockstep": {"verdict": "no-race", "races": []}
  }
}
@*/
// Twin: loop_exit_reconverge_racy.cu.
#include <cstdio>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("CUDA error: %s (%s:%d)\n", cudaGetErrorString(e_), __FILE__, __LINE__); return 2; } } while (0)

__global__ void Kernel(const int *in, int *out) {
  __shared__ int s[1];
  int lane = threadIdx.x;
  if (lane == 0) s[0] = 0;
  __syncwarp();
  int n = in[lane];
  for (int it = 1; it < n; ++it) {
    if (lane == 1) s[0] = it;
  }
  __syncwarp();
  int v = s[0];
  out[lane] = v;
}

int main() {
  int h[32];
  for (int i = 0; i < 32; ++i) h[i] = (i % 2) ? 3 : 1;
  int *d_in, *d_out;
  CK(cudaMalloc(&d_in, sizeof(h)));
  CK(cudaMalloc(&d_out, sizeof(h)));
  CK(cudaMemcpy(d_in, h, sizeof(h), cudaMemcpyHostToDevice));
  Kernel<<<1, 32>>>(d_in, d_out);
  CK(cudaGetLastError());
  CK(cudaMemcpy(h, d_out, sizeof(h), cudaMemcpyDeviceToHost));
  for (int i = 0; i < 32; ++i)
    if (h[i] != 2) { std::printf("FAIL out[%d]=%d\n", i, h[i]); return 1; }
  std::printf("PASS\n");
  return 0;
}
