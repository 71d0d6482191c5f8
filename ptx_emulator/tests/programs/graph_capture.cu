// Runtime program: stream capture. Captures a memset, three dependent kernel
// launches and a device-to-host memcpyAsync into a graph, instantiates it and
// launches it twice; checks the results against a CPU computation. Prints OK.
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

__global__ void iota_scaled(int* v, int n, int scale) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) v[i] += i * scale;
}

__global__ void square(int* v, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) v[i] = v[i] * v[i];
}

// Each element plus its right neighbour (reads what `square` wrote).
__global__ void neighbour_sum(const int* in, int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] + (i + 1 < n ? in[i + 1] : 0);
}

int main() {
  const int n = 1000, threads = 128, blocks = (n + threads - 1) / threads;
  int *a = nullptr, *b = nullptr;
  CHECK(cudaMalloc(&a, n * sizeof(int)));
  CHECK(cudaMalloc(&b, n * sizeof(int)));
  std::vector<int> host(n, -1);
  cudaStream_t stream;
  CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));

  CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
  CHECK(cudaMemsetAsync(a, 0, n * sizeof(int), stream));
  iota_scaled<<<blocks, threads, 0, stream>>>(a, n, 3);
  square<<<blocks, threads, 0, stream>>>(a, n);
  neighbour_sum<<<blocks, threads, 0, stream>>>(a, b, n);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpyAsync(host.data(), b, n * sizeof(int), cudaMemcpyDeviceToHost, stream));
  cudaGraph_t graph;
  CHECK(cudaStreamEndCapture(stream, &graph));
  size_t nodes = 0;
  CHECK(cudaGraphGetNodes(graph, nullptr, &nodes));
  if (nodes != 5) { std::printf("FAIL: %zu nodes, expected 5\n", nodes); return 1; }
  for (int i = 0; i < n; ++i)
    if (host[i] != -1) { std::printf("FAIL: the capture ran work\n"); return 1; }

  cudaGraphExec_t exec;
  CHECK(cudaGraphInstantiate(&exec, graph, 0));
  for (int launch = 0; launch < 2; ++launch) {
    std::fill(host.begin(), host.end(), -1);
    CHECK(cudaGraphLaunch(exec, stream));
    CHECK(cudaStreamSynchronize(stream));
    for (int i = 0; i < n; ++i) {
      const int sq = (3 * i) * (3 * i), next = i + 1 < n ? (3 * (i + 1)) * (3 * (i + 1)) : 0;
      if (host[i] != sq + next) {
        std::printf("FAIL: launch %d: b[%d] = %d, expected %d\n", launch, i, host[i], sq + next);
        return 1;
      }
    }
  }
  CHECK(cudaGraphExecDestroy(exec));
  CHECK(cudaGraphDestroy(graph));
  CHECK(cudaStreamDestroy(stream));
  CHECK(cudaFree(a));
  CHECK(cudaFree(b));
  std::printf("OK\n");
  return 0;
}
