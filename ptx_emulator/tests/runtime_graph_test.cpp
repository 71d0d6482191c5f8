// Tests of CUDA graphs and stream capture in the replacement libcudart.so.13,
// through its exported C API: capture of every kind of stream work, fork and
// join across streams, the capture rules' errors, the explicit graph API with
// every node type, clones, exec updates, child graphs and repeated launches.
//
// One kernel, axpb: out[tid] = out[tid] * a + b. Its results depend on the
// order of launches, so they show that a graph ran its nodes in dependency
// order. Device addresses are host addresses in the emulator, so a test reads
// device buffers directly while a capture forbids synchronous copies.
#include <catch2/catch.hpp>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "ptx_emulator/runtime/cuda_api.h"
#include "ptx_emulator/tests/hand_made_fatbin.h"

namespace {

namespace fb = barracuda::fatbin;

constexpr char kGraphPtx[] = R"(.version 8.0
.target sm_75
.address_size 64

.visible .entry axpb(.param .u64 out, .param .u32 a, .param .u32 b)
{
  .reg .b32 %r<6>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  ld.param.u32 %r1, [a];
  ld.param.u32 %r2, [b];
  mov.u32 %r3, %tid.x;
  mul.wide.u32 %rd2, %r3, 4;
  add.u64 %rd3, %rd1, %rd2;
  ld.global.u32 %r4, [%rd3];
  mad.lo.u32 %r5, %r4, %r1, %r2;
  st.global.u32 [%rd3], %r5;
  ret;
}
)";

void AxpbStub() {}
const void* Axpb() { return reinterpret_cast<const void*>(&AxpbStub); }

// Registers kGraphPtx once.
void RegisterGraphModule() {
  static barracuda::test::HandMadeFatbin fatbin{kGraphPtx, fb::EntryKind::kPtx};
  static bool done = [] {
    void** handle = fatbin.Register();
    __cudaRegisterFunction(handle, reinterpret_cast<const char*>(&AxpbStub), const_cast<char*>("axpb"), "axpb", -1,
                           nullptr, nullptr, nullptr, nullptr, nullptr);
    __cudaRegisterFatBinaryEnd(handle);
    return true;
  }();
  (void)done;
}

constexpr int kN = 32;

struct Buffer {
  uint32_t* d = nullptr;
  Buffer() { REQUIRE(cudaMalloc(reinterpret_cast<void**>(&d), kN * sizeof(uint32_t)) == cudaSuccess); }
  ~Buffer() { cudaFree(d); }
};

// axpb on `stream` through cudaLaunchKernel.
cudaError_t LaunchAxpb(uint32_t* out, uint32_t a, uint32_t b, cudaStream_t stream) {
  void* args[] = {&out, &a, &b};
  return cudaLaunchKernel(Axpb(), dim3(1), dim3(kN), args, 0, stream);
}

cudaKernelNodeParams AxpbParams(uint32_t** out, uint32_t* a, uint32_t* b, void** args) {
  args[0] = out;
  args[1] = a;
  args[2] = b;
  return cudaKernelNodeParams{const_cast<void*>(Axpb()), dim3(1), dim3(kN), 0, args, nullptr};
}

std::vector<cudaGraphNode_t> Nodes(cudaGraph_t graph) {
  size_t n = 0;
  REQUIRE(cudaGraphGetNodes(graph, nullptr, &n) == cudaSuccess);
  std::vector<cudaGraphNode_t> nodes(n);
  REQUIRE(cudaGraphGetNodes(graph, nodes.data(), &n) == cudaSuccess);
  return nodes;
}

cudaGraphNodeType TypeOf(cudaGraphNode_t node) {
  cudaGraphNodeType t{};
  REQUIRE(cudaGraphNodeGetType(node, &t) == cudaSuccess);
  return t;
}

size_t EdgeCount(cudaGraph_t graph) {
  size_t n = 0;
  REQUIRE(cudaGraphGetEdges(graph, nullptr, nullptr, nullptr, &n) == cudaSuccess);
  return n;
}

}  // namespace

TEST_CASE("graphs: capture of launches, memset and memcpy, launched twice", "[runtime][graph]") {
  RegisterGraphModule();
  Buffer buf;
  std::vector<uint32_t> host(kN, 0xdead);
  cudaStream_t s = nullptr;
  REQUIRE(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking) == cudaSuccess);
  REQUIRE(cudaMemset(buf.d, 0x7f, kN * sizeof(uint32_t)) == cudaSuccess);

  REQUIRE(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal) == cudaSuccess);
  cudaStreamCaptureStatus status{};
  REQUIRE(cudaStreamIsCapturing(s, &status) == cudaSuccess);
  CHECK(status == cudaStreamCaptureStatusActive);
  REQUIRE(cudaMemsetAsync(buf.d, 0, kN * sizeof(uint32_t), s) == cudaSuccess);
  // Three dependent launches through three entry points: 0*1+3, 3*2+1, 7*3+0.
  REQUIRE(LaunchAxpb(buf.d, 1, 3, s) == cudaSuccess);
  uint32_t* out = buf.d;
  uint32_t a = 2, b = 1;
  void* args[] = {&out, &a, &b};
  cudaKernel_t kernel = nullptr;
  REQUIRE(__cudaGetKernel(&kernel, Axpb()) == cudaSuccess);
  REQUIRE(__cudaLaunchKernel(kernel, dim3(1), dim3(kN), args, 0, s) == cudaSuccess);
  a = 3;  // captured launches copy their argument values
  b = 0;
  cudaLaunchConfig_t config{};
  config.gridDim = dim3(1);
  config.blockDim = dim3(kN);
  config.stream = s;
  REQUIRE(cudaLaunchKernelExC(&config, Axpb(), args) == cudaSuccess);
  a = 100;
  b = 100;
  REQUIRE(cudaMemcpyAsync(host.data(), buf.d, kN * sizeof(uint32_t), cudaMemcpyDeviceToHost, s) == cudaSuccess);
  // Nothing ran: the buffer still holds the bytes set before the capture.
  CHECK(buf.d[0] == 0x7f7f7f7fu);
  CHECK(host[0] == 0xdead);
  unsigned long long id = 0;
  cudaGraph_t in_progress = nullptr;
  const cudaGraphNode_t* deps = nullptr;
  size_t num_deps = 0;
  REQUIRE(cudaStreamGetCaptureInfo(s, &status, &id, &in_progress, &deps, nullptr, &num_deps) == cudaSuccess);
  CHECK(status == cudaStreamCaptureStatusActive);
  CHECK(id != 0);
  REQUIRE(num_deps == 1);
  CHECK(TypeOf(deps[0]) == cudaGraphNodeTypeMemcpy);

  cudaGraph_t graph = nullptr;
  REQUIRE(cudaStreamEndCapture(s, &graph) == cudaSuccess);
  CHECK(graph == in_progress);
  REQUIRE(cudaStreamIsCapturing(s, &status) == cudaSuccess);
  CHECK(status == cudaStreamCaptureStatusNone);
  const std::vector<cudaGraphNode_t> nodes = Nodes(graph);
  REQUIRE(nodes.size() == 5);
  CHECK(TypeOf(nodes[0]) == cudaGraphNodeTypeMemset);
  CHECK(TypeOf(nodes[1]) == cudaGraphNodeTypeKernel);
  CHECK(TypeOf(nodes[4]) == cudaGraphNodeTypeMemcpy);
  CHECK(EdgeCount(graph) == 4);  // a chain
  cudaKernelNodeParams p{};
  REQUIRE(cudaGraphKernelNodeGetParams(nodes[3], &p) == cudaSuccess);
  CHECK(*static_cast<uint32_t*>(p.kernelParams[1]) == 3);
  CHECK(p.blockDim.x == kN);
  // Captured from __cudaLaunchKernel (nvcc's <<<>>>): func is still the host
  // function, which programs compare against to find their nodes.
  cudaKernelNodeParams by_handle{};
  REQUIRE(cudaGraphKernelNodeGetParams(nodes[2], &by_handle) == cudaSuccess);
  CHECK(by_handle.func == Axpb());

  cudaGraphExec_t exec = nullptr;
  REQUIRE(cudaGraphInstantiate(&exec, graph, 0) == cudaSuccess);
  for (int launch = 0; launch < 2; ++launch) {
    std::fill(host.begin(), host.end(), 0);
    REQUIRE(cudaGraphLaunch(exec, s) == cudaSuccess);
    REQUIRE(cudaStreamSynchronize(s) == cudaSuccess);
    for (int i = 0; i < kN; ++i) CHECK(host[i] == 21);
  }
  CHECK(cudaGraphExecDestroy(exec) == cudaSuccess);
  CHECK(cudaGraphExecDestroy(exec) == cudaErrorInvalidValue);
  CHECK(cudaGraphDestroy(graph) == cudaSuccess);
  CHECK(cudaGraphDestroy(graph) == cudaErrorInvalidValue);
  CHECK(cudaStreamDestroy(s) == cudaSuccess);
  cudaGetLastError();
}

