/*@barracuda
{
  "what": "graph memory nodes: the reducing kernel, captured on a forked stream, has no edge after the kernel filling the allocation",
  "arch": 75,
  "expect": {
    "its": {
      "verdict": "race",
      "races": [],
      "stream_order_races": [
        {
          "lines": [
            52,
            54
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
            52,
            54
          ]
        }
      ]
    }
  }
}
@*/
// Seeded bug; twin: graph_memory_nodes_ok.cu. A captured graph allocates
// scratch memory (cudaMallocAsync: a memory alloc node), fills it with one
// kernel, reduces it with another into a result buffer and frees it
// (cudaFreeAsync: a memory free node). The graph is launched twice with
// different inputs and both results are checked. Here the reducing kernel runs
// on a forked stream with no edge after the filling kernel: in the graph they
// are unordered.
#include <cstdio>
#include <cuda_runtime.h>

#define CHECK(call)                                                     \
  do {                                                                  \
    cudaError_t e_ = (call);                                            \
    if (e_ != cudaSuccess) {                                            \
      std::printf("FAIL: %s: %s\n", #call, cudaGetErrorString(e_));     \
      return 1;                                                         \
    }                                                                   \
  } while (0)

__global__ void Scale(const int* in, int* scratch) { scratch[threadIdx.x] = 3 * in[threadIdx.x]; }

__global__ void Total(const int* scratch, int* out) { atomicAdd(out, scratch[threadIdx.x]); }

int main() {
  int *in = nullptr, *out = nullptr, *scratch = nullptr;
  CHECK(cudaMalloc(&in, 64 * sizeof(int)));
  CHECK(cudaMalloc(&out, sizeof(int)));
  cudaStream_t s, side;
  CHECK(cudaStreamCreate(&s));
  CHECK(cudaStreamCreate(&side));
  cudaEvent_t fork, join;
  CHECK(cudaEventCreate(&fork));
  CHECK(cudaEventCreate(&join));
  CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
  CHECK(cudaMallocAsync(&scratch, 64 * sizeof(int), s));
  CHECK(cudaMemsetAsync(out, 0, sizeof(int), s));
  CHECK(cudaEventRecord(fork, s));
  CHECK(cudaStreamWaitEvent(side, fork, 0));
  Scale<<<1, 64, 0, s>>>(in, scratch);
  Total<<<1, 64, 0, side>>>(scratch, out);
  CHECK(cudaEventRecord(join, side));
  CHECK(cudaStreamWaitEvent(s, join, 0));
  CHECK(cudaFreeAsync(scratch, s));
  cudaGraph_t graph;
  CHECK(cudaStreamEndCapture(s, &graph));
  cudaGraphExec_t exec;
  CHECK(cudaGraphInstantiate(&exec, graph, 0));
  bool ok = true;
  for (int round = 1; round <= 2; ++round) {
    int host[64];
    for (int i = 0; i < 64; ++i) host[i] = round * i;
    CHECK(cudaMemcpy(in, host, sizeof host, cudaMemcpyHostToDevice));
    CHECK(cudaGraphLaunch(exec, s));
    int total = 0;
    CHECK(cudaMemcpy(&total, out, sizeof total, cudaMemcpyDeviceToHost));
    std::printf("round %d: %d\n", round, total);
    ok &= total == 3 * round * 2016;
  }
  std::printf(ok ? "PASS\n" : "FAIL\n");
  std::printf("done\n");
  CHECK(cudaGraphExecDestroy(exec));
  CHECK(cudaGraphDestroy(graph));
  return 0;
}
