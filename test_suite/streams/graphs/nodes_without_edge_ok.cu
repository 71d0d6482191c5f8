/*@barracuda
{
  "what": "the consumer node depends on the producer node; the graph launched twice on one stream",
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
// Twin: nodes_without_edge_racy.cu, with the consumer node depending on the
// producer node.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void Produce(int* buf) { buf[threadIdx.x] = threadIdx.x + 1; }

__global__ void Consume(const int* buf, int* out) { out[threadIdx.x] = 2 * buf[threadIdx.x]; }

int main() {
  int *buf = nullptr, *out = nullptr;
  if (cudaMalloc(&buf, 64 * sizeof(int)) != cudaSuccess || cudaMalloc(&out, 64 * sizeof(int)) != cudaSuccess) return 2;
  cudaGraph_t graph;
  cudaGraphCreate(&graph, 0);
  void* produce_args[] = {&buf};
  void* consume_args[] = {&buf, &out};
  cudaKernelNodeParams p{};
  p.func = reinterpret_cast<void*>(Produce);
  p.gridDim = dim3(1);
  p.blockDim = dim3(64);
  p.kernelParams = produce_args;
  cudaGraphNode_t producer, consumer;
  cudaGraphAddKernelNode(&producer, graph, nullptr, 0, &p);
  p.func = reinterpret_cast<void*>(Consume);
  p.kernelParams = consume_args;
  cudaGraphAddKernelNode(&consumer, graph, &producer, 1, &p);
  cudaGraphExec_t exec;
  if (cudaGraphInstantiate(&exec, graph, 0) != cudaSuccess) return 2;
  // Twice: the second launch's producer is ordered after the first's consumer.
  cudaGraphLaunch(exec, 0);
  cudaGraphLaunch(exec, 0);
  if (cudaDeviceSynchronize() != cudaSuccess) return 2;
  int got[64];
  cudaMemcpy(got, out, sizeof got, cudaMemcpyDeviceToHost);
  for (int i = 0; i < 64; ++i)
    if (got[i] != 2 * (i + 1)) {
      std::printf("FAIL at %d\n", i);
      return 1;
    }
  std::printf("PASS\n");
  return 0;
}
