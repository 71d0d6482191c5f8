// Calls a kernel of a library without PTX after one of its own: on the
// emulator the library's launch fails (the program sees
// cudaErrorNoKernelImageForDevice) and barracuda names the library and calls
// the analysis incomplete (118); the GPU agent names it in its note.
#include <cstdio>

void run_library_kernel(int* d);

__global__ void own_kernel(int* p) { p[threadIdx.x] = threadIdx.x; }

int main() {
  int* d = nullptr;
  cudaMalloc(&d, 32 * sizeof(int));
  own_kernel<<<1, 32>>>(d);
  run_library_kernel(d);
  cudaDeviceSynchronize();
  std::printf("library launch: %s\n", cudaGetErrorName(cudaGetLastError()));
  return 0;
}
