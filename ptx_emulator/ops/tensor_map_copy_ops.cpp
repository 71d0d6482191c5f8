// TMA tensor copies (PTX ISA "cp.async.bulk.tensor", tiled mode), in the
// async proxy:
//   cp.async.bulk.tensor.Nd.shared::{cluster,cta}.global{.tile}.mbarrier::complete_tx::bytes
//       {.cta_group::1}{.L2::cache_hint} [dstMem], [tensorMap, {c0, ...}], [mbar]{, policy}
//   cp.async.bulk.tensor.Nd.global.shared::cta{.tile}.bulk_group{.L2::cache_hint}
//       [tensorMap, {c0, ...}], [srcMem]{, policy}
// with N = 1..5. The tensor map is the emulator's own encoding
// (tensor_map.h), read through the generic address of the kernel parameter
// (or any generic address holding one).
//
// The box: the coordinates are the box's first element; along dimension i
// (i >= 1) it takes ceil(boxDim[i] / elementStrides[i]) elements, every
// elementStrides[i]-th (the traversal stride; dimension 0 always takes
// boxDim[0] consecutive ones). In shared memory the box is dense, dimension
// 0 innermost. A load fills the elements outside the tensor with zeros (or
// the OOB-NaN of a floating-point map with the NaN-request fill) and its
// complete_tx counts the whole box; a store writes only the elements inside.
//
// Like the other bulk copies (bulk_copy.h) the copy is done at issue; its
// records are kFlagAsync | kFlagAsyncProxy accesses in the lane's async
// records. Swizzled shared layouts: the 32B, 64B and 128B modes (16-byte
// atomicity) as the PTX ISA's "Swizzling Modes" tables give them -- the
// 16-byte chunk j of 128-byte shared memory line r holds chunk
// j ^ (r % (span / 16)) -- for a box whose inner dimension is exactly the
// swizzle span and a 128-byte aligned shared address. Other swizzles (the
// 128B atomicity sub-modes, an inner dimension below the span), interleaved
// layouts and the packed sub-byte types fault as unsupported.
#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "ptx_emulator/core/async_copies.h"
#include "ptx_emulator/core/handlers.h"
#include "ptx_emulator/ops/bulk_copy.h"
#include "ptx_emulator/ops/mbarrier_ops.h"
#include "ptx_emulator/ops/mem_access.h"
#include "ptx_emulator/ops/tensor_map.h"

