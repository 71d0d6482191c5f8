// An inclusive block scan (Hillis-Steele) whose in-place update misses the
// barrier between the read of the neighbour and the write: a read-after-write
// race in shared memory. `fixed` as argument puts the barrier back.
#include <cstdio>
#include <cstring>

__global__ void scan(const int* in, int* out, bool fixed) {
  __shared__ int s[256];
  const int t = threadIdx.x;
  s[t] = in[blockIdx.x * blockDim.x + t];
  __syncthreads();
  for (int d = 1; d < blockDim.x; d *= 2) {
    const int v = t >= d ? s[t - d] : 0;
    if (fixed) __syncthreads();
    s[t] += v;
    __syncthreads();
  }
  out[blockIdx.x * blockDim.x + t] = s[t];
}

int main(int argc, char** argv) {
  const bool fixed = argc > 1 && std::strcmp(argv[1], "fixed") == 0;
  const int n = 4 * 256;
  int h[n];
  for (int i = 0; i < n; ++i) h[i] = i % 7;
  int *in = nullptr, *out = nullptr;
  cudaMalloc(&in, sizeof h);
  cudaMalloc(&out, sizeof h);
  cudaMemcpy(in, h, sizeof h, cudaMemcpyHostToDevice);
  scan<<<4, 256>>>(in, out, fixed);
  if (cudaDeviceSynchronize() != cudaSuccess) return 2;
  cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost);
  bool ok = true;
  for (int b = 0; b < 4; ++b) {
    int sum = 0;
    for (int t = 0; t < 256; ++t) {
      sum += (b * 256 + t) % 7;
      ok &= h[b * 256 + t] == sum;
    }
  }
  std::printf("block_scan: %s\n", ok ? "PASS" : "FAIL");
  return 0;
}
