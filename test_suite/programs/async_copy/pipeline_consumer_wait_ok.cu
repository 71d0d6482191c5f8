/*@barracuda
{
  "what": "per-thread cuda::pipeline (thread scope): two stages of cuda::memcpy_async (cp.async + commit_group), consumer_wait (wait_group) before each stage is read, consumer_release after",
  "arch": 80,
  "expect": {
    "its": {"verdict": "no-race", "races": []},
    "lockstep": {"verdict": "no-race", "races": []}
  }
}
@*/
// Needs sm_80 (cp.async): build with -gencode arch=compute_80,code=[sm_80,compute_80].
// Each thread stages its own elements of 4 chunks through a 2-stage pipeline.
#include <cstdio>
#include <cuda/pipeline>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("CUDA error: %s (%s:%d)\n", cudaGetErrorString(e_), __FILE__, __LINE__); return 2; } } while (0)
constexpr int kThreads = 128, kChunks = 4, kStages = 2;

__global__ void Kernel(const int *in, int *out) {
  __shared__ int stage[kStages][kThreads];
  const int t = threadIdx.x;
  cuda::pipeline<cuda::thread_scope_thread> pipe = cuda::make_pipeline();
  int sum = 0;
  for (int fetch = 0, use = 0; use < kChunks; ++use) {
    for (; fetch < kChunks && fetch < use + kStages; ++fetch) {
      pipe.producer_acquire();
      cuda::memcpy_async(&stage[fetch % kStages][t], &in[fetch * kThreads + t], sizeof(int), pipe);
      pipe.producer_commit();
    }
    pipe.consumer_wait();
    sum += stage[use % kStages][t];
    pipe.consumer_release();
  }
  out[t] = sum;
}

int main() {
  int h[kChunks * kThreads], o[kThreads], *in, *out;
  for (int i = 0; i < kChunks * kThreads; ++i) h[i] = 7 * i + 3;
  CK(cudaMalloc(&in, sizeof(h)));
  CK(cudaMalloc(&out, sizeof(o)));
  CK(cudaMemcpy(in, h, sizeof(h), cudaMemcpyHostToDevice));
  Kernel<<<1, kThreads>>>(in, out);
  CK(cudaGetLastError());
  CK(cudaMemcpy(o, out, sizeof(o), cudaMemcpyDeviceToHost));
  for (int t = 0; t < kThreads; ++t) {
    int want = 0;
    for (int c = 0; c < kChunks; ++c) want += h[c * kThreads + t];
    if (o[t] != want) { std::printf("FAIL out[%d]=%d want %d\n", t, o[t], want); return 1; }
  }
  std::printf("PASS\n");
  return 0;
}
