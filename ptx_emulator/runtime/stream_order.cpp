#include "ptx_emulator/runtime/stream_order.h"

#include <dlfcn.h>
#include <execinfo.h>

#include <cinttypes>
#include <cstdio>
#include <cstdlib>

#include "absl/strings/str_cat.h"

#include "ptx_emulator/runtime/host_access_watch.h"
#include "ptx_emulator/runtime/runtime_state.h"
#include "ptx_emulator/runtime/shm_sink.h"

namespace barracuda::cudart {

StreamOrder& StreamOrder::Get() {
  static StreamOrder* order = new StreamOrder();  // never destroyed: atexit handlers may still issue work
  return *order;
}

void StreamOrder::Join(Clock& into, const Clock& from) {
  for (const auto& [stream, tick] : from) {
    uint64_t& t = into[stream];
    if (tick > t) t = tick;
  }
}

void StreamOrder::NoteStreamCreated() {
  std::lock_guard<std::mutex> lock(mu_);
  active_ = true;
}

bool StreamOrder::active() const {
  std::lock_guard<std::mutex> lock(mu_);
  return active_;
}

namespace {
thread_local StreamOrder::NodeScope::State* current_node = nullptr;

void SendAll(std::vector<transport::StreamOpInfo>& ops) {
  if (ops.empty()) return;
  if (emu::ShmRecordSink* sink = Runtime::Get().session_sink())
    for (transport::StreamOpInfo& op : ops) sink->OnStreamOp(op);
}
}  // namespace

std::vector<transport::StreamOpInfo> StreamOrder::TakeHostAccesses(std::vector<host_access::Access>* host_function) {
  std::vector<transport::StreamOpInfo> ops;
  uint64_t dropped = 0;
  for (const host_access::Access& a : host_access::Take(&dropped)) {
    if (a.host_function && host_function != nullptr) {
      host_function->push_back(a);
      continue;
    }
    transport::StreamOpInfo op;
    op.kind = transport::StreamOpKind::kHostAccess;
    op.api = "host access";
    op.stream_id = kHostTimeline;
    op.tick = ++host_tick_;
    // Ordered after what the host had waited for when it accessed the bytes
    // (host_ has not changed since: every change flushes first).
    op.before.assign(host_.begin(), host_.end());
    op.ranges.push_back({a.device, a.size, a.write});
    op.exact = a.exact;
    op.host_location = FormatHostFrames(a.pc, a.frames, /*first_exact=*/true);
    ops.push_back(std::move(op));
  }
  if (dropped != 0)
    PrintDiagnostic(
        absl::StrCat(dropped, " host accesses to managed or mapped memory were not checked (buffer full)"));
  return ops;
}

void StreamOrder::HostFunctionRan(uint64_t stream_id, bool non_blocking, const std::string& enqueued_at) {
  std::vector<transport::StreamOpInfo> ops;
  {
    std::lock_guard<std::mutex> lock(mu_);
    std::vector<host_access::Access> mine;
    ops = TakeHostAccesses(&mine);  // other threads' accesses meanwhile are the host's
    // What the function is ordered after (its stream's earlier work, or its
    // graph node's dependencies), before its own operations join it.
    const Clock waited = current_node != nullptr ? current_node->before : Before(stream_id, non_blocking);
    for (const host_access::Access& a : mine) {
      transport::StreamOpInfo op;
      op.kind = transport::StreamOpKind::kHostAccess;
      op.api = "host function";
      op.ranges.push_back({a.device, a.size, a.write});
      op.exact = a.exact;
      op.host_location = FormatHostFrames(a.pc, a.frames, /*first_exact=*/true);
      EnqueueLocked(stream_id, non_blocking, op);  // a graph node's: its node's timeline and frames
      if (op.node_location.empty()) op.node_location = enqueued_at;
      // Until the host is ordered after it, the host's own accesses to these
      // bytes may race with it (on a GPU it runs whenever its stream gets to it).
      host_access::ArmRange(a.device, a.size);
      outstanding_[op.stream_id] = op.tick;  // UpdateOutstanding below protects
      ops.push_back(std::move(op));
    }
    // Programs signal host threads from host functions (a flag, a condition
    // variable: the CUDA samples' simpleCallback), which the order cannot
    // see: the host is taken as ordered after what the function was ordered
    // after, as by a host wait (not after the function's own accesses).
    Join(host_, waited);
    UpdateOutstanding();
  }
  SendAll(ops);
}

void StreamOrder::UpdateOutstanding() {
  bool outstanding = false;
  for (const auto& [timeline, tick] : outstanding_) {
    auto it = host_.find(timeline);
    if (it == host_.end() || it->second < tick) outstanding = true;
  }
  if (!outstanding) outstanding_.clear();
  host_access::SetOutstanding(outstanding);
}

bool StreamOrder::Outstanding() const {
  std::lock_guard<std::mutex> lock(mu_);
  return !outstanding_.empty();
}

void StreamOrder::FlushHostAccesses() {
  std::vector<transport::StreamOpInfo> ops;
  {
    std::lock_guard<std::mutex> lock(mu_);
    ops = TakeHostAccesses();
  }
  SendAll(ops);
}

// What an operation issued now on `stream_id` is ordered after.
StreamOrder::Clock StreamOrder::Before(uint64_t stream_id, bool non_blocking) {
  non_blocking_[stream_id] = non_blocking;
  Clock before = host_;
  Join(before, streams_[stream_id]);
  if (stream_id == 0) {
    for (const auto& [s, clock] : streams_)
      if (!non_blocking_[s]) Join(before, clock);
  } else if (!non_blocking) {
    Join(before, streams_[0]);
  }
  return before;
}

void StreamOrder::Enqueue(uint64_t stream_id, bool non_blocking, transport::StreamOpInfo& op, bool host_waits) {
  std::vector<transport::StreamOpInfo> host_ops;
  {
    std::lock_guard<std::mutex> lock(mu_);
    host_ops = TakeHostAccesses();
    EnqueueLocked(stream_id, non_blocking, op);
    bool watched = op.kind == transport::StreamOpKind::kKernel;  // regions armed by the launch
    // An asynchronous copy or set reads or writes its host-accessible bytes
    // (pinned, managed, registered) whenever the stream gets to it: until the
    // host is ordered after it, the host's accesses there may race with it.
    if (!host_waits && (op.kind == transport::StreamOpKind::kCopy || op.kind == transport::StreamOpKind::kSet))
      for (const transport::StreamOpInfo::Range& r : op.ranges) watched |= host_access::ArmRange(r.base, r.size);
    if (watched) {
      outstanding_[op.stream_id] = op.tick;
      host_access::SetOutstanding(true);
    }
  }
  SendAll(host_ops);  // before the caller sends `op`: the accesses came first
}

void StreamOrder::EnqueueLocked(uint64_t stream_id, bool non_blocking, transport::StreamOpInfo& op) {
  if (NodeScope::State* node = current_node) {  // the work of a graph node
    const uint64_t tick = ++node->tick;
    op.stream_id = node->timeline;
    op.tick = tick;
    op.before.assign(node->before.begin(), node->before.end());
    op.node_location = node->created_at;
    op.programmatic_after = 0;  // a graph's order is its edges (programmatic ports are refused)
    op.after_barrier = barrier_pending_;
    barrier_pending_ = false;
    node->before[node->timeline] = tick;
    return;
  }
  Clock before = Before(stream_id, non_blocking);
  const bool legacy = stream_id == 0;
  if (op.programmatic_after == kProgrammaticRequested) {
    auto last = last_kernel_.find(stream_id);
    op.programmatic_after = last != last_kernel_.end() ? last->second : 0;
  }
  // A legacy-stream operation waits for every blocking stream's work: a
  // programmatic launch after it overlaps nothing of theirs.
  if (legacy)
    for (auto& [s, launch] : last_kernel_)
      if (s != 0 && !non_blocking_[s]) launch = 0;
  last_kernel_[stream_id] = op.kind == transport::StreamOpKind::kKernel ? op.launch_id : 0;
  Clock& mine = streams_[stream_id];
  const uint64_t tick = (mine.contains(stream_id) ? mine[stream_id] : 0) + 1;
  op.stream_id = stream_id;
  op.tick = tick;
  op.before.assign(before.begin(), before.end());
  op.after_barrier = barrier_pending_;
  barrier_pending_ = false;
  before[stream_id] = tick;
  mine = before;
  if (legacy) {
    // Every blocking stream's later work waits for this operation.
    for (auto& [s, clock] : streams_)
      if (s != 0 && !non_blocking_[s]) Join(clock, mine);
  }
}

void StreamOrder::RecordEvent(const void* event, uint64_t stream_id, bool non_blocking) {
  std::lock_guard<std::mutex> lock(mu_);
  // What the record is ordered after, as an operation issued now would be:
  // on the legacy stream, every blocking stream's work too (the samples'
  // cudaEventRecord(stop, 0) after work in created streams); in a graph,
  // the node's dependencies.
  events_[event] = current_node != nullptr ? current_node->before : Before(stream_id, non_blocking);
}

void StreamOrder::WaitEvent(uint64_t stream_id, const void* event) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = events_.find(event);
  if (it == events_.end()) return;
  if (current_node != nullptr) Join(current_node->before, it->second);  // a graph's wait node
  else Join(streams_[stream_id], it->second);
}

