// Shared-object test: a fat binary inside a .so (PIC, RELATIVE relocations).
__global__ void fb_lib_kernel(unsigned *out) { atomicAdd(out, 1u); }

extern "C" int fb_lib_run(unsigned *out) {
  fb_lib_kernel<<<1, 32>>>(out);
  return cudaDeviceSynchronize() == cudaSuccess ? 0 : 1;
}
