// Hand-written record streams for tests: one call per record.
#ifndef BARRACUDA_HOST_DETECTOR_REFERENCE_TESTS_TRACE_BUILDER_H_
#define BARRACUDA_HOST_DETECTOR_REFERENCE_TESTS_TRACE_BUILDER_H_

#include <initializer_list>
#include <utility>
#include <vector>

#include "device_logger/protocol.h"

namespace barracuda::reference::testing {

using protocol::Op;
using protocol::Record;
using protocol::Scope;
using protocol::Space;

constexpr uint32_t Lanes(std::initializer_list<uint32_t> lanes) {
  uint32_t m = 0;
  for (uint32_t l : lanes) m |= 1u << l;
  return m;
}

class TraceBuilder {
 public:
  TraceBuilder& Begin(uint32_t blocks, uint32_t threads_per_block) {
    Record r{};
    r.header.op = static_cast<uint8_t>(Op::kKernelBegin);
    r.kernel.grid[0] = blocks;
    r.kernel.grid[1] = r.kernel.grid[2] = 1;
    r.kernel.block[0] = threads_per_block;
    r.kernel.block[1] = r.kernel.block[2] = 1;
    r.kernel.launch_id = ++launches_;
    return Push(r);
  }
  TraceBuilder& End() {
    Record r{};
    r.header.op = static_cast<uint8_t>(Op::kKernelEnd);
    return Push(r);
  }
  // A memory or sync record where each listed lane accesses its address.
  TraceBuilder& Access(Op op, uint32_t warp, std::initializer_list<std::pair<uint32_t, uint64_t>> lanes,
                       uint8_t size = 4, Space space = Space::kGlobal, uint8_t flags = 0,
                       Scope scope = Scope::kNone) {
    Record r = Make(op, warp, 0);
    for (auto [lane, address] : lanes) {
      r.header.active_mask |= 1u << lane;
      r.addr[lane] = address;
    }
    r.header.access_size = size;
    r.header.flags = flags;
    r.header.space_scope = protocol::PackSpaceScope(space, scope);
    if (Stamped(op)) r.stamp = ++stamp_;
    return Push(r);
  }
  // Every lane of `mask` accesses the same address.
  TraceBuilder& All(Op op, uint32_t warp, uint32_t mask, uint64_t address, uint8_t size = 4,
                    Space space = Space::kGlobal, uint8_t flags = 0, Scope scope = Scope::kNone) {
    Record r = Make(op, warp, mask);
    for (uint32_t l = 0; l < 32; ++l) {
      if (mask >> l & 1) r.addr[l] = address;
    }
    r.header.access_size = size;
    r.header.flags = flags;
    r.header.space_scope = protocol::PackSpaceScope(space, scope);
    if (Stamped(op)) r.stamp = ++stamp_;
    return Push(r);
  }
  TraceBuilder& Rd(uint32_t warp, uint32_t lane, uint64_t a, uint8_t size = 4) { return Access(Op::kRead, warp, {{lane, a}}, size); }
  TraceBuilder& Wr(uint32_t warp, uint32_t lane, uint64_t a, uint8_t size = 4) { return Access(Op::kWrite, warp, {{lane, a}}, size); }
  TraceBuilder& Atm(uint32_t warp, uint32_t lane, uint64_t a, uint8_t size = 4) { return Access(Op::kAtomic, warp, {{lane, a}}, size); }
  TraceBuilder& Acq(uint32_t warp, uint32_t lane, uint64_t flag, Scope scope) {
    return Access(Op::kAcquire, warp, {{lane, flag}}, 4, Space::kGlobal, protocol::kFlagLoad, scope);
  }
  // Plain-store release (overwrites S_x) unless rmw.
  TraceBuilder& Rel(uint32_t warp, uint32_t lane, uint64_t flag, Scope scope, bool rmw = false) {
    const uint8_t flags = protocol::kFlagStore | (rmw ? protocol::kFlagLoad : 0);
    return Access(Op::kRelease, warp, {{lane, flag}}, 4, Space::kGlobal, flags, scope);
  }
  TraceBuilder& AcqRel(uint32_t warp, uint32_t lane, uint64_t flag, Scope scope) {
    return Access(Op::kAcqRel, warp, {{lane, flag}}, 4, Space::kGlobal, protocol::kFlagLoad | protocol::kFlagStore, scope);
  }
  TraceBuilder& Bar(uint32_t warp, uint32_t mask, uint32_t id = 0, uint32_t count = 0) {
    Record r = Make(Op::kBarrier, warp, mask);
    r.barrier = protocol::BarrierPayload{id, count};
    return Push(r);
  }
  TraceBuilder& Arrive(uint32_t warp, uint32_t mask, uint32_t id, uint32_t count) {
    Record r = Make(Op::kBarrierArrive, warp, mask);
    r.barrier = protocol::BarrierPayload{id, count};
    return Push(r);
  }
  TraceBuilder& If(uint32_t warp, uint32_t mask, uint32_t then_mask) {
    Record r = Make(Op::kIf, warp, mask);
    r.branch.then_mask = then_mask;
    return Push(r);
  }
  TraceBuilder& Else(uint32_t warp, uint32_t mask) { return Push(Make(Op::kElse, warp, mask)); }
  TraceBuilder& Fi(uint32_t warp, uint32_t mask) { return Push(Make(Op::kFi, warp, mask)); }
  TraceBuilder& WarpSync(uint32_t warp, uint32_t mask) { return Push(Make(Op::kWarpSync, warp, mask)); }
  TraceBuilder& Exit(uint32_t warp, uint32_t mask) { return Push(Make(Op::kExit, warp, mask)); }
  // A fence: flags 0 or kFlagLoad|kFlagStore = both sides, kFlagLoad = acquire
  // side only (fence.acquire), kFlagStore = release side only (fence.release).
  TraceBuilder& Fence(uint32_t warp, uint32_t mask, Scope scope, uint8_t flags = 0) {
    Record r = Make(Op::kFence, warp, mask);
    r.header.space_scope = protocol::PackSpaceScope(Space::kGlobal, scope);
    r.header.flags = flags;
    r.stamp = ++stamp_;
    return Push(r);
  }
  TraceBuilder& FenceAcq(uint32_t warp, uint32_t lane, Scope scope) { return Fence(warp, 1u << lane, scope, protocol::kFlagLoad); }
  TraceBuilder& FenceRel(uint32_t warp, uint32_t lane, Scope scope) { return Fence(warp, 1u << lane, scope, protocol::kFlagStore); }
  // Strong (kAtomic) accesses of one lane: ld.relaxed, st.relaxed, atom (RMW).
  TraceBuilder& StrongLd(uint32_t warp, uint32_t lane, uint64_t a, Scope scope, uint8_t size = 4, uint8_t extra = 0) {
    return Access(Op::kAtomic, warp, {{lane, a}}, size, Space::kGlobal, protocol::kFlagLoad | extra, scope);
  }
  TraceBuilder& StrongSt(uint32_t warp, uint32_t lane, uint64_t a, Scope scope, uint8_t size = 4, uint8_t extra = 0) {
    return Access(Op::kAtomic, warp, {{lane, a}}, size, Space::kGlobal, protocol::kFlagStore | extra, scope);
  }
  TraceBuilder& StrongRmw(uint32_t warp, uint32_t lane, uint64_t a, Scope scope, uint8_t size = 4) {
    return Access(Op::kAtomic, warp, {{lane, a}}, size, Space::kGlobal, protocol::kFlagLoad | protocol::kFlagStore, scope);
  }
  // Index the next record will get.
  uint64_t next_index() const { return records_.size(); }
  const std::vector<Record>& records() const { return records_; }

 private:
  // Strong accesses and fences carry sequence stamps (SEMANTICS.md).
  static bool Stamped(Op op) { return protocol::IsSyncOp(op) || op == Op::kAtomic; }
  Record Make(Op op, uint32_t warp, uint32_t mask) {
    Record r{};
    r.header.op = static_cast<uint8_t>(op);
    r.header.warp_id = warp;
    r.header.active_mask = mask;
    r.header.site_id = static_cast<uint32_t>(records_.size());
    return r;
  }
  TraceBuilder& Push(const Record& r) {
    records_.push_back(r);
    return *this;
  }
  std::vector<Record> records_;
  uint64_t launches_ = 0;
  uint64_t stamp_ = 0;
};

}  // namespace barracuda::reference::testing

#endif  // BARRACUDA_HOST_DETECTOR_REFERENCE_TESTS_TRACE_BUILDER_H_
