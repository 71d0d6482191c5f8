/*@barracuda
{
  "what": "mbarrier producer/consumer through cuda::barrier: warp 0 stores the data, then arrives (mbarrier.arrive: a release); the other warps' wait on the phase (try_wait: an acquire) orders the stores before their reads",
  "arch": 80,
  "expect": {
    "its": {"verdict": "no-race", "races": []},
    "lockstep": {"verdict": "no-race", "races": []}
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
    data[t] = 11 * t;
    Barrier::arrival_token token = bar->arrive();
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
  int h[128];
  CK(cudaMemcpy(h, out, sizeof(h), cudaMemcpyDeviceToHost));
  for (int t = 32; t < 128; ++t)
    if (h[t] != 11 * (t % 32)) { std::printf("FAIL out[%d]=%d\n", t, h[t]); return 1; }
  std::printf("PASS\n");
  return 0;
}
