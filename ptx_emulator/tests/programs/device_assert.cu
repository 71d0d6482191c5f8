// Runtime program (d2): a failing device assert. Like on a GPU, the assertion
// message names the file, line, block and thread, the launch fails with
// cudaErrorAssert, and the program reports it and exits with status 3.
#include <cassert>
#include <cstdio>

__global__ void check_positive(const int* values, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) assert(values[i] > 0);
}

int main() {
  const int n = 64;
  int host[n];
  for (int i = 0; i < n; ++i) host[i] = i == 37 ? -1 : i + 1;
  int* d = nullptr;
  cudaMalloc(&d, sizeof(host));
  cudaMemcpy(d, host, sizeof(host), cudaMemcpyHostToDevice);
  check_positive<<<2, 32>>>(d, n);
  cudaError_t e = cudaDeviceSynchronize();
  if (e == cudaErrorAssert) {
    std::printf("kernel stopped: %s (%s)\n", cudaGetErrorName(e), cudaGetErrorString(e));
    return 3;
  }
  std::printf("FAIL: expected cudaErrorAssert, got %s\n", cudaGetErrorName(e));
  return 1;
}