namespace barracuda::emu {

namespace {

using mem::ForLanes;
using mem::Space;
using mem::Where;

const char* SwizzleName(uint32_t s) {
  static constexpr const char* kNames[] = {"SWIZZLE_NONE",          "SWIZZLE_32B",
                                           "SWIZZLE_64B",           "SWIZZLE_128B",
                                           "SWIZZLE_128B_ATOM_32B", "SWIZZLE_128B_ATOM_32B_FLIP_8B",
                                           "SWIZZLE_128B_ATOM_64B"};
  return s < std::size(kNames) ? kNames[s] : "unknown swizzle";
}

// One lane's box: the map, its coordinates and the box's shape in shared memory.
struct Box {
  tmap::TensorMap map;
  int64_t coord[tmap::kMaxRank] = {};
  uint32_t count[tmap::kMaxRank] = {};  // elements taken along each dimension
  uint32_t row_bytes = 0;               // count[0] * element size
  uint64_t rows = 0;                    // product of count[1..rank)
  uint32_t span = 0;                    // swizzle span in bytes (0: no swizzle)
  uint32_t shared_base = 0;             // the box's shared address mod 1024 (the swizzle pattern's phase)
  uint64_t Bytes() const { return rows * row_bytes; }
};

// Reads and checks lane `l`'s tensor map and coordinates (`map_op`:
// [tensorMap, {coords}]); false after raising a fault.
bool LoadBox(const Inst& inst, WarpCtx& ctx, uint32_t l, const Opnd& map_op, Box& box) {
  const uint32_t rank = inst.aux;
  const mem::AddressOperand a = mem::MakeAddress(map_op, ctx);
  const uint64_t addr = a.At(l);
  Where where;
  uint64_t log;
  const uint8_t* bytes = mem::Resolve(ctx, inst, Space::kGeneric, a.frame, l, addr, tmap::kBytes, false, where, log);
  if (bytes == nullptr) return false;
  uint8_t copy[tmap::kBytes];
  for (uint32_t i = 0; i < tmap::kBytes; ++i) copy[i] = mem::AtomicLoad<uint8_t>(bytes + i);
  auto map = tmap::Decode(copy);
  if (!map.ok()) {
    ctx.Raise(FaultKind::kUnsupported, inst, l, addr,
              absl::StrCat("cp.async.bulk.tensor: the tensor map at 0x", absl::Hex(addr), " is ",
                           map.status().message(), " (", mem::InstText(inst), ")"));
    return false;
  }
  box.map = *map;
  const tmap::TensorMap& m = box.map;
  auto unsupported = [&](const std::string& what) {
    ctx.Raise(FaultKind::kUnsupported, inst, l, addr,
              absl::StrCat("cp.async.bulk.tensor: ", what, " is not supported by the emulator (",
                           mem::InstText(inst), ")"));
    return false;
  };
  if (m.rank != rank)
    return unsupported(absl::StrCat("a rank-", m.rank, " tensor map used by a .", rank, "d copy"));
  if (m.element_bytes == 0) return unsupported("a packed sub-byte tensor data type (16U4/16U6)");
  if (m.interleave != tmap::kInterleaveNone)
    return unsupported(m.interleave == tmap::kInterleave16B ? "INTERLEAVE_16B" : "INTERLEAVE_32B");
  box.row_bytes = m.box[0] * m.element_bytes;
  if (m.swizzle != tmap::kSwizzleNone) {
    if (m.swizzle > tmap::kSwizzle128B) return unsupported(SwizzleName(m.swizzle));
    box.span = 16u << m.swizzle;  // 32, 64, 128
    if (box.row_bytes != box.span)
      return unsupported(absl::StrCat(SwizzleName(m.swizzle), " with a ", box.row_bytes,
                                      "-byte box inner dimension (only one of exactly the swizzle span)"));
  }
  const ValueRef* refs = ctx.function->vector_refs.data() + map_op.index;
  box.rows = 1;
  for (uint32_t i = 0; i < rank; ++i) {
    box.coord[i] = static_cast<int32_t>(static_cast<uint32_t>(ctx.Src(refs[i])[l]));
    box.count[i] = i == 0 ? m.box[0] : (m.box[i] + m.element_stride[i] - 1) / m.element_stride[i];
    if (i > 0) box.rows *= box.count[i];
  }
  return true;
}

// Lane l's shared side of the box: [shared, shared + box bytes) resolved in
// `space`; false after a fault.
bool ResolveShared(const Inst& inst, WarpCtx& ctx, uint32_t l, const Opnd& op, Space space, bool write, Box& box,
                   bulk::Span& out) {
  const mem::AddressOperand a = mem::MakeAddress(op, ctx);
  const uint64_t s = mem::SpaceAddress(space, a.At(l));
  const uint64_t align = box.span != 0 ? 128 : 16;
  if ((s & (align - 1)) != 0) {
    ctx.Raise(FaultKind::kMisalignedAddress, inst, l, s,
              absl::StrCat("cp.async.bulk.tensor needs a ", align, "-byte aligned shared memory address",
                           box.span != 0 ? " with a swizzled tensor map" : "", " (", mem::InstText(inst), ")"));
    return false;
  }
  box.shared_base = static_cast<uint32_t>(s & 1023);
  Where where;
  out.host = mem::Resolve(ctx, inst, space, a.frame, l, s, static_cast<uint32_t>(box.Bytes()), write, where, out.log);
  out.space = protocol::Space::kShared;
  return out.host != nullptr;
}

// One piece of a box row: `bytes` at byte offset `lin` of the dense box,
// either inside the tensor (global address `global`) or outside it.
struct Piece {
  uint64_t lin = 0;
  uint32_t bytes = 0;
  bool inside = false;
  uint64_t global = 0;
};

// The pieces of the whole box, row by row (dimension 1 fastest).
std::vector<Piece> Pieces(const Box& box) {
  const tmap::TensorMap& m = box.map;
  std::vector<Piece> out;
  uint32_t k[tmap::kMaxRank] = {};
  for (uint64_t r = 0; r < box.rows; ++r) {
    const uint64_t lin = r * box.row_bytes;
    bool inside = true;
    uint64_t base = m.address;
    for (uint32_t i = 1; i < m.rank; ++i) {
      const int64_t y = box.coord[i] + int64_t{k[i]} * m.element_stride[i];
      if (y < 0 || static_cast<uint64_t>(y) >= m.dim[i]) inside = false;
      else base += static_cast<uint64_t>(y) * m.stride[i];
    }
    const int64_t x0 = box.coord[0], x1 = x0 + box.count[0];
    const int64_t lo = std::max<int64_t>(x0, 0), hi = std::min<int64_t>(x1, static_cast<int64_t>(m.dim[0]));
    const uint32_t eb = m.element_bytes;
    if (!inside || lo >= hi) {
      out.push_back({lin, box.row_bytes, false, 0});
    } else {
      if (lo > x0) out.push_back({lin, static_cast<uint32_t>((lo - x0) * eb), false, 0});
      out.push_back({lin + static_cast<uint64_t>(lo - x0) * eb, static_cast<uint32_t>((hi - lo) * eb), true,
                     base + static_cast<uint64_t>(lo) * eb});
      if (hi < x1) out.push_back({lin + static_cast<uint64_t>(hi - x0) * eb, static_cast<uint32_t>((x1 - hi) * eb),
                                  false, 0});
    }
    for (uint32_t i = 1; i < m.rank && ++k[i] == box.count[i]; ++i) k[i] = 0;
  }
  return out;
}

// Calls f(shared offset from the box's start, offset in the piece, bytes)
// for the parts of `p` as they lie in shared memory: one part unswizzled;
// with a swizzle, per 16-byte chunk, chunk j of 128-byte shared memory line r
// at chunk j ^ (r % (span / 16)). r counts from address 0, not from the box:
// the ISA's "swizzle base offset" of a box that does not start at the
// pattern's 256/512/1024-byte boundary is (dstMem / 128) % (span / 16).
template <typename F>
void InShared(const Box& box, const Piece& p, F&& f) {
  if (box.span == 0) {
    f(p.lin, 0u, p.bytes);
    return;
  }
  const uint64_t mask = box.span / 16 - 1;
  for (uint32_t off = 0; off < p.bytes;) {
    const uint64_t lin = p.lin + off;
    const uint32_t n = std::min<uint32_t>(p.bytes - off, static_cast<uint32_t>(16 - (lin & 15)));
    f(lin ^ ((((box.shared_base + lin) >> 7) & mask) << 4), off, n);
    off += n;
  }
}

bulk::Span At(const bulk::Span& s, uint64_t off) { return {s.host + off, s.log + off, s.space}; }

// Lane l's inside piece `p` in global memory; false after a fault.
bool ResolveGlobal(const Inst& inst, WarpCtx& ctx, uint32_t l, const Piece& p, bool write, bulk::Span& out) {
  Where where;
  out.host = mem::Resolve(ctx, inst, Space::kGlobal, false, l, p.global, p.bytes, write, where, out.log);
  out.space = protocol::Space::kGlobal;
  return out.host != nullptr;
}

bool Aligned16(const bulk::Span& a, const bulk::Span& b, uint32_t n) {
  return n % 16 == 0 && ((reinterpret_cast<uintptr_t>(a.host) | reinterpret_cast<uintptr_t>(b.host) | a.log | b.log) &
                         15) == 0;
}

// Global -> shared, then complete_tx of the box's bytes on the mbarrier.
void TensorLoad(const Inst& inst, WarpCtx& ctx, uint32_t exec) {
  uint8_t* bar[kLanes];
  uint64_t bar_log[kLanes];
  if (!mbar::ResolveObjects(inst, ctx, exec, inst.ops[2], Space::kShared, bar, bar_log)) return;
  uint32_t bytes[kLanes] = {};
  bool ok = true;
  ForLanes(exec, [&](uint32_t l) {
    if (!ok) return;
    Box box;
    bulk::Span dst;
    if (!LoadBox(inst, ctx, l, inst.ops[1], box) || !ResolveShared(inst, ctx, l, inst.ops[0], Space::kShared, true,
                                                                    box, dst)) {
      ok = false;
      return;
    }
    const uint64_t fill = box.map.oob_fill == tmap::kOobFillNanRequestZeroFma ? tmap::NanFill(box.map.data_type) : 0;
    // The complete-tx counts the whole box, filled elements too.
    bytes[l] = static_cast<uint32_t>(box.Bytes());
    for (const Piece& p : Pieces(box)) {
      bulk::Span src;
      if (p.inside && !ResolveGlobal(inst, ctx, l, p, false, src)) {
        ok = false;
        return;
      }
      InShared(box, p, [&](uint64_t at, uint32_t off, uint32_t n) {
        const bulk::Span to = At(dst, at);
        if (!p.inside) {
          bulk::Fill(inst, ctx, l, to, n, box.map.element_bytes, fill);
          return;
        }
        const bulk::Span from = At(src, off);
        if (Aligned16(from, to, n)) {
          bulk::Transfer(inst, ctx, l, from, to, n);
        } else {
          bulk::Move(ctx, l, from, to, n);
          bulk::EmitAccesses(inst, ctx, l, from, protocol::Op::kRead, n);
          bulk::EmitAccesses(inst, ctx, l, to, protocol::Op::kWrite, n);
        }
      });
    }
  });
  if (!ok) return;
  bulk::CompleteTx(inst, ctx, exec, bar, bar_log, bytes);
}

// Shared -> global (the elements inside the tensor) in the lane's open bulk
// async-group: every source read is recorded before the writes, so that a
// later wait_group.read names the reads alone.
void TensorStore(const Inst& inst, WarpCtx& ctx, uint32_t exec) {
  ForLanes(exec, [&](uint32_t l) {
    if (ctx.faulted()) return;
    Box box;
    bulk::Span src;
    if (!LoadBox(inst, ctx, l, inst.ops[0], box) ||
        !ResolveShared(inst, ctx, l, inst.ops[1], Space::kShared, false, box, src))
      return;
    struct Run {
      bulk::Span from, to;
      uint32_t bytes;
    };
    std::vector<Run> runs;
    for (const Piece& p : Pieces(box)) {
      if (!p.inside) continue;
      bulk::Span dst;
      if (!ResolveGlobal(inst, ctx, l, p, true, dst)) return;
      InShared(box, p, [&](uint64_t at, uint32_t off, uint32_t n) { runs.push_back({At(src, at), At(dst, off), n}); });
    }
    for (const Run& r : runs) bulk::Move(ctx, l, r.from, r.to, r.bytes);
    for (const Run& r : runs) bulk::EmitAccesses(inst, ctx, l, r.from, protocol::Op::kRead, r.bytes);
    if (!ctx.async) ctx.async = std::make_unique<AsyncCopies>();
    const uint32_t reads_end = ctx.async->lane[l].records;
    for (const Run& r : runs) bulk::EmitAccesses(inst, ctx, l, r.to, protocol::Op::kWrite, r.bytes);
    bulk::NoteGroupCopy(ctx, l, reads_end);
  });
}

bool IsAddress(const Opnd& o) { return o.kind == Opnd::Kind::kAddress; }

}  // namespace

absl::StatusOr<bool> SelectTensorCopyOp(const ptx::Instruction& ir, Inst& inst) {
  // .Nd, then the destination and source spaces.
  size_t dim_at = 0;
  uint32_t rank = 0;
  for (size_t i = 0; i < ir.modifiers.size() && rank == 0; ++i) {
    const std::string& m = ir.modifiers[i];
    if (m.size() == 3 && m[0] == '.' && m[1] >= '1' && m[1] <= '5' && m[2] == 'd') {
      rank = static_cast<uint32_t>(m[1] - '0');
      dim_at = i;
    }
  }
  if (rank == 0) return mem::UnimplementedForm(ir, "cp.async.bulk.tensor needs a dimension .1d to .5d");
  for (const std::string& m : ir.modifiers) {
    if (m.rfind(".im2col", 0) == 0)
      return mem::UnimplementedForm(ir, "TMA im2col modes are not implemented (only .tile)");
    if (m.rfind(".tile::", 0) == 0)
      return mem::UnimplementedForm(ir, "TMA " + m + " is not implemented (only .tile)");
    if (m == ".multicast::cluster") return mem::UnimplementedForm(ir, "TMA multicast is not implemented");
    if (m.rfind(".cta_group::", 0) == 0 && m != ".cta_group::1")
      return mem::UnimplementedForm(ir, "TMA " + m + " (CTA pairs) is not implemented");
  }
  const std::string dst = dim_at + 1 < ir.modifiers.size() ? ir.modifiers[dim_at + 1] : "";
  const std::string src = dim_at + 2 < ir.modifiers.size() ? ir.modifiers[dim_at + 2] : "";
  const size_t policy = ir.HasModifier(".L2::cache_hint") ? 1 : 0;
  const bool load = (dst == ".shared::cluster" || dst == ".shared::cta") && src == ".global" &&
                    ir.HasModifier(".mbarrier::complete_tx::bytes");
  const bool store = dst == ".global" && src == ".shared::cta" && ir.HasModifier(".bulk_group");
  // Every other modifier is one of the forms' own: refuse what is not.
  for (size_t i = 0; i < ir.modifiers.size(); ++i) {
    const std::string& m = ir.modifiers[i];
    if (i == dim_at || i == dim_at + 1 || i == dim_at + 2 || m == ".async" || m == ".bulk" || m == ".tensor" ||
        m == ".tile" || m == ".L2::cache_hint" || m == ".cta_group::1" ||
        (load && m == ".mbarrier::complete_tx::bytes") || (store && m == ".bulk_group"))
      continue;
    return mem::UnimplementedForm(ir, "TMA tensor copy modifier " + m + " is not implemented");
  }
  inst.aux = rank;
  if (load) {
    if (ir.operands.size() != 3 + policy || !IsAddress(inst.ops[0]) || !IsAddress(inst.ops[1]) ||
        inst.ops[1].count != rank || !IsAddress(inst.ops[2]))
      return mem::UnimplementedForm(
          ir, absl::StrCat("[dstMem], [tensorMap, {", rank, " coordinates}], [mbar]{, policy} expected"));
    inst.fn = &TensorLoad;
    return true;
  }
  if (store) {
    if (ir.operands.size() != 2 + policy || !IsAddress(inst.ops[0]) || inst.ops[0].count != rank ||
        !IsAddress(inst.ops[1]))
      return mem::UnimplementedForm(ir,
                                    absl::StrCat("[tensorMap, {", rank, " coordinates}], [srcMem]{, policy} expected"));
    inst.fn = &TensorStore;
    return true;
  }
  return mem::UnimplementedForm(
      ir, "of the TMA tensor copies only global to shared::cluster/shared::cta with mbarrier::complete_tx::bytes "
          "and shared::cta to global with bulk_group are implemented");
}

}  // namespace barracuda::emu
