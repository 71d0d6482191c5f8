// Stream capture (see stream_capture.h): the capture sequences in progress,
// the streams taking part in each (the origin and those that joined by
// waiting on an event recorded in the capture), every stream's dependency set
// (the nodes its next captured work will follow), and the events recorded
// inside a capture (what a fork or join waits for). All of it lives under
// GraphRegistry::mu(), since captured work adds nodes to a graph.
//
// The cudaStreamBeginCapture / EndCapture / IsCapturing / GetCaptureInfo /
// UpdateCaptureDependencies / cudaThreadExchangeStreamCaptureMode entry points
// are here too.
#include "ptx_emulator/runtime/stream_capture.h"

#include <algorithm>
#include <atomic>
#include <memory>
#include <thread>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "ptx_emulator/runtime/graph_model.h"
#include "ptx_emulator/runtime/runtime_state.h"

namespace barracuda::cudart {
namespace {

struct Capture {
  uint64_t id = 0;
  cudaStreamCaptureMode mode = cudaStreamCaptureModeGlobal;
  std::thread::id thread;
  Graph* graph = nullptr;
  bool into_existing_graph = false;  // cudaStreamBeginCaptureToGraph: never destroyed here
  bool invalidated = false;
  uint64_t origin = 0;  // stream id of the stream that began it
};

struct CapturingStream {
  Capture* capture = nullptr;
  bool blocking = true;  // synchronises with the legacy stream
  std::vector<GraphNode*> deps;
  std::vector<cudaGraphEdgeData> edge_data;  // zeroes parallel to deps, for cudaStreamGetCaptureInfo
};

struct CapturedEvent {
  uint64_t capture = 0;
  std::vector<GraphNode*> deps;
};

struct CaptureState {
  absl::flat_hash_map<uint64_t, std::unique_ptr<Capture>> captures;  // by id
  absl::flat_hash_map<uint64_t, CapturingStream> streams;            // by stream id
  absl::flat_hash_map<const void*, CapturedEvent> events;
  uint64_t next_id = 1;
};

CaptureState& State() {
  static CaptureState* state = new CaptureState();  // never destroyed: exit handlers may call the runtime
  return *state;
}

// Streams in capture: zero on the fast path of every check.
std::atomic<size_t> capturing_streams{0};
void CountStreams() { capturing_streams.store(State().streams.size(), std::memory_order_release); }
bool AnyCapture() { return capturing_streams.load(std::memory_order_acquire) != 0; }

thread_local cudaStreamCaptureMode thread_mode = cudaStreamCaptureModeGlobal;

bool IsLegacy(cudaStream_t stream, bool per_thread) {
  return stream == cudaStreamLegacy || (stream == nullptr && !per_thread);
}

uint64_t StreamKey(cudaStream_t stream, bool per_thread) { return Runtime::Get().StreamId(stream, per_thread); }

// Created streams without cudaStreamNonBlocking and per-thread default
// streams synchronise with the legacy stream.
bool Blocking(cudaStream_t stream) {
  if (stream == nullptr || stream == cudaStreamPerThread) return true;
  return (reinterpret_cast<const StreamState*>(stream)->flags & cudaStreamNonBlocking) == 0;
}

// Under the lock. Captures with a blocking stream: the legacy stream would
// depend on them implicitly.
std::vector<Capture*> BlockingCaptures() {
  std::vector<Capture*> out;
  for (const auto& [key, s] : State().streams)
    if (s.blocking && std::find(out.begin(), out.end(), s.capture) == out.end()) out.push_back(s.capture);
  return out;
}

// Under the lock. The captures that forbid a potentially unsafe call from
// this thread (cudaThreadExchangeStreamCaptureMode's rules).
std::vector<Capture*> ForbiddingCaptures() {
  std::vector<Capture*> out;
  if (thread_mode == cudaStreamCaptureModeRelaxed) return out;
  const std::thread::id self = std::this_thread::get_id();
  for (const auto& [id, c] : State().captures) {
    const bool own = c->thread == self && c->mode != cudaStreamCaptureModeRelaxed;
    const bool other = c->thread != self && thread_mode == cudaStreamCaptureModeGlobal &&
                       c->mode == cudaStreamCaptureModeGlobal;
    if (own || other) out.push_back(c.get());
  }
  return out;
}

cudaError_t Invalidate(const std::vector<Capture*>& captures, cudaError_t e) {
  for (Capture* c : captures) c->invalidated = true;
  return Runtime::Get().Fail(e);
}

// Under the lock: work on the legacy stream while a blocking stream captures.
std::optional<cudaError_t> LegacyConflict(cudaStream_t stream, bool per_thread) {
  if (!IsLegacy(stream, per_thread)) return std::nullopt;
  std::vector<Capture*> blocking = BlockingCaptures();
  if (blocking.empty()) return std::nullopt;
  return Invalidate(blocking, cudaErrorStreamCaptureImplicit);
}

void SetDeps(CapturingStream& s, std::vector<GraphNode*> deps) {
  s.deps = std::move(deps);
  s.edge_data.assign(s.deps.size(), cudaGraphEdgeData{});
}

void AddDeps(CapturingStream& s, const std::vector<GraphNode*>& more) {
  std::vector<GraphNode*> deps = s.deps;
  for (GraphNode* d : more)
    if (std::find(deps.begin(), deps.end(), d) == deps.end()) deps.push_back(d);
  SetDeps(s, std::move(deps));
}

// Under the lock: adds a node filled by `fill` after the stream's
// dependencies, which become that node. A failure invalidates the capture.
cudaError_t AddCapturedNode(CapturingStream& s, absl::FunctionRef<cudaError_t(GraphNode&)> fill) {
  Capture* c = s.capture;
  if (c->invalidated) return Runtime::Get().Fail(cudaErrorStreamCaptureInvalidated);
  GraphNode* node = c->graph->AddNode(cudaGraphNodeTypeEmpty);
  if (cudaError_t e = fill(*node)) {
    c->graph->RemoveNode(node);
    return Invalidate({c}, e);
  }
  for (GraphNode* d : s.deps) AddEdge(d, node);
  GraphRegistry::Get().RegisterNode(node);
  SetDeps(s, {node});
  return cudaSuccess;
}

CapturingStream* FindStream(cudaStream_t stream, bool per_thread) {
  auto it = State().streams.find(StreamKey(stream, per_thread));
  return it == State().streams.end() ? nullptr : &it->second;
}

// Under the lock: the capture's streams and events go, and its graph unless
// it is handed to the program.
void EndCaptureState(Capture* c, bool keep_graph) {
  CaptureState& st = State();
  absl::erase_if(st.streams, [&](const auto& kv) { return kv.second.capture == c; });
  absl::erase_if(st.events, [&](const auto& kv) { return kv.second.capture == c->id; });
  if (!keep_graph && !c->into_existing_graph) GraphRegistry::Get().TakeGraph(c->graph);
  st.captures.erase(c->id);
  CountStreams();
}

// Under the lock: a fork not joined back. Every other stream's dependencies
// must be the origin's dependencies or their ancestors.
bool Unjoined(const Capture* c) {
  const CapturingStream& origin = State().streams.at(c->origin);
  absl::flat_hash_set<const GraphNode*> reached;
  std::vector<const GraphNode*> todo(origin.deps.begin(), origin.deps.end());
  while (!todo.empty()) {
    const GraphNode* n = todo.back();
    todo.pop_back();
    if (!reached.insert(n).second) continue;
    for (const GraphNode* d : n->deps) todo.push_back(d);
  }
  for (const auto& [key, s] : State().streams) {
    if (s.capture != c || key == c->origin) continue;
    for (const GraphNode* d : s.deps)
      if (!reached.contains(d)) return true;
  }
  return false;
}

cudaError_t BeginCapture(cudaStream_t stream, bool per_thread, cudaStreamCaptureMode mode, Graph* into,
                         const cudaGraphNode_t* deps, size_t num_deps) {
  Runtime& rt = Runtime::Get();
  if (mode != cudaStreamCaptureModeGlobal && mode != cudaStreamCaptureModeThreadLocal &&
      mode != cudaStreamCaptureModeRelaxed)
    return rt.Fail(cudaErrorInvalidValue);
  if (!rt.ValidStream(stream)) return rt.Fail(cudaErrorInvalidResourceHandle);
  // The legacy stream cannot capture: it synchronises with every blocking stream.
  if (IsLegacy(stream, per_thread)) return rt.Fail(cudaErrorStreamCaptureUnsupported);
  GraphRegistry& registry = GraphRegistry::Get();
  std::lock_guard<std::mutex> lock(registry.mu());
  CaptureState& st = State();
  const uint64_t key = StreamKey(stream, per_thread);
  if (st.streams.contains(key)) return rt.Fail(cudaErrorIllegalState);
  std::vector<GraphNode*> initial;
  if (into) {
    if (!registry.ValidGraph(into) || (num_deps && !deps)) return rt.Fail(cudaErrorInvalidValue);
    for (size_t i = 0; i < num_deps; ++i) {
      auto* d = reinterpret_cast<GraphNode*>(deps[i]);
      if (!registry.ValidNode(d) || d->graph != into) return rt.Fail(cudaErrorInvalidValue);
      initial.push_back(d);
    }
  }
  auto c = std::make_unique<Capture>();
  c->id = st.next_id++;
  c->mode = mode;
  c->thread = std::this_thread::get_id();
  c->graph = into ? into : registry.AddGraph(std::make_unique<Graph>());
  c->into_existing_graph = into != nullptr;
  c->origin = key;
  CapturingStream& s = st.streams[key];
  s.capture = c.get();
  s.blocking = Blocking(stream);
  SetDeps(s, std::move(initial));
  st.captures[c->id] = std::move(c);
  CountStreams();
  return cudaSuccess;
}

cudaError_t EndCapture(cudaStream_t stream, bool per_thread, cudaGraph_t* graph) {
  Runtime& rt = Runtime::Get();
  if (!graph) return rt.Fail(cudaErrorInvalidValue);
  if (!rt.ValidStream(stream)) return rt.Fail(cudaErrorInvalidResourceHandle);
  std::lock_guard<std::mutex> lock(GraphRegistry::Get().mu());
  CapturingStream* s = IsLegacy(stream, per_thread) ? nullptr : FindStream(stream, per_thread);
  if (!s) return rt.Fail(cudaErrorIllegalState);
  Capture* c = s->capture;
  if (StreamKey(stream, per_thread) != c->origin) return Invalidate({c}, cudaErrorStreamCaptureUnmatched);
  if (c->mode != cudaStreamCaptureModeRelaxed && c->thread != std::this_thread::get_id())
    return rt.Fail(cudaErrorStreamCaptureWrongThread);
  cudaError_t e = cudaSuccess;
  if (c->invalidated) e = cudaErrorStreamCaptureInvalidated;
  else if (Unjoined(c)) e = cudaErrorStreamCaptureUnjoined;
  *graph = e == cudaSuccess ? reinterpret_cast<cudaGraph_t>(c->graph) : nullptr;
  EndCaptureState(c, e == cudaSuccess);
  return e == cudaSuccess ? cudaSuccess : rt.Fail(e);
}

cudaError_t IsCapturing(cudaStream_t stream, bool per_thread, cudaStreamCaptureStatus* status) {
  Runtime& rt = Runtime::Get();
  if (!status) return rt.Fail(cudaErrorInvalidValue);
  if (!rt.ValidStream(stream)) return rt.Fail(cudaErrorInvalidResourceHandle);
  *status = cudaStreamCaptureStatusNone;
  if (!AnyCapture()) return cudaSuccess;
  std::lock_guard<std::mutex> lock(GraphRegistry::Get().mu());
  // Not an error that invalidates: the query only says the legacy stream is unusable.
  if (IsLegacy(stream, per_thread)) return BlockingCaptures().empty() ? cudaSuccess : rt.Fail(cudaErrorStreamCaptureImplicit);
  if (const CapturingStream* s = FindStream(stream, per_thread))
    *status = s->capture->invalidated ? cudaStreamCaptureStatusInvalidated : cudaStreamCaptureStatusActive;
  return cudaSuccess;
}

cudaError_t GetCaptureInfo(cudaStream_t stream, bool per_thread, cudaStreamCaptureStatus* status,
                           unsigned long long* id, cudaGraph_t* graph, const cudaGraphNode_t** deps,
                           const cudaGraphEdgeData** edge_data, size_t* num_deps) {
  Runtime& rt = Runtime::Get();
  if (!status || (edge_data && !deps)) return rt.Fail(cudaErrorInvalidValue);
  if (cudaError_t e = IsCapturing(stream, per_thread, status)) return e;
  if (*status != cudaStreamCaptureStatusActive) return cudaSuccess;
  std::lock_guard<std::mutex> lock(GraphRegistry::Get().mu());
  CapturingStream* s = FindStream(stream, per_thread);
  if (!s) {  // ended by another thread in between
    *status = cudaStreamCaptureStatusNone;
    return cudaSuccess;
  }
  if (id) *id = s->capture->id;
  if (graph) *graph = reinterpret_cast<cudaGraph_t>(s->capture->graph);
  // Runtime-owned arrays, valid until the next call on the stream (as documented).
  if (deps) *deps = reinterpret_cast<const cudaGraphNode_t*>(s->deps.data());
  if (edge_data) *edge_data = s->edge_data.data();
  if (num_deps) *num_deps = s->deps.size();
  return cudaSuccess;
}

cudaError_t UpdateDependencies(cudaStream_t stream, bool per_thread, cudaGraphNode_t* deps,
                               const cudaGraphEdgeData* edge_data, size_t num_deps, unsigned flags) {
  Runtime& rt = Runtime::Get();
  if (flags != cudaStreamAddCaptureDependencies && flags != cudaStreamSetCaptureDependencies)
    return rt.Fail(cudaErrorInvalidValue);
  if (num_deps && !deps) return rt.Fail(cudaErrorInvalidValue);
  if (!rt.ValidStream(stream)) return rt.Fail(cudaErrorInvalidResourceHandle);
  GraphRegistry& registry = GraphRegistry::Get();
  std::lock_guard<std::mutex> lock(registry.mu());
  CapturingStream* s = IsLegacy(stream, per_thread) ? nullptr : FindStream(stream, per_thread);
  if (!s) return rt.Fail(cudaErrorIllegalState);
  if (s->capture->invalidated) return rt.Fail(cudaErrorStreamCaptureInvalidated);
  std::vector<GraphNode*> nodes;
  for (size_t i = 0; i < num_deps; ++i) {
    auto* d = reinterpret_cast<GraphNode*>(deps[i]);
    if (!registry.ValidNode(d) || d->graph != s->capture->graph) return rt.Fail(cudaErrorInvalidValue);
    // Only full-completion edges exist here (ports belong to programmatic launches).
    if (edge_data && (edge_data[i].from_port || edge_data[i].to_port || edge_data[i].type))
      return rt.Fail(cudaErrorNotSupported);
    nodes.push_back(d);
  }
  if (flags == cudaStreamSetCaptureDependencies) SetDeps(*s, std::move(nodes));
  else AddDeps(*s, nodes);
  return cudaSuccess;
}

}  // namespace

// ---------------------------------------------------------------- hooks (stream_capture.h)

std::optional<cudaError_t> CaptureWork(cudaStream_t stream, bool per_thread,
                                       absl::FunctionRef<cudaError_t(GraphNode&)> fill) {
  if (!AnyCapture() || !Runtime::Get().ValidStream(stream)) return std::nullopt;
  std::lock_guard<std::mutex> lock(GraphRegistry::Get().mu());
  if (auto conflict = LegacyConflict(stream, per_thread)) return conflict;
  CapturingStream* s = IsLegacy(stream, per_thread) ? nullptr : FindStream(stream, per_thread);
  if (!s) return std::nullopt;
  return AddCapturedNode(*s, fill);
}

cudaError_t CheckUnsafeCall(bool legacy) {
  if (!AnyCapture()) return cudaSuccess;
  std::lock_guard<std::mutex> lock(GraphRegistry::Get().mu());
  if (legacy)
    if (auto conflict = LegacyConflict(nullptr, false)) return *conflict;
  std::vector<Capture*> forbidding = ForbiddingCaptures();
  return forbidding.empty() ? cudaSuccess : Invalidate(forbidding, cudaErrorStreamCaptureUnsupported);
}

cudaError_t CheckStreamSync(cudaStream_t stream, bool per_thread) {
  if (!AnyCapture() || !Runtime::Get().ValidStream(stream)) return cudaSuccess;
  std::lock_guard<std::mutex> lock(GraphRegistry::Get().mu());
  if (auto conflict = LegacyConflict(stream, per_thread)) return *conflict;
  CapturingStream* s = IsLegacy(stream, per_thread) ? nullptr : FindStream(stream, per_thread);
  return s ? Invalidate({s->capture}, cudaErrorStreamCaptureUnsupported) : cudaSuccess;
}

cudaError_t CheckSynchronousCall(bool per_thread) {
  if (per_thread)
    if (cudaError_t e = CheckStreamSync(nullptr, true)) return e;
  return CheckUnsafeCall(/*legacy=*/!per_thread);
}

std::optional<cudaError_t> CaptureEventRecord(cudaEvent_t event, cudaStream_t stream, bool per_thread,
                                              unsigned flags) {
  Runtime& rt = Runtime::Get();
  if (!AnyCapture() || !rt.FindEvent(event) || !rt.ValidStream(stream)) return std::nullopt;
  std::lock_guard<std::mutex> lock(GraphRegistry::Get().mu());
  if (auto conflict = LegacyConflict(stream, per_thread)) return conflict;
  CapturingStream* s = IsLegacy(stream, per_thread) ? nullptr : FindStream(stream, per_thread);
  if (!s) {
    State().events.erase(event);  // recorded outside any capture again
    return std::nullopt;
  }
  if (s->capture->invalidated) return rt.Fail(cudaErrorStreamCaptureInvalidated);
  // cudaEventRecordExternal: an event record node, run with the graph.
  // Otherwise the record only marks the stream's position for forks and joins.
  if (flags & cudaEventRecordExternal) {
    if (cudaError_t e = AddCapturedNode(*s, [&](GraphNode& n) {
          n.type = cudaGraphNodeTypeEventRecord;
          n.event = event;
          return cudaSuccess;
        }))
      return e;
  }
  State().events[event] = CapturedEvent{s->capture->id, s->deps};
  return cudaSuccess;
}

std::optional<cudaError_t> CaptureEventWait(cudaStream_t stream, bool per_thread, cudaEvent_t event,
                                            unsigned flags) {
  Runtime& rt = Runtime::Get();
  EventState* state = rt.FindEvent(event);
  if (!AnyCapture() || !state || !rt.ValidStream(stream)) return std::nullopt;
  std::lock_guard<std::mutex> lock(GraphRegistry::Get().mu());
  if (auto conflict = LegacyConflict(stream, per_thread)) return conflict;
  CaptureState& st = State();
  auto ev = st.events.find(event);
  CapturingStream* s = IsLegacy(stream, per_thread) ? nullptr : FindStream(stream, per_thread);
  if (!s) {
    if (ev == st.events.end()) return std::nullopt;  // an ordinary wait
    // Fork: the stream joins the event's capture after the event's nodes.
    Capture* c = st.captures.at(ev->second.capture).get();
    if (c->invalidated) return rt.Fail(cudaErrorStreamCaptureInvalidated);
    CapturingStream& joined = st.streams[StreamKey(stream, per_thread)];
    joined.capture = c;
    joined.blocking = Blocking(stream);
    SetDeps(joined, ev->second.deps);
    CountStreams();
    return cudaSuccess;
  }
  if (s->capture->invalidated) return rt.Fail(cudaErrorStreamCaptureInvalidated);
  // cudaEventWaitExternal: an event wait node, run with the graph.
  if (flags & cudaEventWaitExternal)
    return AddCapturedNode(*s, [&](GraphNode& n) {
      n.type = cudaGraphNodeTypeWaitEvent;
      n.event = event;
      return cudaSuccess;
    });
  if (ev == st.events.end()) {
    // Never recorded: an empty set of work, nothing to wait for. Recorded
    // outside the capture: the dependency would cross its boundary.
    return state->recorded ? Invalidate({s->capture}, cudaErrorStreamCaptureIsolation) : cudaSuccess;
  }
  if (ev->second.capture != s->capture->id) return Invalidate({s->capture}, cudaErrorStreamCaptureMerge);
  AddDeps(*s, ev->second.deps);  // join
  return cudaSuccess;
}

cudaError_t CheckEventUse(cudaEvent_t event) {
  if (!AnyCapture()) return cudaSuccess;
  std::lock_guard<std::mutex> lock(GraphRegistry::Get().mu());
  return State().events.contains(event) ? Runtime::Get().Fail(cudaErrorCapturedEvent) : cudaSuccess;
}

void ForgetEvent(cudaEvent_t event) {
  std::lock_guard<std::mutex> lock(GraphRegistry::Get().mu());
  State().events.erase(event);
}

void ForgetStream(uint64_t stream_id) {
  std::lock_guard<std::mutex> lock(GraphRegistry::Get().mu());
  CaptureState& st = State();
  auto it = st.streams.find(stream_id);
  if (it == st.streams.end()) return;
  Capture* c = it->second.capture;
  // The origin gone, the capture can never end: drop it; a joined stream
  // gone leaves its work unjoined, which invalidates the capture.
  if (c->origin == stream_id) {
    EndCaptureState(c, /*keep_graph=*/false);
  } else {
    c->invalidated = true;
    st.streams.erase(it);
    CountStreams();
  }
}

void ResetCaptures() {
  std::lock_guard<std::mutex> lock(GraphRegistry::Get().mu());
  CaptureState& st = State();
  while (!st.captures.empty()) EndCaptureState(st.captures.begin()->second.get(), /*keep_graph=*/false);
}

}  // namespace barracuda::cudart

