// Deterministic rounds: the same launch, seed and policy give the same
// execution, the same program output and the same records (stamps included)
// with any number of workers.
//
// Model (DMP/CoreDet-style quantum rounds with a serial phase):
// - A fixed number of slots (ScheduleOptions::resident_slots, independent of
//   the worker count) each hold one resident cluster (a block without
//   clusters) and own a run queue, a schedule policy seeded by the slot index
//   and one record stream (ring). Units enter free slots in slot order, only
//   between rounds.
// - Parallel phase: every slot runs its warps for a budget of quantum x
//   runnable warps, host threads taking slots by index. A warp stops before
//   any instruction that may communicate with another block (Inst::serial:
//   global or generic atomics, strong loads and stores, printf/malloc/free).
//   Within a phase blocks therefore meet only through weak accesses, and two
//   blocks' weak accesses to one location in one phase are unordered: a data
//   race, which the detector reports. Weak global stores stay in the slot's
//   PhaseStoreBuffer until the phase ends and are committed in slot order, so
//   even racy programs read the same values whatever the threads' timing.
// - Serial phase (one thread; slot order, then stop order within a slot, or
//   with the random policy a permutation drawn from the seed): each stopped
//   warp runs its one instruction, so atomics, flags, spin-waits, printf and
//   the device heap see one order that the seed fixes.
// - Records: the parallel phase's records wait in a buffer per slot with local
//   stamps; between the phases they get global stamps and reach the launch's
//   one record stream in slot order, followed by the serial phase's records
//   as they run. One stream in a fixed order is what makes the analysis, and
//   so the report, the same on every run: the detector's choice of which of
//   two unordered accesses came first follows the stream.
// Faults and deadlocks are reported for the first slot (in slot order) that
// had one when the round ended.
#include <algorithm>
#include <atomic>
#include <bit>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>

#include "absl/strings/str_cat.h"
#include "ptx_emulator/exec/fault_status.h"
#include "ptx_emulator/exec/launch_runner.h"
#include "ptx_emulator/exec/round_barrier.h"

