/*@barracuda
{
  "what": "mbarrier producer/consumer through cuda::barrier: warp 0 stores the data after its arrive (mbarrier.arrive is the release), so the consumers' wait does not order the stores before their reads",
  "arch": 80,
  "expect": {
    "its": {"verdict": "race", "races": [
      {"kind": "RAW", "space": "shared", "class": "intra-block", "lines": [33, 38]}
    ]},
    "lockstep": {"verdict": "race", "races": [
      {"kind": "RAW", "space": "shared", "class": "intra-block", "lines": [33, 38]}
    ]}
  }
}
@*/
// Needs sm_80 (mbarrier): build with -gencode arch=compute_80,code=[sm_80,compute_80].
// Warp 0 produces 32 values, warps 1..3 consume them; the barrier expects all 128 threads.
#include <cstdio>
#include <cuda/barrier>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("CUDA error: %s (%s:%d)\n", cudaGetErrorString(e_), __FILE__, __LINE__); return 2; } } while (0)
using Barrier = cuda::barrier<cuda::thread_scope_block>;

__global__ void Kernel(int *out) {
  __shared__ int data[32];
  __shared__ alignas(Barrier) unsigned char storage[sizeof(Barrier)];
  Barrier *bar = reinterpret_cast<Barrier *>(storage);
  const int t = threadIdx.x;
  if (t == 0) init(bar, blockDim.x);
  __syncthreads();
  if (t < 32) {
    Barrier::arrival_token token = bar->arrive();
    // BUG: the stores come after the arrive: the release does not cover them
    data[t] = 11 * t;
    bar->wait(std::move(token));
  } else {
    bar->arrive_and_wait();
  }
  if (t >= 32) out[t] = data[t % 32];
}

int main() {
  int *out;
  CK(cudaMalloc(&out, 128 * sizeof(int)));
  Kernel<<<1, 128>>>(out);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  std::printf("done\n");
  return 0;
}