// ---------------------------------------------------------------- entry points

namespace rt = barracuda::cudart;

CUDART_EXPORT cudaError_t cudaStreamBeginCapture(cudaStream_t stream, cudaStreamCaptureMode mode) {
  return rt::BeginCapture(stream, false, mode, nullptr, nullptr, 0);
}
CUDART_EXPORT cudaError_t cudaStreamBeginCapture_ptsz(cudaStream_t stream, cudaStreamCaptureMode mode) {
  return rt::BeginCapture(stream, true, mode, nullptr, nullptr, 0);
}

namespace {
cudaError_t BeginCaptureToGraph(cudaStream_t stream, bool per_thread, cudaGraph_t graph,
                                const cudaGraphNode_t* deps, const cudaGraphEdgeData* edge_data, size_t num_deps,
                                cudaStreamCaptureMode mode) {
  if (!graph) return rt::Runtime::Get().Fail(cudaErrorInvalidValue);
  for (size_t i = 0; edge_data && i < num_deps; ++i)
    if (edge_data[i].from_port || edge_data[i].to_port || edge_data[i].type)
      return rt::Runtime::Get().Fail(cudaErrorNotSupported);
  return rt::BeginCapture(stream, per_thread, mode, reinterpret_cast<rt::Graph*>(graph), deps, num_deps);
}
}  // namespace

