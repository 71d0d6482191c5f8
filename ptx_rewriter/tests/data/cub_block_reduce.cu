#include <cub/block/block_reduce.cuh>
__global__ void block_sum(const int* in, int* out) {
  typedef cub::BlockReduce<int, 128> BR;
  __shared__ typename BR::TempStorage tmp;
  int s = BR(tmp).Sum(in[blockIdx.x * 128 + threadIdx.x]);
  if (threadIdx.x == 0) out[blockIdx.x] = s;
}
