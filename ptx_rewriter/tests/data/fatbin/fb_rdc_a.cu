// -rdc=true test, translation unit 1 of 2: calls a device function of fb_rdc_b.cu.
extern __device__ int fb_twice(int x);
int fb_launch_b(int *d);

__global__ void fb_kernel_a(int *p) { p[threadIdx.x] = fb_twice(p[threadIdx.x]); }

int main() {
  int *d = nullptr;
  cudaMalloc(&d, 32 * sizeof(int));
  fb_kernel_a<<<1, 32>>>(d);
  fb_launch_b(d);
  cudaDeviceSynchronize();
  return 0;
}