TEST_CASE("graphs: fork and join across streams by events", "[runtime][graph]") {
  RegisterGraphModule();
  Buffer x, y;
  cudaStream_t s1 = nullptr, s2 = nullptr;
  cudaEvent_t fork = nullptr, join = nullptr;
  REQUIRE(cudaStreamCreate(&s1) == cudaSuccess);
  REQUIRE(cudaStreamCreate(&s2) == cudaSuccess);
  REQUIRE(cudaEventCreate(&fork) == cudaSuccess);
  REQUIRE(cudaEventCreate(&join) == cudaSuccess);
  REQUIRE(cudaMemset(x.d, 0, kN * 4) == cudaSuccess);
  REQUIRE(cudaMemset(y.d, 0, kN * 4) == cudaSuccess);

  REQUIRE(cudaStreamBeginCapture(s1, cudaStreamCaptureModeGlobal) == cudaSuccess);
  REQUIRE(LaunchAxpb(x.d, 1, 5, s1) == cudaSuccess);  // x = 5
  REQUIRE(cudaEventRecord(fork, s1) == cudaSuccess);
  CHECK(cudaEventQuery(fork) == cudaErrorCapturedEvent);
  REQUIRE(cudaStreamWaitEvent(s2, fork, 0) == cudaSuccess);  // s2 joins the capture
  cudaStreamCaptureStatus status{};
  unsigned long long id1 = 0, id2 = 0;
  REQUIRE(cudaStreamGetCaptureInfo(s1, &status, &id1) == cudaSuccess);
  REQUIRE(cudaStreamGetCaptureInfo(s2, &status, &id2) == cudaSuccess);
  CHECK(status == cudaStreamCaptureStatusActive);
  CHECK(id1 == id2);
  REQUIRE(LaunchAxpb(y.d, 1, 7, s2) == cudaSuccess);  // y = 7, parallel to the next
  REQUIRE(LaunchAxpb(x.d, 2, 0, s1) == cudaSuccess);  // x = 10
  REQUIRE(cudaEventRecord(join, s2) == cudaSuccess);
  REQUIRE(cudaStreamWaitEvent(s1, join, 0) == cudaSuccess);
  // Needs both branches: y = y * 3 + 1 = 22 after x and y are done.
  REQUIRE(LaunchAxpb(y.d, 3, 1, s1) == cudaSuccess);
  // Only the origin ends a capture.
  cudaGraph_t graph = nullptr;
  SECTION("end on the origin") {
    REQUIRE(cudaStreamEndCapture(s1, &graph) == cudaSuccess);
    REQUIRE(cudaStreamIsCapturing(s2, &status) == cudaSuccess);
    CHECK(status == cudaStreamCaptureStatusNone);
    const std::vector<cudaGraphNode_t> nodes = Nodes(graph);
    REQUIRE(nodes.size() == 4);
    size_t roots = 0;
    REQUIRE(cudaGraphGetRootNodes(graph, nullptr, &roots) == cudaSuccess);
    CHECK(roots == 1);
    size_t deps = 0;
    REQUIRE(cudaGraphNodeGetDependencies(nodes[3], nullptr, nullptr, &deps) == cudaSuccess);
    CHECK(deps == 2);  // the join
    CHECK(EdgeCount(graph) == 4);
    cudaGraphExec_t exec = nullptr;
    REQUIRE(cudaGraphInstantiate(&exec, graph, 0) == cudaSuccess);
    REQUIRE(cudaGraphLaunch(exec, s1) == cudaSuccess);
    CHECK(x.d[0] == 10);
    CHECK(y.d[kN - 1] == 22);
    CHECK(cudaEventQuery(fork) == cudaSuccess);  // the capture is over
    CHECK(cudaGraphExecDestroy(exec) == cudaSuccess);
    CHECK(cudaGraphDestroy(graph) == cudaSuccess);
  }
  SECTION("end on a joined stream is unmatched") {
    CHECK(cudaStreamEndCapture(s2, &graph) == cudaErrorStreamCaptureUnmatched);
    CHECK(cudaStreamEndCapture(s1, &graph) == cudaErrorStreamCaptureInvalidated);
    CHECK(graph == nullptr);
  }
  CHECK(cudaStreamDestroy(s1) == cudaSuccess);
  CHECK(cudaStreamDestroy(s2) == cudaSuccess);
  CHECK(cudaEventDestroy(fork) == cudaSuccess);
  CHECK(cudaEventDestroy(join) == cudaSuccess);
  cudaGetLastError();
}

TEST_CASE("graphs: a fork not joined back fails EndCapture", "[runtime][graph]") {
  RegisterGraphModule();
  Buffer x;
  cudaStream_t s1 = nullptr, s2 = nullptr;
  cudaEvent_t fork = nullptr;
  REQUIRE(cudaStreamCreate(&s1) == cudaSuccess);
  REQUIRE(cudaStreamCreate(&s2) == cudaSuccess);
  REQUIRE(cudaEventCreate(&fork) == cudaSuccess);
  REQUIRE(cudaStreamBeginCapture(s1, cudaStreamCaptureModeGlobal) == cudaSuccess);
  REQUIRE(cudaEventRecord(fork, s1) == cudaSuccess);
  REQUIRE(cudaStreamWaitEvent(s2, fork, 0) == cudaSuccess);
  REQUIRE(LaunchAxpb(x.d, 1, 1, s2) == cudaSuccess);
  REQUIRE(LaunchAxpb(x.d, 1, 1, s1) == cudaSuccess);
  cudaGraph_t graph = reinterpret_cast<cudaGraph_t>(0x1);
  CHECK(cudaStreamEndCapture(s1, &graph) == cudaErrorStreamCaptureUnjoined);
  CHECK(graph == nullptr);
  cudaStreamCaptureStatus status{};
  REQUIRE(cudaStreamIsCapturing(s2, &status) == cudaSuccess);
  CHECK(status == cudaStreamCaptureStatusNone);
  // A side stream that did nothing after the fork needs no join.
  REQUIRE(cudaStreamBeginCapture(s1, cudaStreamCaptureModeGlobal) == cudaSuccess);
  REQUIRE(cudaEventRecord(fork, s1) == cudaSuccess);
  REQUIRE(cudaStreamWaitEvent(s2, fork, 0) == cudaSuccess);
  REQUIRE(LaunchAxpb(x.d, 1, 1, s1) == cudaSuccess);
  REQUIRE(cudaStreamEndCapture(s1, &graph) == cudaSuccess);
  CHECK(cudaGraphDestroy(graph) == cudaSuccess);
  CHECK(cudaStreamDestroy(s1) == cudaSuccess);
  CHECK(cudaStreamDestroy(s2) == cudaSuccess);
  CHECK(cudaEventDestroy(fork) == cudaSuccess);
  cudaGetLastError();
}