namespace barracuda::emu {

void LaunchRunner::RunSlotTurn(Worker& slot, uint32_t quantum) {
  if (slot.admit != kNoUnit) {
    // Chosen between rounds (BetweenRounds), set up here on the slot's thread.
    AdmitCluster(slot, slot.admit);
    slot.admit = kNoUnit;
  }
  uint64_t budget = uint64_t{quantum} * slot.queue.size();
  while (budget != 0 && !slot.queue.empty()) {
    Warp* w = slot.queue[slot.policy->PickWarp(slot.queue.warps())];
    const uint64_t q = std::min<uint64_t>(budget, std::max<uint32_t>(1, slot.policy->Quantum(quantum)));
    const uint64_t ran = RunCounted(slot, *w, static_cast<uint32_t>(q));
    budget -= std::min(budget, std::max<uint64_t>(ran, 1));
    if (w->serial_pending && !w->faulted()) {
      slot.queue.Remove(w);
      slot.pending.push_back(w);
    }
    if (!AfterTurn(slot, w, false)) return;
  }
  slot.busy = !slot.queue.empty();
}

bool LaunchRunner::RunSerialOp(Worker& slot, Warp* w) {
  if (slot.tracer) slot.tracer->SetBuffered(false);  // global stamps, in this order
  w->serial_pending = false;
  w->serial_gate = false;
  w->store_buffer = nullptr;  // the serial phase sees device memory, committed
  const Inst& inst = w->frame().fn->code[w->top().pc];
  serial_phase_->Observe(*w, inst);
  // Only while a spin stall is suspected, and until one operation changed memory.
  const bool probe_writes = watch_serial_writes_ && !serial_changed_memory_;
  SerialWriteProbe probe;
  if (probe_writes) probe.Take(*w, inst, device_.memory().begin(), device_.memory().end());
  RunCounted(slot, *w, 1);
  if (probe_writes) serial_changed_memory_ = probe.Changed();
  ++serial_instructions_;
  w->serial_gate = true;
  w->store_buffer = slot.stores.get();
  if (w->state == WarpState::kRunnable && !w->queued && !w->faulted()) slot.queue.Add(w);
  if (slot.tracer) slot.tracer->SetBuffered(true);
  return AfterTurn(slot, w, false);
}

bool LaunchRunner::BetweenRounds(std::vector<Worker>& all_slots, RecordSink* sink, uint64_t& next_unit) {
  const std::span<Worker> slots(all_slots.data(), num_slots_);
  // The parallel phase's weak global stores reach device memory, in slot order.
  for (Worker& s : slots) s.stores->Commit();
  // The parallel phase's records: global stamps and the stream, in slot order.
  if (sink != nullptr) {
    uint64_t total = 0;
    for (const Worker& s : slots) total += s.tracer->local_stamps();
    uint64_t base = device_.stamps_.fetch_add(total, std::memory_order_seq_cst) + 1;
    for (Worker& s : slots) {
      const uint64_t n = s.tracer->local_stamps();
      s.tracer->Flush(base);
      base += n;
    }
  }
  const auto stopped = [&](const Worker& s) {
    if (s.fault != nullptr) {
      ReportFault(*s.fault);
      return true;
    }
    if (s.deadlock != nullptr) {
      ReportDeadlock(*s.deadlock);
      return true;
    }
    return false;
  };
  for (const Worker& s : slots)
    if (stopped(s)) return false;
  if (!WatchGridBarrier(slots, next_unit)) return false;
  const bool stalled = SpinStalled(slots, next_unit);
  watch_serial_writes_ = stalled;
  serial_changed_memory_ = false;
  // The serial phase: slot order, then the order the warps stopped in, as the
  // schedule policy orders and holds them (serial_phase.h: the order of
  // atomics and of flag hand-offs is what a schedule search must vary).
  serial_ops_.clear();
  serial_warps_.clear();
  for (Worker& s : slots) {
    for (Warp* w : s.pending) serial_ops_.emplace_back(&s, w), serial_warps_.push_back(w);
    s.pending.clear();
  }
  serial_phase_->Plan(serial_warps_, serial_order_, serial_held_);
  for (uint32_t i : serial_held_) serial_ops_[i].first->pending.push_back(serial_ops_[i].second);
  for (uint32_t i : serial_order_) {
    auto [slot, w] = serial_ops_[i];
    if (!RunSerialOp(*slot, w) && stopped(*slot)) return false;
  }
  bool any = !serial_held_.empty();  // a held operation runs next round
  bool admitted = false;
  for (Worker& s : slots) {
    if (s.resident.empty() && next_unit < total_units_) s.admit = next_unit++, admitted = true;
    any |= !s.resident.empty() || s.admit != kNoUnit;
  }
  CountStall(stalled && !admitted && serial_held_.empty());  // a hold ends by itself
  watch_serial_writes_ = false;
  Grow(all_slots, sink, next_unit);
  return any;
}

void LaunchRunner::InitSlot(Worker& slot, uint32_t index, RecordSink* sink) {
  slot.index = index;
  slot.policy = MakeSchedulePolicy(device_.schedule(), index);
  slot.stores = std::make_unique<PhaseStoreBuffer>(device_.memory().begin(), device_.memory().end());
  if (sink != nullptr) {
    slot.tracer = std::make_unique<Tracer>(sink, index % num_rings_, &device_.stamps_);
    slot.tracer->SetBuffered(true);
  }
}

void LaunchRunner::ReportTimeout(std::span<const Worker> slots, double seconds, uint64_t next_unit) {
  // Blocks spinning on memory nobody changes while others wait for a slot the
  // emulated GPU does not have: say so, since on a GPU the launch hangs too.
  std::string fit;
  if (spin_stall_score_ != 0 && next_unit < total_units_)
    fit = absl::StrCat("; the resident blocks spin waiting while ", total_units_ - next_unit, " of the grid's ",
                       total_units_, cluster_.count() == 1 ? " blocks" : " clusters",
                       " have not started: the emulated GPU (", device_.description().sm_count,
                       " SMs) holds ", max_slots_, " of them at once, and a grid that does not fit hangs on a GPU too");
  // Name the first resident block and where its first live warp is.
  for (const Worker& s : slots) {
    for (const Block* b : s.resident) {
      for (const auto& wp : b->warps) {
        const Warp& w = *wp;
        if (w.state == WarpState::kDone) continue;
        const uint32_t lane = static_cast<uint32_t>(std::countr_zero(w.live | 1u << 31));
        // Where: the PTX line users can find (the pc only when unknown).
        std::string at = absl::StrCat(" at pc ", w.cur_pc);
        if (w.function != nullptr && w.cur_pc < w.function->code.size() && w.function->code[w.cur_pc].ptx_line != 0)
          at = absl::StrCat(" at PTX line ", w.function->code[w.cur_pc].ptx_line, " of ", w.function->name, " (pc ",
                            w.cur_pc, ")");
        SetError(FaultStatus(FaultKind::kTimeout,
                             absl::StrCat("the launch ran longer than ", seconds,
                                          " s (--kernel-timeout): a wait that never ends? still running, e.g. ",
                                          Coordinates(*b, &w, lane), at, fit)));
        return;
      }
    }
  }
  SetError(FaultStatus(FaultKind::kTimeout, absl::StrCat("the launch ran longer than ", seconds, " s", fit)));
}

void LaunchRunner::RunRounds(RecordSink* sink) {
  const ScheduleOptions& opts = device_.schedule();
  const uint32_t quantum = std::max<uint32_t>(1, opts.quantum);
  serial_phase_ = std::make_unique<SerialPhase>(opts, launch_id_, device_.serial_steps_);
  // Every slot the launch may grow to exists (a Worker is small until used),
  // so growing never moves one; the first num_slots_ are in use.
  std::vector<Worker> slots(max_slots_);
  for (uint32_t i = 0; i < num_slots_; ++i) InitSlot(slots[i], i, sink);
  const uint32_t threads = std::min(std::max<uint32_t>(1, opts.workers), max_slots_);
  uint64_t next_unit = 0;
  for (uint32_t i = 0; i < num_slots_ && next_unit < total_units_; ++i) slots[i].admit = next_unit++;

  // Threads take slots in turn from one counter: a slot's turn depends only on
  // the slot, so which thread runs it changes nothing but the balance.
  std::atomic<uint32_t> next_slot{0};
  RoundBarrier barrier(threads);
  bool finished = false;
  const bool stats = std::getenv("BARRACUDA_EMU_ROUND_STATS") != nullptr;
  const auto start = std::chrono::steady_clock::now();
  std::vector<uint64_t> busy_ns(threads), wait_ns(threads);
  uint64_t between_ns = 0, rounds = 0;
  const auto now = [] {
    return static_cast<uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
  };
  const auto body = [&](uint32_t t) {
    for (;;) {
      const uint64_t t0 = stats ? now() : 0;
      // num_slots_ changes only between the rounds (Grow), published by the barrier.
      for (uint32_t i = next_slot.fetch_add(1, std::memory_order_relaxed); i < num_slots_;
           i = next_slot.fetch_add(1, std::memory_order_relaxed))
        RunSlotTurn(slots[i], quantum);
      const uint64_t t1 = stats ? now() : 0;
      barrier.Wait();
      const uint64_t t2 = stats ? now() : 0;
      if (t == 0) {
        finished = !BetweenRounds(slots, sink, next_unit);
        if (!finished && opts.kernel_timeout_s > 0 &&
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() > opts.kernel_timeout_s) {
          ReportTimeout(std::span<const Worker>(slots.data(), num_slots_), opts.kernel_timeout_s, next_unit);
          finished = true;
        }
        next_slot.store(0, std::memory_order_relaxed);  // published by the barrier
        ++rounds;
        if (stats) between_ns += now() - t2;
      }
      barrier.Wait();
      if (stats) busy_ns[t] += t1 - t0, wait_ns[t] += t2 - t1;
      if (finished) return;
    }
  };
  std::vector<std::thread> pool;
  for (uint32_t t = 1; t < threads; ++t) pool.emplace_back(body, t);
  body(0);
  for (std::thread& t : pool) t.join();
  if (stats) {
    std::fprintf(stderr, "rounds %llu between %.1f ms", static_cast<unsigned long long>(rounds), between_ns / 1e6);
    for (uint32_t t = 0; t < threads; ++t) std::fprintf(stderr, " | t%u busy %.1f wait %.1f ms", t, busy_ns[t] / 1e6, wait_ns[t] / 1e6);
    std::fprintf(stderr, "\n");
  }
  serial_phase_->Finish();
  device_.rounds_.fetch_add(rounds, std::memory_order_relaxed);
  device_.serial_instructions_.fetch_add(serial_instructions_, std::memory_order_relaxed);
  for (const Worker& s : slots) {
    device_.warp_instructions_.fetch_add(s.warp_instructions, std::memory_order_relaxed);
    device_.thread_instructions_.fetch_add(s.thread_instructions, std::memory_order_relaxed);
  }
}

}  // namespace barracuda::emu
