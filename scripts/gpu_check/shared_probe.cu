// Prints where a block's static and dynamic shared memory begin in the shared
// window and the driver's reserved bytes per block: the GPU check compares them
// with the agent's shared_base (device_logger/gpu_queue.h).
#include <cstdio>
#include <cuda_runtime.h>
__global__ void Probe(unsigned* out) {
  __shared__ int s[4];
  extern __shared__ int d[];
  s[threadIdx.x] = 1;
  d[threadIdx.x] = 2;
  out[0] = static_cast<unsigned>(__cvta_generic_to_shared(s));
  out[1] = static_cast<unsigned>(__cvta_generic_to_shared(d));
}
int main() {
  unsigned* o = nullptr;
  unsigned h[2] = {0, 0};
  int reserved = -1, dev = 0;
  cudaDeviceGetAttribute(&reserved, cudaDevAttrReservedSharedMemoryPerBlock, dev);
  cudaMalloc(&o, sizeof h);
  Probe<<<1, 4, 64>>>(o);
  cudaMemcpy(h, o, sizeof h, cudaMemcpyDeviceToHost);
  std::printf("static shared at 0x%x, dynamic at 0x%x, reserved per block %d: %s\n", h[0], h[1], reserved,
              cudaGetErrorString(cudaGetLastError()));
  return 0;
}
