/*@barracuda
{
  "what": "a graph's host node reads a pinned buffer its kernel node writes, without the edge between them",
  "arch": 75,
  "expect": {
    "its": {
      "verdict": "race",
      "races": [],
      "stream_order_races": [
        {
          "lines": [
            48,
            53
          ],
          "node_lines": [
            69,
            73
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
            53
          ],
          "node_lines": [
            69,
            73
          ]
        }
      ]
    }
  }
}
@*/
// Seeded bug; twin: host_node_without_edge_ok.cu. A CUDA graph whose kernel
// node fills a page-locked buffer and whose host node sums it, added without
// the edge between them: the graph may run the host node before or while the
// kernel writes.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void Produce(int* buf) { buf[threadIdx.x] = threadIdx.x + 1; }  // the race's first side

void CUDART_CB Check(void* p) {
  const int* buf = static_cast<const int*>(p);
  long sum = 0;
  for (int i = 0; i < 64; ++i) sum += buf[i];  // its second side
  std::printf(sum == 2080 ? "PASS\n" : "FAIL\n");
}

int main() {
  int* buf = nullptr;
  if (cudaMallocHost(&buf, 64 * sizeof(int)) != cudaSuccess) return 2;
  cudaGraph_t graph;
  cudaGraphCreate(&graph, 0);
  void* produce_args[] = {&buf};
  cudaKernelNodeParams k{};
  k.func = reinterpret_cast<void*>(Produce);
  k.gridDim = dim3(1);
  k.blockDim = dim3(64);
  k.kernelParams = produce_args;
  cudaGraphNode_t producer, checker;
  cudaGraphAddKernelNode(&producer, graph, nullptr, 0, &k);  // the first side's node
  cudaHostNodeParams h{};
  h.fn = Check;
  h.userData = buf;
  cudaGraphAddHostNode(&checker, graph, nullptr, 0, &h);  // the second side's node: no dependency on the producer
  cudaGraphExec_t exec;
  if (cudaGraphInstantiate(&exec, graph, 0) != cudaSuccess) return 2;
  cudaGraphLaunch(exec, 0);
  cudaDeviceSynchronize();
  std::printf("done\n");
  cudaFreeHost(buf);
  return 0;
}
