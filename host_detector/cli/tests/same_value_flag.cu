// Same-value writes through the whole CLI: every block sets a global flag to 1
// (unordered writes of one value: same-value warnings), and with argument
// "race" block 0 also writes its id to out[0] while the others write theirs
// (a WAW data race of different values).
#include <cstdio>
#include <cstring>

__global__ void mark(int* flag, int* out, int race) {
  if (threadIdx.x == 0) *flag = 1;
  if (race && threadIdx.x == 0) out[0] = blockIdx.x;
}

int main(int argc, char** argv) {
  int* d = nullptr;
  if (cudaMalloc(&d, 2 * sizeof(int)) != cudaSuccess) return 2;
  const int race = argc > 1 && std::strcmp(argv[1], "race") == 0;
  mark<<<4, 32>>>(d, d + 1, race);
  if (cudaDeviceSynchronize() != cudaSuccess) return 3;
  int flag = 0;
  if (cudaMemcpy(&flag, d, sizeof(int), cudaMemcpyDeviceToHost) != cudaSuccess) return 4;
  std::printf("flag=%d\n", flag);
  return 0;
}
