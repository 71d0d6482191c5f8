// neighbour_sum with the result of driver_race.cu but no shared memory, and
// a seeded race on a module variable: every thread writes last_writer (a
// write-after-write race). For the GPU agent's driver hooks, which must name
// the variable in the report (driver-loaded modules register no symbols).
__device__ unsigned last_writer;

extern "C" __global__ void neighbour_sum(const int* in, int* out) {
  const unsigned base = blockIdx.x * blockDim.x, t = threadIdx.x;
  out[base + t] = in[base + t] + in[base + (t + 1) % blockDim.x];
  last_writer = base + t;  // the race
}
