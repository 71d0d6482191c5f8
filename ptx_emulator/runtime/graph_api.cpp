// The explicit graph API: graphs and nodes (kernel, memcpy, memset, host,
// child graph, empty, event record / wait), edges, queries, clones,
// instantiation, launch, exec updates and per-exec parameter changes.
//
// Conditional nodes: cudaGraphConditionalHandleCreate and AddConditionalNode
// (the generic cudaGraphAddNode's conditional type, graph_generic_nodes.cpp).
//
// The structure and its execution are graph_model.{h,cpp}; this file checks
// handles and arguments as the CUDA 13 runtime documents them and holds
// GraphRegistry::mu() while it reads or changes a graph, never while a graph
// runs (its nodes call back into the runtime).
#include <cstdio>
#include <string>

#include "absl/functional/function_ref.h"
#include "ptx_emulator/runtime/cuda_api.h"
#include "ptx_emulator/runtime/graph_memory.h"
#include "ptx_emulator/runtime/graph_model.h"
#include "ptx_emulator/runtime/runtime_state.h"
#include "ptx_emulator/runtime/stream_capture.h"
#include "ptx_emulator/runtime/stream_work.h"

namespace barracuda::cudart {
namespace {

using Lock = std::lock_guard<std::mutex>;

GraphRegistry& Registry() { return GraphRegistry::Get(); }

Graph* AsGraph(cudaGraph_t g) { return reinterpret_cast<Graph*>(g); }
GraphNode* AsNode(cudaGraphNode_t n) { return reinterpret_cast<GraphNode*>(n); }
cudaGraph_t Handle(Graph* g) { return reinterpret_cast<cudaGraph_t>(g); }
cudaGraphNode_t Handle(GraphNode* n) { return reinterpret_cast<cudaGraphNode_t>(n); }

// Under the lock: a live node of `type` (any type when `type` is negative).
GraphNode* FindNode(cudaGraphNode_t handle, int type = -1) {
  GraphNode* n = AsNode(handle);
  if (!Registry().ValidNode(n) || (type >= 0 && n->type != type)) return nullptr;
  return n;
}

// Adds a node to `graph` after `deps`; `fill` sets its type and parameters.
// Nothing is added when it fails.
cudaError_t AddNode(cudaGraphNode_t* out, cudaGraph_t graph, const cudaGraphNode_t* deps, size_t num_deps,
                    absl::FunctionRef<cudaError_t(GraphNode&)> fill) {
  Lock lock(Registry().mu());
  Graph* g = AsGraph(graph);
  if (!out || !Registry().ValidGraph(g) || (num_deps && !deps)) return Fail(cudaErrorInvalidValue);
  for (size_t i = 0; i < num_deps; ++i) {
    GraphNode* d = FindNode(deps[i]);
    if (!d || d->graph != g) return Fail(cudaErrorInvalidValue);
    for (size_t j = 0; j < i; ++j)
      if (deps[j] == deps[i]) return Fail(cudaErrorInvalidValue);
  }
  GraphNode* node = g->AddNode(cudaGraphNodeTypeEmpty);
  if (cudaError_t e = fill(*node)) {
    g->RemoveNode(node);
    return Fail(e);
  }
  for (size_t i = 0; i < num_deps; ++i) AddEdge(AsNode(deps[i]), node);
  Registry().RegisterNode(node);
  *out = Handle(node);
  return cudaSuccess;
}

cudaError_t FillKernel(GraphNode& n, const cudaKernelNodeParams* p) {
  if (!p) return cudaErrorInvalidValue;
  const KernelLaunch launch{FindKernel(p->func), p->gridDim, p->blockDim, p->sharedMemBytes};
  KernelNodeParams params;
  if (cudaError_t e = MakeKernelNode(launch, p->func, p->kernelParams, p->extra, &params)) return e;
  n.type = cudaGraphNodeTypeKernel;
  n.kernel = std::move(params);
  ApplyKernelAttributes(n);  // attributes outlive parameters
  return cudaSuccess;
}

cudaError_t FillHost(GraphNode& n, const cudaHostNodeParams* p) {
  if (!p || !p->fn) return cudaErrorInvalidValue;
  n.type = cudaGraphNodeTypeHost;
  n.host = *p;
  return cudaSuccess;
}

cudaError_t FillEvent(GraphNode& n, cudaGraphNodeType type, cudaEvent_t event) {
  if (!Runtime::Get().FindEvent(event)) return cudaErrorInvalidResourceHandle;
  n.type = type;
  n.event = event;
  return cudaSuccess;
}

// Under the lock.
cudaError_t FillChild(GraphNode& n, cudaGraph_t child) {
  const Graph* g = AsGraph(child);
  if (!Registry().ValidGraph(g) || g == n.graph) return cudaErrorInvalidValue;
  n.type = cudaGraphNodeTypeGraph;
  n.child = CloneGraph(*g);  // the node embeds a copy, as the real runtime does
  n.child->owner = &n;
  return cudaSuccess;
}

// Under the lock: changes `n`'s parameters; `fill` works on a scratch node of
// the same graph so that a failure leaves `n` as it was.
cudaError_t ReplaceParams(GraphNode* n, cudaGraphNodeType type, absl::FunctionRef<cudaError_t(GraphNode&)> fill) {
  if (!n) return Fail(cudaErrorInvalidValue);
  GraphNode scratch;
  scratch.graph = n->graph;
  scratch.kernel_attrs = n->kernel_attrs;  // attributes are not parameters: they stay
  if (cudaError_t e = fill(scratch)) return Fail(e);
  if (scratch.type != type) return Fail(cudaErrorInvalidValue);
  CopyNodeParams(scratch, n);
  return cudaSuccess;
}

cudaError_t SetParams(cudaGraphNode_t handle, cudaGraphNodeType type, absl::FunctionRef<cudaError_t(GraphNode&)> fill) {
  Lock lock(Registry().mu());
  return ReplaceParams(FindNode(handle, type), type, fill);
}

// Under the lock: the exec's copy of source node `handle`, of `type`.
GraphNode* ExecNode(cudaGraphExec_t exec, cudaGraphNode_t handle, cudaGraphNodeType type) {
  GraphExec* e = Registry().FindExec(exec);
  if (!e) return nullptr;
  auto it = e->by_source.find(AsNode(handle));
  if (it == e->by_source.end() || it->second->type != type) return nullptr;
  return it->second;
}

// cudaGraphExec*SetParams: as SetParams, on the exec's copy of the node.
cudaError_t SetExecParams(cudaGraphExec_t exec, cudaGraphNode_t handle, cudaGraphNodeType type,
                          absl::FunctionRef<cudaError_t(GraphNode&)> fill) {
  Lock lock(Registry().mu());
  GraphNode* n = ExecNode(exec, handle, type);
  if (cudaError_t e = ReplaceParams(n, type, fill)) return e;
  if (n->child && !PrepareForLaunch(n->child.get())) return Fail(cudaErrorInvalidValue);
  return cudaSuccess;
}

// The node's parameters, read under the lock.
template <typename Read>
cudaError_t GetParams(cudaGraphNode_t handle, int type, bool out_ok, Read read) {
  Lock lock(Registry().mu());
  GraphNode* n = FindNode(handle, type);
  if (!n || !out_ok) return Fail(cudaErrorInvalidValue);
  read(*n);
  return cudaSuccess;
}

// The "count, or fill up to *count and say how many" convention of the
// cudaGraphGet* queries: with `out` NULL only the count is returned; else
// entries past the real count are NULL and *count is the real count if smaller.
template <typename T>
cudaError_t ListOut(const std::vector<T>& items, T* out, size_t* count) {
  if (!count) return Fail(cudaErrorInvalidValue);
  if (out) {
    for (size_t i = 0; i < *count; ++i) out[i] = i < items.size() ? items[i] : T{};
    if (items.size() < *count) *count = items.size();
  } else {
    *count = items.size();
  }
  return cudaSuccess;
}

// Zeroed edge data (every edge is a full-completion edge) for `n` edges.
void ZeroEdgeData(cudaGraphEdgeData* data, size_t n) {
  for (size_t i = 0; data && i < n; ++i) data[i] = cudaGraphEdgeData{};
}

cudaError_t Instantiate(cudaGraphExec_t* out, cudaGraph_t graph, unsigned long long flags,
                        cudaGraphInstantiateResult* result) {
  if (result) *result = cudaGraphInstantiateError;
  constexpr unsigned long long kKnown = cudaGraphInstantiateFlagAutoFreeOnLaunch | cudaGraphInstantiateFlagUpload |
                                        cudaGraphInstantiateFlagDeviceLaunch |
                                        cudaGraphInstantiateFlagUseNodePriority;
  if (!out || (flags & ~kKnown)) return Fail(cudaErrorInvalidValue);
  if (flags & cudaGraphInstantiateFlagDeviceLaunch) {
    PrintDiagnostic("device-launchable graphs are not supported by the emulator backend");
    if (result) *result = cudaGraphInstantiateNodeOperationNotSupported;
    return Fail(cudaErrorNotSupported);
  }
  Lock lock(Registry().mu());
  const Graph* g = AsGraph(graph);
  if (!Registry().ValidGraph(g)) return Fail(cudaErrorInvalidValue);
  auto exec = std::make_unique<GraphExec>();
  exec->graph = CloneGraph(*g);
  exec->flags = flags;
  if (!PrepareForLaunch(exec->graph.get())) {  // a cycle
    if (result) *result = cudaGraphInstantiateInvalidStructure;
    return Fail(cudaErrorInvalidValue);
  }
  for (const auto& n : exec->graph->nodes) exec->by_source[n->cloned_from] = n.get();
  *out = reinterpret_cast<cudaGraphExec_t>(Registry().AddExec(std::move(exec)));
  if (result) *result = cudaGraphInstantiateSuccess;
  return cudaSuccess;
}

cudaError_t LaunchGraph(cudaGraphExec_t exec, cudaStream_t stream, bool per_thread) {
  // On a capturing stream the launch is captured as a child graph node.
  if (auto captured = CaptureWork(stream, per_thread, [&](GraphNode& n) {
        const GraphExec* e = Registry().FindExec(exec);  // CaptureWork holds the lock
        if (!e) return cudaErrorInvalidValue;
        n.type = cudaGraphNodeTypeGraph;
        n.child = CloneGraph(*e->graph);
        n.child->owner = &n;
        return cudaSuccess;
      }))
    return *captured;
  Runtime& rt = Runtime::Get();
  const Graph* graph = nullptr;
  bool auto_free = false;
  {
    Lock lock(Registry().mu());
    const GraphExec* e = Registry().FindExec(exec);
    if (!e) return Fail(cudaErrorInvalidValue);
    graph = e->graph.get();
    auto_free = (e->flags & cudaGraphInstantiateFlagAutoFreeOnLaunch) != 0;
  }
  if (cudaError_t s = rt.sticky()) return Fail(s);
  if (!rt.ValidStream(stream)) return Fail(cudaErrorInvalidResourceHandle);
  if (auto_free) AutoFreeBeforeLaunch(*graph);
  return RunGraph(*graph, stream, per_thread);
}

cudaError_t Upload(cudaGraphExec_t exec, cudaStream_t stream) {
  Runtime& rt = Runtime::Get();
  {
    Lock lock(Registry().mu());
    if (!Registry().FindExec(exec)) return Fail(cudaErrorInvalidValue);
  }
  // Nothing to upload: the emulator runs graphs from host memory.
  return rt.ValidStream(stream) ? cudaSuccess : Fail(cudaErrorInvalidResourceHandle);
}

// Under the lock: a conditional node testing p->handle (made for the node's
// graph or one embedding it) with its empty body graphs, whose handles go to
// p->phGraph_out (owned by the node, as the runtime documents).
cudaError_t FillConditional(GraphNode& n, cudaConditionalNodeParams* p) {
  std::shared_ptr<GraphCondition> c = FindCondition(*n.graph, p->handle);
  if (!c) return cudaErrorInvalidValue;
  const bool size_ok = p->type == cudaGraphCondTypeIf      ? p->size == 1 || p->size == 2
                       : p->type == cudaGraphCondTypeWhile  ? p->size == 1
                       : p->type == cudaGraphCondTypeSwitch ? p->size >= 1
                                                            : false;
  if (!size_ok) return cudaErrorInvalidValue;
  n.type = cudaGraphNodeTypeConditional;
  n.condition = std::move(c);
  n.conditional_type = p->type;
  for (unsigned i = 0; i < p->size; ++i) {
    n.bodies.push_back(std::make_unique<Graph>());
    n.bodies.back()->owner = &n;
    n.body_handles.push_back(Handle(n.bodies.back().get()));
  }
  p->phGraph_out = n.body_handles.data();
  return cudaSuccess;
}

}  // namespace

cudaError_t AddConditionalNode(cudaGraphNode_t* node, cudaGraph_t graph, const cudaGraphNode_t* deps, size_t num_deps,
                               cudaConditionalNodeParams* params) {
  if (!params) return Fail(cudaErrorInvalidValue);
  return AddNode(node, graph, deps, num_deps, [&](GraphNode& n) { return FillConditional(n, params); });
}

}  // namespace barracuda::cudart

