// The kernel of driver_race.cpp, compiled to PTX text at build time (nvcc
// -ptx -lineinfo): a seeded shared-memory race for the barracuda end-to-end
// test of driver-API programs. Each thread writes its slot and reads its
// neighbour's with no barrier in between: the read races with the
// neighbour's write (line of `tile[next]`).
extern "C" __global__ void neighbour_sum(const int* in, int* out) {
  __shared__ int tile[64];
  const unsigned t = threadIdx.x;
  tile[t] = in[blockIdx.x * blockDim.x + t];
  const unsigned next = (t + 1) % blockDim.x;
  out[blockIdx.x * blockDim.x + t] = tile[t] + tile[next];  // missing __syncthreads()
}
