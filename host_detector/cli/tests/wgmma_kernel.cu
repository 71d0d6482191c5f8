// A CUDA program whose kernel uses a Hopper warpgroup tensor-core instruction
// form the emulator does not implement (a single-bit .b1 wgmma.mma_async,
// sm_90a): the
// launch must fail with cudaErrorNotSupported, visibly to the program, and
// barracuda must say the analysis is incomplete (exit 118), never "0 races".
// (wgmma.fence / commit_group / wait_group and the f16/bf16/tf32/s8/u8/fp8
// wgmma.mma_async forms are implemented, ptx_emulator/README.md.)
// Built with -gencode arch=compute_90a,code=[sm_90a,compute_90a] (cli.cmake).
// barracuda-corpus: skip wgmma exists only for the arch-specific sm_90a target, which the PTX corpus does not build
#include <cstdio>

__global__ void warpgroup_b1(int* out, unsigned long long desc) {
  int d0 = 0, d1 = 0, d2 = 0, d3 = 0;
  asm volatile(
      "{\n"
      ".reg .pred p;\n"
      "setp.ne.b32 p, %4, 0;\n"
      "wgmma.fence.sync.aligned;\n"
      "wgmma.mma_async.sync.aligned.m64n8k256.s32.b1.b1.and.popc {%0, %1, %2, %3}, %5, %5, p;\n"
      "wgmma.commit_group.sync.aligned;\n"
      "wgmma.wait_group.sync.aligned 0;\n"
      "}\n"
      : "+r"(d0), "+r"(d1), "+r"(d2), "+r"(d3)
      : "r"(1), "l"(desc)
      : "memory");
  out[threadIdx.x] = d0 + d1 + d2 + d3;
}

int main() {
  int* out = nullptr;
  if (cudaMalloc(&out, 128 * sizeof(int)) != cudaSuccess) return 2;
  warpgroup_b1<<<1, 128>>>(out, 0);
  const cudaError_t peek = cudaPeekAtLastError();
  const cudaError_t launch = cudaGetLastError();
  const cudaError_t sync = cudaDeviceSynchronize();
  std::printf("launch: %s, peek: %s, sync: %s\n", cudaGetErrorName(launch), cudaGetErrorName(peek),
              cudaGetErrorName(sync));
  // A second launch fails the same way (the note is printed once per kernel).
  warpgroup_b1<<<1, 128>>>(out, 0);
  std::printf("again: %s\n", cudaGetErrorName(cudaGetLastError()));
  return launch == cudaSuccess ? 3 : 0;
}