namespace rt = barracuda::cudart;

CUDART_EXPORT cudaError_t cudaGraphConditionalHandleCreate(cudaGraphConditionalHandle* handle, cudaGraph_t graph,
                                                           unsigned int default_launch_value, unsigned int flags) {
  rt::Lock lock(rt::Registry().mu());
  rt::Graph* g = rt::AsGraph(graph);
  if (!handle || !rt::Registry().ValidGraph(g) || (flags & ~unsigned{cudaGraphCondAssignDefault}) != 0)
    return rt::Fail(cudaErrorInvalidValue);
  auto c = std::make_shared<rt::GraphCondition>(default_launch_value, (flags & cudaGraphCondAssignDefault) != 0);
  *handle = c->handle();
  g->conditions.push_back(std::move(c));
  return cudaSuccess;
}
using rt::AsGraph;
using rt::AsNode;
using rt::Fail;
using rt::FindNode;
using rt::Graph;
using rt::GraphNode;
using rt::Lock;
using rt::Registry;

// ---------------------------------------------------------------- graphs

CUDART_EXPORT cudaError_t cudaGraphCreate(cudaGraph_t* graph, unsigned int flags) {
  if (!graph || flags != 0) return Fail(cudaErrorInvalidValue);
  Lock lock(Registry().mu());
  *graph = rt::Handle(Registry().AddGraph(std::make_unique<Graph>()));
  return cudaSuccess;
}