TEST_CASE("graphs: calls that the capture rules forbid", "[runtime][graph]") {
  RegisterGraphModule();
  Buffer x;
  cudaStream_t s = nullptr, quiet = nullptr;
  REQUIRE(cudaStreamCreate(&s) == cudaSuccess);  // blocking: synchronises with the legacy stream
  REQUIRE(cudaStreamCreateWithFlags(&quiet, cudaStreamNonBlocking) == cudaSuccess);
  cudaGraph_t graph = nullptr;
  cudaStreamCaptureStatus status{};

  CHECK(cudaStreamBeginCapture(nullptr, cudaStreamCaptureModeGlobal) == cudaErrorStreamCaptureUnsupported);
  // 3: not a mode, yet within the enum's value range (7 would be undefined behaviour to pass).
  CHECK(cudaStreamBeginCapture(s, static_cast<cudaStreamCaptureMode>(3)) == cudaErrorInvalidValue);
  CHECK(cudaStreamEndCapture(s, &graph) == cudaErrorIllegalState);

  SECTION("synchronising the capturing stream invalidates the capture") {
    REQUIRE(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal) == cudaSuccess);
    CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal) == cudaErrorIllegalState);
    REQUIRE(LaunchAxpb(x.d, 1, 1, s) == cudaSuccess);
    CHECK(cudaStreamSynchronize(s) == cudaErrorStreamCaptureUnsupported);
    REQUIRE(cudaStreamIsCapturing(s, &status) == cudaSuccess);
    CHECK(status == cudaStreamCaptureStatusInvalidated);
    CHECK(LaunchAxpb(x.d, 1, 1, s) == cudaErrorStreamCaptureInvalidated);
    CHECK(cudaStreamEndCapture(s, &graph) == cudaErrorStreamCaptureInvalidated);
    CHECK(graph == nullptr);
  }
  SECTION("the legacy stream while a blocking stream captures") {
    REQUIRE(cudaStreamBeginCapture(s, cudaStreamCaptureModeRelaxed) == cudaSuccess);
    CHECK(cudaStreamIsCapturing(cudaStreamLegacy, &status) == cudaErrorStreamCaptureImplicit);
    REQUIRE(cudaStreamIsCapturing(s, &status) == cudaSuccess);
    CHECK(status == cudaStreamCaptureStatusActive);  // a query does not invalidate
    uint32_t v = 0;
    CHECK(cudaMemcpy(&v, x.d, 4, cudaMemcpyDeviceToHost) == cudaErrorStreamCaptureImplicit);
    REQUIRE(cudaStreamIsCapturing(s, &status) == cudaSuccess);
    CHECK(status == cudaStreamCaptureStatusInvalidated);
    CHECK(cudaStreamEndCapture(s, &graph) == cudaErrorStreamCaptureInvalidated);
  }
  SECTION("work on the legacy stream while a blocking stream captures") {
    REQUIRE(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal) == cudaSuccess);
    CHECK(LaunchAxpb(x.d, 1, 1, nullptr) == cudaErrorStreamCaptureImplicit);
    CHECK(cudaStreamEndCapture(s, &graph) == cudaErrorStreamCaptureInvalidated);
  }
  SECTION("unsafe calls by capture mode") {
    void* p = nullptr;
    // A non-blocking stream leaves the legacy stream alone, but global mode
    // forbids potentially unsafe calls such as cudaMalloc.
    REQUIRE(cudaStreamBeginCapture(quiet, cudaStreamCaptureModeGlobal) == cudaSuccess);
    CHECK(cudaMalloc(&p, 16) == cudaErrorStreamCaptureUnsupported);
    CHECK(cudaStreamEndCapture(quiet, &graph) == cudaErrorStreamCaptureInvalidated);
    // A relaxed capture forbids nothing.
    REQUIRE(cudaStreamBeginCapture(quiet, cudaStreamCaptureModeRelaxed) == cudaSuccess);
    REQUIRE(cudaMalloc(&p, 16) == cudaSuccess);
    REQUIRE(cudaFree(p) == cudaSuccess);
    REQUIRE(cudaStreamEndCapture(quiet, &graph) == cudaSuccess);
    CHECK(cudaGraphDestroy(graph) == cudaSuccess);
    // A global capture in another thread forbids this thread's unsafe calls
    // unless this thread is relaxed or thread-local.
    REQUIRE(cudaStreamBeginCapture(quiet, cudaStreamCaptureModeGlobal) == cudaSuccess);
    // (Catch assertions stay on this thread.)
    cudaError_t other_global = cudaSuccess, other_local = cudaErrorUnknown, other_end = cudaSuccess;
    cudaError_t exchanged = cudaErrorUnknown;
    cudaStreamCaptureMode previous = cudaStreamCaptureModeRelaxed;
    std::thread([&] {
      void* q = nullptr;
      other_global = cudaMalloc(&q, 16);
      previous = cudaStreamCaptureModeThreadLocal;
      exchanged = cudaThreadExchangeStreamCaptureMode(&previous);
      other_local = cudaMalloc(&q, 16);
      if (other_local == cudaSuccess) cudaFree(q);
      cudaGraph_t g = nullptr;
      other_end = cudaStreamEndCapture(quiet, &g);  // not the capturing thread
    }).join();
    CHECK(exchanged == cudaSuccess);
    CHECK(previous == cudaStreamCaptureModeGlobal);
    CHECK(other_global == cudaErrorStreamCaptureUnsupported);
    CHECK(other_local == cudaSuccess);
    CHECK(other_end == cudaErrorStreamCaptureWrongThread);
    CHECK(cudaStreamEndCapture(quiet, &graph) == cudaErrorStreamCaptureInvalidated);
    // This thread relaxed: its own global capture no longer forbids its calls.
    cudaStreamCaptureMode mode = cudaStreamCaptureModeRelaxed;
    REQUIRE(cudaThreadExchangeStreamCaptureMode(&mode) == cudaSuccess);
    REQUIRE(cudaStreamBeginCapture(quiet, cudaStreamCaptureModeGlobal) == cudaSuccess);
    CHECK(cudaMalloc(&p, 16) == cudaSuccess);
    CHECK(cudaFree(p) == cudaSuccess);
    REQUIRE(cudaStreamEndCapture(quiet, &graph) == cudaSuccess);
    CHECK(cudaGraphDestroy(graph) == cudaSuccess);
    REQUIRE(cudaThreadExchangeStreamCaptureMode(&mode) == cudaSuccess);
    CHECK(mode == cudaStreamCaptureModeRelaxed);
  }
  SECTION("an event recorded outside the capture cannot be waited for inside") {
    cudaEvent_t e = nullptr;
    REQUIRE(cudaEventCreate(&e) == cudaSuccess);
    REQUIRE(cudaEventRecord(e, quiet) == cudaSuccess);
    REQUIRE(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal) == cudaSuccess);
    CHECK(cudaStreamWaitEvent(s, e, 0) == cudaErrorStreamCaptureIsolation);
    CHECK(cudaStreamEndCapture(s, &graph) == cudaErrorStreamCaptureInvalidated);
    CHECK(cudaEventDestroy(e) == cudaSuccess);
  }
  // Every capture ended: the device works as before.
  CHECK(cudaDeviceSynchronize() == cudaSuccess);
  CHECK(cudaStreamDestroy(s) == cudaSuccess);
  CHECK(cudaStreamDestroy(quiet) == cudaSuccess);
  cudaGetLastError();
}

namespace {
std::vector<int> host_log;
void Log(void* value) { host_log.push_back(static_cast<int>(reinterpret_cast<intptr_t>(value))); }
}  // namespace

