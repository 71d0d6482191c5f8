// The race-free twin of driver_race.cu (same kernel name and lines but for
// the barrier): compiled to PTX text at build time for the GPU agent's
// driver-API tests, where it must give 0 races.
extern "C" __global__ void neighbour_sum(const int* in, int* out) {
  __shared__ int tile[64];
  const unsigned t = threadIdx.x;
  tile[t] = in[blockIdx.x * blockDim.x + t];
  __syncthreads();
  const unsigned next = (t + 1) % blockDim.x;
  out[blockIdx.x * blockDim.x + t] = tile[t] + tile[next];
}
