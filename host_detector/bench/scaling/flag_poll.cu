// Scaling benchmark (issue 16 item 4): a grid of BLOCKS blocks polling one flag.
// Block 0 writes 64 words and publishes them (fence, volatile flag store); thread 0
// of every other block polls the flag (volatile loads), fences, and then every
// thread of the block reads the 64 hot words.
//   flag_poll BLOCKS         (work grows linearly with BLOCKS)
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

__global__ void FlagPoll(volatile int* flag, int* data, int* out) {
  __shared__ int ready;
  if (blockIdx.x == 0) {
    if (threadIdx.x < 64) data[threadIdx.x] = threadIdx.x + 1;
    __syncthreads();
    if (threadIdx.x == 0) {
      __threadfence();
      *flag = 1;
    }
    return;
  }
  if (threadIdx.x == 0) {
    while (*flag == 0) {
    }
    __threadfence();
    ready = 1;
  }
  __syncthreads();
  int sum = ready;
  for (int k = 0; k < 64; ++k) sum += data[(threadIdx.x + k) & 63];
  out[blockIdx.x * blockDim.x + threadIdx.x] = sum;
}

int main(int argc, char** argv) {
  const int blocks = argc > 1 ? std::atoi(argv[1]) : 16;
  const int threads = 64;
  int *flag, *data, *out;
  if (cudaMalloc(&flag, sizeof(int)) != cudaSuccess || cudaMalloc(&data, 64 * sizeof(int)) != cudaSuccess ||
      cudaMalloc(&out, blocks * threads * sizeof(int)) != cudaSuccess)
    return 2;
  cudaMemset(flag, 0, sizeof(int));
  FlagPoll<<<blocks, threads>>>(flag, data, out);
  int h = 0;
  if (cudaMemcpy(&h, out + threads, sizeof h, cudaMemcpyDeviceToHost) != cudaSuccess) return 2;
  const int want = 1 + 64 * 65 / 2;
  if (blocks > 1 && h != want) { std::printf("FAIL out %d want %d\n", h, want); return 1; }
  std::printf("PASS\n");
  return 0;
}
