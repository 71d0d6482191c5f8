// TMA tensor copies (PTX ISA "cp.async.bulk.tensor", tiled and im2col
// modes) and reductions, in the async proxy:
//   cp.async.bulk.tensor.Nd.shared::{cluster,cta}.global{.tile}.mbarrier::complete_tx::bytes
//       {.cta_group::1}{.L2::cache_hint} [dstMem], [tensorMap, {c0, ...}], [mbar]{, policy}
//   cp.async.bulk.tensor.Nd.shared::{cluster,cta}.global.im2col.mbarrier::complete_tx::bytes
//       {.cta_group::1}{.L2::cache_hint} [dstMem], [tensorMap, {c0, ...}], [mbar], {o0, ...}{, policy}
//       (N = 3..5, N - 2 16-bit im2col offsets; the map from cuTensorMapEncodeIm2col;
//       Im2colPieces says how the box is walked)
//   cp.async.bulk.tensor.Nd.global.shared::cta{.tile}.bulk_group{.L2::cache_hint}
//       [tensorMap, {c0, ...}], [srcMem]{, policy}
//   cp.reduce.async.bulk.tensor.Nd.global.shared::cta.redOp{.tile}.bulk_group{.L2::cache_hint}
//       [tensorMap, {c0, ...}], [srcMem]{, policy}
// with N = 1..5 and redOp .add, .min, .max, .inc, .dec, .and, .or, .xor (the
// element type is the map's). The reduction walks the box as the store does
// and combines each element inside the tensor with the global one
// atomically. The tensor map is the emulator's own encoding (tensor_map.h),
// read through the generic address of the kernel parameter (or any generic
// address holding one).
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
#include <initializer_list>
#include <string>
#include <string_view>
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
  int32_t offset[tmap::kMaxRank - 2] = {};  // im2col: the im2col offsets (W, H, D)
  uint64_t Bytes() const { return rows * row_bytes; }
};

// inst.aux: the rank, | kIm2colLoad for a .im2col load (whose im2col offsets
// are ops[3], a vector of rank - 2 16-bit values).
constexpr uint32_t kIm2colLoad = 0x10;

// Reads and checks lane `l`'s tensor map and coordinates (`map_op`:
// [tensorMap, {coords}]); false after raising a fault.
bool LoadBox(const Inst& inst, WarpCtx& ctx, uint32_t l, const Opnd& map_op, Box& box) {
  const uint32_t rank = inst.aux & 0xf;
  const bool im2col = (inst.aux & kIm2colLoad) != 0;
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
  if (m.im2col != im2col)
    return unsupported(m.im2col ? "an im2col tensor map (cuTensorMapEncodeIm2col) used by a .tile copy"
                                : "a tiled tensor map used by an .im2col copy");
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
  if (im2col) {
    // pixelsPerColumn pixels of channelsPerPixel elements each.
    box.rows = m.pixels;
    const ValueRef* offsets = ctx.function->vector_refs.data() + inst.ops[3].index;
    for (uint32_t j = 0; j + 2 < rank; ++j)
      box.offset[j] = static_cast<int16_t>(static_cast<uint16_t>(ctx.Src(offsets[j])[l]));
  }
  return true;
}

// Lane l's shared side of the box: [shared, shared + box bytes) resolved in
// `space`; false after a fault.
bool ResolveSharedAt(const Inst& inst, WarpCtx& ctx, uint32_t l, uint64_t s, Space space, bool frame, bool write,
                     Box& box, bulk::Span& out);

bool ResolveShared(const Inst& inst, WarpCtx& ctx, uint32_t l, const Opnd& op, Space space, bool write, Box& box,
                   bulk::Span& out) {
  const mem::AddressOperand a = mem::MakeAddress(op, ctx);
  return ResolveSharedAt(inst, ctx, l, mem::SpaceAddress(space, a.At(l)), space, a.frame, write, box, out);
}