TEST_CASE("graphs: explicit graph with every node type", "[runtime][graph]") {
  RegisterGraphModule();
  Buffer x, y;
  std::vector<uint32_t> host(kN, 0);
  cudaEvent_t event = nullptr;
  REQUIRE(cudaEventCreate(&event) == cudaSuccess);
  cudaGraph_t graph = nullptr, child = nullptr;
  REQUIRE(cudaGraphCreate(&graph, 0) == cudaSuccess);
  REQUIRE(cudaGraphCreate(&child, 0) == cudaSuccess);

  cudaGraphNode_t set = nullptr, kernel = nullptr, copy = nullptr, host_node = nullptr, record = nullptr,
                  wait = nullptr, empty = nullptr, sub = nullptr, back = nullptr, child_kernel = nullptr;
  const cudaMemsetParams set_params{x.d, 0, 5, 4, kN, 1};  // 32-bit elements
  REQUIRE(cudaGraphAddMemsetNode(&set, graph, nullptr, 0, &set_params) == cudaSuccess);
  uint32_t* out = x.d;
  uint32_t a = 2, b = 1;
  void* args[3];
  const cudaKernelNodeParams kp = AxpbParams(&out, &a, &b, args);
  REQUIRE(cudaGraphAddKernelNode(&kernel, graph, &set, 1, &kp) == cudaSuccess);  // x = 11
  a = 1000;  // copied at add time
  REQUIRE(cudaGraphAddMemcpyNode1D(&copy, graph, &kernel, 1, y.d, x.d, kN * 4, cudaMemcpyDeviceToDevice) ==
          cudaSuccess);
  const cudaHostNodeParams hp{Log, reinterpret_cast<void*>(intptr_t{1})};
  REQUIRE(cudaGraphAddHostNode(&host_node, graph, &copy, 1, &hp) == cudaSuccess);
  REQUIRE(cudaGraphAddEventRecordNode(&record, graph, &host_node, 1, event) == cudaSuccess);
  REQUIRE(cudaGraphAddEventWaitNode(&wait, graph, &record, 1, event) == cudaSuccess);
  REQUIRE(cudaGraphAddEmptyNode(&empty, graph, &wait, 1) == cudaSuccess);
  // The child: y = y * 10 + 3 = 113.
  uint32_t* child_out = y.d;
  uint32_t ca = 10, cb = 3;
  void* child_args[3];
  const cudaKernelNodeParams ckp = AxpbParams(&child_out, &ca, &cb, child_args);
  REQUIRE(cudaGraphAddKernelNode(&child_kernel, child, nullptr, 0, &ckp) == cudaSuccess);
  REQUIRE(cudaGraphAddChildGraphNode(&sub, graph, &empty, 1, child) == cudaSuccess);
  REQUIRE(cudaGraphAddMemcpyNode1D(&back, graph, &sub, 1, host.data(), y.d, kN * 4, cudaMemcpyDeviceToHost) ==
          cudaSuccess);

  // Queries.
  CHECK(TypeOf(set) == cudaGraphNodeTypeMemset);
  CHECK(TypeOf(kernel) == cudaGraphNodeTypeKernel);
  CHECK(TypeOf(copy) == cudaGraphNodeTypeMemcpy);
  CHECK(TypeOf(host_node) == cudaGraphNodeTypeHost);
  CHECK(TypeOf(record) == cudaGraphNodeTypeEventRecord);
  CHECK(TypeOf(wait) == cudaGraphNodeTypeWaitEvent);
  CHECK(TypeOf(empty) == cudaGraphNodeTypeEmpty);
  CHECK(TypeOf(sub) == cudaGraphNodeTypeGraph);
  CHECK(Nodes(graph).size() == 9);
  CHECK(EdgeCount(graph) == 8);
  std::vector<cudaGraphNode_t> from(8), to(8);
  size_t edges = 8;
  REQUIRE(cudaGraphGetEdges(graph, from.data(), to.data(), nullptr, &edges) == cudaSuccess);
  CHECK(from[0] == set);
  CHECK(to[0] == kernel);
  cudaGraphNode_t dependents[2] = {};
  size_t count = 2;
  REQUIRE(cudaGraphNodeGetDependentNodes(kernel, dependents, nullptr, &count) == cudaSuccess);
  CHECK(count == 1);
  CHECK(dependents[0] == copy);
  CHECK(dependents[1] == nullptr);
  cudaKernelNodeParams got{};
  REQUIRE(cudaGraphKernelNodeGetParams(kernel, &got) == cudaSuccess);
  CHECK(*static_cast<uint32_t*>(got.kernelParams[1]) == 2);
  cudaMemsetParams got_set{};
  REQUIRE(cudaGraphMemsetNodeGetParams(set, &got_set) == cudaSuccess);
  CHECK(got_set.elementSize == 4);
  CHECK(got_set.value == 5);
  cudaMemcpy3DParms got_copy{};
  REQUIRE(cudaGraphMemcpyNodeGetParams(copy, &got_copy) == cudaSuccess);
  CHECK(got_copy.extent.width == kN * 4);
  CHECK(got_copy.dstPtr.ptr == y.d);
  cudaHostNodeParams got_host{};
  REQUIRE(cudaGraphHostNodeGetParams(host_node, &got_host) == cudaSuccess);
  CHECK(got_host.fn == &Log);
  cudaEvent_t got_event = nullptr;
  REQUIRE(cudaGraphEventRecordNodeGetEvent(record, &got_event) == cudaSuccess);
  CHECK(got_event == event);
  cudaGraph_t embedded = nullptr;
  REQUIRE(cudaGraphChildGraphNodeGetGraph(sub, &embedded) == cudaSuccess);
  CHECK(embedded != child);  // the node holds a copy
  CHECK(Nodes(embedded).size() == 1);
  CHECK(cudaGraphDestroy(embedded) == cudaErrorInvalidValue);  // owned by its node
  // Wrong type, bad handles, duplicate edges.
  CHECK(cudaGraphMemsetNodeGetParams(kernel, &got_set) == cudaErrorInvalidValue);
  CHECK(cudaGraphAddDependencies(graph, &set, &kernel, nullptr, 1) == cudaErrorInvalidValue);
  CHECK(cudaGraphAddKernelNode(&kernel, graph, &child_kernel, 1, &kp) == cudaErrorInvalidValue);
  const cudaMemsetParams bad_set{x.d, 0, 5, 3, kN, 1};
  CHECK(cudaGraphAddMemsetNode(&set, graph, nullptr, 0, &bad_set) == cudaErrorInvalidValue);
  const cudaHostNodeParams no_fn{nullptr, nullptr};
  CHECK(cudaGraphAddHostNode(&host_node, graph, nullptr, 0, &no_fn) == cudaErrorInvalidValue);
  CHECK(Nodes(graph).size() == 9);
  cudaGetLastError();

  cudaGraphExec_t exec = nullptr;
  REQUIRE(cudaGraphInstantiateWithFlags(&exec, graph, 0) == cudaSuccess);
  host_log.clear();
  for (int launch = 0; launch < 3; ++launch) {
    std::fill(host.begin(), host.end(), 0);
    REQUIRE(cudaGraphLaunch(exec, nullptr) == cudaSuccess);
    for (int i = 0; i < kN; ++i) REQUIRE(host[i] == 113);
    CHECK(x.d[0] == 11);
  }
  CHECK(host_log == std::vector<int>{1, 1, 1});
  float ms = -1;
  CHECK(cudaEventElapsedTime(&ms, event, event) == cudaSuccess);  // recorded by the graph

  // Changing the graph after instantiation does not change the exec...
  const cudaHostNodeParams hp2{Log, reinterpret_cast<void*>(intptr_t{2})};
  REQUIRE(cudaGraphHostNodeSetParams(host_node, &hp2) == cudaSuccess);
  host_log.clear();
  REQUIRE(cudaGraphLaunch(exec, nullptr) == cudaSuccess);
  CHECK(host_log == std::vector<int>{1});
  // ...the exec setters do: x = 5 * 3 + 4 = 19, y = 19 * 10 + 3 = 193.
  a = 3;
  b = 4;
  REQUIRE(cudaGraphExecKernelNodeSetParams(exec, kernel, &kp) == cudaSuccess);
  REQUIRE(cudaGraphExecHostNodeSetParams(exec, host_node, &hp2) == cudaSuccess);
  host_log.clear();
  REQUIRE(cudaGraphLaunch(exec, nullptr) == cudaSuccess);
  CHECK(host[0] == 193);
  CHECK(host_log == std::vector<int>{2});
  // An exec setter on a node of another type or graph fails.
  CHECK(cudaGraphExecKernelNodeSetParams(exec, copy, &kp) == cudaErrorInvalidValue);
  CHECK(cudaGraphExecKernelNodeSetParams(exec, child_kernel, &kp) == cudaErrorInvalidValue);
  const cudaMemsetParams set7{x.d, 0, 7, 4, kN, 1};
  REQUIRE(cudaGraphExecMemsetNodeSetParams(exec, set, &set7) == cudaSuccess);  // x = 7*3+4 = 25, y = 253
  REQUIRE(cudaGraphLaunch(exec, nullptr) == cudaSuccess);
  CHECK(host[0] == 253);
  cudaGetLastError();

  // Destroying a node removes its edges.
  REQUIRE(cudaGraphDestroyNode(empty) == cudaSuccess);
  CHECK(Nodes(graph).size() == 8);
  CHECK(EdgeCount(graph) == 6);
  CHECK(cudaGraphNodeGetType(empty, nullptr) == cudaErrorInvalidValue);
  CHECK(cudaGraphExecDestroy(exec) == cudaSuccess);
  CHECK(cudaGraphDestroy(graph) == cudaSuccess);
  CHECK(cudaGraphDestroy(child) == cudaSuccess);
  CHECK(cudaEventDestroy(event) == cudaSuccess);
  cudaGetLastError();
}

TEST_CASE("graphs: execution order, clones, exec update, cycles", "[runtime][graph]") {
  RegisterGraphModule();
  cudaGraph_t graph = nullptr;
  REQUIRE(cudaGraphCreate(&graph, 0) == cudaSuccess);
  // Created h1, h2, h3, h4; h1 depends on h4 (added later), h3 on h2.
  cudaGraphNode_t h[4];
  for (int i = 0; i < 4; ++i) {
    const cudaHostNodeParams p{Log, reinterpret_cast<void*>(intptr_t{i + 1})};
    REQUIRE(cudaGraphAddHostNode(&h[i], graph, nullptr, 0, &p) == cudaSuccess);
  }
  REQUIRE(cudaGraphAddDependencies(graph, &h[3], &h[0], nullptr, 1) == cudaSuccess);
  REQUIRE(cudaGraphAddDependencies(graph, &h[1], &h[2], nullptr, 1) == cudaSuccess);
  size_t roots = 0;
  REQUIRE(cudaGraphGetRootNodes(graph, nullptr, &roots) == cudaSuccess);
  CHECK(roots == 2);
  cudaGraphExec_t exec = nullptr;
  REQUIRE(cudaGraphInstantiate(&exec, graph, 0) == cudaSuccess);
  host_log.clear();
  REQUIRE(cudaGraphLaunch(exec, nullptr) == cudaSuccess);
  // Ready first: h2, h4 (roots); h2 was created first, then h3 is ready
  // (created before h4).
  CHECK(host_log == std::vector<int>{2, 3, 4, 1});

  // A clone has the same structure; nodes map back to the original.
  cudaGraph_t clone = nullptr;
  REQUIRE(cudaGraphClone(&clone, graph) == cudaSuccess);
  CHECK(Nodes(clone).size() == 4);
  CHECK(EdgeCount(clone) == 2);
  cudaGraphNode_t in_clone = nullptr;
  REQUIRE(cudaGraphNodeFindInClone(&in_clone, h[2], clone) == cudaSuccess);
  CHECK(in_clone == Nodes(clone)[2]);
  CHECK(in_clone != h[2]);

  // Exec update from the clone with new parameters: same topology.
  const cudaHostNodeParams p9{Log, reinterpret_cast<void*>(intptr_t{9})};
  REQUIRE(cudaGraphHostNodeSetParams(in_clone, &p9) == cudaSuccess);
  cudaGraphExecUpdateResultInfo info{};
  REQUIRE(cudaGraphExecUpdate(exec, clone, &info) == cudaSuccess);
  CHECK(info.result == cudaGraphExecUpdateSuccess);
  host_log.clear();
  REQUIRE(cudaGraphLaunch(exec, nullptr) == cudaSuccess);
  CHECK(host_log == std::vector<int>{2, 9, 4, 1});
  // A changed topology cannot update.
  REQUIRE(cudaGraphRemoveDependencies(clone, &h[1], &h[2], nullptr, 1) == cudaErrorInvalidValue);  // not its nodes
  cudaGraphNode_t c1 = Nodes(clone)[1];
  REQUIRE(cudaGraphRemoveDependencies(clone, &c1, &in_clone, nullptr, 1) == cudaSuccess);
  CHECK(cudaGraphRemoveDependencies(clone, &c1, &in_clone, nullptr, 1) == cudaErrorInvalidValue);
  CHECK(cudaGraphExecUpdate(exec, clone, &info) == cudaErrorGraphExecUpdateFailure);
  CHECK(info.result == cudaGraphExecUpdateErrorTopologyChanged);
  CHECK(info.errorNode == in_clone);

  // A cycle cannot be instantiated.
  REQUIRE(cudaGraphAddDependencies(graph, &h[0], &h[3], nullptr, 1) == cudaSuccess);
  cudaGraphExec_t cyclic = nullptr;
  cudaGraphInstantiateParams ip{};
  CHECK(cudaGraphInstantiateWithParams(&cyclic, graph, &ip) == cudaErrorInvalidValue);
  CHECK(ip.result_out == cudaGraphInstantiateInvalidStructure);
  CHECK(cudaGraphExecDestroy(exec) == cudaSuccess);
  CHECK(cudaGraphDestroy(graph) == cudaSuccess);
  CHECK(cudaGraphDestroy(clone) == cudaSuccess);
  cudaGetLastError();
}

