#include "ptx_emulator/exec/serial_phase.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <numeric>

#include "ptx_emulator/exec/warp.h"

namespace barracuda::emu {

SerialPhase::SerialPhase(const ScheduleOptions& options, uint64_t launch_id, uint64_t& process_steps)
    : options_(options),
      launch_id_(launch_id),
      process_steps_(process_steps),
      // The random policy's stream, as before this class existed (a seed's
      // schedule stays what it was).
      rng_(options.seed ^ (0x9e3779b97f4a7c15ull * launch_id)) {
  using Policy = ScheduleOptions::Policy;
  if (options.policy == Policy::kConflictDelay) {
    for (const DelayPoint& d : options.delays)
      if (d.launch == launch_id) pending_delays_.insert({d.block, d.site});
  }
  if (options.policy == Policy::kPct && options.pct_depth > 1 && options.pct_horizon != 0) {
    // The same change points in every launch's planner: they are steps of the
    // whole process, drawn from the seed alone.
    SplitMix64 points(options.seed ^ 0x5851f42d4c957f2dull);
    for (uint32_t i = 1; i < options.pct_depth; ++i) change_points_.push_back(1 + points.Next() % options.pct_horizon);
    std::sort(change_points_.begin(), change_points_.end());
  }
}

uint64_t SerialPhase::Priority(uint32_t block) {
  // Lowered blocks sit below every other, the latest lowest; the rest have a
  // random priority drawn from (seed, launch, block).
  if (auto it = lowered_.find(block); it != lowered_.end()) return it->second;
  SplitMix64 r(options_.seed ^ (0x632be59bd9b4e019ull * launch_id_) ^ (0xd1b54a32d192ed03ull * (block + 1)));
  return r.Next() | (uint64_t{1} << 63);
}

void SerialPhase::Plan(std::span<Warp* const> ops, std::vector<uint32_t>& order, std::vector<uint32_t>& held) {
  using Policy = ScheduleOptions::Policy;
  order.resize(ops.size());
  std::iota(order.begin(), order.end(), 0u);
  held.clear();
  // A policy_factory (tests' own warp policies) keeps the serial phase in slot order.
  if (options_.policy == Policy::kRandom && !options_.policy_factory) {
    for (size_t i = order.size(); i > 1; --i) std::swap(order[i - 1], order[rng_.Next() % i]);
  } else if (options_.policy == Policy::kPct) {
    std::vector<uint64_t> priority(ops.size());
    for (size_t i = 0; i < ops.size(); ++i) priority[i] = Priority(ops[i]->block->linear);
    // Ties keep slot order. std::sort on a total key, not stable_sort: libstdc++
    // 12's stable_sort warns under clang 19.
    std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
      return priority[a] != priority[b] ? priority[a] > priority[b] : a < b;
    });
  }
  // Holds: an operation held long enough runs now (after the others),
  // whatever the policy. Every operation planned is one step (PCT's change
  // points count them).
  std::vector<uint32_t> now, released;
  for (uint32_t i : order) {
    Warp* w = ops[i];
    if (auto it = held_.find(w); it != held_.end()) {
      if (++it->second >= std::max<uint32_t>(1, options_.hold_rounds)) {
        held_.erase(it);
        released.push_back(i);
      } else {
        held.push_back(i);
      }
      continue;
    }
    const uint64_t step = ++process_steps_;
    bool hold = false;
    if (options_.policy == Policy::kConflictDelay && !pending_delays_.empty()) {
      const Inst& in = w->frame().fn->code[w->top().pc];
      hold = pending_delays_.erase(OpKey{w->block->linear, in.site}) != 0;
    } else if (options_.policy == Policy::kPct &&
               std::binary_search(change_points_.begin(), change_points_.end(), step)) {
      hold = true;
      const uint64_t rank = (uint64_t{1} << 62) - lowered_.size();  // below every block lowered before
      lowered_[w->block->linear] = rank;
    }
    if (hold) held_.emplace(w, 0);
    (hold ? held : now).push_back(i);
  }
  now.insert(now.end(), released.begin(), released.end());
  order = std::move(now);
}

std::optional<PendingAccess> PendingMemoryAccess(const Warp& w, const Inst& in) {
  if (in.address_operand == 0) return std::nullopt;
  uint32_t exec = const_cast<Warp&>(w).top().mask;
  if (in.guard != kNoPred) exec &= in.guard_negated ? ~w.preds[in.guard] : w.preds[in.guard];
  if (exec == 0) return std::nullopt;
  return PendingAccess{exec, mem::MakeAddress(in.ops[in.address_operand - 1], w)};
}

void SerialPhase::Observe(const Warp& w, const Inst& in) {
  if (options_.conflicts_out.empty()) return;
  const std::optional<PendingAccess> pending = PendingMemoryAccess(w, in);
  if (!pending || pending->address.frame) return;
  const uint32_t exec = pending->exec;
  const mem::AddressOperand& a = pending->address;
  const OpKey key{w.block->linear, in.site};
  auto [it, fresh] = seen_.try_emplace(key);
  if (fresh) seen_order_.push_back(key);
  const bool write = in.opcode != ptx::Opcode::kLd;
  for (uint32_t m = exec; m != 0; m &= m - 1) {
    const uint64_t address = a.At(static_cast<uint32_t>(__builtin_ctz(m))) & ~uint64_t{3};  // 4-byte granules
    auto [t, first] = touches_.try_emplace(address, Touch{w.block->linear, false, write});
    if (!first) {
      t->second.many_blocks |= t->second.first_block != w.block->linear;
      t->second.written |= write;
    }
    // A few addresses per (block, site) say whether it conflicts; spin loops
    // revisit the same ones.
    std::vector<uint64_t>& mine = it->second;
    if (mine.size() < 64 && std::find(mine.begin(), mine.end(), address) == mine.end()) mine.push_back(address);
  }
}

void SerialPhase::Finish() {
  if (options_.conflicts_out.empty()) return;
  FILE* f = std::fopen(options_.conflicts_out.c_str(), "a");
  if (f == nullptr) return;
  for (const OpKey& key : seen_order_) {
    for (uint64_t address : seen_[key]) {
      const Touch& t = touches_[address];
      if (!t.many_blocks || !t.written) continue;
      std::fprintf(f, "conflict %llu %u %u\n", static_cast<unsigned long long>(launch_id_), key.block, key.site);
      break;
    }
  }
  std::fprintf(f, "steps %llu\n", static_cast<unsigned long long>(process_steps_));
  std::fclose(f);
}

}  // namespace barracuda::emu
