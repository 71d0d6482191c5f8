// A CUDA program whose PTX ptxas accepts but the emulator's loader rejects (a
// vector register, declared by inline PTX): the module cannot be loaded, the
// launch fails with cudaErrorInvalidPtx, and barracuda says the analysis is
// incomplete (exit 118). Built with -gencode arch=compute_75,code=[sm_75,compute_75].
#include <cstdio>

__global__ void vector_register(unsigned* out) {
  unsigned x;
  asm volatile("{\n\t.reg .v2 .u32 %vr;\n\tmov.u32 %0, 7;\n\t}" : "=r"(x));
  out[threadIdx.x] = x;
}

int main() {
  unsigned* out = nullptr;
  if (cudaMalloc(&out, 32 * sizeof(unsigned)) != cudaSuccess) return 2;
  vector_register<<<1, 32>>>(out);
  const cudaError_t launch = cudaGetLastError();
  std::printf("launch: %s\n", cudaGetErrorName(launch));
  return launch == cudaSuccess ? 3 : 0;
}
