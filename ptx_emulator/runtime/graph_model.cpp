#include "ptx_emulator/runtime/graph_model.h"

#include <algorithm>
#include <cstring>
#include <functional>
#include <queue>

#include "ptx_emulator/exec/graph_conditions.h"
#include "ptx_emulator/runtime/graph_memory.h"
#include "ptx_emulator/runtime/host_access_watch.h"
#include "ptx_emulator/runtime/runtime_state.h"
#include "ptx_emulator/runtime/stream_order.h"

namespace barracuda::cudart {

// ---------------------------------------------------------------- kernel arguments

KernelArgs& KernelArgs::operator=(const KernelArgs& other) {
  bytes_ = other.bytes_;
  offsets_ = other.offsets_;
  Rebuild();  // the pointers must point into this copy's bytes
  return *this;
}

void KernelArgs::Add(const void* value, uint32_t size) {
  // 16-byte aligned slots: any parameter type may be read in place.
  const size_t at = (bytes_.size() + 15) / 16 * 16;
  bytes_.resize(at + std::max<uint32_t>(size, 1));
  if (size) std::memcpy(bytes_.data() + at, value, size);
  offsets_.push_back(static_cast<uint32_t>(at));
  Rebuild();
}

void KernelArgs::Rebuild() {
  pointers_.clear();
  for (uint32_t offset : offsets_) pointers_.push_back(bytes_.data() + offset);
}

// ---------------------------------------------------------------- structure

cudaMemcpy3DParms LinearCopyParams(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width,
                                   size_t height, cudaMemcpyKind kind) {
  cudaMemcpy3DParms p{};
  p.srcPtr = make_cudaPitchedPtr(const_cast<void*>(src), spitch, width, height);
  p.dstPtr = make_cudaPitchedPtr(dst, dpitch, width, height);
  p.extent = make_cudaExtent(width, height, 1);
  p.kind = kind;
  return p;
}

GraphNode* Graph::AddNode(cudaGraphNodeType type) {
  auto node = std::make_unique<GraphNode>();
  node->graph = this;
  node->seq = next_seq++;
  node->type = type;
  node->created_at = HostCallSite();
  nodes.push_back(std::move(node));
  return nodes.back().get();
}

void Graph::RemoveNode(GraphNode* node) {
  for (GraphNode* d : std::vector<GraphNode*>(node->deps)) RemoveEdge(d, node);
  for (GraphNode* d : std::vector<GraphNode*>(node->dependents)) RemoveEdge(node, d);
  nodes.erase(std::find_if(nodes.begin(), nodes.end(), [&](const auto& n) { return n.get() == node; }));
}

bool AddEdge(GraphNode* from, GraphNode* to) {
  if (std::find(to->deps.begin(), to->deps.end(), from) != to->deps.end()) return false;
  to->deps.push_back(from);
  from->dependents.push_back(to);
  return true;
}

bool RemoveEdge(GraphNode* from, GraphNode* to) {
  auto it = std::find(to->deps.begin(), to->deps.end(), from);
  if (it == to->deps.end()) return false;
  to->deps.erase(it);
  from->dependents.erase(std::find(from->dependents.begin(), from->dependents.end(), to));
  return true;
}

void ApplyKernelAttributes(GraphNode& node) {
  if (auto it = node.kernel_attrs.find(cudaLaunchAttributeCooperative); it != node.kernel_attrs.end())
    node.kernel.launch.cooperative = it->second.cooperative != 0;
  if (auto it = node.kernel_attrs.find(cudaLaunchAttributeClusterDimension); it != node.kernel_attrs.end()) {
    const auto& c = it->second.clusterDim;
    node.kernel.launch.cluster = {c.x, c.y, c.z};
  }
}

void CopyNodeParams(const GraphNode& from, GraphNode* to) {
  to->kernel = from.kernel;
  to->kernel_attrs = from.kernel_attrs;
  to->copy = from.copy;
  to->set = from.set;
  to->host = from.host;
  to->event = from.event;
  to->alloc = from.alloc;
  to->access = from.access;
  to->alloc.accessDescs = to->access.empty() ? nullptr : to->access.data();
  to->free_ptr = from.free_ptr;
  if (from.child) {
    to->child = CloneGraph(*from.child);
    to->child->owner = to;
  } else {
    to->child.reset();
  }
  to->condition = from.condition;
  to->conditional_type = from.conditional_type;
  to->bodies.clear();
  to->body_handles.clear();
  for (const auto& body : from.bodies) {
    to->bodies.push_back(CloneGraph(*body));
    to->bodies.back()->owner = to;
    to->body_handles.push_back(reinterpret_cast<cudaGraph_t>(to->bodies.back().get()));
  }
}

std::unique_ptr<Graph> CloneGraph(const Graph& graph) {
  auto copy = std::make_unique<Graph>();
  copy->next_seq = graph.next_seq;
  copy->user_objects.RetainSame(graph.user_objects);
  copy->conditions = graph.conditions;
  absl::flat_hash_map<const GraphNode*, GraphNode*> map;
  for (const auto& n : graph.nodes) {
    auto c = std::make_unique<GraphNode>();
    c->graph = copy.get();
    c->seq = n->seq;
    c->type = n->type;
    c->cloned_from = n.get();
    c->created_at = n->created_at;
    CopyNodeParams(*n, c.get());
    map[n.get()] = c.get();
    copy->nodes.push_back(std::move(c));
  }
  // Edges in the original's order, so that dependency lists read the same.
  for (const auto& n : graph.nodes) {
    GraphNode* c = map[n.get()];
    for (const GraphNode* d : n->deps) c->deps.push_back(map[d]);
    for (const GraphNode* d : n->dependents) c->dependents.push_back(map[d]);
  }
  return copy;
}

// ---------------------------------------------------------------- execution

bool TopologicalOrder(const Graph& graph, std::vector<GraphNode*>* order) {
  order->clear();
  absl::flat_hash_map<const GraphNode*, size_t> waiting;
  auto later = [](const GraphNode* a, const GraphNode* b) { return a->seq > b->seq; };
  std::priority_queue<GraphNode*, std::vector<GraphNode*>, decltype(later)> ready(later);
  for (const auto& n : graph.nodes) {
    waiting[n.get()] = n->deps.size();
    if (n->deps.empty()) ready.push(n.get());
  }
  while (!ready.empty()) {
    GraphNode* n = ready.top();
    ready.pop();
    order->push_back(n);
    for (GraphNode* d : n->dependents)
      if (--waiting[d] == 0) ready.push(d);
  }
  return order->size() == graph.nodes.size();
}

bool PrepareForLaunch(Graph* graph) {
  if (!TopologicalOrder(*graph, &graph->order)) return false;
  for (GraphNode* n : graph->order) {
    if (n->child && !PrepareForLaunch(n->child.get())) return false;
    for (const auto& body : n->bodies)
      if (!PrepareForLaunch(body.get())) return false;
  }
  return true;
}

std::shared_ptr<GraphCondition> FindCondition(const Graph& graph, uint64_t handle) {
  for (const Graph* g = &graph; g != nullptr; g = g->owner != nullptr ? g->owner->graph : nullptr) {
    for (const auto& c : g->conditions)
      if (c->handle() == handle) return c;
  }
  return nullptr;
}

GraphCondition::GraphCondition(uint32_t default_value, bool assign)
    : value(default_value), default_launch_value(default_value), assign_default(assign) {
  emu::RegisterGraphCondition(handle(), &value);
}

GraphCondition::~GraphCondition() { emu::UnregisterGraphCondition(handle()); }

namespace {
cudaError_t RunNode(GraphNode& n, cudaStream_t stream, bool per_thread) {
  if (!n.enabled) return cudaSuccess;  // still orders its dependents
  switch (n.type) {
    case cudaGraphNodeTypeKernel: return Launch(n.kernel.launch, n.kernel.args.pointers(), stream, per_thread);
    case cudaGraphNodeTypeMemcpy: return Copy3D(&n.copy, stream);
    case cudaGraphNodeTypeMemset:
      return SetElements(n.set.dst, n.set.pitch, n.set.value, n.set.elementSize, n.set.width, n.set.height, stream);
    case cudaGraphNodeTypeHost: return CallHostFunction(stream, per_thread, n.host.fn, n.host.userData);
    case cudaGraphNodeTypeEventRecord: return RecordEvent(n.event, stream, per_thread);
    case cudaGraphNodeTypeWaitEvent: return WaitEvent(stream, n.event, per_thread);
    case cudaGraphNodeTypeMemAlloc: return RunMemAllocNode(n);
    case cudaGraphNodeTypeMemFree: return RunMemFreeNode(n);
    default: return cudaSuccess;  // empty nodes (child graphs: RunNodes) only order others
  }
}

// Runs the nodes in topological order; for stream-order checks each node is
// a timeline of its own ordered after its dependencies and `base` (what the
// launching stream had issued), so nodes without an edge between them are
// unordered as on a GPU. `all` collects every node's clock.
cudaError_t RunNodes(const Graph& graph, cudaStream_t stream, bool per_thread, const StreamOrder::Clock& base,
                     StreamOrder::Clock* all);

// A conditional node: its bodies as child graphs, each round of a while
// ordered after the previous one.
cudaError_t RunConditional(const GraphNode& n, cudaStream_t stream, bool per_thread, const StreamOrder::Clock& before,
                           StreamOrder::Clock* done) {
  *done = before;
  auto value = [&] { return n.condition->value.load(std::memory_order_acquire); };
  const Graph* body = nullptr;
  switch (n.conditional_type) {
    case cudaGraphCondTypeIf:
      body = value() != 0 ? n.bodies[0].get() : n.bodies.size() > 1 ? n.bodies[1].get() : nullptr;
      break;
    case cudaGraphCondTypeSwitch:
      if (const uint32_t v = value(); v < n.bodies.size()) body = n.bodies[v].get();
      break;
    case cudaGraphCondTypeWhile:
      while (value() != 0) {
        const StreamOrder::Clock round = *done;
        if (cudaError_t e = RunNodes(*n.bodies[0], stream, per_thread, round, done)) return e;
      }
      return cudaSuccess;
  }
  return body != nullptr ? RunNodes(*body, stream, per_thread, before, done) : cudaSuccess;
}

cudaError_t RunNodes(const Graph& graph, cudaStream_t stream, bool per_thread, const StreamOrder::Clock& base,
                     StreamOrder::Clock* all) {
  absl::flat_hash_map<const GraphNode*, StreamOrder::Clock> after;
  for (GraphNode* n : graph.order) {
    StreamOrder::Clock before = base;
    for (const GraphNode* d : n->deps) StreamOrder::Join(before, after[d]);
    StreamOrder::Clock done;
    if (n->type == cudaGraphNodeTypeGraph) {
      done = before;
      if (cudaError_t e = RunNodes(*n->child, stream, per_thread, before, &done)) return e;
    } else if (n->type == cudaGraphNodeTypeConditional) {
      if (cudaError_t e = RunConditional(*n, stream, per_thread, before, &done)) return e;
    } else {
      StreamOrder::NodeScope scope(std::move(before), n->created_at);
      if (cudaError_t e = RunNode(*n, stream, per_thread)) return e;
      done = scope.after();
    }
    StreamOrder::Join(*all, done);
    after[n] = std::move(done);
  }
  return cudaSuccess;
}

// Conditions made with cudaGraphCondAssignDefault take their default value
// at each launch (those of child and body graphs too).
void AssignDefaults(const Graph& graph) {
  for (const auto& c : graph.conditions)
    if (c->assign_default) c->value.store(c->default_launch_value, std::memory_order_release);
  for (const auto& n : graph.nodes) {
    if (n->child) AssignDefaults(*n->child);
    for (const auto& body : n->bodies) AssignDefaults(*body);
  }
}

}  // namespace

cudaError_t RunGraph(const Graph& graph, cudaStream_t stream, bool per_thread) {
  AssignDefaults(graph);
  host_access::Pause pause;  // the emulator and the runtime touch watched memory freely
  Runtime& rt = Runtime::Get();
  StreamOrder& order = StreamOrder::Get();
  const uint64_t stream_id = rt.StreamId(stream, per_thread);
  const bool non_blocking = rt.NonBlocking(stream);
  const StreamOrder::Clock base = order.BeginGraph(stream_id, non_blocking);
  StreamOrder::Clock all = base;
  const cudaError_t e = RunNodes(graph, stream, per_thread, base, &all);
  order.EndGraph(stream_id, non_blocking, all);
  return e;
}

bool SameTopology(const Graph& exec_graph, const Graph& graph, cudaGraphExecUpdateResult* result,
                  const GraphNode** bad) {
  *bad = nullptr;
  if (exec_graph.nodes.size() != graph.nodes.size()) {
    *result = cudaGraphExecUpdateErrorTopologyChanged;
    return false;
  }
  // Nodes pair up by position in creation order; edges compare by position.
  absl::flat_hash_map<const GraphNode*, size_t> exec_pos, pos;
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    exec_pos[exec_graph.nodes[i].get()] = i;
    pos[graph.nodes[i].get()] = i;
  }
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    const GraphNode& a = *exec_graph.nodes[i];
    const GraphNode& b = *graph.nodes[i];
    *bad = &b;
    if (a.type != b.type) {
      *result = cudaGraphExecUpdateErrorNodeTypeChanged;
      return false;
    }
    std::vector<size_t> da, db;
    for (const GraphNode* d : a.deps) da.push_back(exec_pos[d]);
    for (const GraphNode* d : b.deps) db.push_back(pos[d]);
    std::sort(da.begin(), da.end());
    std::sort(db.begin(), db.end());
    if (da != db) {
      *result = cudaGraphExecUpdateErrorTopologyChanged;
      return false;
    }
    if (a.type == cudaGraphNodeTypeKernel && a.kernel.launch.kernel != b.kernel.launch.kernel &&
        a.kernel.args.count() != b.kernel.args.count()) {
      *result = cudaGraphExecUpdateErrorUnsupportedFunctionChange;
      return false;
    }
    if (a.type == cudaGraphNodeTypeGraph) {
      cudaGraphExecUpdateResult r;
      const GraphNode* inner = nullptr;
      if (!SameTopology(*a.child, *b.child, &r, &inner)) {
        *result = r;
        return false;
      }
    }
  }
  *bad = nullptr;
  *result = cudaGraphExecUpdateSuccess;
  return true;
}

