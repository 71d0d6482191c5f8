// CUDA graphs on the emulator runtime: nodes, edges, clones, instantiated
// graphs and their execution.
//
// cudaGraph_t, cudaGraphNode_t and cudaGraphExec_t handles point at Graph,
// GraphNode and GraphExec. A graph owns its nodes; a child-graph node owns its
// embedded graph. An instantiated graph (GraphExec) owns a private clone, so
// that later edits of the source graph do not change it (as on a GPU), and
// maps every source node to its copy for the cudaGraphExec*SetParams calls.
//
// Execution is synchronous like every other operation of this runtime: a
// launch runs the nodes one after the other in a topological order (among the
// ready nodes, the one created first), each through the same function the
// corresponding stream call uses (stream_work.h), on the stream the graph was
// launched on, so that a traced session sees a graph's kernels exactly like
// ordinary launches.
#ifndef BARRACUDA_PTX_EMULATOR_RUNTIME_GRAPH_MODEL_H_
#define BARRACUDA_PTX_EMULATOR_RUNTIME_GRAPH_MODEL_H_

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "ptx_emulator/runtime/cuda_api.h"
#include "ptx_emulator/runtime/stream_work.h"
#include "ptx_emulator/runtime/user_objects.h"

namespace barracuda::cudart {

struct Graph;

// The condition of conditional nodes (cudaGraphConditionalHandleCreate): the
// handle the program holds is its address, registered with the emulator
// (exec/graph_conditions.h) so that device code's cudaGraphSetConditional
// reaches it. Shared by the graph it was made for, that graph's clones (so
// executable graphs) and the conditional nodes that test it; unregistered
// when the last of them is gone. One condition per handle, whatever the
// number of executable graphs made from the graph (a GPU keeps one per
// executable graph: programs that launch two of them concurrently and set
// the condition in both would see a difference).
struct GraphCondition {
  GraphCondition(uint32_t default_launch_value, bool assign_default);
  ~GraphCondition();
  GraphCondition(const GraphCondition&) = delete;
  GraphCondition& operator=(const GraphCondition&) = delete;
  uint64_t handle() const { return reinterpret_cast<uint64_t>(this); }

  std::atomic<uint32_t> value;
  const uint32_t default_launch_value;
  const bool assign_default;  // cudaGraphCondAssignDefault: value := default at each launch
};

// The argument values of a kernel node, copied when the node is made (the
// program may reuse its argument variables at once), laid out one after the
// other; pointers() is the void** array a launch takes.
class KernelArgs {
 public:
  KernelArgs() = default;
  KernelArgs(const KernelArgs& other) { *this = other; }
  KernelArgs& operator=(const KernelArgs& other);
  // Appends one argument of `size` bytes.
  void Add(const void* value, uint32_t size);
  void** pointers() { return pointers_.data(); }
  size_t count() const { return offsets_.size(); }

 private:
  void Rebuild();
  std::vector<uint8_t> bytes_;
  std::vector<uint32_t> offsets_;
  std::vector<void*> pointers_;
};

struct KernelNodeParams {
  const void* func = nullptr;  // as the program gave it (host stub or cudaKernel_t)
  KernelLaunch launch;
  KernelArgs args;
};

struct GraphNode {
  Graph* graph = nullptr;
  uint64_t seq = 0;  // creation order within the graph: the tie-break of execution order
  cudaGraphNodeType type = cudaGraphNodeTypeEmpty;
  // Edges in the order they were added (what cudaGraphNodeGetDependencies lists).
  std::vector<GraphNode*> deps;
  std::vector<GraphNode*> dependents;
  // The node this one was cloned from (cudaGraphNodeFindInClone, exec updates);
  // compared, never dereferenced: the original may be gone.
  const GraphNode* cloned_from = nullptr;
  // The program's frames that added the node (HostCallSite: the
  // cudaGraphAdd*Node call, or the call captured into the graph), named in
  // stream-order reports about its work; clones keep the original's.
  std::string created_at;
  // The parameters of `type` (the other members are unused).
  KernelNodeParams kernel;
  cudaMemcpy3DParms copy{};  // 1D copies too, as the real runtime reports them
  cudaMemsetParams set{};
  cudaHostNodeParams host{};
  cudaEvent_t event = nullptr;  // event record / wait
  // Memory alloc node (graph_memory.h): dptr fixed when the node is made;
  // its access descriptors are kept in `access`.
  cudaMemAllocNodeParams alloc{};
  std::vector<cudaMemAccessDesc> access;
  void* free_ptr = nullptr;  // memory free node
  std::unique_ptr<Graph> child;
  // Conditional node: the condition it tests, its kind, and its body graphs
  // (phGraph_out of cudaConditionalNodeParams points at body_handles).
  std::shared_ptr<GraphCondition> condition;
  cudaGraphConditionalNodeType conditional_type = cudaGraphCondTypeIf;
  std::vector<std::unique_ptr<Graph>> bodies;
  std::vector<cudaGraph_t> body_handles;
  // cudaGraphNodeSetEnabled (kernel, memcpy and memset nodes of an
  // executable graph): a disabled node runs as an empty one.
  bool enabled = true;
  // cudaGraphKernelNodeSetAttribute: what was set, by attribute id; the
  // cooperative flag and the cluster dimension also go into kernel.launch
  // (ApplyKernelAttributes), and survive new kernel parameters.
  std::map<int, cudaLaunchAttributeValue> kernel_attrs;
};

// kernel.launch := the cooperative flag and cluster dimension of kernel_attrs, where set.
void ApplyKernelAttributes(GraphNode& node);

struct Graph {
  std::vector<std::unique_ptr<GraphNode>> nodes;  // creation order
  uint64_t next_seq = 0;
  GraphNode* owner = nullptr;  // the child-graph or conditional node embedding it, if any
  // Conditions made for this graph (cudaGraphConditionalHandleCreate);
  // clones share them.
  std::vector<std::shared_ptr<GraphCondition>> conditions;
  // Filled by Instantiate (for the exec's private clone and its children).
  std::vector<GraphNode*> order;
  // References to user objects (cudaGraphRetainUserObject); clones, and so
  // executable graphs, hold their own.
  UserObjectRefs user_objects;

