/*@barracuda
{
  "what": "predicated stores (inline PTX @p st.shared, no branch) by lane 5 of each warp to per-warp slots, then __syncthreads before the read",
  "arch": 75,
  "expect": {
    "its": {"verdict": "no-race", "races": []},
    "lockstep": {"verdict": "no-race", "races": []}
  }
}
@*/
// Twin: predicated_store_racy.cu.
#include <cstdio>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("CUDA error: %s (%s:%d)\n", cudaGetErrorString(e_), __FILE__, __LINE__); return 2; } } while (0)

__global__ void Kernel(const int *in, int *out) {
  __shared__ int slot[2];
  int t = threadIdx.x;
  int v = in[t];
  unsigned addr = static_cast<unsigned>(__cvta_generic_to_shared(&slot[t / 32]));
  asm volatile("{ .reg .pred p; setp.eq.u32 p, %0, 5; @p st.shared.u32 [%1], %2; }" :: "r"(t & 31), "r"(addr), "r"(v) : "memory");
  __syncthreads();
  if (t == 0) *out = slot[0] + slot[1];
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
  if (r != 42) { std::printf("FAIL %d\n", r); return 1; }
  std::printf("PASS\n");
  return 0;
}
