/*@barracuda
{
  "what": "lanes 0-15 of each warp wait at __syncthreads inside a branch while lanes 16-31 take the other side, store and exit without arriving: a barrier waits only for the non-exited threads of a warp and an exit releases a barrier it holds up (PTX ISA, barrier and exit), so this is not barrier divergence, the same rule as for `if (i >= n) return;` before __syncthreads",
  "arch": 75,
  "expect": {
    "its": {"verdict": "no-race", "races": []},
    "lockstep": {"verdict": "no-race", "races": []}
  }
}
@*/
// Twin of syncthreads_block_uniform_branch_ok.cu. Which side of the branch runs
// first is up to the hardware (and the emulator's layout), and the early-return
// guard has the same control flow: a rule that reported one order and not the
// other would give different verdicts for the same program, so exits beside a
// barrier are never divergence. Lanes of a warp that reach two different
// barrier instructions, or that stay live and never arrive, still are
// (barriers/syncthreads_if_else_divergent_racy, deadlock reports).
#include <cstdio>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("CUDA error: %s (%s:%d)\n", cudaGetErrorString(e_), __FILE__, __LINE__); return 2; } } while (0)

__global__ void Kernel(const int *in, int *out) {
  __shared__ int s[64];
  int t = threadIdx.x;
  s[t] = in[t];
  if ((t & 31) < 16) {
    __syncthreads();  // @b
    out[t] = s[(t + 32) % 64];
  } else {
    out[t] = -1;
  }
}

int main() {
  int h[64], r[64];
  for (int i = 0; i < 64; ++i) h[i] = 3 * i;
  int *d_in, *d_out;
  CK(cudaMalloc(&d_in, sizeof(h)));
  CK(cudaMalloc(&d_out, sizeof(r)));
  CK(cudaMemcpy(d_in, h, sizeof(h), cudaMemcpyHostToDevice));
  Kernel<<<1, 64>>>(d_in, d_out);
  CK(cudaDeviceSynchronize());
  CK(cudaMemcpy(r, d_out, sizeof(r), cudaMemcpyDeviceToHost));
  for (int t = 0; t < 64; ++t) {
    const int want = (t & 31) < 16 ? h[(t + 32) % 64] : -1;
    if (r[t] != want) {
      std::printf("out[%d] = %d, want %d\n", t, r[t], want);
      return 1;
    }
  }
  std::printf("PASS\n");
  return 0;
}
