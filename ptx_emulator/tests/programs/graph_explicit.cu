// Runtime program: the explicit graph API. Builds a graph with memset, kernel,
// memcpy, host, event record / wait, empty and child-graph nodes, launches it,
// changes a kernel node's parameters in the executable graph
// (cudaGraphExecKernelNodeSetParams) and updates it from a modified copy
// (cudaGraphExecUpdate); checks every result on the CPU. Prints OK.
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CHECK(call)                                                                              \
  do {                                                                                           \
    cudaError_t e_ = (call);                                                                     \
    if (e_ != cudaSuccess) {                                                                     \
      std::printf("FAIL: %s: %s (%s:%d)\n", #call, cudaGetErrorString(e_), __FILE__, __LINE__); \
      std::exit(1);                                                                              \
    }                                                                                            \
  } while (0)

__global__ void axpb(int* v, int n, int a, int b) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) v[i] = v[i] * a + b + i;
}

__global__ void add_into(const int* x, int* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] += x[i];
}

struct HostCounter {
  int calls = 0;
};
void CountCall(void* p) { static_cast<HostCounter*>(p)->calls += 1; }

// CPU model of one launch: x = fill*a + b + i; y = x; y += x (child); out = y.
int Expected(int i, int fill, int a, int b) { return 2 * (fill * a + b + i); }

int Check(const std::vector<int>& out, int fill, int a, int b, const char* what) {
  for (int i = 0; i < static_cast<int>(out.size()); ++i)
    if (out[i] != Expected(i, fill, a, b)) {
      std::printf("FAIL: %s: out[%d] = %d, expected %d\n", what, i, out[i], Expected(i, fill, a, b));
      return 1;
    }
  return 0;
}

int main() {
  const int n = 256, threads = 64, blocks = n / threads;
  int *x = nullptr, *y = nullptr;
  CHECK(cudaMalloc(&x, n * sizeof(int)));
  CHECK(cudaMalloc(&y, n * sizeof(int)));
  std::vector<int> out(n, 0);
  cudaEvent_t event;
  CHECK(cudaEventCreate(&event));
  HostCounter counter;

  // The child graph: y += x.
  cudaGraph_t child;
  CHECK(cudaGraphCreate(&child, 0));
  cudaGraphNode_t child_add;
  int count = n;
  void* add_args[] = {&x, &y, &count};
  cudaKernelNodeParams add_params = {reinterpret_cast<void*>(add_into), dim3(blocks), dim3(threads), 0, add_args,
                                     nullptr};
  CHECK(cudaGraphAddKernelNode(&child_add, child, nullptr, 0, &add_params));

  cudaGraph_t graph;
  CHECK(cudaGraphCreate(&graph, 0));
  cudaGraphNode_t set, kernel, copy, host, record, wait, child_node, back;
  cudaMemsetParams set_params = {};
  set_params.dst = x;
  set_params.value = 2;
  set_params.elementSize = sizeof(int);
  set_params.width = n;
  set_params.height = 1;
  CHECK(cudaGraphAddMemsetNode(&set, graph, nullptr, 0, &set_params));
  int a = 3, b = 1;
  void* axpb_args[] = {&x, &count, &a, &b};
  cudaKernelNodeParams axpb_params = {reinterpret_cast<void*>(axpb), dim3(blocks), dim3(threads), 0, axpb_args,
                                      nullptr};
  CHECK(cudaGraphAddKernelNode(&kernel, graph, &set, 1, &axpb_params));
  CHECK(cudaGraphAddMemcpyNode1D(&copy, graph, &kernel, 1, y, x, n * sizeof(int), cudaMemcpyDeviceToDevice));
  cudaHostNodeParams host_params = {CountCall, &counter};
  CHECK(cudaGraphAddHostNode(&host, graph, &copy, 1, &host_params));
  CHECK(cudaGraphAddEventRecordNode(&record, graph, &host, 1, event));
  CHECK(cudaGraphAddEventWaitNode(&wait, graph, &record, 1, event));
  CHECK(cudaGraphAddChildGraphNode(&child_node, graph, &wait, 1, child));
  CHECK(cudaGraphAddMemcpyNode1D(&back, graph, &child_node, 1, out.data(), y, n * sizeof(int),
                                 cudaMemcpyDeviceToHost));

  cudaGraphExec_t exec;
  CHECK(cudaGraphInstantiate(&exec, graph, 0));
  CHECK(cudaGraphLaunch(exec, 0));
  CHECK(cudaDeviceSynchronize());
  if (Check(out, 2, 3, 1, "first launch")) return 1;

  // New kernel parameters in the executable graph only.
  a = 5;
  b = 7;
  CHECK(cudaGraphExecKernelNodeSetParams(exec, kernel, &axpb_params));
  CHECK(cudaGraphLaunch(exec, 0));
  CHECK(cudaDeviceSynchronize());
  if (Check(out, 2, 5, 7, "after cudaGraphExecKernelNodeSetParams")) return 1;

  // A copy of the graph with another fill value and kernel parameters,
  // applied to the executable graph by cudaGraphExecUpdate.
  cudaGraph_t changed;
  CHECK(cudaGraphClone(&changed, graph));
  cudaGraphNode_t changed_set, changed_kernel;
  CHECK(cudaGraphNodeFindInClone(&changed_set, set, changed));
  CHECK(cudaGraphNodeFindInClone(&changed_kernel, kernel, changed));
  set_params.value = 4;
  CHECK(cudaGraphMemsetNodeSetParams(changed_set, &set_params));
  a = 10;
  b = -3;
  CHECK(cudaGraphKernelNodeSetParams(changed_kernel, &axpb_params));
  cudaGraphExecUpdateResultInfo info;
  CHECK(cudaGraphExecUpdate(exec, changed, &info));
  for (int launch = 0; launch < 2; ++launch) {
    CHECK(cudaGraphLaunch(exec, 0));
    CHECK(cudaDeviceSynchronize());
    if (Check(out, 4, 10, -3, "after cudaGraphExecUpdate")) return 1;
  }
  if (counter.calls != 4) { std::printf("FAIL: host node ran %d times, expected 4\n", counter.calls); return 1; }
  float ms = -1;
  CHECK(cudaEventElapsedTime(&ms, event, event));  // recorded by the graph

  CHECK(cudaGraphExecDestroy(exec));
  CHECK(cudaGraphDestroy(changed));
  CHECK(cudaGraphDestroy(graph));
  CHECK(cudaGraphDestroy(child));
  CHECK(cudaEventDestroy(event));
  CHECK(cudaFree(x));
  CHECK(cudaFree(y));
  std::printf("OK\n");
  return 0;
}
