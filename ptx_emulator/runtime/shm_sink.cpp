#include "ptx_emulator/runtime/shm_sink.h"

#include <pthread.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "ptx_rewriter/site_table.h"

namespace barracuda::emu {
namespace {

// The live sink, for the atexit handler (one per process).
std::atomic<ShmRecordSink*> g_live_sink{nullptr};

void DetachAtExit() {
  if (ShmRecordSink* sink = g_live_sink.load()) sink->Detach(0);
}

void ReattachInChild() {
  if (ShmRecordSink* sink = g_live_sink.load()) sink->ReattachAfterFork();
}

}  // namespace

ShmRecordSink::ShmRecordSink(std::unique_ptr<transport::Producer> producer)
    : producer_(std::move(producer)),
      ring_mu_(std::make_unique<std::mutex[]>(producer_->rings())) {}

absl::StatusOr<std::unique_ptr<ShmRecordSink>> ShmRecordSink::Attach(std::string_view session) {
  absl::StatusOr<std::unique_ptr<transport::Producer>> producer = transport::Producer::Attach(session);
  if (!producer.ok()) return producer.status();
  std::unique_ptr<ShmRecordSink> sink(new ShmRecordSink(std::move(*producer)));
  sink->session_ = std::string(session);
  if (!sink->producer_->SendHello()) sink->Fail();
  ShmRecordSink* expected = nullptr;
  if (g_live_sink.compare_exchange_strong(expected, sink.get())) {
    static const bool registered =
        (std::atexit(DetachAtExit), pthread_atfork(nullptr, nullptr, ReattachInChild), true);
    (void)registered;
  }
  return sink;
}

std::unique_ptr<ShmRecordSink> ShmRecordSink::FromEnvironment() {
  const char* session = std::getenv(transport::kSessionEnv);
  if (session == nullptr || *session == '\0') return nullptr;
  // barracuda --backend=gpu --gpu-runtime=emulator: the preloaded GPU agent
  // produces this session's records from its queues, and the emulator only
  // plays the GPU; tracing here too would analyse every event twice.
  if (const char* backend = std::getenv("BARRACUDA_BACKEND"); backend != nullptr && std::string(backend) == "gpu")
    return nullptr;
  absl::StatusOr<std::unique_ptr<ShmRecordSink>> sink = Attach(session);
  if (!sink.ok()) {
    std::fprintf(stderr, "barracuda: cannot attach to the analysis session (%s): %s; running untraced\n",
                 session, std::string(sink.status().message()).c_str());
    return nullptr;
  }
  return std::move(*sink);
}

ShmRecordSink::~ShmRecordSink() {
  Detach(0);
  ShmRecordSink* self = this;
  g_live_sink.compare_exchange_strong(self, nullptr);
}

void ShmRecordSink::Fail() {
  if (!failed_.exchange(true))
    std::fprintf(stderr, "barracuda: the analysis daemon went away; race detection stopped for process %d\n",
                 static_cast<int>(getpid()));
}

void ShmRecordSink::OnModule(uint32_t module_id, uint32_t site_base, const ptx::SiteTable& sites,
                             std::string_view ptx_name) {
  if (!healthy() || detached_) return;
  if (!producer_->SendModule(module_id, site_base, ptx_name, sites.ToJson().dump())) Fail();
}

void ShmRecordSink::OnKernelName(uint32_t name_id, std::string_view mangled_name) {
  if (!healthy() || detached_) return;
  if (!producer_->SendKernelName(name_id, mangled_name)) Fail();
}

void ShmRecordSink::ReattachAfterFork() {
  if (detached_) return;
  // The inherited producer speaks for the parent's slot: drop it without
  // detaching (that would tell the daemon the parent exited). Its mapping is
  // the child's copy and stays until exit; the object stays reachable from
  // here on purpose (not destroyed, not a leak).
  static std::vector<transport::Producer*>* inherited = new std::vector<transport::Producer*>();
  inherited->push_back(producer_.release());
  absl::StatusOr<std::unique_ptr<transport::Producer>> fresh = transport::Producer::Attach(session_);
  if (!fresh.ok()) {
    std::fprintf(stderr, "barracuda: forked process %d cannot join the analysis session: %s; running untraced\n",
                 static_cast<int>(getpid()), std::string(fresh.status().message()).c_str());
    failed_ = true;
    detached_ = true;
    return;
  }
  producer_ = std::move(*fresh);
  if (!producer_->SendHello()) Fail();
  if (schedule_ && !producer_->SendSchedule(schedule_->policy, schedule_->seed, schedule_->arguments)) Fail();
}

void ShmRecordSink::OnLaunchBegin(const protocol::Record& begin, uint32_t workers) {
  launch_mu_.lock();  // released in OnLaunchEnd (same thread)
  launch_start_ = std::chrono::steady_clock::now();
  if (!healthy() || detached_) return;
  rings_ = std::max<uint32_t>(1, std::min(workers, producer_->rings()));
  shared_rings_ = workers > producer_->rings();
  produced_at_begin_.resize(rings_);
  for (uint32_t r = 0; r < rings_; ++r)
    produced_at_begin_[r] = producer_->segment().ring(producer_->slot(), r).produced();
  if (!producer_->SendLaunchBegin(begin, rings_)) Fail();
}

void ShmRecordSink::Emit(uint32_t worker, const protocol::Record& record) {
  if (failed_.load(std::memory_order_relaxed) || rings_ == 0) return;
  if (!shared_rings_) {
    if (!producer_->PushRecord(worker, record)) Fail();
    return;
  }
  const uint32_t ring = worker % rings_;
  std::lock_guard<std::mutex> lock(ring_mu_[ring]);
  if (!producer_->PushRecord(ring, record)) Fail();
}

void ShmRecordSink::OnLaunchEnd(const protocol::Record& end) {
  if (healthy() && !detached_ && rings_ != 0) {
    // Records of this launch per ring, from the rings' produced counters (no
    // per-record bookkeeping on the workers' path).
    std::vector<uint64_t> counts(rings_);
    for (uint32_t r = 0; r < rings_; ++r)
      counts[r] = producer_->segment().ring(producer_->slot(), r).produced() - produced_at_begin_[r];
    if (!producer_->EndLaunch(end, counts)) Fail();
    producer_->CountLaunch(static_cast<uint64_t>(
        std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - launch_start_)
            .count()));
  }
  rings_ = 0;
  launch_mu_.unlock();
}

