// The crash test of issue 5: a racy kernel, then the app segfaults (or, with
// argument "kill", SIGKILLs itself). barracuda must still report the race.
#include <csignal>
#include <cstdio>
#include <cstring>

// Every block writes out[0]: an inter-block write-write race on global memory.
__global__ void all_write(int* out) {
  if (threadIdx.x == 0) out[0] = blockIdx.x;
}

int main(int argc, char** argv) {
  int* d = nullptr;
  if (cudaMalloc(&d, sizeof(int)) != cudaSuccess) return 2;
  all_write<<<4, 32>>>(d);
  if (cudaDeviceSynchronize() != cudaSuccess) return 3;
  std::printf("kernel done, crashing\n");
  std::fflush(stdout);
  if (argc > 1 && std::strcmp(argv[1], "kill") == 0) std::raise(SIGKILL);
  volatile int* null = nullptr;
  *null = 1;  // SIGSEGV
  return 0;
}
