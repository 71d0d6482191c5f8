/*@barracuda
{
  "what": "__match_any_sync over the full warp (match.sync) between each lane's shared store and loads of other lanes' slots orders the lanes",
  "arch": 75,
  "expect": {
    "its": {"verdict": "no-race", "races": []},
    "lockstep": {"verdict": "no-race", "races": []}
  }
}
@*/
#include <cstdio>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("CUDA error: %s (%s:%d)\n", cudaGetErrorString(e_), __FILE__, __LINE__); return 2; } } while (0)

__global__ void Kernel(const int *in, int *out) {
  __shared__ int s[32];
  int lane = threadIdx.x;
  int key = in[lane] % 4;
  s[lane] = in[lane];
  unsigned peers = __match_any_sync(0xffffffffu, key);
  int leader = __ffs(peers) - 1;
  out[lane] = s[leader] + s[31 - lane];
}

int main() {
  int h[32];
  for (int i = 0; i < 32; ++i) h[i] = i;
  int *d_in, *d_out;
  CK(cudaMalloc(&d_in, sizeof(h)));
  CK(cudaMalloc(&d_out, sizeof(h)));
  CK(cudaMemcpy(d_in, h, sizeof(h), cudaMemcpyHostToDevice));
  Kernel<<<1, 32>>>(d_in, d_out);
  CK(cudaGetLastError());
  int r[32];
  CK(cudaMemcpy(r, d_out, sizeof(r), cudaMemcpyDeviceToHost));
  for (int i = 0; i < 32; ++i)
    if (r[i] != i % 4 + 31 - i) { std::printf("FAIL out[%d]=%d\n", i, r[i]); return 1; }
  std::printf("PASS\n");
  return 0;
}
