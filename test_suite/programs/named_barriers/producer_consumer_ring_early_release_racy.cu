/*@barracuda
{
  "what": "producer/consumer ring where the consumer signals EMPTY (bar.arrive 2) BEFORE reading the buffer: the producer's refill races with the read (WAR)",
  "arch": 75,
  "expect": {
    "its": {"verdict": "race", "races": [
      {"kind": "WAR", "space": "shared", "class": "intra-block", "lines": [35, 27]}
    ]},
    "lockstep": {"verdict": "race", "races": [
      {"kind": "WAR", "space": "shared", "class": "intra-block", "lines": [35, 27]}
    ]}
  }
}
@*/
// Twin: producer_consumer_ring_ok.cu. Arrival counts are unchanged, so it cannot hang.
#include <cstdio>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("CUDA error: %s (%s:%d)\n", cudaGetErrorString(e_), __FILE__, __LINE__); return 2; } } while (0)

#define ITERS 4
__global__ void Kernel(const int *in, int *out) {
  __shared__ int buf[32];
  int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  if (warp == 0) {
    for (int i = 0; i < ITERS; ++i) {
      if (i > 0) asm volatile("bar.sync 2, 64;" ::: "memory");
      buf[lane] = in[i * 32 + lane];  // @w
      asm volatile("bar.arrive 1, 64;" ::: "memory");
    }
  } else {
    int acc = 0;
    for (int i = 0; i < ITERS; ++i) {
      asm volatile("bar.sync 1, 64;" ::: "memory");
      if (i + 1 < ITERS) asm volatile("bar.arrive 2, 64;" ::: "memory");  // BUG: too early
      acc += buf[(lane + i) % 32];  // @r
    }
    out[lane] = acc;
  }
}

int main() {
  int h[ITERS * 32];
  for (int i = 0; i < ITERS * 32; ++i) h[i] = i;
  int *d_in, *d_out;
  CK(cudaMalloc(&d_in, sizeof(h)));
  CK(cudaMalloc(&d_out, 32 * sizeof(int)));
  CK(cudaMemcpy(d_in, h, sizeof(h), cudaMemcpyHostToDevice));
  Kernel<<<1, 64>>>(d_in, d_out);
  CK(cudaGetLastError());
  int r[32];
  CK(cudaMemcpy(r, d_out, sizeof(r), cudaMemcpyDeviceToHost));
  std::printf("out[0]=%d (racy)\n", r[0]);
  return 0;
}
