// -rdc=true test, translation unit 2 of 2.
__device__ int fb_twice(int x) { return 2 * x; }

__global__ void fb_kernel_b(int *p) { p[threadIdx.x] += 1; }

int fb_launch_b(int *d) {
  fb_kernel_b<<<1, 32>>>(d);
  return 0;
}
