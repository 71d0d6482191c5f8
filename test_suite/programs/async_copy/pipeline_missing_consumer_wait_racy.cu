/*@barracuda
{
  "what": "per-thread cuda::pipeline with the consumer_wait missing: each thread reads its own copy's destination before the copy is complete (cp.async.wait_group never runs before the read), and refills a stage while the copy of two chunks earlier into it may be in flight",
  "arch": 80,
  "expect": {
    "its": {"verdict": "race", "races": [
      {"kind": "RAW", "space": "shared", "class": "async-copy", "lines": [33, 37]},
      {"kind": "WAW", "space": "shared", "class": "async-copy", "lines": [33, 33]}
    ]},
    "lockstep": {"verdict": "race", "races": [
      {"kind": "RAW", "space": "shared", "class": "async-copy", "lines": [33, 37]},
      {"kind": "WAW", "space": "shared", "class": "async-copy", "lines": [33, 33]}
    ]}
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
    // BUG: pipe.consumer_wait() missing: the stage may still be in flight
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
  std::printf("done\n");
  return 0;
}