TEST_CASE("graphs: a graph launched into a capturing stream becomes a child node", "[runtime][graph]") {
  RegisterGraphModule();
  Buffer x;
  REQUIRE(cudaMemset(x.d, 0, kN * 4) == cudaSuccess);
  cudaStream_t s = nullptr;
  REQUIRE(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking) == cudaSuccess);
  cudaGraph_t inner = nullptr, outer = nullptr;
  REQUIRE(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal) == cudaSuccess);
  REQUIRE(LaunchAxpb(x.d, 1, 2, s) == cudaSuccess);
  REQUIRE(cudaStreamEndCapture(s, &inner) == cudaSuccess);
  cudaGraphExec_t inner_exec = nullptr;
  REQUIRE(cudaGraphInstantiate(&inner_exec, inner, 0) == cudaSuccess);
  REQUIRE(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal) == cudaSuccess);
  REQUIRE(cudaGraphLaunch(inner_exec, s) == cudaSuccess);
  REQUIRE(LaunchAxpb(x.d, 3, 0, s) == cudaSuccess);
  REQUIRE(cudaStreamEndCapture(s, &outer) == cudaSuccess);
  CHECK(x.d[0] == 0);  // nothing ran
  const std::vector<cudaGraphNode_t> nodes = Nodes(outer);
  REQUIRE(nodes.size() == 2);
  CHECK(TypeOf(nodes[0]) == cudaGraphNodeTypeGraph);
  cudaGraphExec_t outer_exec = nullptr;
  REQUIRE(cudaGraphInstantiate(&outer_exec, outer, 0) == cudaSuccess);
  REQUIRE(cudaGraphUpload(outer_exec, s) == cudaSuccess);
  REQUIRE(cudaGraphLaunch(outer_exec, s) == cudaSuccess);
  CHECK(x.d[0] == 6);
  REQUIRE(cudaGraphLaunch(outer_exec, s) == cudaSuccess);
  CHECK(x.d[0] == 24);
  CHECK(cudaGraphExecDestroy(inner_exec) == cudaSuccess);
  CHECK(cudaGraphExecDestroy(outer_exec) == cudaSuccess);
  CHECK(cudaGraphDestroy(inner) == cudaSuccess);
  CHECK(cudaGraphDestroy(outer) == cudaSuccess);
  CHECK(cudaStreamDestroy(s) == cudaSuccess);
  cudaGetLastError();
}

namespace {

uint64_t GraphMem(cudaGraphMemAttributeType attr) {
  uint64_t v = ~uint64_t{0};
  REQUIRE(cudaDeviceGetGraphMemAttribute(0, attr, &v) == cudaSuccess);
  return v;
}

cudaMemAllocNodeParams AllocParams(size_t bytes) {
  cudaMemAllocNodeParams p{};
  p.poolProps.allocType = cudaMemAllocationTypePinned;
  p.poolProps.location.type = cudaMemLocationTypeDevice;
  p.poolProps.location.id = 0;
  p.bytesize = bytes;
  return p;
}

}  // namespace

TEST_CASE("graphs: captured cudaMallocAsync and cudaFreeAsync become memory nodes", "[runtime][graph]") {
  RegisterGraphModule();
  Buffer result;
  cudaStream_t s;
  REQUIRE(cudaStreamCreate(&s) == cudaSuccess);
  REQUIRE(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal) == cudaSuccess);
  uint32_t* p = nullptr;
  REQUIRE(cudaMallocAsync(reinterpret_cast<void**>(&p), kN * sizeof(uint32_t), s) == cudaSuccess);
  REQUIRE(p != nullptr);
  REQUIRE(cudaMemsetAsync(p, 0, kN * sizeof(uint32_t), s) == cudaSuccess);
  REQUIRE(LaunchAxpb(p, 1, 5, s) == cudaSuccess);
  REQUIRE(LaunchAxpb(p, 2, 1, s) == cudaSuccess);
  REQUIRE(cudaMemcpyAsync(result.d, p, kN * sizeof(uint32_t), cudaMemcpyDeviceToDevice, s) == cudaSuccess);
  REQUIRE(cudaFreeAsync(p, s) == cudaSuccess);
  cudaGraph_t graph;
  REQUIRE(cudaStreamEndCapture(s, &graph) == cudaSuccess);
  const std::vector<cudaGraphNode_t> nodes = Nodes(graph);
  REQUIRE(nodes.size() == 6);
  CHECK(TypeOf(nodes.front()) == cudaGraphNodeTypeMemAlloc);
  CHECK(TypeOf(nodes.back()) == cudaGraphNodeTypeMemFree);
  cudaMemAllocNodeParams got{};
  REQUIRE(cudaGraphMemAllocNodeGetParams(nodes.front(), &got) == cudaSuccess);
  CHECK(got.dptr == p);
  CHECK(got.bytesize == kN * sizeof(uint32_t));
  CHECK(got.poolProps.location.type == cudaMemLocationTypeDevice);
  void* freed = nullptr;
  REQUIRE(cudaGraphMemFreeNodeGetParams(nodes.back(), &freed) == cudaSuccess);
  CHECK(freed == p);
  // The wrong node type for either query.
  CHECK(cudaGraphMemAllocNodeGetParams(nodes.back(), &got) == cudaErrorInvalidValue);
  CHECK(cudaGraphMemFreeNodeGetParams(nodes.front(), &freed) == cudaErrorInvalidValue);
  (void)cudaGetLastError();

  cudaGraphExec_t exec;
  REQUIRE(cudaGraphInstantiate(&exec, graph, 0) == cudaSuccess);
  for (int launch = 0; launch < 2; ++launch) {
    std::memset(result.d, 0xff, kN * sizeof(uint32_t));
    REQUIRE(cudaGraphLaunch(exec, s) == cudaSuccess);
    REQUIRE(cudaStreamSynchronize(s) == cudaSuccess);
    for (int i = 0; i < kN; ++i) CHECK(result.d[i] == 11u);  // (0 * 1 + 5) * 2 + 1
    // Freed in the graph: nothing in use, the bytes kept for the next launch.
    CHECK(GraphMem(cudaGraphMemAttrUsedMemCurrent) == 0);
    CHECK(GraphMem(cudaGraphMemAttrUsedMemHigh) >= kN * sizeof(uint32_t));
    CHECK(GraphMem(cudaGraphMemAttrReservedMemCurrent) >= kN * sizeof(uint32_t));
  }
  REQUIRE(cudaDeviceGraphMemTrim(0) == cudaSuccess);
  CHECK(GraphMem(cudaGraphMemAttrReservedMemCurrent) == 0);
  CHECK(GraphMem(cudaGraphMemAttrReservedMemHigh) >= kN * sizeof(uint32_t));
  uint64_t zero = 0, one = 1;
  REQUIRE(cudaDeviceSetGraphMemAttribute(0, cudaGraphMemAttrUsedMemHigh, &zero) == cudaSuccess);
  REQUIRE(cudaDeviceSetGraphMemAttribute(0, cudaGraphMemAttrReservedMemHigh, &zero) == cudaSuccess);
  CHECK(GraphMem(cudaGraphMemAttrUsedMemHigh) == 0);
  CHECK(GraphMem(cudaGraphMemAttrReservedMemHigh) == 0);
  // Only the high watermarks, only to 0; device 0 only.
  CHECK(cudaDeviceSetGraphMemAttribute(0, cudaGraphMemAttrUsedMemHigh, &one) == cudaErrorInvalidValue);
  CHECK(cudaDeviceSetGraphMemAttribute(0, cudaGraphMemAttrUsedMemCurrent, &zero) == cudaErrorInvalidValue);
  CHECK(cudaDeviceGetGraphMemAttribute(0, cudaGraphMemAttrUsedMemCurrent, nullptr) == cudaErrorInvalidValue);
  uint64_t v = 0;
  CHECK(cudaDeviceGetGraphMemAttribute(1, cudaGraphMemAttrUsedMemCurrent, &v) == cudaErrorInvalidDevice);
  CHECK(cudaDeviceGraphMemTrim(1) == cudaErrorInvalidDevice);
  (void)cudaGetLastError();
  REQUIRE(cudaGraphExecDestroy(exec) == cudaSuccess);
  REQUIRE(cudaGraphDestroy(graph) == cudaSuccess);
  REQUIRE(cudaStreamDestroy(s) == cudaSuccess);
}