void StreamOrder::HostWaitStream(uint64_t stream_id) {
  std::vector<transport::StreamOpInfo> host_ops;
  {
    std::lock_guard<std::mutex> lock(mu_);
    host_ops = TakeHostAccesses();
    Join(host_, streams_[stream_id]);
    if (stream_id == 0)  // the legacy stream's work waited for every blocking stream's
      for (const auto& [s, clock] : streams_)
        if (!non_blocking_[s]) Join(host_, clock);
    last_kernel_.erase(stream_id);  // it ended before anything the host issues next
    UpdateOutstanding();
  }
  SendAll(host_ops);
}

void StreamOrder::HostWaitEvent(const void* event) {
  std::vector<transport::StreamOpInfo> host_ops;
  {
    std::lock_guard<std::mutex> lock(mu_);
    host_ops = TakeHostAccesses();
    if (auto it = events_.find(event); it != events_.end()) Join(host_, it->second);
    UpdateOutstanding();
  }
  SendAll(host_ops);
}

StreamOrder::Clock StreamOrder::BeginGraph(uint64_t stream_id, bool non_blocking) {
  std::lock_guard<std::mutex> lock(mu_);
  active_ = true;
  return Before(stream_id, non_blocking);
}

void StreamOrder::EndGraph(uint64_t stream_id, bool non_blocking, const Clock& all) {
  std::lock_guard<std::mutex> lock(mu_);
  non_blocking_[stream_id] = non_blocking;
  Join(streams_[stream_id], all);
  if (stream_id == 0)
    for (auto& [s, clock] : streams_)
      if (s != 0 && !non_blocking_[s]) Join(clock, all);
}

