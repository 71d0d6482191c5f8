#include <cstdio>
__device__ int depth(int n) { return n <= 0 ? 0 : 1 + depth(n - 1); }
__global__ void tiny(int* out, int n) {
  __shared__ int s[64];
  int t = threadIdx.x;
  s[t % 64] = t;
  __syncthreads();
  if (t < n) out[t] = s[(t + 1) % 64] + depth(t & 3);
  atomicAdd(out + 64, 1);
  if (t == 0) printf("n=%d\n", n);
}