CUDART_EXPORT cudaError_t cudaGraphDestroy(cudaGraph_t graph) {
  Lock lock(Registry().mu());
  // A child graph belongs to its node; only top-level graphs are destroyed.
  if (!Registry().TakeGraph(AsGraph(graph))) return Fail(cudaErrorInvalidValue);
  return cudaSuccess;
}

CUDART_EXPORT cudaError_t cudaGraphClone(cudaGraph_t* clone, cudaGraph_t original) {
  Lock lock(Registry().mu());
  if (!clone || !Registry().ValidGraph(AsGraph(original))) return Fail(cudaErrorInvalidValue);
  *clone = rt::Handle(Registry().AddGraph(rt::CloneGraph(*AsGraph(original))));
  return cudaSuccess;
}

CUDART_EXPORT cudaError_t cudaGraphNodeFindInClone(cudaGraphNode_t* node, cudaGraphNode_t original,
                                                   cudaGraph_t clone) {
  Lock lock(Registry().mu());
  const Graph* g = AsGraph(clone);
  if (!node || !FindNode(original) || !Registry().ValidGraph(g)) return Fail(cudaErrorInvalidValue);
  for (const auto& n : g->nodes)
    if (n->cloned_from == AsNode(original)) {
      *node = rt::Handle(n.get());
      return cudaSuccess;
    }
  return Fail(cudaErrorInvalidValue);
}

// ---------------------------------------------------------------- adding nodes

CUDART_EXPORT cudaError_t cudaGraphAddKernelNode(cudaGraphNode_t* node, cudaGraph_t graph, const cudaGraphNode_t* deps,
                                                 size_t num_deps, const cudaKernelNodeParams* params) {
  return rt::AddNode(node, graph, deps, num_deps, [&](GraphNode& n) { return rt::FillKernel(n, params); });
}

CUDART_EXPORT cudaError_t cudaGraphAddMemcpyNode(cudaGraphNode_t* node, cudaGraph_t graph, const cudaGraphNode_t* deps,
                                                 size_t num_deps, const cudaMemcpy3DParms* params) {
  return rt::AddNode(node, graph, deps, num_deps, [&](GraphNode& n) { return rt::MakeCopy3DNode(n, params); });
}

CUDART_EXPORT cudaError_t cudaGraphAddMemcpyNode1D(cudaGraphNode_t* node, cudaGraph_t graph,
                                                   const cudaGraphNode_t* deps, size_t num_deps, void* dst,
                                                   const void* src, size_t count, cudaMemcpyKind kind) {
  return rt::AddNode(node, graph, deps, num_deps,
                     [&](GraphNode& n) { return rt::MakeCopyNode(n, dst, count, src, count, count, 1, kind); });
}

CUDART_EXPORT cudaError_t cudaGraphAddMemsetNode(cudaGraphNode_t* node, cudaGraph_t graph, const cudaGraphNode_t* deps,
                                                 size_t num_deps, const cudaMemsetParams* params) {
  return rt::AddNode(node, graph, deps, num_deps, [&](GraphNode& n) {
    return params ? rt::MakeSetNode(n, *params) : cudaErrorInvalidValue;
  });
}

CUDART_EXPORT cudaError_t cudaGraphAddHostNode(cudaGraphNode_t* node, cudaGraph_t graph, const cudaGraphNode_t* deps,
                                               size_t num_deps, const cudaHostNodeParams* params) {
  return rt::AddNode(node, graph, deps, num_deps, [&](GraphNode& n) { return rt::FillHost(n, params); });
}

CUDART_EXPORT cudaError_t cudaGraphAddChildGraphNode(cudaGraphNode_t* node, cudaGraph_t graph,
                                                     const cudaGraphNode_t* deps, size_t num_deps, cudaGraph_t child) {
  return rt::AddNode(node, graph, deps, num_deps, [&](GraphNode& n) { return rt::FillChild(n, child); });
}

CUDART_EXPORT cudaError_t cudaGraphAddEmptyNode(cudaGraphNode_t* node, cudaGraph_t graph, const cudaGraphNode_t* deps,
                                                size_t num_deps) {
  return rt::AddNode(node, graph, deps, num_deps, [](GraphNode&) { return cudaSuccess; });
}

CUDART_EXPORT cudaError_t cudaGraphAddEventRecordNode(cudaGraphNode_t* node, cudaGraph_t graph,
                                                      const cudaGraphNode_t* deps, size_t num_deps,
                                                      cudaEvent_t event) {
  return rt::AddNode(node, graph, deps, num_deps,
                     [&](GraphNode& n) { return rt::FillEvent(n, cudaGraphNodeTypeEventRecord, event); });
}

CUDART_EXPORT cudaError_t cudaGraphAddEventWaitNode(cudaGraphNode_t* node, cudaGraph_t graph,
                                                    const cudaGraphNode_t* deps, size_t num_deps, cudaEvent_t event) {
  return rt::AddNode(node, graph, deps, num_deps,
                     [&](GraphNode& n) { return rt::FillEvent(n, cudaGraphNodeTypeWaitEvent, event); });
}

// Graph memory nodes (graph_memory.h).
CUDART_EXPORT cudaError_t cudaGraphAddMemAllocNode(cudaGraphNode_t* node, cudaGraph_t graph,
                                                   const cudaGraphNode_t* deps, size_t num_deps,
                                                   cudaMemAllocNodeParams* params) {
  return rt::AddNode(node, graph, deps, num_deps, [&](GraphNode& n) { return rt::MakeMemAllocNode(n, params); });
}

