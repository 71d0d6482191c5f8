/*@barracuda
{
  "what": "spin-lock with the acquire fence after the CAS loop but no fence before the unlocking atomicExch: nothing is released",
  "arch": 75,
  "expect": {
    "its": {"verdict": "race", "races": [
      {"kind": "RAW", "space": "global", "class": "inter-block", "lines": [49, 48]},
      {"kind": "WAW", "space": "global", "class": "inter-block", "lines": [49, 49]}
    ]},
    "lockstep": {"verdict": "race", "races": [
      {"kind": "RAW", "space": "global", "class": "inter-block", "lines": [49, 48]},
      {"kind": "WAW", "space": "global", "class": "inter-block", "lines": [49, 49]}
    ]}
  }
}
@*/
// CUDA-by-Example dot product (ch. A.1): each block reduces its partial sum in shared
// memory, then thread 0 takes a global spin-lock and adds the partial sum into one
// global result. The result is a plain int: a volatile one is strong (.relaxed.sys,
// PTX memory model) and never races, which would hide the lock's missing ordering. The unlock is a standalone atomic, so the next
// owner's acquire gets nothing.
#include <cstdio>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("CUDA error: %s (%s:%d)\n", cudaGetErrorString(e_), __FILE__, __LINE__); return 2; } } while (0)

__device__ void Lock(int *mutex) {
  while (atomicCAS(mutex, 0, 1) != 0) {
  }
  __threadfence();
}

__device__ void Unlock(int *mutex) {
  atomicExch(mutex, 0);
}

__global__ void Dot(const int *a, const int *b, int *c, int *mutex) {
  __shared__ int cache[64];
  int t = threadIdx.x;
  int i = blockIdx.x * blockDim.x + t;
  cache[t] = a[i] * b[i];
  __syncthreads();
  for (int s = 32; s > 0; s >>= 1) {
    if (t < s) cache[t] += cache[t + s];
    __syncthreads();
  }
  if (t == 0) {
    Lock(mutex);
    int v = *c;  // @r
    *c = v + cache[0];  // @w
    Unlock(mutex);
  }
}

int main() {
  const int blocks = 4, n = blocks * 64;
  int ha[n], hb[n], want = 0;
  for (int i = 0; i < n; ++i) { ha[i] = i % 7; hb[i] = 2; want += ha[i] * hb[i]; }
  int *da, *db, *dc, *dm;
  CK(cudaMalloc(&da, sizeof(ha)));
  CK(cudaMalloc(&db, sizeof(hb)));
  CK(cudaMalloc(&dc, sizeof(int)));
  CK(cudaMalloc(&dm, sizeof(int)));
  CK(cudaMemcpy(da, ha, sizeof(ha), cudaMemcpyHostToDevice));
  CK(cudaMemcpy(db, hb, sizeof(hb), cudaMemcpyHostToDevice));
  CK(cudaMemset(dc, 0, sizeof(int)));
  CK(cudaMemset(dm, 0, sizeof(int)));
  Dot<<<blocks, 64>>>(da, db, dc, dm);
  CK(cudaGetLastError());
  int h;
  CK(cudaMemcpy(&h, dc, sizeof(int), cudaMemcpyDeviceToHost));
  std::printf("sum=%d (want %d; racy)\n", h, want);
  return 0;
}
