/*@barracuda
{
  "what": "a kernel launched after a graph reads the scratch buffer the graph allocated and freed (memory of a graph memory node used outside its lifetime)",
  "arch": 75,
  "expect": {
    "its": {
      "verdict": "no-race",
      "races": [],
      "memory_errors": [
        {
          "kind": "use-after-free",
          "space": "global",
          "line": 44
        }
      ]
    },
    "lockstep": {
      "verdict": "no-race",
      "races": [],
      "memory_errors": [
        {
          "kind": "use-after-free",
          "space": "global",
          "line": 44
        }
      ]
    }
  }
}
@*/
// Twin: graph_memory_after_free_ok.cu. The graph allocates a scratch buffer
// (cudaMallocAsync in stream capture: a memory alloc node), fills and reduces
// it, and frees it (a memory free node); the program keeps the pointer and
// reads the scratch buffer once more after the graph ran. On a GPU its pages
// are unmapped or another graph's by then.
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
  cudaFreeAsync(scratch, s);
  cudaStreamEndCapture(s, &graph);
  cudaGraphExec_t exec;
  if (cudaGraphInstantiate(&exec, graph, 0) != cudaSuccess) return 2;
  if (cudaGraphLaunch(exec, s) != cudaSuccess) return 2;
  Check<<<1, 64, 0, s>>>(scratch, out);
  std::printf("sync: %s\n", cudaGetErrorName(cudaStreamSynchronize(s)));
  return 0;
}
