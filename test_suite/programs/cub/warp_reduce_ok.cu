/*@barracuda
{
  "what": "cub::WarpReduce with one TempStorage per warp (shuffle-based): each warp reduces its values, lane 0 writes the result",
  "arch": 75,
  "expect": {
    "its": {"verdict": "no-race", "races": []},
    "lockstep": {"verdict": "no-race", "races": []}
  }
}
@*/
#include <cstdio>
#include <cub/cub.cuh>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("CUDA error: %s (%s:%d)\n", cudaGetErrorString(e_), __FILE__, __LINE__); return 2; } } while (0)

using WarpReduce = cub::WarpReduce<int>;

__global__ void Sums(const int *in, int *out) {
  __shared__ typename WarpReduce::TempStorage temp[2];
  int t = threadIdx.x, warp = t / 32;
  int s = WarpReduce(temp[warp]).Sum(in[t]);
  if (t % 32 == 0) out[warp] = s;
}

int main() {
  int h[64];
  for (int i = 0; i < 64; ++i) h[i] = i;
  int *d_in, *d_out;
  CK(cudaMalloc(&d_in, sizeof(h)));
  CK(cudaMalloc(&d_out, 2 * sizeof(int)));
  CK(cudaMemcpy(d_in, h, sizeof(h), cudaMemcpyHostToDevice));
  Sums<<<1, 64>>>(d_in, d_out);
  CK(cudaGetLastError());
  int r[2];
  CK(cudaMemcpy(r, d_out, sizeof(r), cudaMemcpyDeviceToHost));
  if (r[0] != 496 || r[1] != 1520) { std::printf("FAIL %d %d\n", r[0], r[1]); return 1; }
  std::printf("PASS\n");
  return 0;
}
