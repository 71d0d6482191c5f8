// The device's shared-memory and residency limits follow the compute
// capability the program was built for (core/device.h, DeviceDescription):
// built for sm_75 it may opt in to 64 KiB of dynamic shared memory per block
// and no more; built for sm_90, to 227 KiB, which a kernel then uses to its
// last byte. Built twice (runtime/CMakeLists.txt: ARCH 75 and ARCH 90).
#include <cstdio>
#include <cuda_runtime.h>

__global__ void TouchAll(unsigned* out, unsigned bytes) {
  extern __shared__ unsigned char s[];
  for (unsigned i = threadIdx.x; i < bytes; i += blockDim.x) s[i] = static_cast<unsigned char>(i * 7);
  __syncthreads();
  unsigned sum = 0;
  for (unsigned i = threadIdx.x; i < bytes; i += blockDim.x) sum += s[bytes - 1 - i];
  atomicAdd(out, sum);
}

int main() {
  cudaDeviceProp p;
  if (cudaGetDeviceProperties(&p, 0) != cudaSuccess) return 1;
  const int cc = p.major * 10 + p.minor;
  // The Programming Guide's table: opt-in per block, per SM, threads and blocks per SM.
  const size_t want_optin = cc == 75 ? 64 * 1024 : 227 * 1024;
  const size_t want_sm = cc == 75 ? 64 * 1024 : 228 * 1024;
  const int want_threads = cc == 75 ? 1024 : 2048, want_blocks = cc == 75 ? 16 : 32;
  const size_t want_reserved = 0;  // the emulator's shared windows start with the program's variables
  if ((cc != 75 && cc != 90) || p.sharedMemPerBlockOptin != want_optin || p.sharedMemPerMultiprocessor != want_sm ||
      p.maxThreadsPerMultiProcessor != want_threads || p.maxBlocksPerMultiProcessor != want_blocks ||
      p.reservedSharedMemPerBlock != want_reserved) {
    std::printf("FAIL: sm_%d: optin %zu per SM %zu threads %d blocks %d reserved %zu\n", cc, p.sharedMemPerBlockOptin,
                p.sharedMemPerMultiprocessor, p.maxThreadsPerMultiProcessor, p.maxBlocksPerMultiProcessor,
                p.reservedSharedMemPerBlock);
    return 1;
  }
  int attr = 0;
  cudaDeviceGetAttribute(&attr, cudaDevAttrMaxSharedMemoryPerBlockOptin, 0);
  if (static_cast<size_t>(attr) != want_optin) {
    std::printf("FAIL: attribute optin %d\n", attr);
    return 1;
  }
  // One byte more than the opt-in limit is refused, the limit itself is not.
  if (cudaFuncSetAttribute(TouchAll, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(want_optin + 1)) !=
      cudaErrorInvalidValue) {
    std::printf("FAIL: opting in to %zu bytes was accepted\n", want_optin + 1);
    return 1;
  }
  cudaGetLastError();
  if (cudaFuncSetAttribute(TouchAll, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(want_optin)) !=
      cudaSuccess) {
    std::printf("FAIL: opting in to %zu bytes was refused\n", want_optin);
    return 1;
  }
  unsigned* out = nullptr;
  cudaMalloc(&out, sizeof(unsigned));
  cudaMemset(out, 0, sizeof(unsigned));
  const unsigned bytes = static_cast<unsigned>(want_optin);
  TouchAll<<<1, 256, want_optin>>>(out, bytes);
  if (cudaDeviceSynchronize() != cudaSuccess) {
    std::printf("FAIL: launch with %u bytes: %s\n", bytes, cudaGetErrorString(cudaGetLastError()));
    return 1;
  }
  unsigned got = 0, expect = 0;
  cudaMemcpy(&got, out, sizeof got, cudaMemcpyDeviceToHost);
  for (unsigned i = 0; i < bytes; ++i) expect += static_cast<unsigned char>(i * 7);
  if (got != expect) {
    std::printf("FAIL: sum %u, expected %u\n", got, expect);
    return 1;
  }
  std::printf("sm_%d: %zu bytes of shared memory per block: PASS\n", cc, want_optin);
  return 0;
}
