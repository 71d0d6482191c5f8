/*@barracuda
{
  "what": "double buffering in shared memory: read one buffer, write the other, one __syncthreads per iteration is enough",
  "arch": 75,
  "expect": {
    "its": {"verdict": "no-race", "races": []},
    "lockstep": {"verdict": "no-race", "races": []}
  }
}
@*/
// Twin: single_buffer_missing_second_barrier_racy.cu.
#include <cstdio>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("CUDA error: %s (%s:%d)\n", cudaGetErrorString(e_), __FILE__, __LINE__); return 2; } } while (0)

__global__ void Kernel(const int *in, int *out) {
  __shared__ int buf[2][64];
  int t = threadIdx.x;
  buf[0][t] = in[t];
  __syncthreads();
  int cur = 0;
  for (int it = 0; it < 4; ++it) {
    buf[1 - cur][t] = buf[cur][63 - t] + 1;
    __syncthreads();
    cur = 1 - cur;
  }
  out[t] = buf[cur][t];
}

int main() {
  int h[64];
  for (int i = 0; i < 64; ++i) h[i] = i;
  int *d_in, *d_out;
  CK(cudaMalloc(&d_in, sizeof(h)));
  CK(cudaMalloc(&d_out, sizeof(h)));
  CK(cudaMemcpy(d_in, h, sizeof(h), cudaMemcpyHostToDevice));
  Kernel<<<1, 64>>>(d_in, d_out);
  CK(cudaGetLastError());
  CK(cudaMemcpy(h, d_out, sizeof(h), cudaMemcpyDeviceToHost));
  for (int i = 0; i < 64; ++i)
    if (h[i] != i + 4) { std::printf("FAIL out[%d]=%d\n", i, h[i]); return 1; }
  std::printf("PASS\n");
  return 0;
}
