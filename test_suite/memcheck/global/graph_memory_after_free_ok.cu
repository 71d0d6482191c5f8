/*@barracuda
{
  "what": "the check of the scratch buffer runs inside the graph, before its memory free node",
  "arch": 75,
  "expect": {
    "its": {
      "verdict": "no-race",
      "races": []
    },
    "lockstep": {
      "verdict": "no-race",
      "races": []
    }
  }
}
@*/
// Twin of graph_memory_after_free_memerr.cu: the scratch buffer of a graph
// memory node is used only between its alloc and free nodes; the graph runs
// twice (its allocation ends before each relaunch).
#include <cstdio>
#include <cuda_runtime.h>

__global__ void Fill(int* scratch) { scratch[threadIdx.x] = static_cast<int>(threadIdx.x); }

__global__ void Sum(const int* scratch, int* out) { atomicAdd(out, scratch[threadIdx.x]); }

__global__ void Check(const int* scratch, int* out) {
  if (scratch[threadIdx.x] != static_cast<int>(threadIdx.x)) atomicAdd(out, 1000);
}

int main() {
  int* out = nullptr;
  if (cudaMalloc(&out, sizeof(int)) != cudaSuccess) return 2;
  cudaMemset(out, 0, sizeof(int));
  cudaStream_t s;
  cudaStreamCreate(&s);
  cudaGraph_t graph;
  int* scratch = nullptr;
  cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);
  cudaMallocAsync(&scratch, 64 * sizeof(int), s);
  Fill<<<1, 64, 0, s>>>(scratch);
  Sum<<<1, 64, 0, s>>>(scratch, out);
  Check<<<1, 64, 0, s>>>(scratch, out);
  cudaFreeAsync(scratch, s);
  cudaStreamEndCapture(s, &graph);
  cudaGraphExec_t exec;
  if (cudaGraphInstantiate(&exec, graph, 0) != cudaSuccess) return 2;
  for (int i = 0; i < 2; ++i)
    if (cudaGraphLaunch(exec, s) != cudaSuccess) return 2;
  if (cudaStreamSynchronize(s) != cudaSuccess) return 2;
  int sum = 0;
  if (cudaMemcpy(&sum, out, sizeof sum, cudaMemcpyDeviceToHost) != cudaSuccess) return 2;
  if (sum != 2 * 2016) {
    std::printf("FAIL: %d != %d\n", sum, 2 * 2016);
    return 1;
  }
  std::printf("PASS\n");
  return 0;
}
