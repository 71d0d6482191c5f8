// Byte runs of any length and alignment for the bulk copies (bulk_copy.h):
// what the TMA tensor copies need at a box's edge, where the in-bounds part
// of a row starts or ends at any element.
#include <algorithm>
#include <memory>

#include "ptx_emulator/core/async_copies.h"
#include "ptx_emulator/core/phase_store_buffer.h"
#include "ptx_emulator/ops/bulk_copy.h"
#include "ptx_emulator/ops/mem_access.h"

namespace barracuda::emu::bulk {

namespace {

// The largest piece (16, 8, 4, 2, 1) that `bits` (OR of the addresses) are
// aligned to and that fits in `left`.
uint32_t Piece(uint64_t bits, uint32_t left) {
  for (uint32_t n = 16; n > 1; n /= 2)
    if ((bits & (n - 1)) == 0 && n <= left) return n;
  return 1;
}

// Deterministic rounds: a global access goes to the slot's private copy of
// its line when there is one (and a store makes one), like ld/st.
uint8_t* Redirected(WarpCtx& ctx, uint32_t lane, const Span& s, uint8_t* p, bool write, uint32_t size = 0) {
  if (ctx.store_buffer == nullptr || s.space != protocol::Space::kGlobal) return p;
  uint8_t* ptr[kLanes];
  ptr[lane] = p;
  ctx.store_buffer->Redirect(ptr, 1u << lane, write, size);
  return ptr[lane];
}

}  // namespace

void Move(WarpCtx& ctx, uint32_t lane, const Span& src, const Span& dst, uint32_t bytes) {
  for (uint32_t off = 0; off < bytes;) {
    const uint64_t bits = reinterpret_cast<uintptr_t>(src.host + off) | reinterpret_cast<uintptr_t>(dst.host + off) |
                          (src.log + off) | (dst.log + off);
    const uint32_t n = Piece(bits, bytes - off);
    const uint8_t* from = Redirected(ctx, lane, src, src.host + off, false);
    uint8_t* to = Redirected(ctx, lane, dst, dst.host + off, true, n);
    if (n == 16) {
      uint64_t lo, hi;
      mem::Load16(from, lo, hi, std::memory_order_relaxed);
      mem::Store16(to, lo, hi, std::memory_order_relaxed);
    } else {
      mem::StoreBytes(to, n, mem::LoadBytes(from, n, std::memory_order_relaxed), std::memory_order_relaxed);
    }
    off += n;
  }
}

void EmitAccesses(const Inst& inst, WarpCtx& ctx, uint32_t lane, const Span& side, protocol::Op op,
                  uint32_t bytes) {
  if (ctx.tracer == nullptr || bytes == 0) return;
  if (!ctx.async) ctx.async = std::make_unique<AsyncCopies>();
  LaneAsyncCopies& state = ctx.async->lane[lane];
  for (uint32_t off = 0; off < bytes;) {
    const uint32_t n = Piece(side.log + off, bytes - off);
    protocol::Record r = mem::MakeRecord(inst, ctx, 1u << lane, side.space, n, op, mem::kAsyncProxyFlags, protocol::Scope::kNone);
    r.addr[lane] = side.log + off;
    ++state.records;
    ctx.tracer->Emit(r);
    off += n;
  }
}

void Fill(const Inst& inst, WarpCtx& ctx, uint32_t lane, const Span& dst, uint32_t bytes, uint32_t element_bytes,
          uint64_t element) {
  if (element == 0) {
    for (uint32_t off = 0; off < bytes;) {
      const uint32_t n = Piece(reinterpret_cast<uintptr_t>(dst.host + off) | (dst.log + off), bytes - off);
      uint8_t* to = Redirected(ctx, lane, dst, dst.host + off, true, n);
      if (n == 16)
        mem::Store16(to, 0, 0, std::memory_order_relaxed);
      else
        mem::StoreBytes(to, n, 0, std::memory_order_relaxed);
      off += n;
    }
  } else {
    // Elements are naturally aligned: the run starts at an element boundary.
    for (uint32_t off = 0; off + element_bytes <= bytes; off += element_bytes)
      mem::StoreBytes(Redirected(ctx, lane, dst, dst.host + off, true, element_bytes), element_bytes, element,
                      std::memory_order_relaxed);
  }
  EmitAccesses(inst, ctx, lane, dst, protocol::Op::kWrite, bytes);
}

}  // namespace barracuda::emu::bulk
