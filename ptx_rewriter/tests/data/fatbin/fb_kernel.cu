// Tiny kernel for the fat-binary reader tests (built at test time by nvcc with
// various compression / architecture / runtime-linking flags).
__global__ void fb_scale(float *a, float s, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) a[i] *= s;
}

int main() {
  float *d = nullptr;
  cudaMalloc(&d, 64 * sizeof(float));
  fb_scale<<<2, 32>>>(d, 2.0f, 64);
  cudaDeviceSynchronize();
  cudaFree(d);
  return 0;
}