TEST_CASE("graphs: memory alloc and free nodes of the explicit API", "[runtime][graph]") {
  RegisterGraphModule();
  Buffer result;
  cudaGraph_t graph;
  REQUIRE(cudaGraphCreate(&graph, 0) == cudaSuccess);
  cudaMemAllocNodeParams params = AllocParams(kN * sizeof(uint32_t));
  cudaGraphNode_t alloc, set, copy, free_node;
  REQUIRE(cudaGraphAddMemAllocNode(&alloc, graph, nullptr, 0, &params) == cudaSuccess);
  REQUIRE(params.dptr != nullptr);
  CHECK(TypeOf(alloc) == cudaGraphNodeTypeMemAlloc);
  cudaMemsetParams mp{};
  mp.dst = params.dptr;
  mp.value = 7;
  mp.elementSize = 4;
  mp.width = kN;
  mp.height = 1;
  REQUIRE(cudaGraphAddMemsetNode(&set, graph, &alloc, 1, &mp) == cudaSuccess);
  REQUIRE(cudaGraphAddMemcpyNode1D(&copy, graph, &set, 1, result.d, params.dptr, kN * sizeof(uint32_t),
                                   cudaMemcpyDeviceToDevice) == cudaSuccess);

  // Refused: a size of 0, another device, host memory, a free of memory no
  // alloc node gave (cudaMalloc's), no node handle.
  cudaGraphNode_t bad;
  cudaMemAllocNodeParams wrong = AllocParams(0);
  CHECK(cudaGraphAddMemAllocNode(&bad, graph, nullptr, 0, &wrong) == cudaErrorInvalidValue);
  wrong = AllocParams(64);
  wrong.poolProps.location.id = 1;
  CHECK(cudaGraphAddMemAllocNode(&bad, graph, nullptr, 0, &wrong) == cudaErrorInvalidValue);
  wrong = AllocParams(64);
  wrong.poolProps.location.type = cudaMemLocationTypeHost;
  CHECK(cudaGraphAddMemAllocNode(&bad, graph, nullptr, 0, &wrong) == cudaErrorInvalidValue);
  CHECK(cudaGraphAddMemAllocNode(&bad, graph, nullptr, 0, nullptr) == cudaErrorInvalidValue);
  CHECK(cudaGraphAddMemFreeNode(&bad, graph, nullptr, 0, result.d) == cudaErrorInvalidValue);
  CHECK(cudaGraphAddMemFreeNode(&bad, graph, nullptr, 0, nullptr) == cudaErrorInvalidValue);
  (void)cudaGetLastError();
  CHECK(Nodes(graph).size() == 3);

  // Not freed in the graph: the allocation outlives the launch, and the graph
  // cannot run again until it is freed.
  cudaGraphExec_t exec;
  REQUIRE(cudaGraphInstantiate(&exec, graph, 0) == cudaSuccess);
  REQUIRE(cudaGraphLaunch(exec, nullptr) == cudaSuccess);
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  for (int i = 0; i < kN; ++i) CHECK(result.d[i] == 7u);
  CHECK(GraphMem(cudaGraphMemAttrUsedMemCurrent) == kN * sizeof(uint32_t));
  CHECK(cudaGraphLaunch(exec, nullptr) == cudaErrorInvalidValue);
  (void)cudaGetLastError();
  REQUIRE(cudaFree(params.dptr) == cudaSuccess);
  CHECK(GraphMem(cudaGraphMemAttrUsedMemCurrent) == 0);
  REQUIRE(cudaGraphLaunch(exec, nullptr) == cudaSuccess);
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  REQUIRE(cudaFreeAsync(params.dptr, nullptr) == cudaSuccess);  // the stream-ordered free ends it too
  CHECK(GraphMem(cudaGraphMemAttrUsedMemCurrent) == 0);
  // Outside its lifetime the memory is not there: freeing it again and
  // copying into it are refused (a kernel's access faults: the suite's
  // memcheck/global/graph_memory_after_free_memerr.cu).
  CHECK(cudaFree(params.dptr) == cudaErrorInvalidDevicePointer);
  CHECK(cudaMemcpy(params.dptr, result.d, 4, cudaMemcpyDeviceToDevice) != cudaSuccess);
  (void)cudaGetLastError();
  REQUIRE(cudaGraphExecDestroy(exec) == cudaSuccess);
  // cudaGraphInstantiateFlagAutoFreeOnLaunch: a relaunch frees what the last
  // launch allocated and did not free.
  REQUIRE(cudaGraphInstantiate(&exec, graph, cudaGraphInstantiateFlagAutoFreeOnLaunch) == cudaSuccess);
  for (int launch = 0; launch < 2; ++launch) {
    REQUIRE(cudaGraphLaunch(exec, nullptr) == cudaSuccess);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    CHECK(GraphMem(cudaGraphMemAttrUsedMemCurrent) == kN * sizeof(uint32_t));
  }
  REQUIRE(cudaFree(params.dptr) == cudaSuccess);
  REQUIRE(cudaGraphExecDestroy(exec) == cudaSuccess);

  // With a free node after the copy: freed in every launch; a second free
  // node for the same allocation is refused.
  REQUIRE(cudaGraphAddMemFreeNode(&free_node, graph, &copy, 1, params.dptr) == cudaSuccess);
  CHECK(TypeOf(free_node) == cudaGraphNodeTypeMemFree);
  CHECK(cudaGraphAddMemFreeNode(&bad, graph, &copy, 1, params.dptr) == cudaErrorInvalidValue);
  (void)cudaGetLastError();
  REQUIRE(cudaGraphInstantiate(&exec, graph, 0) == cudaSuccess);
  for (int launch = 0; launch < 2; ++launch) {
    std::memset(result.d, 0, kN * sizeof(uint32_t));
    REQUIRE(cudaGraphLaunch(exec, nullptr) == cudaSuccess);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    for (int i = 0; i < kN; ++i) CHECK(result.d[i] == 7u);
    CHECK(GraphMem(cudaGraphMemAttrUsedMemCurrent) == 0);
  }
  REQUIRE(cudaGraphExecDestroy(exec) == cudaSuccess);
  REQUIRE(cudaGraphDestroy(graph) == cudaSuccess);
}

TEST_CASE("graphs: a disabled kernel node runs as an empty node and can be enabled again", "[runtime][graph]") {
  RegisterGraphModule();
  Buffer buf;
  std::vector<uint32_t> host(kN, 1);
  REQUIRE(cudaMemcpy(buf.d, host.data(), kN * sizeof(uint32_t), cudaMemcpyHostToDevice) == cudaSuccess);
  cudaGraph_t graph = nullptr;
  REQUIRE(cudaGraphCreate(&graph, 0) == cudaSuccess);
  uint32_t* out = buf.d;
  uint32_t a = 2, b = 1;
  void* args[3];
  const cudaKernelNodeParams p = AxpbParams(&out, &a, &b, args);
  cudaGraphNode_t kernel = nullptr, set = nullptr, host_node = nullptr;
  REQUIRE(cudaGraphAddKernelNode(&kernel, graph, nullptr, 0, &p) == cudaSuccess);
  cudaHostNodeParams hp{[](void*) {}, nullptr};
  REQUIRE(cudaGraphAddHostNode(&host_node, graph, &kernel, 1, &hp) == cudaSuccess);
  cudaGraphExec_t exec = nullptr;
  REQUIRE(cudaGraphInstantiate(&exec, graph, 0) == cudaSuccess);
  unsigned enabled = 7;
  REQUIRE(cudaGraphNodeGetEnabled(exec, kernel, &enabled) == cudaSuccess);
  CHECK(enabled == 1);
  CHECK(cudaGraphNodeSetEnabled(exec, host_node, 0) == cudaErrorInvalidValue);  // only kernel/memcpy/memset
  CHECK(cudaGraphNodeSetEnabled(exec, set, 0) == cudaErrorInvalidValue);
  cudaGetLastError();
  REQUIRE(cudaGraphNodeSetEnabled(exec, kernel, 0) == cudaSuccess);
  REQUIRE(cudaGraphNodeGetEnabled(exec, kernel, &enabled) == cudaSuccess);
  CHECK(enabled == 0);
  REQUIRE(cudaGraphLaunch(exec, nullptr) == cudaSuccess);
  REQUIRE(cudaMemcpy(host.data(), buf.d, kN * sizeof(uint32_t), cudaMemcpyDeviceToHost) == cudaSuccess);
  CHECK(host[5] == 1u);  // not run
  REQUIRE(cudaGraphNodeSetEnabled(exec, kernel, 1) == cudaSuccess);
  REQUIRE(cudaGraphLaunch(exec, nullptr) == cudaSuccess);
  REQUIRE(cudaMemcpy(host.data(), buf.d, kN * sizeof(uint32_t), cudaMemcpyDeviceToHost) == cudaSuccess);
  CHECK(host[5] == 3u);  // 1 * 2 + 1
  CHECK(cudaGraphExecDestroy(exec) == cudaSuccess);
  CHECK(cudaGraphDestroy(graph) == cudaSuccess);
}

