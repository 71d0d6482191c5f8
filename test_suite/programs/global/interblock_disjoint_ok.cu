/*@barracuda
{
  "what": "each block reads and writes only its own slice of a global array; all blocks read a shared read-only input",
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

__global__ void Kernel(const int *in, int *data) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int bias = in[0];          // every thread of every block reads in[0]: read-read is no race
  data[i] = data[i] * 2 + bias;
}

int main() {
  const int n = 4 * 64;
  int h[n], one = 1;
  for (int i = 0; i < n; ++i) h[i] = i;
  int *d_in, *d_data;
  CK(cudaMalloc(&d_in, sizeof(int)));
  CK(cudaMalloc(&d_data, sizeof(h)));
  CK(cudaMemcpy(d_in, &one, sizeof(int), cudaMemcpyHostToDevice));
  CK(cudaMemcpy(d_data, h, sizeof(h), cudaMemcpyHostToDevice));
  Kernel<<<4, 64>>>(d_in, d_data);
  CK(cudaGetLastError());
  CK(cudaMemcpy(h, d_data, sizeof(h), cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; ++i)
    if (h[i] != 2 * i + 1) { std::printf("FAIL data[%d]=%d\n", i, h[i]); return 1; }
  std::printf("PASS\n");
  return 0;
}