CUDART_EXPORT cudaError_t cudaGraphAddMemFreeNode(cudaGraphNode_t* node, cudaGraph_t graph,
                                                  const cudaGraphNode_t* deps, size_t num_deps, void* dptr) {
  return rt::AddNode(node, graph, deps, num_deps, [&](GraphNode& n) { return rt::MakeMemFreeNode(n, dptr); });
}

CUDART_EXPORT cudaError_t cudaGraphMemAllocNodeGetParams(cudaGraphNode_t node, cudaMemAllocNodeParams* params) {
  return rt::GetParams(node, cudaGraphNodeTypeMemAlloc, params != nullptr, [&](GraphNode& n) { *params = n.alloc; });
}

CUDART_EXPORT cudaError_t cudaGraphMemFreeNodeGetParams(cudaGraphNode_t node, void* dptr_out) {
  return rt::GetParams(node, cudaGraphNodeTypeMemFree, dptr_out != nullptr,
                       [&](GraphNode& n) { *static_cast<void**>(dptr_out) = n.free_ptr; });
}

// ---------------------------------------------------------------- node parameters

CUDART_EXPORT cudaError_t cudaGraphKernelNodeGetParams(cudaGraphNode_t node, cudaKernelNodeParams* params) {
  return rt::GetParams(node, cudaGraphNodeTypeKernel, params != nullptr, [&](GraphNode& n) {
    const rt::KernelLaunch& l = n.kernel.launch;
    // A launch captured from <<<>>> names its kernel by its cudaKernel_t
    // (CUDA 13's __cudaLaunchKernel); programs compare func with the kernel's
    // host function (llama.cpp finds its nodes so): that is what is returned.
    const void* func = n.kernel.func;
    if (rt::RegisteredKernel* k = rt::Runtime::Get().KernelByHandle(func); k != nullptr && k->host_function != nullptr)
      func = k->host_function;
    // kernelParams points at the node's own copies of the values.
    *params = cudaKernelNodeParams{const_cast<void*>(func), l.grid, l.block,
                                   static_cast<unsigned>(l.shared), n.kernel.args.pointers(), nullptr};
  });
}

CUDART_EXPORT cudaError_t cudaGraphKernelNodeSetParams(cudaGraphNode_t node, const cudaKernelNodeParams* params) {
  return rt::SetParams(node, cudaGraphNodeTypeKernel, [&](GraphNode& n) { return rt::FillKernel(n, params); });
}

CUDART_EXPORT cudaError_t cudaGraphMemcpyNodeGetParams(cudaGraphNode_t node, cudaMemcpy3DParms* params) {
  return rt::GetParams(node, cudaGraphNodeTypeMemcpy, params != nullptr, [&](GraphNode& n) { *params = n.copy; });
}

CUDART_EXPORT cudaError_t cudaGraphMemcpyNodeSetParams(cudaGraphNode_t node, const cudaMemcpy3DParms* params) {
  return rt::SetParams(node, cudaGraphNodeTypeMemcpy, [&](GraphNode& n) { return rt::MakeCopy3DNode(n, params); });
}

CUDART_EXPORT cudaError_t cudaGraphMemcpyNodeSetParams1D(cudaGraphNode_t node, void* dst, const void* src,
                                                         size_t count, cudaMemcpyKind kind) {
  return rt::SetParams(node, cudaGraphNodeTypeMemcpy,
                       [&](GraphNode& n) { return rt::MakeCopyNode(n, dst, count, src, count, count, 1, kind); });
}

CUDART_EXPORT cudaError_t cudaGraphMemsetNodeGetParams(cudaGraphNode_t node, cudaMemsetParams* params) {
  return rt::GetParams(node, cudaGraphNodeTypeMemset, params != nullptr, [&](GraphNode& n) { *params = n.set; });
}

CUDART_EXPORT cudaError_t cudaGraphMemsetNodeSetParams(cudaGraphNode_t node, const cudaMemsetParams* params) {
  return rt::SetParams(node, cudaGraphNodeTypeMemset, [&](GraphNode& n) {
    return params ? rt::MakeSetNode(n, *params) : cudaErrorInvalidValue;
  });
}

CUDART_EXPORT cudaError_t cudaGraphHostNodeGetParams(cudaGraphNode_t node, cudaHostNodeParams* params) {
  return rt::GetParams(node, cudaGraphNodeTypeHost, params != nullptr, [&](GraphNode& n) { *params = n.host; });
}

CUDART_EXPORT cudaError_t cudaGraphHostNodeSetParams(cudaGraphNode_t node, const cudaHostNodeParams* params) {
  return rt::SetParams(node, cudaGraphNodeTypeHost, [&](GraphNode& n) { return rt::FillHost(n, params); });
}

CUDART_EXPORT cudaError_t cudaGraphChildGraphNodeGetGraph(cudaGraphNode_t node, cudaGraph_t* graph) {
  // The embedded graph itself, not a copy: changes to it change the node.
  return rt::GetParams(node, cudaGraphNodeTypeGraph, graph != nullptr,
                       [&](GraphNode& n) { *graph = rt::Handle(n.child.get()); });
}

CUDART_EXPORT cudaError_t cudaGraphEventRecordNodeGetEvent(cudaGraphNode_t node, cudaEvent_t* event) {
  return rt::GetParams(node, cudaGraphNodeTypeEventRecord, event != nullptr, [&](GraphNode& n) { *event = n.event; });
}

CUDART_EXPORT cudaError_t cudaGraphEventRecordNodeSetEvent(cudaGraphNode_t node, cudaEvent_t event) {
  return rt::SetParams(node, cudaGraphNodeTypeEventRecord,
                       [&](GraphNode& n) { return rt::FillEvent(n, cudaGraphNodeTypeEventRecord, event); });
}

CUDART_EXPORT cudaError_t cudaGraphEventWaitNodeGetEvent(cudaGraphNode_t node, cudaEvent_t* event) {
  return rt::GetParams(node, cudaGraphNodeTypeWaitEvent, event != nullptr, [&](GraphNode& n) { *event = n.event; });
}

CUDART_EXPORT cudaError_t cudaGraphEventWaitNodeSetEvent(cudaGraphNode_t node, cudaEvent_t event) {
  return rt::SetParams(node, cudaGraphNodeTypeWaitEvent,
                       [&](GraphNode& n) { return rt::FillEvent(n, cudaGraphNodeTypeWaitEvent, event); });
}

CUDART_EXPORT cudaError_t cudaGraphNodeGetType(cudaGraphNode_t node, cudaGraphNodeType* type) {
  return rt::GetParams(node, -1, type != nullptr, [&](GraphNode& n) { *type = n.type; });
}

