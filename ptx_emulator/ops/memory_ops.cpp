// ld / ldu / st of every width, signedness, vector shape and state space;
// fence / membar; prefetch, prefetchu, applypriority, discard (no-ops).
// SelectMemoryOp also asks atomic_ops.cpp (atom, red) and address_ops.cpp
// (cvta, isspacep).
//
// A handler resolves every lane's address first (alignment, then the space's
// bounds) and faults before touching memory, then performs the accesses, then
// emits records (one per vector element and per space the lanes went to).
// Cache operators, eviction priorities, .nc, .volatile and .relaxed change
// nothing in the emulator's single coherent memory; a vector of up to 16
// bytes is one host access per lane, single-copy atomic as on a GPU; .acquire/.release use the
// matching host memory order so that CUDA code relying on them works across
// the host threads running blocks.
#include <algorithm>

#include "ptx_emulator/core/handlers.h"
#include "ptx_emulator/core/phase_store_buffer.h"
#include "ptx_emulator/ops/bulk_copy.h"
#include "ptx_emulator/ops/mem_access.h"

namespace barracuda::emu {
namespace {

using mem::ForLanes;
using mem::LaneAccesses;
using mem::Space;
using mem::Where;

constexpr uint8_t kOpWrite = static_cast<uint8_t>(protocol::Op::kWrite);
constexpr uint8_t kOpFence = static_cast<uint8_t>(protocol::Op::kFence);

// Fast inline resolution for the common spaces; everything else goes through
// mem::Resolve.
template <Space S>
inline uint8_t* ResolveLane(WarpCtx& ctx, const Inst& inst, bool frame, uint32_t lane, uint64_t addr,
                            uint32_t size, bool write, Where& where, uint64_t& log) {
  if constexpr (S == Space::kShared) {
    if (size <= ctx.shared_bytes && addr <= ctx.shared_bytes - size) {
      where = Where::kShared;
      log = protocol::SharedAddress(ctx.block_linear, static_cast<uint32_t>(addr));
      return ctx.shared_base + addr;
    }
  } else if constexpr (S == Space::kGeneric) {
    // The common generic targets inline: the block's shared window, then device
    // memory (local and param windows are outside the arena: exec/launch.cpp).
    const uint64_t off = addr - reinterpret_cast<uintptr_t>(ctx.shared_base);
    if (off < ctx.shared_bytes) {
      if (size <= ctx.shared_bytes - off) {
        where = Where::kShared;
        log = protocol::SharedAddress(ctx.block_linear, static_cast<uint32_t>(off));
        return ctx.shared_base + off;
      }
    } else if (ctx.memory != nullptr && ctx.memory->Addressable(addr, size)) {
      where = Where::kGlobal;
      log = addr;
      return reinterpret_cast<uint8_t*>(addr);
    }
  } else if constexpr (S == Space::kGlobal) {
    if (ctx.memory != nullptr && ctx.memory->Addressable(addr, size)) {
      where = Where::kGlobal;
      log = addr;
      return reinterpret_cast<uint8_t*>(addr);
    }
  }
  return mem::Resolve(ctx, inst, S, frame, lane, addr, size, write, where, log);
}

// Pass 1 of every access: per-lane host pointers for `total` bytes; records'
// addresses when `trace`. False after a fault.
template <Space S>
bool ResolveLanes(const Inst& inst, WarpCtx& ctx, uint32_t exec, const Opnd& address, uint32_t total, bool write,
                bool trace, uint8_t** ptr, LaneAccesses& acc) {
  const mem::AddressOperand a = mem::MakeAddress(address, ctx);
  if constexpr (S == Space::kShared || S == Space::kGlobal) {
    // Fast path: a branch-free check of every lane, then the per-lane path
    // below only to report a fault. Measured (emu_memory_bench, CPU time,
    // busy 2-core box): ld.shared.u32 over a full warp 166 -> 52 ns,
    // ld.global.u32 54 ns, generic 67 ns, st.shared 60 ns. Traced accesses
    // take it too (record addresses filled after the check; side by side on
    // 2026-11-28): st.global traced 276 -> 167-177 ns (170-180 before
    // memcheck), ld.shared traced 150 -> 118-120 ns.
    {
      uint64_t bad = 0;
      uint64_t base, lo, span;  // integers: an out-of-range lane must not form a pointer
      if constexpr (S == Space::kShared) {
        base = reinterpret_cast<uintptr_t>(ctx.shared_base), lo = 0, span = ctx.shared_bytes;
      } else {
        base = 0, lo = ctx.memory ? ctx.memory->begin() : 1, span = ctx.memory ? ctx.memory->end() - lo : 0;
      }
      if (total <= span) {
        const uint64_t limit = span - total;
        uint64_t min_addr = UINT64_MAX, max_addr = 0;
        ForLanes(exec, [&](uint32_t l) {
          const uint64_t addr = mem::SpaceAddress(S, a.At(l));
          bad |= (addr & (total - 1)) | static_cast<uint64_t>(addr - lo > limit);
          ptr[l] = reinterpret_cast<uint8_t*>(base + addr);
          min_addr = std::min(min_addr, addr);
          max_addr = std::max(max_addr, addr);
        });
        if constexpr (S == Space::kGlobal) {
          // Inside live allocations (memcheck): the warp's footprint at once
          // when it spans few granules, else one map load per lane. Measured
          // (emu_memory_bench BM_LdGlobal, 16-byte stride, side by side):
          // 46-51 ns per warp before memcheck, 90-97 ns checking each lane
          // with Check, 60-64 ns with the span check.
          if (bad == 0 && ctx.memory->QuickRejectSpan(min_addr, max_addr + total) != 0)
            ForLanes(exec, [&](uint32_t l) { bad |= ctx.memory->QuickReject(reinterpret_cast<uint64_t>(ptr[l]), total); });
        }
        if (bad == 0) {
          if (trace) {
            if constexpr (S == Space::kShared)
              ForLanes(exec, [&](uint32_t l) {
                acc.Add(l, Where::kShared,
                        protocol::SharedAddress(ctx.block_linear, static_cast<uint32_t>(ptr[l] - ctx.shared_base)));
              });
            else
              ForLanes(exec, [&](uint32_t l) { acc.Add(l, Where::kGlobal, reinterpret_cast<uint64_t>(ptr[l])); });
          }
          return true;
        }
      }
    }
  } else if constexpr (S == Space::kGeneric) {
    // Fast path (no tracing) for generic addresses that all land in the shared
    // window or in device memory; local/param lanes take the per-lane path.
    if (!trace && ctx.memory != nullptr && total <= ctx.memory->end() - ctx.memory->begin()) {
      const uint64_t shared = reinterpret_cast<uintptr_t>(ctx.shared_base);
      const uint64_t shared_limit = total <= ctx.shared_bytes ? ctx.shared_bytes - total : 0;
      const bool shared_fits = total <= ctx.shared_bytes;
      const uint64_t lo = ctx.memory->begin(), limit = ctx.memory->end() - lo - total;
      uint64_t bad = 0;
      ForLanes(exec, [&](uint32_t l) {
        const uint64_t addr = a.At(l);
        const bool in_shared = shared_fits && addr - shared <= shared_limit;
        const bool in_global = addr - lo <= limit;
        bad |= (addr & (total - 1)) | static_cast<uint64_t>(!(in_shared || in_global));
        if (in_global && !in_shared)  // inside live allocations (memcheck)
          bad |= ctx.memory->QuickReject(addr, total);
        ptr[l] = reinterpret_cast<uint8_t*>(addr);
      });
      if (bad == 0) return true;
    }
  }
  bool ok = true;
  ForLanes(exec, [&](uint32_t l) {
    if (!ok) return;
    const uint64_t addr = mem::SpaceAddress(S, a.At(l));
    if ((addr & (total - 1)) != 0) {
      mem::RaiseMisaligned(ctx, inst, l, addr, total, S, write);
      ok = false;
      return;
    }
    Where where;
    uint64_t log;
    ptr[l] = ResolveLane<S>(ctx, inst, a.frame, l, addr, total, write, where, log);
    if (ptr[l] == nullptr) {
      ok = false;
      return;
    }
    if (trace) acc.Add(l, where, log);
  });
  return ok;
}

// ResolveLanes, then (deterministic rounds) the slot's private copies of the
// global pages it stored to in this phase.
template <Space S>
bool ResolveAll(const Inst& inst, WarpCtx& ctx, uint32_t exec, const Opnd& address, uint32_t total, bool write,
                bool trace, uint8_t** ptr, LaneAccesses& acc) {
  if (!ResolveLanes<S>(inst, ctx, exec, address, total, write, trace, ptr, acc)) return false;
  if constexpr (S == Space::kGlobal || S == Space::kGeneric) {
    if (ctx.store_buffer != nullptr && exec != 0) ctx.store_buffer->Redirect(ptr, exec, write, total);
  }
  return true;
}

inline uint64_t Extend(uint64_t v, uint32_t size, bool is_signed) {
  if (!is_signed) return v;
  switch (size) {
    case 1: return static_cast<uint64_t>(static_cast<int64_t>(static_cast<int8_t>(v)));
    case 2: return static_cast<uint64_t>(static_cast<int64_t>(static_cast<int16_t>(v)));
    case 4: return static_cast<uint64_t>(static_cast<int64_t>(static_cast<int32_t>(v)));
    default: return v;
  }
}

// Element k (kSize bytes, kSize < 8 or 8) of a vector held in two
// little-endian words.
inline uint64_t ElementOf(const uint64_t word[2], uint32_t k, uint32_t size) {
  const uint32_t byte = size * k;
  const uint64_t w = word[byte / 8] >> (8 * (byte % 8));
  return size >= 8 ? w : w & ((uint64_t{1} << (8 * size)) - 1);
}
inline void PutElement(uint64_t word[2], uint32_t k, uint32_t size, uint64_t v) {
  const uint32_t byte = size * k;
  if (size < 8) v &= (uint64_t{1} << (8 * size)) - 1;
  word[byte / 8] |= v << (8 * (byte % 8));
}

// Records of one warp access: per element, per space present. `values`
// (stores only) gives each element's per-lane values for the same-value flag.
struct RecordPlan {
  protocol::Record records[2 * 8];
  int count = 0;
};

void PlanRecords(const Inst& inst, const WarpCtx& ctx, const LaneAccesses& acc, uint32_t elements,
                 uint32_t elem_size, RecordPlan& plan) {
  for (uint32_t k = 0; k < elements; ++k) {
    for (int s = 0; s < 2; ++s) {
      const uint32_t mask = s == 0 ? acc.global_mask : acc.shared_mask;
      if (mask == 0) continue;
      protocol::Record& r = plan.records[plan.count++];
      r = mem::MakeRecord(inst, ctx, mask, s == 0 ? protocol::Space::kGlobal : protocol::Space::kShared,
                          elem_size);
      for (uint32_t m = mask; m; m &= m - 1) {
        const uint32_t l = Lane(m);
        r.addr[l] = acc.log[l] + uint64_t{k} * elem_size;
      }
    }
  }
}

// kFlagSameValue: no two lanes of the record wrote different values to
// overlapping bytes. Accesses of one record are all elem_size bytes and
// aligned to it, so they overlap only when their addresses are equal.
bool SameValue(const protocol::Record& r, const uint64_t* const* values, uint32_t k, uint32_t elem_size) {
  const uint32_t mask = r.header.active_mask;
  const uint64_t* v = values[k];
  const uint64_t* hi = elem_size == 16 ? values[k] + kLanes : nullptr;  // second half of b128
  // Common cases in O(lanes): addresses increasing with the lane (strided
  // stores), or one value everywhere (flags).
  bool increasing = true, uniform = true;
  uint64_t prev_addr = 0, first = 0;
  bool seen = false;
  const uint64_t width_all = elem_size >= 8 ? ~uint64_t{0} : (uint64_t{1} << (8 * elem_size)) - 1;
  for (uint32_t m = mask; m; m &= m - 1) {
    const uint32_t l = Lane(m);
    if (seen) {
      increasing = increasing && r.addr[l] > prev_addr;
      uniform = uniform && (v[l] & width_all) == first && (!hi || hi[l] == hi[Lane(mask)]);
    } else {
      first = v[l] & width_all;
      seen = true;
    }
    prev_addr = r.addr[l];
  }
  if (increasing || uniform) return true;
  for (uint32_t m = mask; m; m &= m - 1) {
    const uint32_t a = Lane(m);
    for (uint32_t n = m & (m - 1); n; n &= n - 1) {
      const uint32_t b = Lane(n);
      if (r.addr[a] != r.addr[b]) continue;
      const uint64_t width_mask = elem_size >= 8 ? ~uint64_t{0} : (uint64_t{1} << (8 * elem_size)) - 1;
      if (((v[a] ^ v[b]) & width_mask) != 0) return false;
      if (hi && hi[a] != hi[b]) return false;
    }
  }
  return true;
}

// kFlagValue: every active lane of the record stored one value (kSize <= 8);
// `v` gets it, masked to the access size.
bool UniformValue(const protocol::Record& r, const uint64_t* values, uint32_t size, uint64_t& v) {
  const uint64_t width = size >= 8 ? ~uint64_t{0} : (uint64_t{1} << (8 * size)) - 1;
  const uint32_t mask = r.header.active_mask;
  if (mask == 0) return false;
  v = values[Lane(mask)] & width;
  for (uint32_t m = mask & (mask - 1); m; m &= m - 1) {
    if ((values[Lane(m)] & width) != v) return false;
  }
  return true;
}

// ---------------------------------------------------------------- ld / ldu
template <Space S, uint32_t kSize, bool kSigned>
void Load(const Inst& inst, WarpCtx& ctx, uint32_t exec) {
  const Opnd& dst = inst.ops[0];
  const uint32_t elements = dst.kind == Opnd::Kind::kVector ? dst.count : 1;
  const uint32_t total = kSize * elements;
  const uint8_t op = AccessOp(inst.aux);
  const bool trace = ctx.tracer != nullptr && op != kAuxNotLogged;
  uint8_t* ptr[kLanes];
  LaneAccesses acc;
  if (!ResolveAll<S>(inst, ctx, exec, inst.ops[1], total, false, trace, ptr, acc)) return;
  const ValueRef* refs = mem::ValueRefs(dst, ctx);
  // A constant memory order per instantiation (see Store).
  auto load_with = [&]<std::memory_order order>() {
    if constexpr (kSize < 16) {
      if (elements > 1 && total <= 16) {
        // The whole vector in one host access (see mem::Load16): element k
        // is bytes [kSize*k, kSize*(k+1)), little-endian. ld.global.v4.u32
        // over a full warp: 151 -> 168 ns (emu_memory_bench, busy 2-core box).
        uint64_t* d[8];
        for (uint32_t k = 0; k < elements; ++k) d[k] = ctx.Dst(refs[k]);
        ForLanes(exec, [&](uint32_t l) {
          uint64_t word[2] = {0, 0};
          if (total == 16) {
            mem::Load16(ptr[l], word[0], word[1], order);
          } else {
            word[0] = mem::LoadBytes(ptr[l], total, order);
          }
          for (uint32_t k = 0; k < elements; ++k)
            d[k][l] = Extend(ElementOf(word, k, kSize), kSize, kSigned);
        });
        return;
      }
    }
    for (uint32_t k = 0; k < elements; ++k) {
      if constexpr (kSize == 16) {
        // .b128: the register is two consecutive slots, low half first.
        uint64_t* lo = ctx.Dst(refs[k]);
        uint64_t* hi = ctx.Dst(refs[k] + 1);
        ForLanes(exec, [&](uint32_t l) { mem::Load16(ptr[l] + 16 * k, lo[l], hi[l], order); });
      } else {
        uint64_t* d = ctx.Dst(refs[k]);
        ForLanes(exec, [&](uint32_t l) {
          d[l] = Extend(mem::LoadBytes(ptr[l] + kSize * k, kSize, order), kSize, kSigned);
        });
      }
    }
  };
  if (mem::IsAcquire(op)) {
    load_with.template operator()<std::memory_order_acquire>();
  } else {
    load_with.template operator()<std::memory_order_relaxed>();
  }
  if (!trace) return;
  RecordPlan plan;
  PlanRecords(inst, ctx, acc, elements, kSize, plan);
  for (int i = 0; i < plan.count; ++i) {
    if (mem::IsStrong(op)) plan.records[i].stamp = ctx.tracer->Stamp();  // acquire, strong: after the load
    ctx.tracer->Emit(plan.records[i]);
  }
}

// ---------------------------------------------------------------- st
template <Space S, uint32_t kSize>
void Store(const Inst& inst, WarpCtx& ctx, uint32_t exec) {
  const Opnd& src = inst.ops[1];
  const uint32_t elements = src.kind == Opnd::Kind::kVector ? src.count : 1;
  const uint32_t total = kSize * elements;
  const uint8_t op = AccessOp(inst.aux);
  const bool trace = ctx.tracer != nullptr && op != kAuxNotLogged;
  uint8_t* ptr[kLanes];
  LaneAccesses acc;
  if (!ResolveAll<S>(inst, ctx, exec, inst.ops[0], total, true, trace, ptr, acc)) return;
  const bool release = mem::IsRelease(op);
  const ValueRef* refs = mem::ValueRefs(src, ctx);
  const uint64_t* values[8];
  for (uint32_t k = 0; k < elements; ++k) values[k] = ctx.Src(refs[k]);

  // The memory order must be a constant: a run-time one compiles to a
  // seq_cst xchg per lane (st.shared.u32 took 119 ns instead of ~45).
  auto store_with = [&]<std::memory_order order>() {
    if constexpr (kSize < 16) {
      if (elements > 1 && total <= 16) {
        // One host access per lane, as in Load.
        ForLanes(exec, [&](uint32_t l) {
          uint64_t word[2] = {0, 0};
          for (uint32_t k = 0; k < elements; ++k) PutElement(word, k, kSize, values[k][l]);
          if (total == 16) {
            mem::Store16(ptr[l], word[0], word[1], order);
          } else {
            mem::StoreBytes(ptr[l], total, word[0], order);
          }
        });
        return;
      }
    }
    for (uint32_t k = 0; k < elements; ++k) {
      const uint64_t* v = values[k];
      if constexpr (kSize == 16) {
        const uint64_t* hi = ctx.Src(refs[k] + 1);
        ForLanes(exec, [&](uint32_t l) { mem::Store16(ptr[l] + 16 * k, v[l], hi[l], order); });
      } else {
        ForLanes(exec, [&](uint32_t l) { mem::StoreBytes(ptr[l] + kSize * k, kSize, v[l], order); });
      }
    }
  };
  auto store_all = [&] {
    if (release) {
      store_with.template operator()<std::memory_order_release>();
    } else {
      store_with.template operator()<std::memory_order_relaxed>();
    }
  };
  if (!trace) {
    store_all();
    return;
  }
  RecordPlan plan;
  PlanRecords(inst, ctx, acc, elements, kSize, plan);
  if (mem::IsStrong(op)) {
    // A release (or any strong store) takes its stamp before its store becomes visible.
    std::lock_guard<std::mutex> lock(mem::ReleaseMutex());
    for (int i = 0; i < plan.count; ++i) plan.records[i].stamp = ctx.tracer->Stamp();
    store_all();
  } else {
    store_all();
  }
  const int per_element = plan.count / static_cast<int>(elements);
  for (int i = 0; i < plan.count; ++i) {
    protocol::Record& r = plan.records[i];
    const uint32_t k = static_cast<uint32_t>(i / std::max(per_element, 1));
    if (op == kOpWrite && SameValue(r, values, k, kSize)) r.header.flags |= protocol::kFlagSameValue;
    if constexpr (kSize <= 8) {
      uint64_t v;
      if (op == kOpWrite && UniformValue(r, values[k], kSize, v)) {
        r.header.flags |= protocol::kFlagValue;
        r.stamp = v;
      }
    }
    ctx.tracer->Emit(r);
  }
}

// ---------------------------------------------------------------- fences, hints
void Fence(const Inst& inst, WarpCtx& ctx, uint32_t exec) {
  std::atomic_thread_fence(std::memory_order_seq_cst);
  if (ctx.tracer == nullptr || AccessOp(inst.aux) != kOpFence || exec == 0) return;
  protocol::Record r = mem::MakeRecord(inst, ctx, exec, protocol::Space::kGlobal, 0);
  r.stamp = ctx.tracer->Stamp();
  ctx.tracer->Emit(r);
}

// fence.proxy.async{.space} (and its uni-directional async::generic forms):
// orders the lane's generic-proxy accesses before its later async-proxy ones
// (bulk copies, TMA). No memory ordering between threads: a kFence record with
// kFlagAsyncProxy, which the detector keeps apart from fences
// (SEMANTICS.md "Proxies").
void ProxyFence(const Inst& inst, WarpCtx& ctx, uint32_t exec) {
  if (ctx.tracer == nullptr || exec == 0) return;
  ctx.tracer->Emit(mem::MakeRecord(inst, ctx, exec, protocol::Space::kGlobal, 0, protocol::Op::kFence,
                                   protocol::kFlagAsyncProxy, protocol::Scope::kNone));
}

void NoOp(const Inst&, WarpCtx&, uint32_t) {}

// ---------------------------------------------------------------- selection
template <Space S>
Handler LoadFor(uint32_t size, bool is_signed) {
  switch (size) {
    case 1: return is_signed ? &Load<S, 1, true> : &Load<S, 1, false>;
    case 2: return is_signed ? &Load<S, 2, true> : &Load<S, 2, false>;
    case 4: return is_signed ? &Load<S, 4, true> : &Load<S, 4, false>;
    case 8: return &Load<S, 8, false>;
    case 16: return &Load<S, 16, false>;
    default: return nullptr;
  }
}
template <Space S>
Handler StoreFor(uint32_t size) {
  switch (size) {
    case 1: return &Store<S, 1>;
    case 2: return &Store<S, 2>;
    case 4: return &Store<S, 4>;
    case 8: return &Store<S, 8>;
    case 16: return &Store<S, 16>;
    default: return nullptr;
  }
}
Handler LoadHandler(Space s, uint32_t size, bool is_signed) {
  switch (s) {
    case Space::kGeneric: return LoadFor<Space::kGeneric>(size, is_signed);
    case Space::kGlobal: return LoadFor<Space::kGlobal>(size, is_signed);
    case Space::kShared: return LoadFor<Space::kShared>(size, is_signed);
    case Space::kLocal: return LoadFor<Space::kLocal>(size, is_signed);
    case Space::kParam: return LoadFor<Space::kParam>(size, is_signed);
    case Space::kConst: return LoadFor<Space::kConst>(size, is_signed);
  }
  return nullptr;
}
Handler StoreHandler(Space s, uint32_t size) {
  switch (s) {
    case Space::kGeneric: return StoreFor<Space::kGeneric>(size);
    case Space::kGlobal: return StoreFor<Space::kGlobal>(size);
    case Space::kShared: return StoreFor<Space::kShared>(size);
    case Space::kLocal: return StoreFor<Space::kLocal>(size);
    case Space::kParam: return StoreFor<Space::kParam>(size);
    case Space::kConst: return nullptr;  // st.const does not exist
  }
  return nullptr;
}

bool IsDataOperand(const Opnd& o) {
  return o.kind == Opnd::Kind::kValue || o.kind == Opnd::Kind::kVector || o.kind == Opnd::Kind::kSink;
}

absl::StatusOr<bool> SelectLoadStore(const ptx::Instruction& ir, Inst& inst) {
  const bool is_store = ir.op == ptx::Opcode::kSt;
  const ptx::ModifierInfo& m = ir.info;
  if (m.space == ptx::StateSpace::kTex || m.space == ptx::StateSpace::kReg || m.space == ptx::StateSpace::kSreg)
    return mem::UnimplementedForm(ir, "state space not addressable by ld/st");
  const Space space = mem::SpaceOf(m.space);
  if (m.num_types != 1) return mem::UnimplementedForm(ir, "exactly one type modifier expected");
  const uint32_t size = ptx::TypeSize(m.type());
  if (size != 1 && size != 2 && size != 4 && size != 8 && size != 16)
    return mem::UnimplementedForm(ir, "type not loadable/storable");
  if (inst.num_ops < 2) return mem::UnimplementedForm(ir, "missing operands");
  const Opnd& address = inst.ops[is_store ? 0 : 1];
  const Opnd& data = inst.ops[is_store ? 1 : 0];
  if (address.kind != Opnd::Kind::kAddress) return mem::UnimplementedForm(ir, "address operand expected");
  if (!IsDataOperand(data)) return mem::UnimplementedForm(ir, "register or vector operand expected");
  const uint32_t elements = data.kind == Opnd::Kind::kVector ? data.count : 1;
  if (elements != m.vector_width) return mem::UnimplementedForm(ir, "vector operand does not match the .vN modifier");
  if (elements != 1 && elements != 2 && elements != 4 && elements != 8)
    return mem::UnimplementedForm(ir, "vector width not supported");
  if (elements > 1 && size == 16) return mem::UnimplementedForm(ir, "vectors of .b128");
  if (is_store && data.kind == Opnd::Kind::kSink) return mem::UnimplementedForm(ir, "store of `_`");
  const bool is_signed = ptx::IsSignedInt(m.type());
  inst.fn = is_store ? StoreHandler(space, size) : LoadHandler(space, size, is_signed);
  if (inst.fn == nullptr) return mem::UnimplementedForm(ir, "no such form");
  return true;
}

}  // namespace

absl::StatusOr<bool> SelectMemoryOp(const ptx::Instruction& ir, Inst& inst) {
  if ((ir.op == ptx::Opcode::kSt || ir.op == ptx::Opcode::kRed) && ir.HasModifier(".async"))
    return SelectAsyncStoreOp(ir, inst);
  switch (ir.op) {
    case ptx::Opcode::kLd:
    case ptx::Opcode::kLdu:
    case ptx::Opcode::kSt:
      return SelectLoadStore(ir, inst);
    case ptx::Opcode::kFence:
    case ptx::Opcode::kMembar:
      inst.fn = ir.is_async_proxy_fence() ? &ProxyFence : &Fence;
      return true;
    case ptx::Opcode::kPrefetch:
    case ptx::Opcode::kPrefetchu:
    case ptx::Opcode::kApplypriority:
    case ptx::Opcode::kDiscard:
      // Cache hints: no effect on results; an address is not even checked (a
      // GPU does not fault on a prefetch of a bad address).
      if (inst.num_ops < 1 || inst.ops[0].kind != Opnd::Kind::kAddress)
        return mem::UnimplementedForm(ir, "address operand expected");
      inst.fn = &NoOp;
      return true;
    default:
      break;
  }
  if (auto r = mem::SelectAtomicOp(ir, inst); !r.ok() || *r) return r;
  return mem::SelectAddressOp(ir, inst);
}

}  // namespace barracuda::emu
