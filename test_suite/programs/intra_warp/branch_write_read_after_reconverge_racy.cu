/*@barracuda
{
  "what": "lanes 0-15 store in a (real, non-predicated) branch; after the branch every lane reads a slot of the other half: lockstep reconverges (fi orders), ITS does not",
  "arch": 75,
  "expect": {
    "its": {"verdict": "race", "races": [
      {"kind": "RAW", "space": "shared", "class": "intra-warp", "lines": [25, 27]}
    ]},
    "lockstep": {"verdict": "no-race", "races": []}
  }
}
@*/
// Twin: branch_write_syncwarp_ok.cu. The loop inside the branch keeps nvcc from
// if-converting it into predicated stores (check the PTX: a bra around the body).
#include <cstdio>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("CUDA error: %s (%s:%d)\n", cudaGetErrorString(e_), __FILE__, __LINE__); return 2; } } while (0)

__global__ void Kernel(const int *in, int *out) {
  __shared__ int s[16];
  int lane = threadIdx.x;
  if (lane < 16) {
    int acc = 0;
    for (int k = 0; k <= lane; ++k) acc += in[k];
    s[lane] = acc;  // @w
  }
  int v = s[lane & 15];  // @r
  out[lane] = v;
}

int main() {
  int h[32];
  for (int i = 0; i < 32; ++i) h[i] = 1;
  int *d_in, *d_out;
  CK(cudaMalloc(&d_in, sizeof(h)));
  CK(cudaMalloc(&d_out, sizeof(h)));
  CK(cudaMemcpy(d_in, h, sizeof(h), cudaMemcpyHostToDevice));
  Kernel<<<1, 32>>>(d_in, d_out);
  CK(cudaGetLastError());
  CK(cudaMemcpy(h, d_out, sizeof(h), cudaMemcpyDeviceToHost));
  std::printf("out[16]=%d (1 when benign)\n", h[16]);
  return 0;
}