// ---------------------------------------------------------------- structure

namespace {
// Under the lock: every edge (from, to) of `graph` in node creation order.
cudaError_t CheckEdges(const Graph* g, const cudaGraphNode_t* from, const cudaGraphNode_t* to,
                       const cudaGraphEdgeData* edge_data, size_t n) {
  if (!Registry().ValidGraph(g) || (n && (!from || !to))) return cudaErrorInvalidValue;
  for (size_t i = 0; i < n; ++i) {
    const GraphNode* a = FindNode(from[i]);
    const GraphNode* b = FindNode(to[i]);
    if (!a || !b || a == b || a->graph != g || b->graph != g) return cudaErrorInvalidValue;
    // Only full-completion edges (ports belong to programmatic launches).
    if (edge_data && (edge_data[i].from_port || edge_data[i].to_port || edge_data[i].type))
      return cudaErrorNotSupported;
  }
  return cudaSuccess;
}

cudaError_t ListNodes(cudaGraphNode_t node, bool dependents, cudaGraphNode_t* out, cudaGraphEdgeData* edge_data,
                      size_t* count) {
  Lock lock(Registry().mu());
  const GraphNode* n = FindNode(node);
  if (!n || (edge_data && !out)) return Fail(cudaErrorInvalidValue);
  std::vector<cudaGraphNode_t> list;
  for (GraphNode* d : dependents ? n->dependents : n->deps) list.push_back(rt::Handle(d));
  if (cudaError_t e = rt::ListOut(list, out, count)) return e;
  if (out) rt::ZeroEdgeData(edge_data, *count);
  return cudaSuccess;
}
}  // namespace

CUDART_EXPORT cudaError_t cudaGraphAddDependencies(cudaGraph_t graph, const cudaGraphNode_t* from,
                                                   const cudaGraphNode_t* to, const cudaGraphEdgeData* edge_data,
                                                   size_t n) {
  Lock lock(Registry().mu());
  if (cudaError_t e = CheckEdges(AsGraph(graph), from, to, edge_data, n)) return Fail(e);
  for (size_t i = 0; i < n; ++i)
    for (size_t j = 0; j < i; ++j)
      if (from[i] == from[j] && to[i] == to[j]) return Fail(cudaErrorInvalidValue);
  for (size_t i = 0; i < n; ++i)  // an existing edge is an error, and nothing is added
    if (std::find(AsNode(to[i])->deps.begin(), AsNode(to[i])->deps.end(), AsNode(from[i])) !=
        AsNode(to[i])->deps.end())
      return Fail(cudaErrorInvalidValue);
  for (size_t i = 0; i < n; ++i) rt::AddEdge(AsNode(from[i]), AsNode(to[i]));
  return cudaSuccess;
}

CUDART_EXPORT cudaError_t cudaGraphRemoveDependencies(cudaGraph_t graph, const cudaGraphNode_t* from,
                                                      const cudaGraphNode_t* to, const cudaGraphEdgeData* edge_data,
                                                      size_t n) {
  Lock lock(Registry().mu());
  if (cudaError_t e = CheckEdges(AsGraph(graph), from, to, edge_data, n)) return Fail(e);
  for (size_t i = 0; i < n; ++i)  // a missing edge is an error, and nothing is removed
    if (std::find(AsNode(to[i])->deps.begin(), AsNode(to[i])->deps.end(), AsNode(from[i])) ==
        AsNode(to[i])->deps.end())
      return Fail(cudaErrorInvalidValue);
  for (size_t i = 0; i < n; ++i) rt::RemoveEdge(AsNode(from[i]), AsNode(to[i]));
  return cudaSuccess;
}

CUDART_EXPORT cudaError_t cudaGraphGetNodes(cudaGraph_t graph, cudaGraphNode_t* nodes, size_t* count) {
  Lock lock(Registry().mu());
  const Graph* g = AsGraph(graph);
  if (!Registry().ValidGraph(g)) return Fail(cudaErrorInvalidValue);
  std::vector<cudaGraphNode_t> list;
  for (const auto& n : g->nodes) list.push_back(rt::Handle(n.get()));
  return rt::ListOut(list, nodes, count);
}

CUDART_EXPORT cudaError_t cudaGraphGetRootNodes(cudaGraph_t graph, cudaGraphNode_t* nodes, size_t* count) {
  Lock lock(Registry().mu());
  const Graph* g = AsGraph(graph);
  if (!Registry().ValidGraph(g)) return Fail(cudaErrorInvalidValue);
  std::vector<cudaGraphNode_t> list;
  for (const auto& n : g->nodes)
    if (n->deps.empty()) list.push_back(rt::Handle(n.get()));
  return rt::ListOut(list, nodes, count);
}

CUDART_EXPORT cudaError_t cudaGraphGetEdges(cudaGraph_t graph, cudaGraphNode_t* from, cudaGraphNode_t* to,
                                            cudaGraphEdgeData* edge_data, size_t* count) {
  Lock lock(Registry().mu());
  const Graph* g = AsGraph(graph);
  if (!Registry().ValidGraph(g) || !count || (!from != !to) || (edge_data && !from)) return Fail(cudaErrorInvalidValue);
  std::vector<cudaGraphNode_t> sources, targets;
  for (const auto& n : g->nodes)
    for (GraphNode* d : n->dependents) {
      sources.push_back(rt::Handle(n.get()));
      targets.push_back(rt::Handle(d));
    }
  size_t wanted = *count;
  if (cudaError_t e = rt::ListOut(sources, from, count)) return e;
  if (to) rt::ListOut(targets, to, &wanted);
  if (from) rt::ZeroEdgeData(edge_data, *count);
  return cudaSuccess;
}

CUDART_EXPORT cudaError_t cudaGraphNodeGetDependencies(cudaGraphNode_t node, cudaGraphNode_t* deps,
                                                       cudaGraphEdgeData* edge_data, size_t* count) {
  return ListNodes(node, false, deps, edge_data, count);
}

CUDART_EXPORT cudaError_t cudaGraphNodeGetDependentNodes(cudaGraphNode_t node, cudaGraphNode_t* dependents,
                                                         cudaGraphEdgeData* edge_data, size_t* count) {
  return ListNodes(node, true, dependents, edge_data, count);
}

CUDART_EXPORT cudaError_t cudaGraphDestroyNode(cudaGraphNode_t node) {
  Lock lock(Registry().mu());
  GraphNode* n = FindNode(node);
  if (!n) return Fail(cudaErrorInvalidValue);
  Registry().UnregisterNode(n);
  n->graph->RemoveNode(n);
  return cudaSuccess;
}