CUDART_EXPORT cudaError_t cudaStreamBeginCaptureToGraph(cudaStream_t stream, cudaGraph_t graph,
                                                        const cudaGraphNode_t* deps,
                                                        const cudaGraphEdgeData* edge_data, size_t num_deps,
                                                        cudaStreamCaptureMode mode) {
  return BeginCaptureToGraph(stream, false, graph, deps, edge_data, num_deps, mode);
}
CUDART_EXPORT cudaError_t cudaStreamBeginCaptureToGraph_ptsz(cudaStream_t stream, cudaGraph_t graph,
                                                             const cudaGraphNode_t* deps,
                                                             const cudaGraphEdgeData* edge_data, size_t num_deps,
                                                             cudaStreamCaptureMode mode) {
  return BeginCaptureToGraph(stream, true, graph, deps, edge_data, num_deps, mode);
}

CUDART_EXPORT cudaError_t cudaStreamEndCapture(cudaStream_t stream, cudaGraph_t* graph) {
  return rt::EndCapture(stream, false, graph);
}
CUDART_EXPORT cudaError_t cudaStreamEndCapture_ptsz(cudaStream_t stream, cudaGraph_t* graph) {
  return rt::EndCapture(stream, true, graph);
}

CUDART_EXPORT cudaError_t cudaStreamIsCapturing(cudaStream_t stream, cudaStreamCaptureStatus* status) {
  return rt::IsCapturing(stream, false, status);
}
CUDART_EXPORT cudaError_t cudaStreamIsCapturing_ptsz(cudaStream_t stream, cudaStreamCaptureStatus* status) {
  return rt::IsCapturing(stream, true, status);
}

