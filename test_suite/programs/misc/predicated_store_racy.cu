/*@barracuda
{
  "what": "a predicated store (inline PTX @p st.shared, no branch) by lane 5 of each of two warps to one shared word: WAW between warps",
  "arch": 75,
  "expect": {
    "its": {"verdict": "race", "races": [
      {"kind": "WAW", "space": "shared", "class": "intra-block", "lines": [27, 27]}
    ]},
    "lockstep": {"verdict": "race", "races": [
      {"kind": "WAW", "space": "shared", "class": "intra-block", "lines": [27, 27]}
    ]}
  }
}
@*/
// Twin: predicated_store_ok.cu. Only lane 5 of each warp stores (predicated), so there
// is no intra-warp pair; the two warps' stores race.
#include <cstdio>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("CUDA error: %s (%s:%d)\n", cudaGetErrorString(e_), __FILE__, __LINE__); return 2; } } while (0)

__global__ void Kernel(const int *in, int *out) {
  __shared__ int slot;
  int t = threadIdx.x;
  int v = in[t];
  unsigned addr = static_cast<unsigned>(__cvta_generic_to_shared(&slot));
  // Predicated in PTX itself (nvcc turns a plain `if` around a store into a branch).
  asm volatile("{ .reg .pred p; setp.eq.u32 p, %0, 5; @p st.shared.u32 [%1], %2; }" :: "r"(t & 31), "r"(addr), "r"(v) : "memory");  // @w
  __syncthreads();
  if (t == 0) *out = slot;
}

int main() {
  int h[64];
  for (int i = 0; i < 64; ++i) h[i] = i;
  int *d_in, *d_out;
  CK(cudaMalloc(&d_in, sizeof(h)));
  CK(cudaMalloc(&d_out, sizeof(int)));
  CK(cudaMemcpy(d_in, h, sizeof(h), cudaMemcpyHostToDevice));
  Kernel<<<1, 64>>>(d_in, d_out);
  CK(cudaGetLastError());
  int r;
  CK(cudaMemcpy(&r, d_out, sizeof(int), cudaMemcpyDeviceToHost));
  std::printf("slot=%d (racy: 5 or 37)\n", r);
  return 0;
}