// Graphviz text of the graph (one line per node and per edge), for debugging.
CUDART_EXPORT cudaError_t cudaGraphDebugDotPrint(cudaGraph_t graph, const char* path, unsigned int /*flags*/) {
  Lock lock(Registry().mu());
  const Graph* g = AsGraph(graph);
  if (!path || !Registry().ValidGraph(g)) return Fail(cudaErrorInvalidValue);
  std::FILE* f = std::fopen(path, "w");
  if (!f) return Fail(cudaErrorOperatingSystem);
  static const char* const kTypeNames[] = {"kernel", "memcpy", "memset", "host", "graph", "empty", "wait_event",
                                           "event_record"};
  std::fprintf(f, "digraph cuda_graph {\n");
  for (const auto& n : g->nodes) {
    const char* type = n->type < 8 ? kTypeNames[n->type] : "other";
    std::fprintf(f, "  n%llu [label=\"%llu %s\"];\n", static_cast<unsigned long long>(n->seq),
                 static_cast<unsigned long long>(n->seq), type);
    for (const GraphNode* d : n->dependents)
      std::fprintf(f, "  n%llu -> n%llu;\n", static_cast<unsigned long long>(n->seq),
                   static_cast<unsigned long long>(d->seq));
  }
  std::fprintf(f, "}\n");
  std::fclose(f);
  return cudaSuccess;
}

// ---------------------------------------------------------------- executable graphs

CUDART_EXPORT cudaError_t cudaGraphInstantiate(cudaGraphExec_t* exec, cudaGraph_t graph, unsigned long long flags) {
  return rt::Instantiate(exec, graph, flags, nullptr);
}

CUDART_EXPORT cudaError_t cudaGraphInstantiateWithFlags(cudaGraphExec_t* exec, cudaGraph_t graph,
                                                        unsigned long long flags) {
  return rt::Instantiate(exec, graph, flags, nullptr);
}

namespace {
cudaError_t InstantiateWithParams(cudaGraphExec_t* exec, cudaGraph_t graph, cudaGraphInstantiateParams* params) {
  if (!params) return Fail(cudaErrorInvalidValue);
  params->errNode_out = nullptr;
  if (cudaError_t e = rt::Instantiate(exec, graph, params->flags, &params->result_out)) return e;
  if (params->flags & cudaGraphInstantiateFlagUpload) return rt::Upload(*exec, params->uploadStream);
  return cudaSuccess;
}
}  // namespace

CUDART_EXPORT cudaError_t cudaGraphInstantiateWithParams(cudaGraphExec_t* exec, cudaGraph_t graph,
                                                         cudaGraphInstantiateParams* params) {
  return InstantiateWithParams(exec, graph, params);
}
CUDART_EXPORT cudaError_t cudaGraphInstantiateWithParams_ptsz(cudaGraphExec_t* exec, cudaGraph_t graph,
                                                              cudaGraphInstantiateParams* params) {
  return InstantiateWithParams(exec, graph, params);
}

CUDART_EXPORT cudaError_t cudaGraphExecGetFlags(cudaGraphExec_t exec, unsigned long long* flags) {
  Lock lock(Registry().mu());
  const rt::GraphExec* e = Registry().FindExec(exec);
  if (!e || !flags) return Fail(cudaErrorInvalidValue);
  *flags = e->flags;
  return cudaSuccess;
}

CUDART_EXPORT cudaError_t cudaGraphLaunch(cudaGraphExec_t exec, cudaStream_t stream) {
  return rt::LaunchGraph(exec, stream, false);
}
CUDART_EXPORT cudaError_t cudaGraphLaunch_ptsz(cudaGraphExec_t exec, cudaStream_t stream) {
  return rt::LaunchGraph(exec, stream, true);
}

CUDART_EXPORT cudaError_t cudaGraphUpload(cudaGraphExec_t exec, cudaStream_t stream) { return rt::Upload(exec, stream); }
CUDART_EXPORT cudaError_t cudaGraphUpload_ptsz(cudaGraphExec_t exec, cudaStream_t stream) {
  return rt::Upload(exec, stream);
}

CUDART_EXPORT cudaError_t cudaGraphExecDestroy(cudaGraphExec_t exec) {
  Lock lock(Registry().mu());
  return Registry().DestroyExec(exec) ? cudaSuccess : Fail(cudaErrorInvalidValue);
}

CUDART_EXPORT cudaError_t cudaGraphExecUpdate(cudaGraphExec_t exec, cudaGraph_t graph,
                                              cudaGraphExecUpdateResultInfo* info) {
  Lock lock(Registry().mu());
  rt::GraphExec* e = Registry().FindExec(exec);
  const Graph* g = AsGraph(graph);
  if (info) *info = cudaGraphExecUpdateResultInfo{cudaGraphExecUpdateError, nullptr, nullptr};
  if (!e || !Registry().ValidGraph(g)) return Fail(cudaErrorInvalidValue);
  cudaGraphExecUpdateResult result = cudaGraphExecUpdateSuccess;
  const GraphNode* bad = nullptr;
  if (!rt::SameTopology(*e->graph, *g, &result, &bad)) {
    if (info) *info = cudaGraphExecUpdateResultInfo{result, rt::Handle(const_cast<GraphNode*>(bad)), nullptr};
    return Fail(cudaErrorGraphExecUpdateFailure);
  }
  // Nodes pair up in creation order (SameTopology); later exec setters may
  // name either graph's node.
  for (size_t i = 0; i < g->nodes.size(); ++i) {
    GraphNode* target = e->graph->nodes[i].get();
    rt::CopyNodeParams(*g->nodes[i], target);
    e->by_source[g->nodes[i].get()] = target;
  }
  rt::PrepareForLaunch(e->graph.get());  // child graphs were replaced
  if (info) info->result = cudaGraphExecUpdateSuccess;
  return cudaSuccess;
}

CUDART_EXPORT cudaError_t cudaGraphExecKernelNodeSetParams(cudaGraphExec_t exec, cudaGraphNode_t node,
                                                           const cudaKernelNodeParams* params) {
  return rt::SetExecParams(exec, node, cudaGraphNodeTypeKernel,
                           [&](GraphNode& n) { return rt::FillKernel(n, params); });
}

CUDART_EXPORT cudaError_t cudaGraphExecMemcpyNodeSetParams(cudaGraphExec_t exec, cudaGraphNode_t node,
                                                           const cudaMemcpy3DParms* params) {
  return rt::SetExecParams(exec, node, cudaGraphNodeTypeMemcpy,
                           [&](GraphNode& n) { return rt::MakeCopy3DNode(n, params); });
}

