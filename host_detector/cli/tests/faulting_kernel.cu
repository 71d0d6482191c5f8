// A CUDA program whose kernel faults: `null` reads through a null pointer
// (cudaErrorIllegalAddress), `deadlock` has warp 0 wait at barrier 1 and warp 1
// at barrier 2, each for all 64 threads (the emulator reports the deadlock as
// cudaErrorLaunchTimeout), `spin` waits for a flag nobody sets (with
// --kernel-timeout, cudaErrorLaunchTimeout too), `grid` calls grid.sync() in
// even blocks only (barrier divergence at grid scope: cudaErrorLaunchTimeout). The program reports what the launch returned and
// exits 0, as a program that ignores errors would: barracuda must still say
// that the kernel faulted and that the analysis is incomplete (exit 118),
// never a clean "0 races". Built with -lineinfo for sm_75 (cli.cmake).
#include <cooperative_groups.h>

#include <cstdio>
#include <cstring>

#include <unistd.h>

__global__ void ReadNull(const int* p, int* out) { out[threadIdx.x] = p[threadIdx.x]; }

// Block 1 waits for a flag nobody sets: a spin that never ends (the emulator
// fails it only with --kernel-timeout).
__global__ void SpinForever(int* out) {
  if (threadIdx.x != 0) return;
  if (blockIdx.x == 1)
    while (*reinterpret_cast<volatile int*>(&out[32]) == 0) {
    }
  out[blockIdx.x] = 1;
}

// Only the even blocks call grid.sync(): the odd ones exit, the even ones
// wait for ever (barrier divergence at grid scope).
__global__ void GridSyncInEvenBlocks(int* out) {
  cooperative_groups::grid_group grid = cooperative_groups::this_grid();
  out[blockIdx.x] = 1;
  if (blockIdx.x % 2 == 0) grid.sync();
}

__global__ void CrossedBarriers(int* out) {
  if (threadIdx.x < 32) {
    asm volatile("bar.sync 1, 64;");
  } else {
    asm volatile("bar.sync 2, 64;");
  }
  out[threadIdx.x] = 1;
}

int main(int argc, char** argv) {
  const bool deadlock = argc > 1 && std::strcmp(argv[1], "deadlock") == 0;
  const bool spin = argc > 1 && std::strcmp(argv[1], "spin") == 0;
  const bool grid = argc > 1 && std::strcmp(argv[1], "grid") == 0;
  int* out = nullptr;
  if (cudaMalloc(&out, 64 * sizeof(int)) != cudaSuccess) return 2;
  if (cudaMemset(out, 0, 64 * sizeof(int)) != cudaSuccess) return 2;
  if (argc > 1 && std::strcmp(argv[1], "host_sleep") == 0) {  // host code only: no launch under way
    sleep(3);
    std::printf("slept\n");
    return 0;
  }
  if (grid) {
    void* args[] = {&out};
    const cudaError_t e = cudaLaunchCooperativeKernel(reinterpret_cast<void*>(GridSyncInEvenBlocks), 4, 32, args);
    if (e != cudaSuccess) std::printf("launch: %s\n", cudaGetErrorName(e));
  } else if (spin) {
    SpinForever<<<2, 32>>>(out);
  } else if (deadlock) {
    CrossedBarriers<<<1, 64>>>(out);
  } else {
    ReadNull<<<1, 32>>>(nullptr, out);
  }
  const cudaError_t sync = cudaDeviceSynchronize();
  std::printf("sync: %s\n", cudaGetErrorName(sync));
  return 0;
}
