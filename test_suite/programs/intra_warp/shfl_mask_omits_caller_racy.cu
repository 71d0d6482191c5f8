/*@barracuda
{
  "what": "a tail-warp reduction names only the lanes that hold input (mask 0x0000ffff) but every lane of the warp executes __shfl_down_sync: lanes 16-31 run a warp-synchronous primitive outside their own member mask, which PTX leaves undefined",
  "arch": 75,
  "expect": {
    "its": {"verdict": "race", "races": [
      {"kind": "WARP_SYNC_MASK", "space": "shared", "class": "intra-warp", "lines": [28, 28]}
    ]},
    "lockstep": {"verdict": "race", "races": [
      {"kind": "WARP_SYNC_MASK", "space": "shared", "class": "intra-warp", "lines": [28, 28]}
    ]}
  }
}
@*/
// Twin: shfl_mask_covers_callers_ok.cu. Lane 0's sum reads only lanes 0-15, so the
// result looks right; the bug is that lanes 16-31 call the shuffle with a mask that
// leaves them out (compute-sanitizer --tool synccheck reports it as invalid arguments).
#include <cstdio>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("CUDA error: %s (%s:%d)\n", cudaGetErrorString(e_), __FILE__, __LINE__); return 2; } } while (0)

__global__ void Kernel(const int *in, int valid, int *out) {
  int lane = threadIdx.x;
  int v = lane < valid ? in[lane] : 0;
  const unsigned mask = (1u << valid) - 1u;  // the lanes holding input, not the callers
  for (int offset = 8; offset > 0; offset /= 2) {
    // Every lane runs this, also those outside `mask`.
    v += __shfl_down_sync(mask, v, offset);
  }
  if (lane == 0) out[0] = v;
}

int main() {
  int h[32];
  for (int i = 0; i < 32; ++i) h[i] = i + 1;
  int *d_in, *d_out, r = 0;
  CK(cudaMalloc(&d_in, sizeof(h)));
  CK(cudaMalloc(&d_out, sizeof(int)));
  CK(cudaMemcpy(d_in, h, sizeof(h), cudaMemcpyHostToDevice));
  Kernel<<<1, 32>>>(d_in, 16, d_out);
  CK(cudaGetLastError());
  CK(cudaMemcpy(&r, d_out, sizeof(int), cudaMemcpyDeviceToHost));
  if (r != 16 * 17 / 2) { std::printf("FAIL sum=%d\n", r); return 1; }
  std::printf("PASS\n");
  return 0;
}