TEST_CASE("graphs: user objects live while a graph, its clone or an exec holds a reference", "[runtime][graph]") {
  static int destroyed = 0;
  destroyed = 0;
  int payload = 42;
  cudaUserObject_t object = nullptr;
  auto destroy = [](void* p) { destroyed += *static_cast<int*>(p) == 42 ? 1 : 100; };
  CHECK(cudaUserObjectCreate(&object, &payload, destroy, 1, 0) == cudaErrorInvalidValue);  // the flag is required
  cudaGetLastError();
  REQUIRE(cudaUserObjectCreate(&object, &payload, destroy, 1, cudaUserObjectNoDestructorSync) == cudaSuccess);
  cudaGraph_t graph = nullptr, clone = nullptr;
  REQUIRE(cudaGraphCreate(&graph, 0) == cudaSuccess);
  REQUIRE(cudaGraphRetainUserObject(graph, object, 1, cudaGraphUserObjectMove) == cudaSuccess);  // takes ours
  CHECK(cudaUserObjectRelease(object, 2) == cudaErrorInvalidValue);  // only one reference exists
  cudaGetLastError();
  REQUIRE(cudaGraphClone(&clone, graph) == cudaSuccess);
  cudaGraphExec_t exec = nullptr;
  REQUIRE(cudaGraphInstantiate(&exec, graph, 0) == cudaSuccess);
  REQUIRE(cudaGraphDestroy(graph) == cudaSuccess);
  CHECK(destroyed == 0);
  REQUIRE(cudaGraphDestroy(clone) == cudaSuccess);
  CHECK(destroyed == 0);
  REQUIRE(cudaGraphExecDestroy(exec) == cudaSuccess);
  CHECK(destroyed == 1);  // the last reference gone: the destructor ran once, with its pointer
  CHECK(cudaUserObjectRetain(object, 1) == cudaErrorInvalidValue);  // dead
  cudaGetLastError();
  // Retain without move: the caller keeps its reference.
  REQUIRE(cudaUserObjectCreate(&object, &payload, destroy, 1, cudaUserObjectNoDestructorSync) == cudaSuccess);
  REQUIRE(cudaGraphCreate(&graph, 0) == cudaSuccess);
  REQUIRE(cudaGraphRetainUserObject(graph, object, 2, 0) == cudaSuccess);
  REQUIRE(cudaGraphReleaseUserObject(graph, object, 1) == cudaSuccess);
  CHECK(cudaGraphReleaseUserObject(graph, object, 2) == cudaErrorInvalidValue);  // the graph holds one
  cudaGetLastError();
  REQUIRE(cudaGraphDestroy(graph) == cudaSuccess);
  CHECK(destroyed == 1);
  REQUIRE(cudaUserObjectRelease(object, 1) == cudaSuccess);
  CHECK(destroyed == 2);
}

TEST_CASE("graphs: kernel node attributes are kept, survive new parameters and change the launch",
          "[runtime][graph]") {
  RegisterGraphModule();
  Buffer buf;
  REQUIRE(cudaMemset(buf.d, 0, kN * sizeof(uint32_t)) == cudaSuccess);
  cudaGraph_t graph = nullptr;
  REQUIRE(cudaGraphCreate(&graph, 0) == cudaSuccess);
  uint32_t* out = buf.d;
  uint32_t a = 1, b = 5;
  void* args[3];
  const cudaKernelNodeParams p = AxpbParams(&out, &a, &b, args);
  cudaGraphNode_t k1 = nullptr, k2 = nullptr;
  REQUIRE(cudaGraphAddKernelNode(&k1, graph, nullptr, 0, &p) == cudaSuccess);
  REQUIRE(cudaGraphAddKernelNode(&k2, graph, &k1, 1, &p) == cudaSuccess);
  cudaLaunchAttributeValue v{};
  REQUIRE(cudaGraphKernelNodeGetAttribute(k1, cudaLaunchAttributeClusterDimension, &v) == cudaSuccess);
  CHECK(v.clusterDim.x == 1u);
  CHECK(cudaGraphKernelNodeGetAttribute(k1, cudaLaunchAttributeProgrammaticStreamSerialization, &v) ==
        cudaErrorInvalidValue);  // not a kernel node attribute
  cudaGetLastError();
  cudaLaunchAttributeValue w{};
  w.priority = -1;
  REQUIRE(cudaGraphKernelNodeSetAttribute(k1, cudaLaunchAttributePriority, &w) == cudaSuccess);
  w = cudaLaunchAttributeValue{};
  w.clusterDim.x = 2;
  w.clusterDim.y = 1;
  w.clusterDim.z = 1;
  REQUIRE(cudaGraphKernelNodeSetAttribute(k1, cudaLaunchAttributeClusterDimension, &w) == cudaSuccess);
  REQUIRE(cudaGraphKernelNodeSetParams(k1, &p) == cudaSuccess);  // attributes outlive parameters
  REQUIRE(cudaGraphKernelNodeGetAttribute(k1, cudaLaunchAttributeClusterDimension, &v) == cudaSuccess);
  CHECK(v.clusterDim.x == 2u);
  REQUIRE(cudaGraphKernelNodeCopyAttributes(k2, k1) == cudaSuccess);
  REQUIRE(cudaGraphKernelNodeGetAttribute(k2, cudaLaunchAttributePriority, &v) == cudaSuccess);
  CHECK(v.priority == -1);
  // A grid of one block is no multiple of a 2-CTA cluster: the launch fails.
  cudaGraphExec_t exec = nullptr;
  REQUIRE(cudaGraphInstantiate(&exec, graph, 0) == cudaSuccess);
  CHECK(cudaGraphLaunch(exec, nullptr) != cudaSuccess);
  cudaGetLastError();
  CHECK(cudaGraphExecDestroy(exec) == cudaSuccess);
  w.clusterDim.x = 1;
  REQUIRE(cudaGraphKernelNodeSetAttribute(k1, cudaLaunchAttributeClusterDimension, &w) == cudaSuccess);
  REQUIRE(cudaGraphKernelNodeSetAttribute(k2, cudaLaunchAttributeClusterDimension, &w) == cudaSuccess);
  REQUIRE(cudaGraphInstantiate(&exec, graph, 0) == cudaSuccess);
  REQUIRE(cudaGraphLaunch(exec, nullptr) == cudaSuccess);
  std::vector<uint32_t> host(kN);
  REQUIRE(cudaMemcpy(host.data(), buf.d, kN * sizeof(uint32_t), cudaMemcpyDeviceToHost) == cudaSuccess);
  CHECK(host[3] == 10u);  // (0 * 1 + 5) * 1 + 5
  CHECK(cudaGraphExecDestroy(exec) == cudaSuccess);
  CHECK(cudaGraphDestroy(graph) == cudaSuccess);
}

