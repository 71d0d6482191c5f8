// Runtime program (b), translation unit 2 of 2: a kernel calling a __device__
// function and reading a __device__ variable defined in rdc_device.cu.
#include <cstdio>

extern __device__ int rdc_bias;
__device__ int rdc_transform(int x);

__global__ void apply(int* data, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] = rdc_transform(data[i]);
}

int main() {
  const int n = 300;
  int host[n];
  for (int i = 0; i < n; ++i) host[i] = i;
  int* d = nullptr;
  if (cudaMalloc(&d, sizeof(host)) != cudaSuccess) { std::printf("FAIL: cudaMalloc\n"); return 1; }
  cudaMemcpy(d, host, sizeof(host), cudaMemcpyHostToDevice);
  const int bias = 7;
  cudaError_t e = cudaMemcpyToSymbol(rdc_bias, &bias, sizeof(bias));
  if (e != cudaSuccess) { std::printf("FAIL: cudaMemcpyToSymbol: %s\n", cudaGetErrorString(e)); return 1; }
  apply<<<(n + 63) / 64, 64>>>(d, n);
  e = cudaDeviceSynchronize();
  if (e != cudaSuccess) { std::printf("FAIL: kernel: %s\n", cudaGetErrorString(e)); return 1; }
  cudaMemcpy(host, d, sizeof(host), cudaMemcpyDeviceToHost);
  for (int i = 0; i < n; ++i)
    if (host[i] != 3 * i + 7) { std::printf("FAIL: data[%d] = %d, want %d\n", i, host[i], 3 * i + 7); return 1; }
  cudaFree(d);
  std::printf("PASS\n");
  return 0;
}