CUDART_EXPORT cudaError_t cudaGraphExecMemcpyNodeSetParams1D(cudaGraphExec_t exec, cudaGraphNode_t node, void* dst,
                                                             const void* src, size_t count, cudaMemcpyKind kind) {
  return rt::SetExecParams(exec, node, cudaGraphNodeTypeMemcpy,
                           [&](GraphNode& n) { return rt::MakeCopyNode(n, dst, count, src, count, count, 1, kind); });
}

CUDART_EXPORT cudaError_t cudaGraphExecMemsetNodeSetParams(cudaGraphExec_t exec, cudaGraphNode_t node,
                                                           const cudaMemsetParams* params) {
  return rt::SetExecParams(exec, node, cudaGraphNodeTypeMemset, [&](GraphNode& n) {
    return params ? rt::MakeSetNode(n, *params) : cudaErrorInvalidValue;
  });
}

CUDART_EXPORT cudaError_t cudaGraphExecHostNodeSetParams(cudaGraphExec_t exec, cudaGraphNode_t node,
                                                         const cudaHostNodeParams* params) {
  return rt::SetExecParams(exec, node, cudaGraphNodeTypeHost, [&](GraphNode& n) { return rt::FillHost(n, params); });
}

CUDART_EXPORT cudaError_t cudaGraphExecChildGraphNodeSetParams(cudaGraphExec_t exec, cudaGraphNode_t node,
                                                               cudaGraph_t child) {
  Lock lock(Registry().mu());
  GraphNode* target = rt::ExecNode(exec, node, cudaGraphNodeTypeGraph);
  const Graph* g = AsGraph(child);
  if (!target || !Registry().ValidGraph(g)) return Fail(cudaErrorInvalidValue);
  // Only parameters may change in an executable graph, not the child's topology.
  cudaGraphExecUpdateResult result;
  const GraphNode* bad = nullptr;
  if (!rt::SameTopology(*target->child, *g, &result, &bad)) return Fail(cudaErrorInvalidValue);
  target->child = rt::CloneGraph(*g);
  target->child->owner = target;
  rt::PrepareForLaunch(target->child.get());
  return cudaSuccess;
}

CUDART_EXPORT cudaError_t cudaGraphExecEventRecordNodeSetEvent(cudaGraphExec_t exec, cudaGraphNode_t node,
                                                               cudaEvent_t event) {
  return rt::SetExecParams(exec, node, cudaGraphNodeTypeEventRecord,
                           [&](GraphNode& n) { return rt::FillEvent(n, cudaGraphNodeTypeEventRecord, event); });
}

CUDART_EXPORT cudaError_t cudaGraphExecEventWaitNodeSetEvent(cudaGraphExec_t exec, cudaGraphNode_t node,
                                                             cudaEvent_t event) {
  return rt::SetExecParams(exec, node, cudaGraphNodeTypeWaitEvent,
                           [&](GraphNode& n) { return rt::FillEvent(n, cudaGraphNodeTypeWaitEvent, event); });
}

// Kernel, memcpy and memset nodes of an executable graph can be disabled: a
// disabled node runs as an empty one, still ordering its dependents; its
// parameters stay settable, and cudaGraphExecUpdate keeps the state.
namespace {
GraphNode* EnableableNode(cudaGraphExec_t exec, cudaGraphNode_t node) {
  rt::GraphExec* e = Registry().FindExec(exec);
  if (!e) return nullptr;
  auto it = e->by_source.find(AsNode(node));
  if (it == e->by_source.end()) return nullptr;
  const cudaGraphNodeType t = it->second->type;
  const bool enableable = t == cudaGraphNodeTypeKernel || t == cudaGraphNodeTypeMemcpy || t == cudaGraphNodeTypeMemset;
  return enableable ? it->second : nullptr;
}
}  // namespace

CUDART_EXPORT cudaError_t cudaGraphNodeSetEnabled(cudaGraphExec_t exec, cudaGraphNode_t node, unsigned int enabled) {
  Lock lock(Registry().mu());
  GraphNode* n = EnableableNode(exec, node);
  if (!n) return Fail(cudaErrorInvalidValue);
  n->enabled = enabled != 0;
  return cudaSuccess;
}

CUDART_EXPORT cudaError_t cudaGraphNodeGetEnabled(cudaGraphExec_t exec, cudaGraphNode_t node, unsigned int* enabled) {
  Lock lock(Registry().mu());
  GraphNode* n = EnableableNode(exec, node);
  if (!n || !enabled) return Fail(cudaErrorInvalidValue);
  *enabled = n->enabled ? 1 : 0;
  return cudaSuccess;
}

// Kernel node attributes: the launch attributes a kernel node carries. The
// cooperative flag and the cluster dimension change how the node launches;
// the others (access-policy window, priority, scheduling and memory-sync
// hints) are checked, kept and reported, as for streams.
namespace {
bool KernelNodeAttribute(cudaLaunchAttributeID id) {
  switch (id) {
    case cudaLaunchAttributeAccessPolicyWindow:
    case cudaLaunchAttributeCooperative:
    case cudaLaunchAttributePriority:
    case cudaLaunchAttributeClusterDimension:
    case cudaLaunchAttributeClusterSchedulingPolicyPreference:
    case cudaLaunchAttributeMemSyncDomainMap:
    case cudaLaunchAttributeMemSyncDomain:
    case cudaLaunchAttributePreferredSharedMemoryCarveout:
      return true;
    default:
      return false;
  }
}
}  // namespace

CUDART_EXPORT cudaError_t cudaGraphKernelNodeGetAttribute(cudaGraphNode_t node, cudaLaunchAttributeID id,
                                                          cudaLaunchAttributeValue* value) {
  if (!KernelNodeAttribute(id)) return Fail(cudaErrorInvalidValue);
  return rt::GetParams(node, cudaGraphNodeTypeKernel, value != nullptr, [&](GraphNode& n) {
    *value = cudaLaunchAttributeValue{};
    if (auto it = n.kernel_attrs.find(id); it != n.kernel_attrs.end()) {
      *value = it->second;
    } else if (id == cudaLaunchAttributeCooperative) {
      value->cooperative = n.kernel.launch.cooperative ? 1 : 0;  // as launched or captured
    } else if (id == cudaLaunchAttributeClusterDimension) {
      const auto& c = n.kernel.launch.cluster;
      value->clusterDim.x = c.x;
      value->clusterDim.y = c.y;
      value->clusterDim.z = c.z;
    } else if (id == cudaLaunchAttributeMemSyncDomainMap) {
      value->memSyncDomainMap.remote = 1;
    }
  });
}

