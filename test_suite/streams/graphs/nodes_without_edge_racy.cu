/*@barracuda
{
  "what": "a graph's producer and consumer kernel nodes without the edge between them",
  "arch": 75,
  "expect": {
    "its": {
      "verdict": "race",
      "races": [],
      "stream_order_races": [
        {
          "lines": [
            48,
            50
          ],
          "node_lines": [
            65,
            68
          ]
        }
      ]
    },
    "lockstep": {
      "verdict": "race",
      "races": [],
      "stream_order_races": [
        {
          "lines": [
            48,
            50
          ],
          "node_lines": [
            65,
            68
          ]
        }
      ]
    }
  }
}
@*/
// Twin: nodes_without_edge_ok.cu. A CUDA graph with a producer kernel node
// and a consumer kernel node that reads what the producer writes, built with
// the explicit graph API but without the edge between them: the graph may run
// the two nodes at the same time although it is launched on one stream.
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
  cudaGraphAddKernelNode(&consumer, graph, nullptr, 0, &p);  // no dependency on the producer
  cudaGraphExec_t exec;
  if (cudaGraphInstantiate(&exec, graph, 0) != cudaSuccess) return 2;
  cudaGraphLaunch(exec, 0);
  cudaDeviceSynchronize();
  std::printf("done\n");
  return 0;
}
