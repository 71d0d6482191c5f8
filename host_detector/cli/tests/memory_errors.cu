// Kernels with memory errors, one per mode, for barracuda's memcheck-style
// reports (issue 18 item 3). The program prints what the launch returned and
// exits 0, as a program that ignores errors would: barracuda's exit status and
// report must still say that there was an error, with the access, the thread,
// the source line and the nearest allocation. Built with -lineinfo for sm_75
// (cli.cmake); the tests check the source lines marked LINE-<mode>.
//   before      reads 128 bytes before the start of an allocation (global, read, 4 bytes)
//   after       writes one float past the end of a 100-float allocation (thread 100)
//   freed       reads an allocation after cudaFree (use after free)
//   misaligned  reads an int at an odd address
//   shared      reads past the end of the block's dynamic shared memory
//   ok          the same accesses in bounds: no error
#include <cstdio>
#include <cstring>

__global__ void ReadBefore(const float* p, float* out) {
  out[threadIdx.x] = p[static_cast<int>(threadIdx.x) - 32];  // LINE-before
}

__global__ void WritePastEnd(float* p, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i <= n) p[i] = 1.0f;  // LINE-after (should be i < n)
}

__global__ void ReadFreed(const int* p, int* out) {
  out[threadIdx.x] = p[threadIdx.x];  // LINE-freed
}

__global__ void ReadMisaligned(const char* p, int* out) {
  out[threadIdx.x] = *reinterpret_cast<const int*>(p + 1 + 4 * threadIdx.x);  // LINE-misaligned
}

__global__ void ReadSharedPastEnd(int* out, int extra) {
  extern __shared__ int s[];
  s[threadIdx.x] = threadIdx.x;
  __syncthreads();
  out[threadIdx.x] = s[threadIdx.x + extra];  // LINE-shared
}

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "ok";
  const bool ok = std::strcmp(mode, "ok") == 0;
  float* pad = nullptr;  // so that no allocation of interest is the first one
  float *a = nullptr, *out = nullptr;
  int *freed = nullptr, *iout = nullptr;
  if (cudaMalloc(&pad, 1024) != cudaSuccess || cudaMalloc(&a, 100 * sizeof(float)) != cudaSuccess ||
      cudaMalloc(&out, 256 * sizeof(float)) != cudaSuccess || cudaMalloc(&freed, 64 * sizeof(int)) != cudaSuccess ||
      cudaMalloc(&iout, 64 * sizeof(int)) != cudaSuccess)
    return 2;
  if (ok) {
    ReadBefore<<<1, 32>>>(a + 32, out);
    WritePastEnd<<<1, 128>>>(a, 99);
    ReadFreed<<<1, 32>>>(freed, iout);
    ReadMisaligned<<<1, 8>>>(reinterpret_cast<const char*>(out) - 1, iout);
    ReadSharedPastEnd<<<1, 32, 64 * sizeof(int)>>>(iout, 32);
  } else if (std::strcmp(mode, "before") == 0) {
    ReadBefore<<<1, 32>>>(a, out);
  } else if (std::strcmp(mode, "after") == 0) {
    WritePastEnd<<<1, 128>>>(a, 100);
  } else if (std::strcmp(mode, "freed") == 0) {
    cudaFree(freed);
    ReadFreed<<<1, 32>>>(freed, iout);
  } else if (std::strcmp(mode, "misaligned") == 0) {
    ReadMisaligned<<<1, 8>>>(reinterpret_cast<const char*>(out), iout);
  } else if (std::strcmp(mode, "shared") == 0) {
    ReadSharedPastEnd<<<1, 32, 32 * sizeof(int)>>>(iout, 64);
  } else {
    std::fprintf(stderr, "unknown mode %s\n", mode);
    return 2;
  }
  std::printf("sync: %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
  return 0;
}