TEST_CASE("graphs: the generic node calls make and change the typed nodes", "[runtime][graph]") {
  RegisterGraphModule();
  Buffer out, result;
  std::memset(out.d, 0, kN * sizeof(uint32_t));
  cudaGraph_t graph;
  REQUIRE(cudaGraphCreate(&graph, 0) == cudaSuccess);
  // alloc -> memset(3) -> kernel (x * 2 + 1) on `out` ... copy alloc -> result -> free.
  cudaGraphNodeParams p{};
  p.type = cudaGraphNodeTypeMemAlloc;
  p.alloc.poolProps = AllocParams(kN * sizeof(uint32_t)).poolProps;
  p.alloc.bytesize = kN * sizeof(uint32_t);
  cudaGraphNode_t alloc, set, kernel, copy, free_node;
  REQUIRE(cudaGraphAddNode(&alloc, graph, nullptr, nullptr, 0, &p) == cudaSuccess);
  void* mem = p.alloc.dptr;  // out: the allocation's address
  REQUIRE(mem != nullptr);
  CHECK(TypeOf(alloc) == cudaGraphNodeTypeMemAlloc);
  p = {};
  p.type = cudaGraphNodeTypeMemset;
  p.memset.dst = mem;
  p.memset.value = 3;
  p.memset.elementSize = 4;
  p.memset.width = kN;
  p.memset.height = 1;
  REQUIRE(cudaGraphAddNode(&set, graph, &alloc, nullptr, 1, &p) == cudaSuccess);
  uint32_t* dev = static_cast<uint32_t*>(mem);
  uint32_t a = 2, b = 1;
  void* args[3];
  p = {};
  p.type = cudaGraphNodeTypeKernel;
  const cudaKernelNodeParams k = AxpbParams(&dev, &a, &b, args);
  p.kernel.func = k.func;
  p.kernel.gridDim = k.gridDim;
  p.kernel.blockDim = k.blockDim;
  p.kernel.kernelParams = k.kernelParams;
  const cudaGraphEdgeData plain{};  // full-completion edge: accepted
  REQUIRE(cudaGraphAddNode(&kernel, graph, &set, &plain, 1, &p) == cudaSuccess);
  CHECK(TypeOf(kernel) == cudaGraphNodeTypeKernel);
  p = {};
  p.type = cudaGraphNodeTypeMemcpy;
  p.memcpy.copyParams.srcPtr = make_cudaPitchedPtr(mem, kN * sizeof(uint32_t), kN, 1);
  p.memcpy.copyParams.dstPtr = make_cudaPitchedPtr(result.d, kN * sizeof(uint32_t), kN, 1);
  p.memcpy.copyParams.extent = make_cudaExtent(kN * sizeof(uint32_t), 1, 1);
  p.memcpy.copyParams.kind = cudaMemcpyDeviceToDevice;
  REQUIRE(cudaGraphAddNode(&copy, graph, &kernel, nullptr, 1, &p) == cudaSuccess);
  p = {};
  p.type = cudaGraphNodeTypeMemFree;
  p.free.dptr = mem;
  REQUIRE(cudaGraphAddNode(&free_node, graph, &copy, nullptr, 1, &p) == cudaSuccess);
  CHECK(EdgeCount(graph) == 4);

  // Refused: reserved fields set, a programmatic edge, kinds without a typed
  // call, a moved child graph; nothing is added.
  cudaGraphNode_t bad;
  cudaGraphNodeParams empty{};
  empty.type = cudaGraphNodeTypeEmpty;
  empty.reserved0[1] = 1;
  CHECK(cudaGraphAddNode(&bad, graph, nullptr, nullptr, 0, &empty) == cudaErrorInvalidValue);
  empty.reserved0[1] = 0;
  cudaGraphEdgeData programmatic{};
  programmatic.type = cudaGraphDependencyTypeProgrammatic;
  CHECK(cudaGraphAddNode(&bad, graph, &kernel, &programmatic, 1, &empty) == cudaErrorNotSupported);
  cudaGraphNodeParams cond{};
  cond.type = cudaGraphNodeTypeConditional;
  cond.conditional.size = 1;
  CHECK(cudaGraphAddNode(&bad, graph, nullptr, nullptr, 0, &cond) == cudaErrorInvalidValue);  // no such handle
  {
    // Conditional nodes (runtime/graph_conditional runs them): the node's
    // bodies are graphs of their own, a size that does not fit the kind is
    // refused, clones carry the bodies.
    cudaGraph_t g;
    REQUIRE(cudaGraphCreate(&g, 0) == cudaSuccess);
    cudaGraphConditionalHandle h = 0;
    CHECK(cudaGraphConditionalHandleCreate(&h, g, 0, 2) == cudaErrorInvalidValue);  // unknown flag
    REQUIRE(cudaGraphConditionalHandleCreate(&h, g, 1, cudaGraphCondAssignDefault) == cudaSuccess);
    cudaGraphNodeParams sw{};
    sw.type = cudaGraphNodeTypeConditional;
    sw.conditional.handle = h;
    sw.conditional.type = cudaGraphCondTypeWhile;
    sw.conditional.size = 2;
    cudaGraphNode_t n = nullptr;
    CHECK(cudaGraphAddNode(&n, g, nullptr, nullptr, 0, &sw) == cudaErrorInvalidValue);  // a while has one body
    CHECK(cudaGraphAddNode(&n, graph, nullptr, nullptr, 0, &sw) == cudaErrorInvalidValue);  // another graph's handle
    sw.conditional.type = cudaGraphCondTypeSwitch;
    sw.conditional.size = 3;
    REQUIRE(cudaGraphAddNode(&n, g, nullptr, nullptr, 0, &sw) == cudaSuccess);
    REQUIRE(sw.conditional.phGraph_out != nullptr);
    cudaGraphNodeType type;
    REQUIRE(cudaGraphNodeGetType(n, &type) == cudaSuccess);
    CHECK(type == cudaGraphNodeTypeConditional);
    cudaGraphNode_t inner = nullptr;
    for (unsigned i = 0; i < 3; ++i) CHECK(cudaGraphAddEmptyNode(&inner, sw.conditional.phGraph_out[i], nullptr, 0) == cudaSuccess);
    CHECK(Nodes(sw.conditional.phGraph_out[1]).size() == 1);
    cudaGraph_t copy;
    REQUIRE(cudaGraphClone(&copy, g) == cudaSuccess);
    CHECK(Nodes(copy).size() == 1);
    cudaGraphExec_t exec;
    REQUIRE(cudaGraphInstantiate(&exec, copy, 0) == cudaSuccess);
    CHECK(cudaGraphLaunch(exec, nullptr) == cudaSuccess);  // switch (1): body 1, an empty node
    CHECK(cudaStreamSynchronize(nullptr) == cudaSuccess);
    CHECK(cudaGraphExecDestroy(exec) == cudaSuccess);
    CHECK(cudaGraphDestroy(copy) == cudaSuccess);
    CHECK(cudaGraphDestroy(g) == cudaSuccess);
  }
  cudaGraph_t child;
  REQUIRE(cudaGraphCreate(&child, 0) == cudaSuccess);
  cudaGraphNodeParams moved{};
  moved.type = cudaGraphNodeTypeGraph;
  moved.graph.graph = child;
  moved.graph.ownership = cudaGraphChildGraphOwnershipMove;
  CHECK(cudaGraphAddNode(&bad, graph, nullptr, nullptr, 0, &moved) == cudaErrorNotSupported);
  CHECK(cudaGraphAddNode(&bad, graph, nullptr, nullptr, 0, nullptr) == cudaErrorInvalidValue);
  (void)cudaGetLastError();
  CHECK(Nodes(graph).size() == 5);
  REQUIRE(cudaGraphDestroy(child) == cudaSuccess);

  cudaGraphExec_t exec;
  REQUIRE(cudaGraphInstantiate(&exec, graph, 0) == cudaSuccess);
  REQUIRE(cudaGraphLaunch(exec, nullptr) == cudaSuccess);
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  for (int i = 0; i < kN; ++i) CHECK(result.d[i] == 7u);  // 3 * 2 + 1

  // The exec's kernel node through the generic call: x * 5 + 2.
  a = 5;
  b = 2;
  REQUIRE(cudaGraphExecNodeSetParams(exec, kernel, &p) == cudaErrorInvalidValue);  // a free node's parameters
  (void)cudaGetLastError();
  p = {};
  p.type = cudaGraphNodeTypeKernel;
  p.kernel.func = k.func;
  p.kernel.gridDim = k.gridDim;
  p.kernel.blockDim = k.blockDim;
  p.kernel.kernelParams = k.kernelParams;
  REQUIRE(cudaGraphExecNodeSetParams(exec, kernel, &p) == cudaSuccess);
  REQUIRE(cudaGraphLaunch(exec, nullptr) == cudaSuccess);
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  for (int i = 0; i < kN; ++i) CHECK(result.d[i] == 17u);  // 3 * 5 + 2

  // The source graph's memset node through the generic call (value 4), then
  // a new instantiation: 4 * 5 + 2 (the kernel node's parameters are the
  // source's, a = 5 and b = 2 as read at this call).
  cudaGraphNodeParams s{};
  s.type = cudaGraphNodeTypeMemset;
  s.memset.dst = mem;
  s.memset.value = 4;
  s.memset.elementSize = 4;
  s.memset.width = kN;
  s.memset.height = 1;
  REQUIRE(cudaGraphNodeSetParams(set, &s) == cudaSuccess);
  REQUIRE(cudaGraphNodeSetParams(kernel, &p) == cudaSuccess);
  CHECK(cudaGraphNodeSetParams(kernel, &s) == cudaErrorInvalidValue);  // a memset's parameters on a kernel node
  cudaGraphNodeParams af{};
  af.type = cudaGraphNodeTypeMemFree;
  af.free.dptr = mem;
  CHECK(cudaGraphNodeSetParams(free_node, &af) == cudaErrorInvalidValue);  // memory nodes do not change
  (void)cudaGetLastError();
  REQUIRE(cudaGraphExecDestroy(exec) == cudaSuccess);
  REQUIRE(cudaGraphInstantiate(&exec, graph, 0) == cudaSuccess);
  REQUIRE(cudaGraphLaunch(exec, nullptr) == cudaSuccess);
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  for (int i = 0; i < kN; ++i) CHECK(result.d[i] == 22u);
  REQUIRE(cudaGraphExecDestroy(exec) == cudaSuccess);
  REQUIRE(cudaGraphDestroy(graph) == cudaSuccess);
}