// ---------------------------------------------------------------- handles

GraphRegistry& GraphRegistry::Get() {
  static GraphRegistry* registry = new GraphRegistry();  // never destroyed: used from exit handlers
  return *registry;
}

Graph* GraphRegistry::AddGraph(std::unique_ptr<Graph> graph) {
  Graph* g = graph.get();
  owned_[g] = std::move(graph);
  RegisterTree(g);
  return g;
}

void GraphRegistry::RegisterTree(Graph* graph) {
  graphs_.insert(graph);
  for (const auto& n : graph->nodes) RegisterNode(n.get());
}

void GraphRegistry::RegisterNode(GraphNode* node) {
  nodes_.insert(node);
  if (node->child) RegisterTree(node->child.get());
  for (const auto& body : node->bodies) RegisterTree(body.get());
}

void GraphRegistry::UnregisterTree(const Graph* graph) {
  graphs_.erase(graph);
  for (const auto& n : graph->nodes) UnregisterNode(n.get());
}

void GraphRegistry::UnregisterNode(const GraphNode* node) {
  nodes_.erase(node);
  if (node->child) UnregisterTree(node->child.get());
  for (const auto& body : node->bodies) UnregisterTree(body.get());
}

std::unique_ptr<Graph> GraphRegistry::TakeGraph(Graph* graph) {
  auto it = owned_.find(graph);
  if (it == owned_.end()) return nullptr;
  std::unique_ptr<Graph> g = std::move(it->second);
  owned_.erase(it);
  UnregisterTree(g.get());
  return g;
}

GraphExec* GraphRegistry::AddExec(std::unique_ptr<GraphExec> exec) {
  GraphExec* e = exec.get();
  execs_[e] = std::move(exec);
  return e;
}

GraphExec* GraphRegistry::FindExec(const void* exec) {
  auto it = execs_.find(exec);
  return it == execs_.end() ? nullptr : it->second.get();
}

bool GraphRegistry::DestroyExec(const void* exec) { return execs_.erase(exec) > 0; }

}  // namespace barracuda::cudart
