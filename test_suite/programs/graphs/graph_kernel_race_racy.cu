/*@barracuda
{
  "what": "a kernel launched from a captured CUDA graph: inter-warp RAW on shared memory with no __syncthreads",
  "arch": 75,
  "expect": {
    "its": {"verdict": "race", "races": [
      {"kind": "RAW", "space": "shared", "class": "intra-block", "lines": [26, 28]}
    ]},
    "lockstep": {"verdict": "race", "races": [
      {"kind": "RAW", "space": "shared", "class": "intra-block", "lines": [26, 28]}
    ]}
  }
}
@*/
// Twin: graph_kernel_race_ok.cu. The kernel runs only through a graph: the
// stream is captured (a memset, the launch, a copy back), the graph is
// instantiated and launched twice. One block of 64 threads (2 warps); thread t
// reads the slot of thread 63-t, which lives in the other warp.
#include <cstdio>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("CUDA error: %s (%s:%d)\n", cudaGetErrorString(e_), __FILE__, __LINE__); return 2; } } while (0)

__global__ void Kernel(int *out) {
  __shared__ int s[64];
  int t = threadIdx.x;
  s[t] = t * 3;  // @w
  // BUG: missing __syncthreads() here.
  int v = s[63 - t];  // @r
  out[t] = v;
}

int main() {
  int *d_out;
  int h[64];
  CK(cudaMalloc(&d_out, 64 * sizeof(int)));
  cudaStream_t stream;
  CK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  CK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
  CK(cudaMemsetAsync(d_out, 0, 64 * sizeof(int), stream));
  Kernel<<<1, 64, 0, stream>>>(d_out);
  CK(cudaGetLastError());
  CK(cudaMemcpyAsync(h, d_out, sizeof(h), cudaMemcpyDeviceToHost, stream));
  cudaGraph_t graph;
  CK(cudaStreamEndCapture(stream, &graph));
  cudaGraphExec_t exec;
  CK(cudaGraphInstantiate(&exec, graph, 0));
  for (int launch = 0; launch < 2; ++launch) {
    CK(cudaGraphLaunch(exec, stream));
    CK(cudaStreamSynchronize(stream));
  }
  std::printf("out[0]=%d (racy, nondeterministic)\n", h[0]);
  CK(cudaGraphExecDestroy(exec));
  CK(cudaGraphDestroy(graph));
  CK(cudaStreamDestroy(stream));
  CK(cudaFree(d_out));
  return 0;
}
