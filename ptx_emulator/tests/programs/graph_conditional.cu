// CUDA graph conditional nodes (CUDA 12.4+), as iterative solvers use them:
// a while loop whose body kernel decides with cudaGraphSetConditional whether
// to run again, an if/else pair and a switch, each body built through the
// phGraph_out handles cudaGraphAddNode returns (one by stream capture into the
// body, cudaStreamBeginCaptureToGraph); the executable graph launched
// twice (cudaGraphCondAssignDefault resets the loop's condition each launch).
// Every result is checked on the host. Prints PASS.
#include <cstdio>

#include <cuda_runtime.h>

#define CHECK(call)                                                                   \
  do {                                                                                \
    const cudaError_t e = (call);                                                     \
    if (e != cudaSuccess) {                                                           \
      std::printf("FAIL: %s: %s (line %d)\n", #call, cudaGetErrorName(e), __LINE__);  \
      return 1;                                                                       \
    }                                                                                 \
  } while (0)

// The loop body: one more round over the data; continue while rounds < limit.
__global__ void Round(int* data, int* rounds, int limit, cudaGraphConditionalHandle loop) {
  data[threadIdx.x] += threadIdx.x;
  __syncthreads();
  if (threadIdx.x == 0) {
    const int r = ++*rounds;
    cudaGraphSetConditional(loop, r < limit ? 1 : 0);
  }
}

// Sets the if/else and switch conditions from the loop's result.
__global__ void Decide(const int* rounds, cudaGraphConditionalHandle branch, cudaGraphConditionalHandle choice) {
  cudaGraphSetConditional(branch, *rounds % 2);
  cudaGraphSetConditional(choice, *rounds % 3);
}

__global__ void Store(int* out, int value) { *out = value; }

namespace {

int AddKernel(cudaGraphNode_t* node, cudaGraph_t graph, const cudaGraphNode_t* deps, size_t n, void* func,
              void** args, unsigned threads) {
  cudaKernelNodeParams p{};
  p.func = func;
  p.gridDim = dim3(1);
  p.blockDim = dim3(threads);
  p.kernelParams = args;
  return cudaGraphAddKernelNode(node, graph, deps, n, &p) == cudaSuccess ? 0 : 1;
}

cudaGraphNodeParams Conditional(cudaGraphConditionalHandle handle, cudaGraphConditionalNodeType type,
                                unsigned size) {
  cudaGraphNodeParams p{};
  p.type = cudaGraphNodeTypeConditional;
  p.conditional.handle = handle;
  p.conditional.type = type;
  p.conditional.size = size;
  return p;
}

}  // namespace

int main() {
  constexpr int kThreads = 32, kLimit = 5;
  int *data, *rounds, *branch_out, *choice_out;
  CHECK(cudaMalloc(&data, kThreads * sizeof(int)));
  CHECK(cudaMalloc(&rounds, sizeof(int)));
  CHECK(cudaMalloc(&branch_out, sizeof(int)));
  CHECK(cudaMalloc(&choice_out, sizeof(int)));

  cudaGraph_t graph;
  CHECK(cudaGraphCreate(&graph, 0));
  cudaGraphConditionalHandle loop, branch, choice;
  CHECK(cudaGraphConditionalHandleCreate(&loop, graph, 1, cudaGraphCondAssignDefault));
  CHECK(cudaGraphConditionalHandleCreate(&branch, graph, 0, 0));
  CHECK(cudaGraphConditionalHandleCreate(&choice, graph, 0, 0));

  // while (loop) Round
  cudaGraphNodeParams wp = Conditional(loop, cudaGraphCondTypeWhile, 1);
  cudaGraphNode_t while_node;
  CHECK(cudaGraphAddNode(&while_node, graph, nullptr, nullptr, 0, &wp));
  int limit = kLimit;
  void* round_args[] = {&data, &rounds, &limit, &loop};
  cudaGraphNode_t round_node;
  if (AddKernel(&round_node, wp.conditional.phGraph_out[0], nullptr, 0, reinterpret_cast<void*>(Round), round_args,
                kThreads))
    return std::printf("FAIL: round node\n"), 1;

  // Decide, then if (branch) Store 10 else Store 20, and switch (choice) Store 100 + n.
  void* decide_args[] = {&rounds, &branch, &choice};
  cudaGraphNode_t decide;
  if (AddKernel(&decide, graph, &while_node, 1, reinterpret_cast<void*>(Decide), decide_args, 1))
    return std::printf("FAIL: decide node\n"), 1;
  cudaGraphNodeParams ip = Conditional(branch, cudaGraphCondTypeIf, 2);
  cudaGraphNode_t if_node;
  CHECK(cudaGraphAddNode(&if_node, graph, &decide, nullptr, 1, &ip));
  int then_value = 10, else_value = 20;
  void* then_args[] = {&branch_out, &then_value};
  void* else_args[] = {&branch_out, &else_value};
  cudaGraphNode_t k;
  if (AddKernel(&k, ip.conditional.phGraph_out[0], nullptr, 0, reinterpret_cast<void*>(Store), then_args, 1) ||
      AddKernel(&k, ip.conditional.phGraph_out[1], nullptr, 0, reinterpret_cast<void*>(Store), else_args, 1))
    return std::printf("FAIL: if bodies\n"), 1;
  cudaGraphNodeParams sp = Conditional(choice, cudaGraphCondTypeSwitch, 3);
  cudaGraphNode_t switch_node;
  CHECK(cudaGraphAddNode(&switch_node, graph, &decide, nullptr, 1, &sp));
  int case_values[3] = {100, 101, 102};
  void* case_args[3][2] = {{&choice_out, &case_values[0]}, {&choice_out, &case_values[1]}, {&choice_out, &case_values[2]}};
  for (int c = 0; c < 2; ++c)
    if (AddKernel(&k, sp.conditional.phGraph_out[c], nullptr, 0, reinterpret_cast<void*>(Store), case_args[c], 1))
      return std::printf("FAIL: case %d\n", c), 1;
  // Case 2's body captured from a stream, as the CUDA samples fill bodies.
  cudaStream_t capture;
  CHECK(cudaStreamCreate(&capture));
  CHECK(cudaStreamBeginCaptureToGraph(capture, sp.conditional.phGraph_out[2], nullptr, nullptr, 0,
                                      cudaStreamCaptureModeGlobal));
  Store<<<1, 1, 0, capture>>>(choice_out, case_values[2]);
  cudaGraph_t captured;
  CHECK(cudaStreamEndCapture(capture, &captured));
  if (captured != sp.conditional.phGraph_out[2]) return std::printf("FAIL: capture ended in another graph\n"), 1;

  // A handle of another graph, a bad size: refused.
  cudaGraph_t other;
  CHECK(cudaGraphCreate(&other, 0));
  cudaGraphNodeParams bad = wp;
  if (cudaGraphAddNode(&k, other, nullptr, nullptr, 0, &bad) != cudaErrorInvalidValue)
    return std::printf("FAIL: a handle of another graph was accepted\n"), 1;
  bad = ip;
  bad.conditional.size = 3;
  if (cudaGraphAddNode(&k, graph, nullptr, nullptr, 0, &bad) != cudaErrorInvalidValue)
    return std::printf("FAIL: an if node of 3 bodies was accepted\n"), 1;
  cudaGetLastError();

  cudaGraphExec_t exec;
  CHECK(cudaGraphInstantiate(&exec, graph, 0));
  cudaStream_t stream;
  CHECK(cudaStreamCreate(&stream));
  for (int launch = 1; launch <= 2; ++launch) {
    CHECK(cudaMemsetAsync(data, 0, kThreads * sizeof(int), stream));
    CHECK(cudaMemsetAsync(rounds, 0, sizeof(int), stream));
    CHECK(cudaGraphLaunch(exec, stream));
    CHECK(cudaStreamSynchronize(stream));
    int host[kThreads], r = 0, b = 0, c = 0;
    CHECK(cudaMemcpy(host, data, sizeof host, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(&r, rounds, sizeof r, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(&b, branch_out, sizeof b, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(&c, choice_out, sizeof c, cudaMemcpyDeviceToHost));
    // The loop ran kLimit rounds (its condition was reset to 1 at the launch).
    if (r != kLimit) return std::printf("FAIL: launch %d: %d rounds, expected %d\n", launch, r, kLimit), 1;
    for (int i = 0; i < kThreads; ++i)
      if (host[i] != kLimit * i) return std::printf("FAIL: launch %d: data[%d] = %d\n", launch, i, host[i]), 1;
    if (b != (kLimit % 2 ? 10 : 20)) return std::printf("FAIL: launch %d: if/else stored %d\n", launch, b), 1;
    if (c != 100 + kLimit % 3) return std::printf("FAIL: launch %d: switch stored %d\n", launch, c), 1;
  }
  CHECK(cudaGraphExecDestroy(exec));
  CHECK(cudaGraphDestroy(graph));
  CHECK(cudaGraphDestroy(other));
  CHECK(cudaStreamDestroy(capture));
  std::printf("PASS\n");
  return 0;
}