CUDART_EXPORT cudaError_t cudaGraphKernelNodeSetAttribute(cudaGraphNode_t node, cudaLaunchAttributeID id,
                                                          const cudaLaunchAttributeValue* value) {
  if (!KernelNodeAttribute(id) || !value) return Fail(cudaErrorInvalidValue);
  if (id == cudaLaunchAttributeClusterDimension &&
      (value->clusterDim.x == 0 || value->clusterDim.y == 0 || value->clusterDim.z == 0))
    return Fail(cudaErrorInvalidValue);
  if (id == cudaLaunchAttributeAccessPolicyWindow &&
      !(value->accessPolicyWindow.hitRatio >= 0.0f && value->accessPolicyWindow.hitRatio <= 1.0f))
    return Fail(cudaErrorInvalidValue);
  Lock lock(Registry().mu());
  GraphNode* n = FindNode(node, cudaGraphNodeTypeKernel);
  if (!n) return Fail(cudaErrorInvalidValue);
  n->kernel_attrs[id] = *value;
  rt::ApplyKernelAttributes(*n);
  return cudaSuccess;
}

CUDART_EXPORT cudaError_t cudaGraphKernelNodeCopyAttributes(cudaGraphNode_t dst, cudaGraphNode_t src) {
  Lock lock(Registry().mu());
  GraphNode* d = FindNode(dst, cudaGraphNodeTypeKernel);
  const GraphNode* s = FindNode(src, cudaGraphNodeTypeKernel);
  if (!d || !s) return Fail(cudaErrorInvalidValue);
  d->kernel_attrs = s->kernel_attrs;
  d->kernel.launch.cooperative = s->kernel.launch.cooperative;
  d->kernel.launch.cluster = s->kernel.launch.cluster;
  return cudaSuccess;
}

// Memcpy nodes to and from a __device__ variable: the variable's address is
// resolved when the node is made (nodes hold addresses, and
// cudaGraphMemcpyNodeGetParams reports them, as on the real runtime).
namespace {
struct SymbolCopy {
  cudaError_t error = cudaSuccess;
  char* device = nullptr;  // the variable's bytes at the offset
};
SymbolCopy ResolveSymbolCopy(const void* symbol, size_t count, size_t offset, cudaMemcpyKind kind, bool to_symbol) {
  void* base = nullptr;
  size_t size = 0;
  if (cudaGetSymbolAddress(&base, symbol) != cudaSuccess || cudaGetSymbolSize(&size, symbol) != cudaSuccess) {
    cudaGetLastError();  // the node call's own error is what the program sees
    return {cudaErrorInvalidSymbol};
  }
  const bool kind_ok = kind == cudaMemcpyDefault || kind == cudaMemcpyDeviceToDevice ||
                       kind == (to_symbol ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost);
  if (!kind_ok) return {cudaErrorInvalidMemcpyDirection};
  if (offset > size || count > size - offset) return {cudaErrorInvalidValue};
  return {cudaSuccess, static_cast<char*>(base) + offset};
}
// The fill of a memcpy node for a resolved symbol copy.
auto SymbolCopyFill(const SymbolCopy& c, void* host_side, const void* from_side, size_t count, cudaMemcpyKind kind,
                    bool to_symbol) {
  return [=](GraphNode& n) {
    return to_symbol ? rt::MakeCopyNode(n, c.device, count, from_side, count, count, 1, kind)
                     : rt::MakeCopyNode(n, host_side, count, c.device, count, count, 1, kind);
  };
}
}  // namespace

CUDART_EXPORT cudaError_t cudaGraphAddMemcpyNodeToSymbol(cudaGraphNode_t* node, cudaGraph_t graph,
                                                         const cudaGraphNode_t* deps, size_t num_deps,
                                                         const void* symbol, const void* src, size_t count,
                                                         size_t offset, cudaMemcpyKind kind) {
  const SymbolCopy c = ResolveSymbolCopy(symbol, count, offset, kind, true);
  if (c.error != cudaSuccess) return Fail(c.error);
  return rt::AddNode(node, graph, deps, num_deps, SymbolCopyFill(c, nullptr, src, count, kind, true));
}

CUDART_EXPORT cudaError_t cudaGraphAddMemcpyNodeFromSymbol(cudaGraphNode_t* node, cudaGraph_t graph,
                                                           const cudaGraphNode_t* deps, size_t num_deps, void* dst,
                                                           const void* symbol, size_t count, size_t offset,
                                                           cudaMemcpyKind kind) {
  const SymbolCopy c = ResolveSymbolCopy(symbol, count, offset, kind, false);
  if (c.error != cudaSuccess) return Fail(c.error);
  return rt::AddNode(node, graph, deps, num_deps, SymbolCopyFill(c, dst, nullptr, count, kind, false));
}

CUDART_EXPORT cudaError_t cudaGraphMemcpyNodeSetParamsToSymbol(cudaGraphNode_t node, const void* symbol,
                                                               const void* src, size_t count, size_t offset,
                                                               cudaMemcpyKind kind) {
  const SymbolCopy c = ResolveSymbolCopy(symbol, count, offset, kind, true);
  if (c.error != cudaSuccess) return Fail(c.error);
  return rt::SetParams(node, cudaGraphNodeTypeMemcpy, SymbolCopyFill(c, nullptr, src, count, kind, true));
}

CUDART_EXPORT cudaError_t cudaGraphMemcpyNodeSetParamsFromSymbol(cudaGraphNode_t node, void* dst, const void* symbol,
                                                                 size_t count, size_t offset, cudaMemcpyKind kind) {
  const SymbolCopy c = ResolveSymbolCopy(symbol, count, offset, kind, false);
  if (c.error != cudaSuccess) return Fail(c.error);
  return rt::SetParams(node, cudaGraphNodeTypeMemcpy, SymbolCopyFill(c, dst, nullptr, count, kind, false));
}

CUDART_EXPORT cudaError_t cudaGraphExecMemcpyNodeSetParamsToSymbol(cudaGraphExec_t exec, cudaGraphNode_t node,
                                                                   const void* symbol, const void* src, size_t count,
                                                                   size_t offset, cudaMemcpyKind kind) {
  const SymbolCopy c = ResolveSymbolCopy(symbol, count, offset, kind, true);
  if (c.error != cudaSuccess) return Fail(c.error);
  return rt::SetExecParams(exec, node, cudaGraphNodeTypeMemcpy, SymbolCopyFill(c, nullptr, src, count, kind, true));
}

CUDART_EXPORT cudaError_t cudaGraphExecMemcpyNodeSetParamsFromSymbol(cudaGraphExec_t exec, cudaGraphNode_t node,
                                                                     void* dst, const void* symbol, size_t count,
                                                                     size_t offset, cudaMemcpyKind kind) {
  const SymbolCopy c = ResolveSymbolCopy(symbol, count, offset, kind, false);
  if (c.error != cudaSuccess) return Fail(c.error);
  return rt::SetExecParams(exec, node, cudaGraphNodeTypeMemcpy, SymbolCopyFill(c, dst, nullptr, count, kind, false));
}