void ShmRecordSink::OnAllocation(uint64_t base, uint64_t size, transport::AllocationKind kind,
                                 std::string_view label) {
  if (!healthy() || detached_) return;
  if (!producer_->SendAllocation(base, size, kind, label)) Fail();
}

void ShmRecordSink::OnFree(uint64_t base) {
  if (!healthy() || detached_) return;
  if (!producer_->SendFree(base)) Fail();
}

void ShmRecordSink::OnSchedule(std::string_view policy, uint64_t seed, std::string_view arguments) {
  schedule_ = Schedule{std::string(policy), seed, std::string(arguments)};
  if (!healthy() || detached_) return;
  if (!producer_->SendSchedule(policy, seed, arguments)) Fail();
}

void ShmRecordSink::OnDiagnostic(std::string_view text) {
  if (!healthy() || detached_) return;
  if (!producer_->SendDiagnostic(text)) Fail();
}

void ShmRecordSink::OnLaunchNotRun(int32_t cuda_error, std::string_view mangled_kernel, std::string_view reason) {
  if (!healthy() || detached_) return;
  if (!producer_->SendLaunchNotRun(cuda_error, mangled_kernel, reason)) Fail();
}

void ShmRecordSink::OnMemoryError(const transport::MemoryErrorInfo& error) {
  if (!healthy() || detached_) return;
  if (!producer_->SendMemoryError(error.Encode())) Fail();
}

void ShmRecordSink::OnStreamOp(const transport::StreamOpInfo& op) {
  if (!healthy() || detached_) return;
  if (!producer_->SendStreamOp(op.Encode())) Fail();
}

void ShmRecordSink::Detach(int32_t status) {
  if (detached_.exchange(true)) return;
  if (healthy()) producer_->Detach(status);
}

}  // namespace barracuda::emu