CUDART_EXPORT cudaError_t cudaStreamGetCaptureInfo(cudaStream_t stream, cudaStreamCaptureStatus* status,
                                                   unsigned long long* id, cudaGraph_t* graph,
                                                   const cudaGraphNode_t** deps, const cudaGraphEdgeData** edge_data,
                                                   size_t* num_deps) {
  return rt::GetCaptureInfo(stream, false, status, id, graph, deps, edge_data, num_deps);
}
CUDART_EXPORT cudaError_t cudaStreamGetCaptureInfo_ptsz(cudaStream_t stream, cudaStreamCaptureStatus* status,
                                                        unsigned long long* id, cudaGraph_t* graph,
                                                        const cudaGraphNode_t** deps,
                                                        const cudaGraphEdgeData** edge_data, size_t* num_deps) {
  return rt::GetCaptureInfo(stream, true, status, id, graph, deps, edge_data, num_deps);
}

CUDART_EXPORT cudaError_t cudaStreamUpdateCaptureDependencies(cudaStream_t stream, cudaGraphNode_t* deps,
                                                              const cudaGraphEdgeData* edge_data, size_t num_deps,
                                                              unsigned int flags) {
  return rt::UpdateDependencies(stream, false, deps, edge_data, num_deps, flags);
}
CUDART_EXPORT cudaError_t cudaStreamUpdateCaptureDependencies_ptsz(cudaStream_t stream, cudaGraphNode_t* deps,
                                                                   const cudaGraphEdgeData* edge_data,
                                                                   size_t num_deps, unsigned int flags) {
  return rt::UpdateDependencies(stream, true, deps, edge_data, num_deps, flags);
}

CUDART_EXPORT cudaError_t cudaThreadExchangeStreamCaptureMode(cudaStreamCaptureMode* mode) {
  if (!mode || (*mode != cudaStreamCaptureModeGlobal && *mode != cudaStreamCaptureModeThreadLocal &&
                *mode != cudaStreamCaptureModeRelaxed))
    return rt::Runtime::Get().Fail(cudaErrorInvalidValue);
  std::swap(*mode, rt::thread_mode);
  return cudaSuccess;
}