StreamOrder::NodeScope::NodeScope(Clock before, std::string created_at) : outer_(current_node) {
  StreamOrder& order = StreamOrder::Get();
  {
    std::lock_guard<std::mutex> lock(order.mu_);
    state_.timeline = order.next_graph_timeline_++;
  }
  state_.before = std::move(before);
  state_.created_at = std::move(created_at);
  current_node = &state_;
}

StreamOrder::NodeScope::~NodeScope() { current_node = outer_; }

StreamOrder::Clock StreamOrder::NodeScope::after() const { return state_.before; }

void StreamOrder::Barrier() {
  std::vector<transport::StreamOpInfo> host_ops;
  {
    std::lock_guard<std::mutex> lock(mu_);
    host_ops = TakeHostAccesses();
    for (const auto& [s, clock] : streams_) Join(host_, clock);
    // Graph nodes' timelines are in the streams' clocks (EndGraph).
    for (auto& [s, clock] : streams_) clock = host_;
    last_kernel_.clear();  // a later programmatic launch overlaps nothing before
    barrier_pending_ = true;
    outstanding_.clear();
    host_access::SetOutstanding(false);
  }
  SendAll(host_ops);  // before the next operation, which carries the barrier
}

void StreamOrder::Reset() {
  std::vector<transport::StreamOpInfo> host_ops;
  {
    std::lock_guard<std::mutex> lock(mu_);
    host_ops = TakeHostAccesses();
    host_.clear();
    streams_.clear();
    events_.clear();
    last_kernel_.clear();
    outstanding_.clear();
    barrier_pending_ = true;
    host_access::UnwatchAll();  // the arena is gone; registrations are dropped
  }
  SendAll(host_ops);
}

