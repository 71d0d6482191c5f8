// Every kind of site: loads/stores in each space, atomics, fences, barriers, warp primitives.
__device__ int counter;
__constant__ int table[4];

__device__ __noinline__ int helper(int* p, int v) {
  return atomicAdd(p, v);
}

__global__ void sites(int* out, const int* in, unsigned mask) {
  __shared__ int buf[64];
  int local[4];
  int i = threadIdx.x;
  buf[i] = in[i] + table[i & 3];
  __syncthreads();
  local[i & 3] = buf[63 - i];
  atomicAdd(&counter, 1);
  atomicCAS(out, 0, i);
  __threadfence();
  __threadfence_block();
  int v = __shfl_sync(mask, local[(i + 1) & 3], 0);
  v += __ballot_sync(mask, v > 0);
  v += __activemask();
  __syncwarp(mask);
  v += __reduce_add_sync(mask, v);
  v += helper(out + 1, v);
  atomicAdd(&buf[0], 1);
  out[i] = v;
}
// barracuda-corpus: arch 80 (__reduce_add_sync needs sm_80; the PTX corpus builds it for compute_90 only)
