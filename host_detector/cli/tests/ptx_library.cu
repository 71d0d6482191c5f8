// CUDA code in a shared library of the program's own, with PTX: its kernel
// writes one word from every lane (a write-write race). plain_main.cpp, a
// host program that makes no CUDA call itself, calls run_ptx_library; the
// CLI accepts it through its dependencies (cli.cmake builds both).
__global__ void library_racy(int* p) { p[0] = threadIdx.x; }

extern "C" int run_ptx_library() {
  int* d = nullptr;
  if (cudaMalloc(&d, sizeof(int)) != cudaSuccess) return 1;
  library_racy<<<1, 32>>>(d);
  const cudaError_t e = cudaDeviceSynchronize();
  cudaFree(d);
  return e == cudaSuccess ? 0 : 1;
}
