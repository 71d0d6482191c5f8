#include "ptx_emulator/runtime/stream_order.h"

#include <dlfcn.h>
#include <execinfo.h>

#include <cinttypes>
#include <cstdio>

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
}  // namespace

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

void StreamOrder::Enqueue(uint64_t stream_id, bool non_blocking, transport::StreamOpInfo& op) {
  std::lock_guard<std::mutex> lock(mu_);
  if (NodeScope::State* node = current_node) {  // the work of a graph node
    const uint64_t tick = ++node->tick;
    op.stream_id = node->timeline;
    op.tick = tick;
    op.before.assign(node->before.begin(), node->before.end());
    op.after_barrier = barrier_pending_;
    barrier_pending_ = false;
    node->before[node->timeline] = tick;
    return;
  }
  Clock before = Before(stream_id, non_blocking);
  const bool legacy = stream_id == 0;
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

void StreamOrder::RecordEvent(const void* event, uint64_t stream_id) {
  std::lock_guard<std::mutex> lock(mu_);
  events_[event] = streams_[stream_id];
}

void StreamOrder::WaitEvent(uint64_t stream_id, const void* event) {
  std::lock_guard<std::mutex> lock(mu_);
  if (auto it = events_.find(event); it != events_.end()) Join(streams_[stream_id], it->second);
}

void StreamOrder::HostWaitStream(uint64_t stream_id) {
  std::lock_guard<std::mutex> lock(mu_);
  Join(host_, streams_[stream_id]);
  if (stream_id == 0)  // the legacy stream's work waited for every blocking stream's
    for (const auto& [s, clock] : streams_)
      if (!non_blocking_[s]) Join(host_, clock);
}

void StreamOrder::HostWaitEvent(const void* event) {
  std::lock_guard<std::mutex> lock(mu_);
  if (auto it = events_.find(event); it != events_.end()) Join(host_, it->second);
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

StreamOrder::NodeScope::NodeScope(Clock before) : outer_(current_node) {
  StreamOrder& order = StreamOrder::Get();
  {
    std::lock_guard<std::mutex> lock(order.mu_);
    state_.timeline = order.next_graph_timeline_++;
  }
  state_.before = std::move(before);
  current_node = &state_;
}

StreamOrder::NodeScope::~NodeScope() { current_node = outer_; }

StreamOrder::Clock StreamOrder::NodeScope::after() const { return state_.before; }

void StreamOrder::Barrier() {
  std::lock_guard<std::mutex> lock(mu_);
  for (const auto& [s, clock] : streams_) Join(host_, clock);
  for (auto& [s, clock] : streams_) clock = host_;
  barrier_pending_ = true;
}

void StreamOrder::Reset() {
  std::lock_guard<std::mutex> lock(mu_);
  host_.clear();
  streams_.clear();
  events_.clear();
  barrier_pending_ = true;
}

std::string HostCallSite() {
  void* frames[24];
  const int n = backtrace(frames, 24);
  Dl_info self{};
  dladdr(reinterpret_cast<void*>(&HostCallSite), &self);
  std::string out;
  int kept = 0;
  // Launches pass through nvcc's stub functions and the runtime header's
  // inline helpers before the program's own call: keep enough frames.
  for (int i = 1; i < n && kept < 8; ++i) {
    Dl_info info{};
    if (dladdr(frames[i], &info) == 0 || info.dli_fname == nullptr) continue;
    if (info.dli_fbase == self.dli_fbase) continue;  // this library
    // The return address minus one: the call instruction (addr2line's line).
    const uint64_t offset = reinterpret_cast<uint64_t>(frames[i]) - 1 - reinterpret_cast<uint64_t>(info.dli_fbase);
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

bool StreamOpsTraced() { return Runtime::Get().session_sink() != nullptr && StreamOrder::Get().active(); }

void NoteKernelOp(uint64_t stream_id, bool non_blocking, uint64_t launch_id) {
  StreamOrder& order = StreamOrder::Get();
  if (!StreamOpsTraced()) return;
  transport::StreamOpInfo op;
  op.kind = transport::StreamOpKind::kKernel;
  op.launch_id = launch_id;
  op.api = "kernel launch";
  order.Enqueue(stream_id, non_blocking, op);
  Send(op);
}

void NoteMemoryOp(transport::StreamOpKind kind, const char* api, uint64_t stream_id, bool non_blocking,
                  std::vector<transport::StreamOpInfo::Range> ranges) {
  StreamOrder& order = StreamOrder::Get();
  if (!StreamOpsTraced()) return;
  transport::StreamOpInfo op;
  op.kind = kind;
  op.api = api;
  op.ranges = std::move(ranges);
  order.Enqueue(stream_id, non_blocking, op);
  Send(op);
}

}  // namespace barracuda::cudart