  GraphNode* AddNode(cudaGraphNodeType type);
  // Removes `node` and its edges.
  void RemoveNode(GraphNode* node);
};

struct GraphExec {
  std::unique_ptr<Graph> graph;
  unsigned long long flags = 0;
  // Source-graph node → its copy here (several source nodes after updates).
  absl::flat_hash_map<const GraphNode*, GraphNode*> by_source;
};

// A linear (1D or pitched 2D) copy in the 3D form memcpy nodes hold, as the
// real runtime reports cudaGraphAddMemcpyNode1D's and captured copies' params.
cudaMemcpy3DParms LinearCopyParams(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width,
                                   size_t height, cudaMemcpyKind kind);

// Adds the edge from → to; false when it exists already.
bool AddEdge(GraphNode* from, GraphNode* to);
// Removes the edge; false when there is none.
bool RemoveEdge(GraphNode* from, GraphNode* to);
// A deep copy (child graphs included); every copied node's cloned_from is its original.
std::unique_ptr<Graph> CloneGraph(const Graph& graph);
// Copies the parameters (not the edges) of `from` into `to` (same type).
void CopyNodeParams(const GraphNode& from, GraphNode* to);
// The nodes of `graph` in execution order: Kahn's algorithm, ready nodes taken
// in creation order. False when the graph has a cycle.
bool TopologicalOrder(const Graph& graph, std::vector<GraphNode*>* order);
// Computes Graph::order of `graph` and of every child graph; false on a cycle.
bool PrepareForLaunch(Graph* graph);
// The condition `handle` names if it was made for `graph` or a graph
// embedding it (a conditional node may test its parent's condition), else null.
std::shared_ptr<GraphCondition> FindCondition(const Graph& graph, uint64_t handle);
// cudaGraphAddNode of a conditional node (graph_api.cpp).
cudaError_t AddConditionalNode(cudaGraphNode_t* node, cudaGraph_t graph, const cudaGraphNode_t* deps, size_t num_deps,
                               cudaConditionalNodeParams* params);
// Runs a prepared graph on `stream`; the first failing node's error. Each
// condition made with cudaGraphCondAssignDefault takes its default value
// first. Conditional nodes run their bodies as child graphs: if (body 0 when
// the condition is non-zero, else body 1 if there is one), while (body 0 as
// long as the condition is non-zero, read before each round), switch (body n
// for condition n < size).
cudaError_t RunGraph(const Graph& graph, cudaStream_t stream, bool per_thread);
// True when every node of `graph` and `other` pairs up in creation order with
// the same type and the same edges (what cudaGraphExecUpdate requires);
// otherwise `*bad` is the first node that differs and `*result` why.
bool SameTopology(const Graph& exec_graph, const Graph& graph, cudaGraphExecUpdateResult* result,
                  const GraphNode** bad);

// Live handles, so that a stale or foreign handle is an error rather than a
// crash, and the lock that graph API calls hold while they read or change a
// graph (never while one runs: nodes may call back into the runtime).
class GraphRegistry {
 public:
  static GraphRegistry& Get();
  std::mutex& mu() { return mu_; }
  // All under mu().
  Graph* AddGraph(std::unique_ptr<Graph> graph);  // takes a top-level graph
  void RegisterTree(Graph* graph);                // a graph and its nodes/children become valid handles
  void UnregisterTree(const Graph* graph);
  void RegisterNode(GraphNode* node);  // with its child graph
  void UnregisterNode(const GraphNode* node);
  std::unique_ptr<Graph> TakeGraph(Graph* graph);  // a top-level graph leaves the registry (destroy)
  bool ValidGraph(const void* graph) const { return graphs_.contains(static_cast<const Graph*>(graph)); }
  bool TopLevel(const Graph* graph) const { return owned_.contains(graph); }
  bool ValidNode(const void* node) const { return nodes_.contains(static_cast<const GraphNode*>(node)); }
  GraphExec* AddExec(std::unique_ptr<GraphExec> exec);
  GraphExec* FindExec(const void* exec);
  bool DestroyExec(const void* exec);

 private:
  std::mutex mu_;
  absl::flat_hash_map<const Graph*, std::unique_ptr<Graph>> owned_;  // top-level graphs
  absl::flat_hash_set<const Graph*> graphs_;                          // top-level and child graphs
  absl::flat_hash_set<const GraphNode*> nodes_;
  absl::flat_hash_map<const void*, std::unique_ptr<GraphExec>> execs_;
};

}  // namespace barracuda::cudart

#endif  // BARRACUDA_PTX_EMULATOR_RUNTIME_GRAPH_MODEL_H_
