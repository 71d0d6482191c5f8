/*@barracuda
{
  "what": "tree reduction missing the barrier between the stride-64 and stride-32 steps: warp 0 reads what warp 1 writes",
  "arch": 75,
  "expect": {
    "its": {"verdict": "race", "races": [
      {"kind": "RAW", "space": "shared", "class": "intra-block", "lines": [30, 30]}
    ]},
    "lockstep": {"verdict": "race", "races": [
      {"kind": "RAW", "space": "shared", "class": "intra-block", "lines": [30, 30]}
    ]}
  }
}
@*/
// Twin: reduction_tree_ok.cu. Only the two warp-uniform steps (stride 64 and 32) run
// in the loop, so every racing pair is between warps: warp 0 (stride 32) reads
// s[32..63], which warp 1 writes at stride 64. Thread 0 finishes the sum after a
// barrier, so the tail is race-free.
#include <cstdio>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("CUDA error: %s (%s:%d)\n", cudaGetErrorString(e_), __FILE__, __LINE__); return 2; } } while (0)

__global__ void Reduce(const int *in, int *out) {
  __shared__ int s[128];
  int t = threadIdx.x;
  s[t] = in[t];
  __syncthreads();
  for (int stride = 64; stride >= 32; stride >>= 1) {
    if (t < stride)
      s[t] += s[t + stride];  // @acc
    // BUG: missing __syncthreads() here.
  }
  __syncthreads();
  if (t == 0) {
    int sum = 0;
    for (int i = 0; i < 32; ++i) sum += s[i];
    *out = sum;
  }
}

int main() {
  int h_in[128];
  for (int i = 0; i < 128; ++i) h_in[i] = i;
  int *d_in, *d_out;
  CK(cudaMalloc(&d_in, sizeof(h_in)));
  CK(cudaMalloc(&d_out, sizeof(int)));
  CK(cudaMemcpy(d_in, h_in, sizeof(h_in), cudaMemcpyHostToDevice));
  Reduce<<<1, 128>>>(d_in, d_out);
  CK(cudaGetLastError());
  int h;
  CK(cudaMemcpy(&h, d_out, sizeof(h), cudaMemcpyDeviceToHost));
  std::printf("sum=%d (expected 8128 when the race is benign)\n", h);
  return 0;
}
