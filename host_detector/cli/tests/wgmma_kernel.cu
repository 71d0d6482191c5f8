// A CUDA program whose kernel uses a Hopper warpgroup tensor-core instruction
// (wgmma, sm_90a), which the emulator does not implement: the launch must
// fail with cudaErrorNotSupported, visibly to the program, and barracuda must
// say the analysis is incomplete (exit 118), never "0 races".
// Built with -gencode arch=compute_90a,code=[sm_90a,compute_90a] (cli.cmake).
// barracuda-corpus: skip wgmma exists only for the arch-specific sm_90a target, which the PTX corpus does not build
#include <cstdio>

__global__ void warpgroup_fence(float* out) {
  // wgmma.fence orders register accesses before a warpgroup MMA; any wgmma
  // makes the module one the emulator refuses.
  asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
  out[threadIdx.x] = 1.0f;
}

int main() {
  float* out = nullptr;
  if (cudaMalloc(&out, 128 * sizeof(float)) != cudaSuccess) return 2;
  warpgroup_fence<<<1, 128>>>(out);
  const cudaError_t peek = cudaPeekAtLastError();
  const cudaError_t launch = cudaGetLastError();
  const cudaError_t sync = cudaDeviceSynchronize();
  std::printf("launch: %s, peek: %s, sync: %s\n", cudaGetErrorName(launch), cudaGetErrorName(peek),
              cudaGetErrorName(sync));
  // A second launch fails the same way (the note is printed once per kernel).
  warpgroup_fence<<<1, 128>>>(out);
  std::printf("again: %s\n", cudaGetErrorName(cudaGetLastError()));
  return launch == cudaSuccess ? 3 : 0;
}
