/*@barracuda
{
  "what": "a kernel launched from a captured CUDA graph: inter-warp exchange through shared memory ordered by __syncthreads",
  "arch": 75,
  "expect": {
    "its": {"verdict": "no-race", "races": []},
    "lockstep": {"verdict": "no-race", "races": []}
  }
}
@*/
// Twin: graph_kernel_race_racy.cu. The kernel runs only through a graph: the
// stream is captured (a memset, the launch, a copy back), the graph is
// instantiated and launched twice; the result is checked after each launch.
#include <cstdio>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("CUDA error: %s (%s:%d)\n", cudaGetErrorString(e_), __FILE__, __LINE__); return 2; } } while (0)

__global__ void Kernel(int *out) {
  __shared__ int s[64];
  int t = threadIdx.x;
  s[t] = t * 3;
  __syncthreads();
  int v = s[63 - t];
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
    for (int t = 0; t < 64; ++t)
      if (h[t] != (63 - t) * 3) { std::printf("wrong result at %d: %d\n", t, h[t]); return 1; }
  }
  CK(cudaGraphExecDestroy(exec));
  CK(cudaGraphDestroy(graph));
  CK(cudaStreamDestroy(stream));
  CK(cudaFree(d_out));
  std::printf("PASS\n");
  return 0;
}
