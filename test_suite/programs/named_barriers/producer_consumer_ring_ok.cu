/*@barracuda
{
  "what": "producer/consumer warp specialisation over one shared buffer with two named barriers: FULL (id 1) and EMPTY (id 2), each bar.arrive on one side and bar.sync on the other",
  "arch": 75,
  "expect": {
    "its": {"verdict": "no-race", "races": []},
    "lockstep": {"verdict": "no-race", "races": []}
  }
}
@*/
// Twin: producer_consumer_ring_early_release_racy.cu.
// FULL generation i: producer's arrive after filling + consumer's sync before reading.
// EMPTY generation i: consumer's arrive after reading + producer's sync before refill.
#include <cstdio>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("CUDA error: %s (%s:%d)\n", cudaGetErrorString(e_), __FILE__, __LINE__); return 2; } } while (0)

#define ITERS 4
__global__ void Kernel(const int *in, int *out) {
  __shared__ int buf[32];
  int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  if (warp == 0) {
    for (int i = 0; i < ITERS; ++i) {
      if (i > 0) asm volatile("bar.sync 2, 64;" ::: "memory");   // wait EMPTY
      buf[lane] = in[i * 32 + lane];
      asm volatile("bar.arrive 1, 64;" ::: "memory");            // signal FULL
    }
  } else {
    int acc = 0;
    for (int i = 0; i < ITERS; ++i) {
      asm volatile("bar.sync 1, 64;" ::: "memory");              // wait FULL
      acc += buf[(lane + i) % 32];
      if (i + 1 < ITERS) asm volatile("bar.arrive 2, 64;" ::: "memory");  // signal EMPTY
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
  for (int l = 0; l < 32; ++l) {
    int want = 0;
    for (int i = 0; i < ITERS; ++i) want += i * 32 + (l + i) % 32;
    if (r[l] != want) { std::printf("FAIL out[%d]=%d want %d\n", l, r[l], want); return 1; }
  }
  std::printf("PASS\n");
  return 0;
}
