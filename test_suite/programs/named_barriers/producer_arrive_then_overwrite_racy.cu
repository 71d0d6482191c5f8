/*@barracuda
{
  "what": "bar.arrive does not wait: the producer overwrites the buffer right after arriving, racing with the consumer's reads (WAR)",
  "arch": 75,
  "expect": {
    "its": {"verdict": "race", "races": [
      {"kind": "WAR", "space": "shared", "class": "intra-block", "lines": [29, 26]}
    ]},
    "lockstep": {"verdict": "race", "races": [
      {"kind": "WAR", "space": "shared", "class": "intra-block", "lines": [29, 26]}
    ]}
  }
}
@*/
// Twin: producer_consumer_arrive_sync_ok.cu.
#include <cstdio>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("CUDA error: %s (%s:%d)\n", cudaGetErrorString(e_), __FILE__, __LINE__); return 2; } } while (0)

__global__ void Kernel(const int *in, int *out) {
  __shared__ int s[32];
  int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  if (warp == 0) {
    s[lane] = in[lane];
    asm volatile("bar.arrive 1, 64;" ::: "memory");
    s[lane] = -1;  // @w2
  } else {
    asm volatile("bar.sync 1, 64;" ::: "memory");
    out[lane] = s[31 - lane];  // @r
  }
}

int main() {
  int h[32];
  for (int i = 0; i < 32; ++i) h[i] = i;
  int *d_in, *d_out;
  CK(cudaMalloc(&d_in, sizeof(h)));
  CK(cudaMalloc(&d_out, sizeof(h)));
  CK(cudaMemcpy(d_in, h, sizeof(h), cudaMemcpyHostToDevice));
  Kernel<<<1, 64>>>(d_in, d_out);
  CK(cudaGetLastError());
  CK(cudaMemcpy(h, d_out, sizeof(h), cudaMemcpyDeviceToHost));
  std::printf("out[0]=%d (racy: 31 or -1)\n", h[0]);
  return 0;
}