// As ResolveShared, at space address `s`.
bool ResolveSharedAt(const Inst& inst, WarpCtx& ctx, uint32_t l, uint64_t s, Space space, bool frame, bool write,
                     Box& box, bulk::Span& out) {
  const uint64_t align = box.span != 0 ? 128 : 16;
  if ((s & (align - 1)) != 0) {
    ctx.Raise(FaultKind::kMisalignedAddress, inst, l, s,
              absl::StrCat("cp.async.bulk.tensor needs a ", align, "-byte aligned shared memory address",
                           box.span != 0 ? " with a swizzled tensor map" : "", " (", mem::InstText(inst), ")"));
    return false;
  }
  box.shared_base = static_cast<uint32_t>(s & 1023);
  Where where;
  out.host = mem::Resolve(ctx, inst, space, frame, l, s, static_cast<uint32_t>(box.Bytes()), write, where, out.log);
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

// The pieces of box row (or im2col pixel) `r`, whose elements along
// dimension 0 are coord[0].. at `base` + x * element size when `inside` (the
// row's other coordinates lie in the tensor), outside the tensor otherwise.
void RowPieces(const Box& box, uint64_t r, bool inside, uint64_t base, std::vector<Piece>& out) {
  const tmap::TensorMap& m = box.map;
  const uint64_t lin = r * box.row_bytes;
  const int64_t x0 = box.coord[0], x1 = x0 + box.count[0];
  const int64_t lo = std::max<int64_t>(x0, 0), hi = std::min<int64_t>(x1, static_cast<int64_t>(m.dim[0]));
  const uint32_t eb = m.element_bytes;
  if (!inside || lo >= hi) {
    out.push_back({lin, box.row_bytes, false, 0});
    return;
  }
  if (lo > x0) out.push_back({lin, static_cast<uint32_t>((lo - x0) * eb), false, 0});
  out.push_back({lin + static_cast<uint64_t>(lo - x0) * eb, static_cast<uint32_t>((hi - lo) * eb), true,
                 base + static_cast<uint64_t>(lo) * eb});
  if (hi < x1)
    out.push_back({lin + static_cast<uint64_t>(hi - x0) * eb, static_cast<uint32_t>((x1 - hi) * eb), false, 0});
}

// Whether coordinate y of dimension i lies in the tensor; adds its offset to `base` if so.
bool Locate(const tmap::TensorMap& m, uint32_t i, int64_t y, uint64_t& base) {
  if (y < 0 || static_cast<uint64_t>(y) >= m.dim[i]) return false;
  base += static_cast<uint64_t>(y) * m.stride[i];
  return true;
}

// The im2col box (PTX ISA "Im2col mode"), pixel by pixel: the pixels walk
// the bounding box of the spatial dimensions 1 .. rank-2 (W fastest, then H,
// D), from the instruction's coordinates, taking every elementStrides[i]-th
// position; past the box's upper corner (globalDim - 1 + pixelBoxUpperCorner)
// a dimension restarts at the lower corner (pixelBoxLowerCorner) and the next
// one advances, past the last spatial one the batch dimension N (rank - 1)
// advances by one. Each pixel reads its channelsPerPixel channels from
// coord[0] at the pixel's position plus the im2col offsets; what lies outside
// the tensor is filled, as in tiled mode.
std::vector<Piece> Im2colPieces(const Box& box) {
  const tmap::TensorMap& m = box.map;
  const uint32_t n = m.rank - 1;  // the batch dimension
  int64_t pos[tmap::kMaxRank] = {};
  for (uint32_t i = 1; i < m.rank; ++i) pos[i] = box.coord[i];
  std::vector<Piece> out;
  for (uint64_t r = 0; r < box.rows; ++r) {
    uint64_t base = m.address;
    bool inside = Locate(m, n, pos[n], base);
    for (uint32_t i = 1; i < n; ++i) inside = Locate(m, i, pos[i] + box.offset[i - 1], base) && inside;
    RowPieces(box, r, inside, base, out);
    uint32_t i = 1;
    for (; i < n; ++i) {
      pos[i] += m.element_stride[i];
      if (pos[i] <= static_cast<int64_t>(m.dim[i]) - 1 + m.upper[i - 1]) break;
      pos[i] = m.lower[i - 1];
    }
    if (i == n) ++pos[n];
  }
  return out;
}

// The pieces of the whole box, row by row (dimension 1 fastest).
std::vector<Piece> Pieces(const Box& box) {
  const tmap::TensorMap& m = box.map;
  if (m.im2col) return Im2colPieces(box);
  std::vector<Piece> out;
  uint32_t k[tmap::kMaxRank] = {};
  for (uint64_t r = 0; r < box.rows; ++r) {
    bool inside = true;
    uint64_t base = m.address;
    for (uint32_t i = 1; i < m.rank; ++i)
      inside = Locate(m, i, box.coord[i] + int64_t{k[i]} * m.element_stride[i], base) && inside;
    RowPieces(box, r, inside, base, out);
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
// The box's bytes into `dst` (a CTA's shared window), pieces outside the
// tensor filled; false after a fault.
bool LoadBoxInto(const Inst& inst, WarpCtx& ctx, uint32_t l, const Box& box, const bulk::Span& dst) {
  const uint64_t fill = box.map.oob_fill == tmap::kOobFillNanRequestZeroFma ? tmap::NanFill(box.map.data_type) : 0;
  for (const Piece& p : Pieces(box)) {
    bulk::Span src;
    if (p.inside && !ResolveGlobal(inst, ctx, l, p, false, src)) return false;
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
  return true;
}

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
    ok = LoadBox(inst, ctx, l, inst.ops[1], box) &&
         ResolveShared(inst, ctx, l, inst.ops[0], Space::kShared, true, box, dst) && LoadBoxInto(inst, ctx, l, box, dst);
    bytes[l] = static_cast<uint32_t>(box.Bytes());  // the complete-tx counts the whole box, filled elements too
  });
  if (!ok) return;
  bulk::CompleteTx(inst, ctx, exec, bar, bar_log, bytes);
}

// .multicast::cluster (inst.aux & kMulticastLoad; ctaMask in ops[kMaskAt]):
// the box goes to dst's CTA-relative offset in every CTA of the cluster whose
// rank is set in ctaMask, and each copy's complete-tx to the mbarrier at
// mbar's offset in that CTA (PTX ISA: the signal is multicast too). Ranks
// past the cluster's size are ignored.
void TensorLoadMulticast(const Inst& inst, WarpCtx& ctx, uint32_t exec) {
  uint8_t* bar[kLanes];
  uint64_t bar_log[kLanes];
  if (!mbar::ResolveObjects(inst, ctx, exec, inst.ops[2], Space::kShared, bar, bar_log)) return;
  const bool im2col = (inst.aux & kIm2colLoad) != 0;
  const uint64_t* cta_mask = ctx.Src(inst.ops[im2col ? 4 : 3].ref);
  const mem::AddressOperand d_op = mem::MakeAddress(inst.ops[0], ctx);
  const mem::AddressOperand b_op = mem::MakeAddress(inst.ops[2], ctx);
  bool ok = true;
  ForLanes(exec, [&](uint32_t l) {
    if (!ok) return;
    Box box;
    bulk::Span own_dst;  // validates the own destination (alignment, window)
    if (!LoadBox(inst, ctx, l, inst.ops[1], box) ||
        !ResolveShared(inst, ctx, l, inst.ops[0], Space::kShared, true, box, own_dst)) {
      ok = false;
      return;
    }
    ok = bulk::Multicast(inst, ctx, l, mem::SpaceAddress(Space::kShared, d_op.At(l)),
                         mem::SpaceAddress(Space::kShared, b_op.At(l)), static_cast<uint32_t>(box.Bytes()), cta_mask[l],
                         [&](uint64_t to_addr) {
                           bulk::Span dst;
                           return ResolveSharedAt(inst, ctx, l, to_addr, Space::kShared, false, true, box, dst) &&
                                  LoadBoxInto(inst, ctx, l, box, dst);
                         });
  });
}

// One contiguous run of a shared -> global box transfer: the box's shared
// bytes `from` go to the tensor's global bytes `to`.
struct Run {
  bulk::Span from, to;
  uint32_t bytes;
};

// Lane l's box of a shared -> global copy or reduction ([tensorMap,
// {coords}], [srcMem] in ops 0 and 1): the runs of its elements inside the
// tensor (the others are dropped, as the ISA says), in box order; false after
// a fault. The tile walk the stores and the reductions share.
bool StoreRuns(const Inst& inst, WarpCtx& ctx, uint32_t l, Box& box, std::vector<Run>& runs) {
  bulk::Span src;
  if (!LoadBox(inst, ctx, l, inst.ops[0], box) ||
      !ResolveShared(inst, ctx, l, inst.ops[1], Space::kShared, false, box, src))
    return false;
  for (const Piece& p : Pieces(box)) {
    if (!p.inside) continue;
    bulk::Span dst;
    if (!ResolveGlobal(inst, ctx, l, p, true, dst)) return false;
    InShared(box, p, [&](uint64_t at, uint32_t off, uint32_t n) { runs.push_back({At(src, at), At(dst, off), n}); });
  }
  return true;
}

// Shared -> global (the elements inside the tensor) in the lane's open bulk
// async-group: every source read is recorded before the writes, so that a
// later wait_group.read names the reads alone.
void TensorStore(const Inst& inst, WarpCtx& ctx, uint32_t exec) {
  ForLanes(exec, [&](uint32_t l) {
    if (ctx.faulted()) return;
    Box box;
    std::vector<Run> runs;
    if (!StoreRuns(inst, ctx, l, box, runs)) return;
    for (const Run& r : runs) bulk::Move(ctx, l, r.from, r.to, r.bytes);
    for (const Run& r : runs) bulk::EmitAccesses(inst, ctx, l, r.from, protocol::Op::kRead, r.bytes);
    if (!ctx.async) ctx.async = std::make_unique<AsyncCopies>();
    const uint32_t reads_end = ctx.async->lane[l].records;
    for (const Run& r : runs) bulk::EmitAccesses(inst, ctx, l, r.to, protocol::Op::kWrite, r.bytes);
    bulk::NoteGroupCopy(ctx, l, reads_end);
  });
}

const char* DataTypeName(uint32_t t) {
  static constexpr const char* kNames[] = {"UINT8",   "UINT16",        "UINT32",        "INT32",        "UINT64",
                                           "INT64",   "FLOAT16",       "FLOAT32",       "FLOAT64",      "BFLOAT16",
                                           "FLOAT32_FTZ", "TFLOAT32",  "TFLOAT32_FTZ",  "16U4_ALIGN8B", "16U4_ALIGN16B",
                                           "16U6_ALIGN16B"};
  return t < std::size(kNames) ? kNames[t] : "unknown data type";
}

// The element type of a tensor reduction `op` over a map of `data_type`, as
// the PTX ISA's cp.reduce.async.bulk.tensor table allows them (.add: .u32,
// .s32, .u64, .f32, .f16, .bf16; .min/.max: .u32, .s32, .u64, .s64, .f16,
// .bf16; .inc/.dec: .u32; .and/.or/.xor: .u32, .s32, .u64, .s64); kNone for
// the other pairs. FLOAT32_FTZ is not taken as .f32 (the flush is not modelled).
ptx::Type ReduceType(ptx::AtomOp op, uint32_t data_type) {
  using ptx::AtomOp;
  using ptx::Type;
  const bool add = op == AtomOp::kAdd, minmax = op == AtomOp::kMin || op == AtomOp::kMax,
             incdec = op == AtomOp::kInc || op == AtomOp::kDec,
             bits = op == AtomOp::kAnd || op == AtomOp::kOr || op == AtomOp::kXor;
  switch (data_type) {
    case tmap::kUint32: return Type::kU32;
    case tmap::kInt32: return incdec ? Type::kNone : Type::kS32;
    case tmap::kUint64: return incdec ? Type::kNone : Type::kU64;
    case tmap::kInt64: return minmax || bits ? Type::kS64 : Type::kNone;
    case tmap::kFloat32: return add ? Type::kF32 : Type::kNone;
    case tmap::kFloat16: return add || minmax ? Type::kF16 : Type::kNone;
    case tmap::kBfloat16: return add || minmax ? Type::kBf16 : Type::kNone;
    default: return Type::kNone;
  }
}

const char* ReduceName(ptx::AtomOp op) {
  switch (op) {
    case ptx::AtomOp::kAdd: return ".add";
    case ptx::AtomOp::kMin: return ".min";
    case ptx::AtomOp::kMax: return ".max";
    case ptx::AtomOp::kInc: return ".inc";
    case ptx::AtomOp::kDec: return ".dec";
    case ptx::AtomOp::kAnd: return ".and";
    case ptx::AtomOp::kOr: return ".or";
    case ptx::AtomOp::kXor: return ".xor";
    default: return "?";
  }
}

// cp.reduce.async.bulk.tensor (inst.imm: the ptx::AtomOp): the store's tile
// walk, but each element inside the tensor becomes reduce(global, shared), an
// atomic read-modify-write (relaxed, gpu scope) as cp.reduce.async.bulk's to
// global are: the shared reads are async-proxy reads in the lane's async
// records, each global element the lane's strong kAtomic at issue
// (bulk::ReduceElements), in the lane's open bulk async-group. The element
// type is the map's, so the reduction is chosen per copy.
void TensorReduce(const Inst& inst, WarpCtx& ctx, uint32_t exec) {
  const auto op = static_cast<ptx::AtomOp>(inst.imm);
  ForLanes(exec, [&](uint32_t l) {
    if (ctx.faulted()) return;
    Box box;
    std::vector<Run> runs;
    if (!StoreRuns(inst, ctx, l, box, runs)) return;
    const ptx::Type type = ReduceType(op, box.map.data_type);
    const mem::ElementReduce reduce = type == ptx::Type::kNone ? nullptr : mem::SelectElementReduce(op, type);
    if (reduce == nullptr) {
      ctx.Raise(FaultKind::kUnsupported, inst, l, box.map.address,
                absl::StrCat("cp.reduce.async.bulk.tensor: ", ReduceName(op), " over a ",
                             DataTypeName(box.map.data_type), " tensor map ",
                             type == ptx::Type::kNone ? "is not one the PTX ISA allows"
                                                      : "is not implemented by the emulator",
                             " (", mem::InstText(inst), ")"));
      return;
    }
    for (const Run& r : runs) bulk::EmitAccesses(inst, ctx, l, r.from, protocol::Op::kRead, r.bytes);
    for (const Run& r : runs)
      bulk::ReduceElements(inst, ctx, l, r.from, r.to, r.bytes, box.map.element_bytes, reduce,
                           protocol::Scope::kGpu);
    bulk::NoteGroupCopy(ctx, l, ctx.async ? ctx.async->lane[l].records : 0);
  });
}

bool IsAddress(const Opnd& o) { return o.kind == Opnd::Kind::kAddress; }

// The .Nd modifier: the rank (0: none) and its index in ir.modifiers.
uint32_t RankOf(const ptx::Instruction& ir, size_t& at) {
  for (size_t i = 0; i < ir.modifiers.size(); ++i) {
    const std::string& m = ir.modifiers[i];
    if (m.size() == 3 && m[0] == '.' && m[1] >= '1' && m[1] <= '5' && m[2] == 'd') {
      at = i;
      return static_cast<uint32_t>(m[1] - '0');
    }
  }
  return 0;
}

// The load modes, multicast and CTA pairs the emulator does not implement
// (`what`: the instruction's name in the message); `im2col`: .im2col itself
// is implemented (global -> shared loads).
absl::Status RefuseModes(const ptx::Instruction& ir, const char* what, bool im2col = false) {
  for (const std::string& m : ir.modifiers) {
    if (m.rfind(".im2col", 0) == 0 && !(im2col && m == ".im2col"))
      return mem::UnimplementedForm(ir, absl::StrCat(what, ": TMA ", m, " mode is not implemented (only .tile)"));
    if (m.rfind(".tile::", 0) == 0)
      return mem::UnimplementedForm(ir, absl::StrCat(what, ": TMA ", m, " is not implemented (only .tile)"));
    if (m == ".multicast::cluster" && !(im2col && ir.HasModifier(".mbarrier::complete_tx::bytes")))
      return mem::UnimplementedForm(ir, "TMA multicast is a global -> shared::cluster load");
    if (m.rfind(".cta_group::", 0) == 0 && m != ".cta_group::1")
      return mem::UnimplementedForm(ir, "TMA " + m + " (CTA pairs) is not implemented");
  }
  return absl::OkStatus();
}

// Every modifier but .Nd and the two spaces after it (at dim_at) must be one
// of the forms' own (`own`); the first that is not is refused.
absl::Status RefuseOthers(const ptx::Instruction& ir, size_t dim_at, std::initializer_list<std::string_view> own) {
  for (size_t i = 0; i < ir.modifiers.size(); ++i) {
    const std::string& m = ir.modifiers[i];
    if (i == dim_at || i == dim_at + 1 || i == dim_at + 2 || std::find(own.begin(), own.end(), m) != own.end())
      continue;
    return mem::UnimplementedForm(ir, "TMA tensor copy modifier " + m + " is not implemented");
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<bool> SelectTensorCopyOp(const ptx::Instruction& ir, Inst& inst) {
  // .Nd, then the destination and source spaces.
  size_t dim_at = 0;
  const uint32_t rank = RankOf(ir, dim_at);
  if (rank == 0) return mem::UnimplementedForm(ir, "cp.async.bulk.tensor needs a dimension .1d to .5d");
  const std::string dst = dim_at + 1 < ir.modifiers.size() ? ir.modifiers[dim_at + 1] : "";
  const std::string src = dim_at + 2 < ir.modifiers.size() ? ir.modifiers[dim_at + 2] : "";
  const size_t policy = ir.HasModifier(".L2::cache_hint") ? 1 : 0;
  const bool load = (dst == ".shared::cluster" || dst == ".shared::cta") && src == ".global" &&
                    ir.HasModifier(".mbarrier::complete_tx::bytes");
  const bool store = dst == ".global" && src == ".shared::cta" && ir.HasModifier(".bulk_group");
  if (absl::Status s = RefuseModes(ir, "cp.async.bulk.tensor", load); !s.ok()) return s;
  const bool im2col = load && ir.HasModifier(".im2col");
  const bool multicast = load && ir.HasModifier(".multicast::cluster");
  if (multicast && dst != ".shared::cluster") return mem::UnimplementedForm(ir, "TMA multicast goes to .shared::cluster");
  if (im2col && rank < 3)
    return mem::UnimplementedForm(ir, "TMA im2col needs a 3d, 4d or 5d tensor (the PTX ISA's rule)");
  const std::string_view completion = load ? ".mbarrier::complete_tx::bytes" : store ? ".bulk_group" : ".async";
  if (absl::Status s = RefuseOthers(ir, dim_at,
                                    {".async", ".bulk", ".tensor", ".tile", ".L2::cache_hint", ".cta_group::1",
                                     completion, im2col ? ".im2col" : ".tile",
                                     multicast ? ".multicast::cluster" : ".tile"});
      !s.ok())
    return s;
  inst.aux = rank | (im2col ? kIm2colLoad : 0);
  if (load) {
    const size_t mask_at = im2col ? 4 : 3;
    if (ir.operands.size() != 3 + (im2col ? 1 : 0) + (multicast ? 1 : 0) + policy || !IsAddress(inst.ops[0]) ||
        !IsAddress(inst.ops[1]) || inst.ops[1].count != rank || !IsAddress(inst.ops[2]) ||
        (im2col && (inst.ops[3].kind != Opnd::Kind::kVector || inst.ops[3].count != rank - 2)) ||
        (multicast && inst.ops[mask_at].kind != Opnd::Kind::kValue))
      return mem::UnimplementedForm(
          ir, absl::StrCat("[dstMem], [tensorMap, {", rank, " coordinates}], [mbar]",
                           im2col ? absl::StrCat(", {", rank - 2, " im2col offsets}") : "",
                           multicast ? ", ctaMask" : "", "{, policy} expected"));
    inst.fn = multicast ? &TensorLoadMulticast : &TensorLoad;
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

absl::StatusOr<bool> SelectTensorReduceOp(const ptx::Instruction& ir, Inst& inst) {
  // cp.reduce.async.bulk.tensor.Nd.global.shared::cta.redOp{.tile}.bulk_group{.L2::cache_hint}
  //     [tensorMap, {coords}], [srcMem]{, policy}
  size_t dim_at = 0;
  const uint32_t rank = RankOf(ir, dim_at);
  if (rank == 0) return mem::UnimplementedForm(ir, "cp.reduce.async.bulk.tensor needs a dimension .1d to .5d");
  if (absl::Status s = RefuseModes(ir, "cp.reduce.async.bulk.tensor"); !s.ok()) return s;
  const ptx::AtomOp op = bulk::ReduceOpOf(ir);
  if (op == ptx::AtomOp::kNone)
    return mem::UnimplementedForm(ir, "cp.reduce.async.bulk.tensor needs .add, .min, .max, .inc, .dec, .and, .or "
                                      "or .xor");
  const bool to_global = dim_at + 2 < ir.modifiers.size() && ir.modifiers[dim_at + 1] == ".global" &&
                         ir.modifiers[dim_at + 2] == ".shared::cta";
  if (!to_global || !ir.HasModifier(".bulk_group"))
    return mem::UnimplementedForm(ir, "cp.reduce.async.bulk.tensor: shared::cta to global with bulk_group expected");
  if (absl::Status s = RefuseOthers(ir, dim_at,
                                    {".reduce", ".async", ".bulk", ".tensor", ".tile", ".bulk_group",
                                     ".L2::cache_hint", ReduceName(op)});
      !s.ok())
    return s;
  const size_t policy = ir.HasModifier(".L2::cache_hint") ? 1 : 0;
  if (ir.operands.size() != 2 + policy || !IsAddress(inst.ops[0]) || inst.ops[0].count != rank ||
      !IsAddress(inst.ops[1]))
    return mem::UnimplementedForm(ir,
                                  absl::StrCat("[tensorMap, {", rank, " coordinates}], [srcMem]{, policy} expected"));
  inst.aux = rank;
  inst.imm = static_cast<uint64_t>(op);
  inst.fn = &TensorReduce;
  return true;
}

}  // namespace barracuda::emu
