/*@barracuda
{
  "what": "cg::memcpy_async of a tile into shared memory, then reads of elements copied by other threads WITHOUT cg::wait(block): on compute_75 the block's threads copy synchronously, each its own chunks, and nothing orders another warp's copy before the read",
  "arch": 75,
  "expect": {
    "its": {"verdict": "race", "races": [
      {"kind": "RAW", "space": "shared", "class": "intra-block", "lines": [28, 31]}
    ]},
    "lockstep": {"verdict": "race", "races": [
      {"kind": "RAW", "space": "shared", "class": "intra-block", "lines": [28, 31]}
    ]}
  }
}
@*/
// 2 blocks x 128 threads; thread t reads buf[(t + 64) % 128] right after the copy.
// cg::wait(block) (a block.sync() on compute_75, a pipeline wait + sync on sm_80) is
// what would order the copy before the reads.
#include <cooperative_groups.h>
#include <cooperative_groups/memcpy_async.h>
#include <cstdio>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("CUDA error: %s (%s:%d)\n", cudaGetErrorString(e_), __FILE__, __LINE__); return 2; } } while (0)
namespace cg = cooperative_groups;

__global__ void CopyThenRead(const int *in, int *out) {
  cg::thread_block block = cg::this_thread_block();
  __shared__ int buf[128];
  cg::memcpy_async(block, buf, in + blockIdx.x * 128, sizeof(int) * 128);
  // BUG: missing cg::wait(block)
  int t = threadIdx.x;
  out[blockIdx.x * 128 + t] = buf[(t + 64) % 128];
}

int main() {
  int h[256];
  for (int i = 0; i < 256; ++i) h[i] = i * 3;
  int *d_in, *d_out;
  CK(cudaMalloc(&d_in, sizeof(h)));
  CK(cudaMalloc(&d_out, sizeof(h)));
  CK(cudaMemcpy(d_in, h, sizeof(h), cudaMemcpyHostToDevice));
  CopyThenRead<<<2, 128>>>(d_in, d_out);
  CK(cudaGetLastError());
  CK(cudaMemcpy(h, d_out, sizeof(h), cudaMemcpyDeviceToHost));
  std::printf("out[0] = %d (want %d)\n", h[0], 64 * 3);
  return 0;
}
