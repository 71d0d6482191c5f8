/*@barracuda
{
  "what": "a graph's host node reads a pinned buffer its kernel node writes, after an edge from the kernel node",
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
// Race-free twin of host_node_without_edge_racy.cu: the host node depends on
// the kernel node that fills the page-locked buffer it sums.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void Produce(int* buf) { buf[threadIdx.x] = threadIdx.x + 1; }

void CUDART_CB Check(void* p) {
  const int* buf = static_cast<const int*>(p);
  long sum = 0;
  for (int i = 0; i < 64; ++i) sum += buf[i];
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
  cudaGraphAddKernelNode(&producer, graph, nullptr, 0, &k);
  cudaHostNodeParams h{};
  h.fn = Check;
  h.userData = buf;
  cudaGraphAddHostNode(&checker, graph, &producer, 1, &h);
  cudaGraphExec_t exec;
  if (cudaGraphInstantiate(&exec, graph, 0) != cudaSuccess) return 2;
  cudaGraphLaunch(exec, 0);
  cudaDeviceSynchronize();
  std::printf("done\n");
  cudaFreeHost(buf);
  return 0;
}
