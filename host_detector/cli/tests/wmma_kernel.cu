// A CUDA program whose kernel uses the WMMA API (tensor cores: wmma.load /
// wmma.mma / wmma.store), which the emulator does not implement: the launch
// must fail with cudaErrorNotSupported, visibly to the program, and barracuda
// must say the analysis is incomplete (exit 118), never "0 races".
// Built with -gencode arch=compute_75,code=[sm_75,compute_75] (cli.cmake).
#include <mma.h>

#include <cstdio>

using namespace nvcuda;

__global__ void tile_mma(const half* a, const half* b, float* c) {
  wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> fb;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> fc;
  wmma::fill_fragment(fc, 0.0f);
  wmma::load_matrix_sync(fa, a, 16);
  wmma::load_matrix_sync(fb, b, 16);
  wmma::mma_sync(fc, fa, fb, fc);
  wmma::store_matrix_sync(c, fc, 16, wmma::mem_row_major);
}

int main() {
  half *a = nullptr, *b = nullptr;
  float* c = nullptr;
  if (cudaMalloc(&a, 256 * sizeof(half)) != cudaSuccess || cudaMalloc(&b, 256 * sizeof(half)) != cudaSuccess ||
      cudaMalloc(&c, 256 * sizeof(float)) != cudaSuccess)
    return 2;
  tile_mma<<<1, 32>>>(a, b, c);
  const cudaError_t peek = cudaPeekAtLastError();
  const cudaError_t launch = cudaGetLastError();
  const cudaError_t sync = cudaDeviceSynchronize();
  std::printf("launch: %s, peek: %s, sync: %s\n", cudaGetErrorName(launch), cudaGetErrorName(peek),
              cudaGetErrorName(sync));
  // A second launch fails the same way (the note is printed once per kernel).
  tile_mma<<<1, 32>>>(a, b, c);
  std::printf("again: %s\n", cudaGetErrorName(cudaGetLastError()));
  return launch == cudaSuccess ? 3 : 0;
}
