// Runtime program (c): built with --default-stream per-thread, so every launch
// and copy goes through the _ptsz / _ptds entry points; two host threads each
// use their own default stream.
#include <cstdio>
#include <thread>

__global__ void fill(int* out, int n, int value) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = value + i;
}

static int Work(int value) {
  const int n = 512;
  int* d = nullptr;
  if (cudaMalloc(&d, n * sizeof(int)) != cudaSuccess) return 1;
  if (cudaMemset(d, 0, n * sizeof(int)) != cudaSuccess) return 1;
  fill<<<n / 128, 128>>>(d, n, value);
  if (cudaGetLastError() != cudaSuccess) return 1;
  if (cudaStreamSynchronize(cudaStreamPerThread) != cudaSuccess) return 1;
  int host[n];
  if (cudaMemcpyAsync(host, d, sizeof(host), cudaMemcpyDeviceToHost, 0) != cudaSuccess) return 1;
  if (cudaStreamSynchronize(0) != cudaSuccess) return 1;
  cudaFree(d);
  for (int i = 0; i < n; ++i)
    if (host[i] != value + i) {
      std::printf("FAIL: value %d: out[%d] = %d\n", value, i, host[i]);
      return 1;
    }
  return 0;
}

int main() {
  int results[2] = {1, 1};
  std::thread a([&] { results[0] = Work(1000); });
  std::thread b([&] { results[1] = Work(5000); });
  a.join();
  b.join();
  if (results[0] || results[1]) {
    std::printf("FAIL: per-thread streams\n");
    return 1;
  }
  std::printf("PASS\n");
  return 0;
}
