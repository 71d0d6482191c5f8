// Collective matrix loads and stores (tensor_memory.h).
#include "ptx_emulator/ops/tensor_memory.h"

#include <cstring>

#include "ptx_emulator/core/phase_store_buffer.h"

namespace barracuda::emu::tensor {
namespace {

using mem::Space;
using mem::Where;

bool RunsFit(uint32_t mask, uint32_t elems, uint32_t elem_bytes, const uint64_t (*elem_addr)[kMaxPerLane],
             Space space, uint32_t width) {
  const uint32_t per_run = width / elem_bytes;
  for (uint32_t m = mask; m; m &= m - 1) {
    const uint32_t l = Lane(m);
    for (uint32_t first = 0; first < elems; first += per_run) {
      const uint64_t start = elem_addr[l][first];
      if (mem::SpaceAddress(space, start) % width != 0) return false;
      for (uint32_t t = 1; t < per_run; ++t)
        if (elem_addr[l][first + t] != start + uint64_t{t} * elem_bytes) return false;
    }
  }
  return true;
}

// Resolved runs: host pointers, and the record addresses per space.
struct Resolved {
  uint8_t* ptr[kMaxRuns][kLanes];
  uint64_t log[kMaxRuns][kLanes];
  uint32_t global[kMaxRuns] = {};  // lanes whose run went to global memory
  uint32_t shared[kMaxRuns] = {};  // ... to shared memory
};

bool ResolveRuns(const Inst& inst, WarpCtx& ctx, const CollectiveAccess& a, bool write, Resolved& out) {
  for (uint32_t r = 0; r < a.runs; ++r) {
    for (uint32_t m = a.mask; m; m &= m - 1) {
      const uint32_t l = Lane(m);
      const uint64_t addr = mem::SpaceAddress(a.space, a.addr[r][l]);
      if (addr % a.width != 0) {
        mem::RaiseMisaligned(ctx, inst, l, addr, a.width);
        return false;
      }
      Where where;
      uint64_t log = 0;
      uint8_t* p = mem::Resolve(ctx, inst, a.space, false, l, addr, a.width, write, where, log);
      if (p == nullptr) return false;
      out.ptr[r][l] = p;
      out.log[r][l] = log;
      if (where == Where::kGlobal) out.global[r] |= 1u << l;
      if (where == Where::kShared) out.shared[r] |= 1u << l;
    }
    // Deterministic rounds: this slot's buffered global stores (no-op for
    // pointers outside device memory).
    if (ctx.store_buffer != nullptr && a.mask != 0 && a.space != Space::kShared)
      ctx.store_buffer->Redirect(out.ptr[r], a.mask, write, a.width);
  }
  return true;
}

void Emit(const Inst& inst, WarpCtx& ctx, const CollectiveAccess& a, const Resolved& res) {
  if (ctx.tracer == nullptr || AccessOp(inst.aux) == kAuxNotLogged) return;
  for (uint32_t r = 0; r < a.runs; ++r) {
    for (int s = 0; s < 2; ++s) {
      const uint32_t lanes = s == 0 ? res.global[r] : res.shared[r];
      if (lanes == 0) continue;
      protocol::Record rec = mem::MakeRecord(inst, ctx, lanes, s == 0 ? protocol::Space::kGlobal
                                                                       : protocol::Space::kShared, a.width);
      for (uint32_t m = lanes; m; m &= m - 1) rec.addr[Lane(m)] = res.log[r][Lane(m)];
      ctx.tracer->Emit(rec);
    }
  }
}

}  // namespace

void PlanRuns(uint32_t mask, uint32_t elems, uint32_t elem_bytes, const uint64_t (*elem_addr)[kMaxPerLane],
              CollectiveAccess& access) {
  const uint32_t total = elems * elem_bytes;
  uint32_t width = elem_bytes;
  for (uint32_t w = 16; w > elem_bytes; w /= 2) {
    if (total % w == 0 && RunsFit(mask, elems, elem_bytes, elem_addr, access.space, w)) {
      width = w;
      break;
    }
  }
  access.mask = mask;
  access.width = width;
  access.runs = total / width;
  const uint32_t per_run = width / elem_bytes;
  for (uint32_t r = 0; r < access.runs; ++r)
    for (uint32_t m = mask; m; m &= m - 1) access.addr[r][Lane(m)] = elem_addr[Lane(m)][r * per_run];
}

bool CollectiveLoad(const Inst& inst, WarpCtx& ctx, const CollectiveAccess& a, LaneBytes& data) {
  Resolved res;
  if (!ResolveRuns(inst, ctx, a, false, res)) return false;
  for (uint32_t r = 0; r < a.runs; ++r) {
    for (uint32_t m = a.mask; m; m &= m - 1) {
      const uint32_t l = Lane(m);
      uint8_t* out = data.bytes[l] + r * a.width;
      if (a.width == 16) {
        uint64_t lo, hi;
        mem::Load16(res.ptr[r][l], lo, hi, std::memory_order_relaxed);
        std::memcpy(out, &lo, 8);
        std::memcpy(out + 8, &hi, 8);
      } else {
        const uint64_t v = mem::LoadBytes(res.ptr[r][l], a.width, std::memory_order_relaxed);
        std::memcpy(out, &v, a.width);  // little-endian host
      }
    }
  }
  Emit(inst, ctx, a, res);
  return true;
}

bool CollectiveStore(const Inst& inst, WarpCtx& ctx, const CollectiveAccess& a, const LaneBytes& data) {
  Resolved res;
  if (!ResolveRuns(inst, ctx, a, true, res)) return false;
  for (uint32_t r = 0; r < a.runs; ++r) {
    for (uint32_t m = a.mask; m; m &= m - 1) {
      const uint32_t l = Lane(m);
      const uint8_t* in = data.bytes[l] + r * a.width;
      if (a.width == 16) {
        uint64_t lo, hi;
        std::memcpy(&lo, in, 8);
        std::memcpy(&hi, in + 8, 8);
        mem::Store16(res.ptr[r][l], lo, hi, std::memory_order_relaxed);
      } else {
        uint64_t v = 0;
        std::memcpy(&v, in, a.width);
        mem::StoreBytes(res.ptr[r][l], a.width, v, std::memory_order_relaxed);
      }
    }
  }
  Emit(inst, ctx, a, res);
  return true;
}

}  // namespace barracuda::emu::tensor