std::string HostCallSite() {
  void* frames[24];
  const int n = backtrace(frames, 24);
  uint64_t pcs[24];
  for (int i = 1; i < n; ++i) pcs[i - 1] = reinterpret_cast<uint64_t>(frames[i]);
  return FormatHostFrames(pcs, n > 0 ? n - 1 : 0, /*first_exact=*/false);
}

std::string FormatHostFrames(const uint64_t* pcs, int n, bool first_exact) {
  Dl_info self{};
  dladdr(reinterpret_cast<void*>(&HostCallSite), &self);
  std::string out;
  int kept = 0;
  // Launches pass through nvcc's stub functions and the runtime header's
  // inline helpers before the program's own call: keep enough frames.
  for (int i = 0; i < n && kept < 8; ++i) {
    Dl_info info{};
    if (dladdr(reinterpret_cast<void*>(pcs[i]), &info) == 0 || info.dli_fname == nullptr) continue;
    if (info.dli_fbase == self.dli_fbase) continue;  // this library
    // A return address minus one: the call instruction (addr2line's line).
    const uint64_t adjust = first_exact && i == 0 ? 0 : 1;
    const uint64_t offset = pcs[i] - adjust - reinterpret_cast<uint64_t>(info.dli_fbase);
    char buf[32];
    std::snprintf(buf, sizeof buf, "+0x%" PRIx64, offset);
    out += (out.empty() ? "" : " ") + std::string(info.dli_fname) + buf;
    ++kept;
  }
  return out;
}

namespace {
void Send(transport::StreamOpInfo& op) {
  if (emu::ShmRecordSink* sink = Runtime::Get().session_sink()) {
    op.host_location = HostCallSite();
    sink->OnStreamOp(op);
  }
}
}  // namespace

namespace {
// At exit: the program's last accesses (it may never synchronise again),
// before the session's sink detaches (registered earlier, so it runs later).
void FlushAtExit() {
  StreamOrder::Get().FlushHostAccesses();
  host_access::SetOutstanding(false);
}
}  // namespace

void NoteHostAccessibleMemory(uint64_t host, uint64_t size, uint64_t device, bool always_armed) {
  if (Runtime::Get().session_sink() == nullptr) return;  // untraced: nothing to watch for
  StreamOrder::Get().NoteStreamCreated();  // the host is a timeline of its own
  host_access::Watch(host, size, device, always_armed);
}

void ForgetHostAccessibleMemory(uint64_t host) { host_access::Unwatch(host); }

bool StreamOpsTraced() { return Runtime::Get().session_sink() != nullptr && StreamOrder::Get().active(); }

void NoteKernelOp(uint64_t stream_id, bool non_blocking, uint64_t launch_id, bool programmatic) {
  StreamOrder& order = StreamOrder::Get();
  if (!StreamOpsTraced()) return;
  transport::StreamOpInfo op;
  op.kind = transport::StreamOpKind::kKernel;
  op.launch_id = launch_id;
  op.programmatic_after = programmatic ? StreamOrder::kProgrammaticRequested : 0;
  op.api = "kernel launch";
  static const bool at_exit = (std::atexit(FlushAtExit), true);
  (void)at_exit;
  order.Enqueue(stream_id, non_blocking, op);
  Send(op);
}

void NoteMemoryOp(transport::StreamOpKind kind, const char* api, uint64_t stream_id, bool non_blocking,
                  std::vector<transport::StreamOpInfo::Range> ranges, bool host_waits) {
  StreamOrder& order = StreamOrder::Get();
  if (!StreamOpsTraced()) return;
  transport::StreamOpInfo op;
  op.kind = kind;
  op.api = api;
  op.ranges = std::move(ranges);
  static const bool at_exit = (std::atexit(FlushAtExit), true);  // an outstanding copy's last accesses
  (void)at_exit;
  order.Enqueue(stream_id, non_blocking, op, host_waits);
  Send(op);
}

}  // namespace barracuda::cudart
