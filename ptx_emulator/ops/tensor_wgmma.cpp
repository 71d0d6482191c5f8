// sm_90a warpgroup MMA (PTX ISA "Asynchronous Warpgroup Level Matrix
// Multiply-Accumulate Instructions"):
//   wgmma.fence.sync.aligned
//   wgmma.commit_group.sync.aligned
//   wgmma.wait_group.sync.aligned N
//   wgmma.mma_async.sync.aligned.m64nNk16.{f32,f16}.f16.f16, .m64nNk16.f32.bf16.bf16
//       d, {a-desc | a}, b-desc, scale-d, imm-scale-a, imm-scale-b{, imm-trans-a}, imm-trans-b
//   wgmma.mma_async.sync.aligned.m64nNk32.{f32,f16}.{e4m3,e5m2}.{e4m3,e5m2}
//       d, {a-desc | a}, b-desc, scale-d, imm-scale-a, imm-scale-b   (K-major only)
//   wgmma.mma_async.sync.aligned.m64nNk8.f32.tf32.tf32
//       d, {a-desc | a}, b-desc, scale-d, imm-scale-a, imm-scale-b
//   wgmma.mma_async.sync.aligned.m64nNk32{.satfinite}.s32.{s8,u8}.{s8,u8}
//       d, {a-desc | a}, b-desc, scale-d
//
// The emulator performs a wgmma.mma_async when it is issued: each warp of
// the warpgroup computes its own 16 rows of D (warp rank in the warpgroup w =
// %warpid % 4 holds rows 16w..16w+15, ISA "Register Fragments"), reading its
// rows of A (registers or shared memory) and all of B through the matrix
// descriptors. fence is nothing; commit_group / wait_group are bookkeeping of
// the lanes' wgmma-groups (core/async_copies.h) so that the wait tells the
// race detector which reads are complete (a kAsyncWait record).
//
// Records (when tracing): every 16-byte piece of shared memory a warp reads
// for A (descriptor form, its 16 rows) and B is one async-proxy read
// (kFlagAsync | kFlagAsyncProxy), numbered in the async records of one of the
// warp's lanes (piece j by lane j % 32), 32 pieces to a record.
//
// An .f16 D is N/4 registers, element i in the half i % 2 of register i / 2.
//
// Not implemented (refused when decoded): .b1, wgmma.mma_async.sp, non-zero
// matrix base offsets (faults).
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "ptx_emulator/core/async_copies.h"
#include "ptx_emulator/ops/bulk_copy.h"
#include "ptx_emulator/ops/fp_format.h"
#include "ptx_emulator/ops/fp_narrow.h"
#include "ptx_emulator/ops/mem_access.h"
#include "ptx_emulator/ops/tensor_desc.h"
#include "ptx_emulator/ops/tensor_numerics.h"

namespace barracuda::emu::tensor {
namespace {

// What SelectWgmmaOp packs into Inst::imm for wgmma.mma_async.
struct WgmmaForm {
  uint16_t n = 0;
  uint8_t k = 0;
  Elem a = Elem::kNone;
  Elem b = Elem::kNone;
  Elem d = Elem::kNone;
  uint8_t a_regs : 1 = 0;   // A from registers (else a descriptor)
  uint8_t neg_a : 1 = 0;    // imm-scale-a = -1
  uint8_t neg_b : 1 = 0;    // imm-scale-b = -1
  uint8_t trans_a : 1 = 0;  // imm-trans-a = 1: A is M-major
  uint8_t trans_b : 1 = 0;  // imm-trans-b = 1: B is N-major
  uint8_t satfinite : 1 = 0;
  uint8_t pad = 0;
};
static_assert(sizeof(WgmmaForm) == 8, "WgmmaForm must fit Inst::imm");

AsyncCopies& State(WarpCtx& ctx) {
  if (!ctx.async) ctx.async = std::make_unique<AsyncCopies>();
  return *ctx.async;
}

// A shared-memory matrix descriptor (ISA "Matrix Descriptor Format").
struct SmemDesc {
  uint32_t start = 0, lbo = 0, sbo = 0;
  uint32_t base_offset = 0;
  uint32_t swizzle_bytes = 0;  // 0 (none), 32, 64, 128
};

SmemDesc DecodeDesc(uint64_t v) {
  SmemDesc d;
  d.start = static_cast<uint32_t>(v & 0x3fff) << 4;
  d.lbo = static_cast<uint32_t>((v >> 16) & 0x3fff) << 4;
  d.sbo = static_cast<uint32_t>((v >> 32) & 0x3fff) << 4;
  d.base_offset = static_cast<uint32_t>((v >> 49) & 7);
  static constexpr uint32_t kSwizzle[4] = {0, 128, 64, 32};
  d.swizzle_bytes = kSwizzle[(v >> 62) & 3];
  return d;
}

// The shared address of element (mn, kk) of an operand (A: mn = row m, B:
// mn = column n) of `eb`-byte elements: the ISA's canonical layouts
// ("Canonical Layouts", T = 16 / eb elements per 16 bytes, W = swizzle bytes):
//   K-major,  none:     ((8,m),(T,2k)) : ((1T,SBO),(1,LBO))
//   K-major,  swizzled: ((8,m),(T,2k)) : ((W/16*T,SBO),(1,T))
//   MN-major, none:     ((T,1,m),(8,k)) : ((1,T,SBO),(1T,LBO))
//   MN-major, swizzled: ((T,W/16,m),(8,k)) : ((1,T,LBO),(W/16*T,SBO))
// then Swizzle<log2(W/16),4,3> on the address: bits [4, 4+b) ^= bits [7, 7+b).
uint32_t ElementAddress(const SmemDesc& d, bool mn_major, uint32_t mn, uint32_t kk, uint32_t eb) {
  const uint32_t t = 16 / eb;
  const uint32_t w = d.swizzle_bytes;
  uint32_t off;
  if (!mn_major) {
    off = w == 0 ? (mn % 8) * 16 + (mn / 8) * d.sbo + (kk % t) * eb + (kk / t) * d.lbo
                 : (mn % 8) * w + (mn / 8) * d.sbo + kk * eb;
  } else if (w == 0) {
    off = (mn % t) * eb + (mn / t) * d.sbo + (kk % 8) * 16 + (kk / 8) * d.lbo;
  } else {
    const uint32_t per_row = w / eb;
    off = (mn % per_row) * eb + (mn / per_row) * d.lbo + (kk % 8) * w + (kk / 8) * d.sbo;
  }
  const uint32_t addr = d.start + off;
  if (w == 0) return addr;
  const uint32_t mask = w / 16 - 1;
  return addr ^ (((addr >> 7) & mask) << 4);
}

// The 16-byte pieces of shared memory one operand needs, read once.
struct Pieces {
  std::vector<uint32_t> addr;  // sorted, 16-aligned
  std::vector<uint64_t> log;
  std::vector<uint8_t> bytes;  // 16 per piece

  bool Load(const Inst& inst, WarpCtx& ctx, std::vector<uint32_t> wanted) {
    std::sort(wanted.begin(), wanted.end());
    wanted.erase(std::unique(wanted.begin(), wanted.end()), wanted.end());
    addr = std::move(wanted);
    log.resize(addr.size());
    bytes.resize(addr.size() * 16);
    for (size_t i = 0; i < addr.size(); ++i) {
      mem::Where where;
      uint8_t* host = mem::Resolve(ctx, inst, mem::Space::kShared, false, 0, addr[i], 16, false, where, log[i]);
      if (host == nullptr) return false;
      uint64_t lo, hi;
      mem::Load16(host, lo, hi, std::memory_order_relaxed);
      std::memcpy(&bytes[i * 16], &lo, 8);
      std::memcpy(&bytes[i * 16 + 8], &hi, 8);
    }
    return true;
  }
  uint32_t Element(uint32_t a, uint32_t eb) const {
    const size_t i = static_cast<size_t>(std::lower_bound(addr.begin(), addr.end(), a & ~15u) - addr.begin());
    uint32_t v = 0;
    std::memcpy(&v, &bytes[i * 16 + (a & 15)], eb);
    return v;
  }
  // The async-proxy read records, piece j by lane j % 32.
  void Emit(const Inst& inst, WarpCtx& ctx) const {
    if (ctx.tracer == nullptr) return;
    AsyncCopies& state = State(ctx);
    for (size_t first = 0; first < addr.size(); first += kLanes) {
      const uint32_t count = static_cast<uint32_t>(std::min<size_t>(kLanes, addr.size() - first));
      const uint32_t mask = count == kLanes ? kFullMask : (1u << count) - 1;
      protocol::Record r = mem::MakeRecord(inst, ctx, mask, protocol::Space::kShared, 16, protocol::Op::kRead,
                                           mem::kAsyncProxyFlags, protocol::Scope::kNone);
      for (uint32_t l = 0; l < count; ++l) {
        r.addr[l] = log[first + l];
        ++state.lane[l].records;
      }
      ctx.tracer->Emit(r);
    }
  }
};

uint32_t Bytes(Elem e) { return ElemBytes(e); }

float FloatOf(Elem e, uint32_t bits) {
  switch (e) {
    case Elem::kF16: return fp::F16ToF32(static_cast<uint16_t>(bits));
    case Elem::kBf16: return fp::Bf16ToF32(static_cast<uint16_t>(bits));
    case Elem::kE4m3: return fp::Narrow8ToF32(static_cast<uint8_t>(bits), fp::Narrow8::kE4m3);
    case Elem::kE5m2: return fp::Narrow8ToF32(static_cast<uint8_t>(bits), fp::Narrow8::kE5m2);
    default: return std::bit_cast<float>(bits & 0xffffe000u);  // tf32: the low 13 fraction bits ignored
  }
}
int64_t IntOf(Elem e, uint32_t bits) {
  return e == Elem::kS8 ? static_cast<int64_t>(static_cast<int8_t>(bits)) : static_cast<int64_t>(bits & 0xff);
}

// Register A fragments: per warp the layout of mma.sync m16n8kK's A.
MmaShape RegisterShape(const WgmmaForm& f) {
  MmaShape s;
  s.m = 16, s.n = 8, s.k = f.k;
  s.a = f.a, s.b = f.b;
  s.c = f.d;
  s.b_col = true;
  return s;
}

}  // namespace

void WgmmaFence(const Inst& inst, WarpCtx& ctx, uint32_t exec) { RequireWholeWarp(inst, ctx, exec); }

void WgmmaCommit(const Inst& inst, WarpCtx& ctx, uint32_t exec) {
  if (!RequireWholeWarp(inst, ctx, exec)) return;
  AsyncCopies& state = State(ctx);
  mem::ForLanes(exec, [&](uint32_t l) { state.lane[l].CommitWgmmaGroup(); });
}

void WgmmaWait(const Inst& inst, WarpCtx& ctx, uint32_t exec) {
  if (!RequireWholeWarp(inst, ctx, exec)) return;
  if (!ctx.async) return;  // nothing was ever committed
  uint32_t target[kLanes] = {};
  mem::ForLanes(exec, [&](uint32_t l) {
    target[l] = ctx.async->lane[l].WaitWgmmaGroups(static_cast<uint32_t>(inst.imm));
  });
  bulk::EmitObserved(inst, ctx, exec, target);
}

void WgmmaMma(const Inst& inst, WarpCtx& ctx, uint32_t exec) {
  if (!RequireWholeWarp(inst, ctx, exec)) return;
  const WgmmaForm f = std::bit_cast<WgmmaForm>(inst.imm);
  const uint32_t n = f.n, k = f.k;
  const uint32_t ea = Bytes(f.a), eb = Bytes(f.b);
  const uint32_t warp_row = 16 * (ctx.warp_in_block % 4);
  // Descriptors: .aligned needs the same value in every lane.
  auto descriptor = [&](const Opnd& o, SmemDesc& out) {
    const uint64_t* v = ctx.Src(o.ref);
    for (uint32_t l = 1; l < kLanes; ++l)
      if (v[l] != v[0]) {
        ctx.Raise(FaultKind::kUnsupported, inst, l, 0,
                  mem::InstText(inst) + ": the matrix descriptor differs between lanes (" + Hex(v[0]) + ", " +
                      Hex(v[l]) + "), undefined for a .aligned instruction");
        return false;
      }
    out = DecodeDesc(v[0]);
    if (out.base_offset != 0 && out.swizzle_bytes != 0) {
      ctx.Raise(FaultKind::kUnsupported, inst, 0, out.start,
                mem::InstText(inst) + ": matrix descriptor " + Hex(v[0]) +
                    " has a non-zero base offset, which the emulator does not implement");
      return false;
    }
    return true;
  };
  // A: 16 x k (this warp's rows), B: k x n, as raw element bits.
  std::vector<uint32_t> a(16 * k), b(static_cast<size_t>(k) * n);
  Pieces pa, pb;
  if (f.a_regs) {
    const MmaShape s = RegisterShape(f);
    const uint32_t na = MmaElements(s, Operand::kA);
    LaneElements in;
    ReadFragment(ctx, mem::ValueRefs(inst.ops[1], ctx), f.a, na, in);
    for (uint32_t l = 0; l < kLanes; ++l)
      for (uint32_t e = 0; e < na; ++e) {
        const Place p = MmaPlace(s, Operand::kA, l, e);
        a[p.row * k + p.col] = static_cast<uint32_t>(in.bits[l][e]);
      }
  } else {
    SmemDesc da;
    if (!descriptor(inst.ops[1], da)) return;
    std::vector<uint32_t> where(16 * k);
    for (uint32_t r = 0; r < 16; ++r)
      for (uint32_t c = 0; c < k; ++c) where[r * k + c] = ElementAddress(da, f.trans_a, warp_row + r, c, ea);
    std::vector<uint32_t> wanted(where.size());
    for (size_t i = 0; i < where.size(); ++i) wanted[i] = where[i] & ~15u;
    if (!pa.Load(inst, ctx, std::move(wanted))) return;
    for (size_t i = 0; i < where.size(); ++i) a[i] = pa.Element(where[i], ea);
  }
  {
    SmemDesc db;
    if (!descriptor(inst.ops[2], db)) return;
    std::vector<uint32_t> where(static_cast<size_t>(k) * n);
    for (uint32_t r = 0; r < k; ++r)
      for (uint32_t c = 0; c < n; ++c) where[r * n + c] = ElementAddress(db, f.trans_b, c, r, eb);
    std::vector<uint32_t> wanted(where.size());
    for (size_t i = 0; i < where.size(); ++i) wanted[i] = where[i] & ~15u;
    if (!pb.Load(inst, ctx, std::move(wanted))) return;
    for (size_t i = 0; i < where.size(); ++i) b[i] = pb.Element(where[i], eb);
  }
  // scale-d per lane (a predicate, or a value: non-zero is true).
  const Opnd& sd = inst.ops[3];
  uint32_t keep_d = 0;
  if (sd.kind == Opnd::Kind::kPred) {
    keep_d = sd.negated ? ~ctx.preds[sd.index] : ctx.preds[sd.index];
  } else {
    const uint64_t* v = ctx.Src(sd.ref);
    for (uint32_t l = 0; l < kLanes; ++l)
      if (v[l] != 0) keep_d |= 1u << l;
  }
  // D: lane l's element i is row g + 8 * ((i / 2) % 2), column 8 * (i / 4) +
  // 2 * t + i % 2 of the warp's rows (g = l / 4, t = l % 4); an .f16 D packs
  // elements 2j and 2j + 1 into register j (low half first).
  const uint32_t per_lane = n / 2;
  const bool d_half = f.d == Elem::kF16;
  const ValueRef* d_refs = mem::ValueRefs(inst.ops[0], ctx);
  std::vector<uint32_t> out(static_cast<size_t>(kLanes) * per_lane);
  const bool integer = IsIntElem(f.a);
  std::vector<float> fa, fb;
  if (!integer) {
    fa.resize(a.size()), fb.resize(b.size());
    for (size_t i = 0; i < a.size(); ++i) fa[i] = f.neg_a ? -FloatOf(f.a, a[i]) : FloatOf(f.a, a[i]);
    for (size_t i = 0; i < b.size(); ++i) fb[i] = f.neg_b ? -FloatOf(f.b, b[i]) : FloatOf(f.b, b[i]);
  }
  for (uint32_t l = 0; l < kLanes; ++l) {
    const uint32_t g = l / 4, t = l % 4;
    const bool keep = (keep_d >> l) & 1;
    for (uint32_t i = 0; i < per_lane; ++i) {
      const uint32_t row = g + 8 * ((i / 2) % 2), col = 8 * (i / 4) + 2 * t + i % 2;
      uint32_t old = static_cast<uint32_t>(ctx.Src(d_refs[d_half ? i / 2 : i])[l]);
      if (d_half) old = std::bit_cast<uint32_t>(fp::F16ToF32(static_cast<uint16_t>(old >> (16 * (i % 2)))));
      uint32_t res;
      if (integer) {
        int64_t acc = keep ? static_cast<int64_t>(static_cast<int32_t>(old)) : 0;
        for (uint32_t kk = 0; kk < k; ++kk) acc += IntOf(f.a, a[row * k + kk]) * IntOf(f.b, b[kk * n + col]);
        if (f.satfinite) acc = std::clamp<int64_t>(acc, INT32_MIN, INT32_MAX);
        res = static_cast<uint32_t>(acc);
      } else {
        float acc = keep ? std::bit_cast<float>(old) : 0.0f;
        for (uint32_t kk = 0; kk < k; ++kk) acc = std::fmaf(fa[row * k + kk], fb[kk * n + col], acc);
        res = d_half ? fp::F32ToF16(acc) : std::bit_cast<uint32_t>(acc);  // .f16: rounded once, at the end
      }
      out[l * per_lane + i] = res;
    }
  }
  if (d_half) {
    for (uint32_t j = 0; j < per_lane / 2; ++j) {
      uint64_t* dst = ctx.Dst(d_refs[j]);
      for (uint32_t l = 0; l < kLanes; ++l) dst[l] = out[l * per_lane + 2 * j] | out[l * per_lane + 2 * j + 1] << 16;
    }
  } else {
    for (uint32_t i = 0; i < per_lane; ++i) {
      uint64_t* dst = ctx.Dst(d_refs[i]);
      for (uint32_t l = 0; l < kLanes; ++l) dst[l] = out[l * per_lane + i];
    }
  }
  // Records: A's pieces, then B's, numbered in the lanes' async records.
  pa.Emit(inst, ctx);
  pb.Emit(inst, ctx);
  AsyncCopies& state = State(ctx);
  for (uint32_t l = 0; l < kLanes; ++l) state.lane[l].wgmma_open = state.lane[l].records;
}

// ---------------------------------------------------------------- selection
namespace {

Elem ElemOfType(ptx::Type t) {
  switch (t) {
    case ptx::Type::kF16: return Elem::kF16;
    case ptx::Type::kBf16: return Elem::kBf16;
    case ptx::Type::kTf32: return Elem::kTf32;
    case ptx::Type::kF32: return Elem::kF32;
    case ptx::Type::kS8: return Elem::kS8;
    case ptx::Type::kU8: return Elem::kU8;
    case ptx::Type::kS32: return Elem::kS32;
    case ptx::Type::kE4m3: return Elem::kE4m3;
    case ptx::Type::kE5m2: return Elem::kE5m2;
    default: return Elem::kNone;
  }
}

// "unsupported PTX instruction `wgmma...`: what", as the decoder words the
// instructions no selector takes (the CLI's wgmma test looks for it).
absl::Status Refuse(const ptx::Instruction& ir, std::string_view what) {
  std::string text = "unsupported PTX instruction `" + std::string(ir.opcode_name());
  for (const auto& m : ir.modifiers) text += m;
  return absl::UnimplementedError(text + "`: " + std::string(what));
}

bool Immediate(const ptx::Instruction& ir, size_t i, int64_t& v) {
  if (i >= ir.operands.size() || ir.operands[i].kind != ptx::Operand::Kind::kImmediate) return false;
  v = ir.operands[i].value;
  if (v == 0xffffffffll) v = -1;
  return true;
}

}  // namespace

absl::StatusOr<bool> SelectWgmmaOp(const ptx::Instruction& ir, Inst& inst) {
  std::vector<std::string_view> words;
  std::vector<Elem> types;
  uint32_t m = 0, n = 0, k = 0;
  bool sync = false, aligned = false, satfinite = false;
  for (const std::string& text : ir.modifiers) {
    const std::string_view s = text;
    if (s == ".sync") {
      sync = true;
    } else if (s == ".aligned") {
      aligned = true;
    } else if (s == ".satfinite") {
      satfinite = true;
    } else if (ptx::LookupType(s) != ptx::Type::kNone) {
      types.push_back(ElemOfType(ptx::LookupType(s)));
    } else if (s.size() > 2 && s.substr(0, 2) == ".m" && std::sscanf(text.c_str(), ".m%un%uk%u", &m, &n, &k) == 3) {
      continue;
    } else {
      words.push_back(s);
    }
  }
  if (!sync || !aligned) return Refuse(ir, ".sync.aligned expected");
  if (words.size() != 1) return Refuse(ir, "form not implemented (.sp, ...)");
  const std::string_view verb = words[0];
  const size_t nops = ir.operands.size();
  if (verb == ".fence" || verb == ".commit_group") {
    if (nops != 0 || !types.empty() || m != 0 || satfinite) return Refuse(ir, "no operands expected");
    inst.fn = verb == ".fence" ? &WgmmaFence : &WgmmaCommit;
    return true;
  }
  if (verb == ".wait_group") {
    int64_t v;
    if (nops != 1 || !Immediate(ir, 0, v) || v < 0 || !types.empty() || m != 0 || satfinite)
      return Refuse(ir, "wait_group takes an integer constant");
    inst.fn = &WgmmaWait;
    inst.imm = static_cast<uint64_t>(v);
    return true;
  }
  if (verb != ".mma_async") return Refuse(ir, "fence, commit_group, wait_group or mma_async expected");
  if (types.size() != 3) return Refuse(ir, "types .dtype.atype.btype expected");
  WgmmaForm f;
  f.d = types[0], f.a = types[1], f.b = types[2];
  const bool half = (f.d == Elem::kF32 || (f.d == Elem::kF16 && f.a == Elem::kF16)) &&
                    (f.a == Elem::kF16 || f.a == Elem::kBf16) && f.b == f.a && k == 16;
  const auto is_fp8 = [](Elem e) { return e == Elem::kE4m3 || e == Elem::kE5m2; };
  const bool fp8 = (f.d == Elem::kF32 || f.d == Elem::kF16) && is_fp8(f.a) && is_fp8(f.b) && k == 32;
  const bool tf32 = f.d == Elem::kF32 && f.a == Elem::kTf32 && f.b == Elem::kTf32 && k == 8;
  const bool integer = f.d == Elem::kS32 && (f.a == Elem::kS8 || f.a == Elem::kU8) &&
                       (f.b == Elem::kS8 || f.b == Elem::kU8) && k == 32;
  if (!(half || tf32 || integer || fp8))
    return Refuse(ir, "type combination not implemented (.b1) or invalid for the shape");
  if (m != 64 || n < 8 || n > 256 || n % 8 != 0) return Refuse(ir, "shape .m64nNkK expected");
  if (integer && n > 32 && n % 16 != 0) return Refuse(ir, "invalid N for an integer wgmma");
  if (satfinite && !integer) return Refuse(ir, ".satfinite on a floating-point wgmma");
  f.n = static_cast<uint16_t>(n);
  f.k = static_cast<uint8_t>(k);
  f.satfinite = satfinite;
  if (inst.num_ops < 4) return Refuse(ir, "operands d, a, b-desc, scale-d, ... expected");
  const Opnd& a = inst.ops[1];
  f.a_regs = a.kind == Opnd::Kind::kVector;
  // Operand counts: f16/bf16 8 (a-desc) or 7 (a in registers), tf32 and fp8 6, integer 4.
  const size_t want = half ? (f.a_regs ? 7 : 8) : tf32 || fp8 ? 6 : 4;
  if (nops != want) return Refuse(ir, "wrong number of operands (" + std::to_string(want) + " expected)");
  const uint32_t d_regs = f.d == Elem::kF16 ? n / 4 : n / 2;
  if (inst.ops[0].kind != Opnd::Kind::kVector || inst.ops[0].count != d_regs)
    return Refuse(ir, "d: a vector of " + std::to_string(d_regs) + " registers expected");
  if (f.a_regs ? a.count != 4 : a.kind != Opnd::Kind::kValue)
    return Refuse(ir, "a: a 64-bit descriptor or a vector of 4 registers expected");
  if (inst.ops[2].kind != Opnd::Kind::kValue) return Refuse(ir, "b-desc: a 64-bit value expected");
  if (inst.ops[3].kind != Opnd::Kind::kPred && inst.ops[3].kind != Opnd::Kind::kValue)
    return Refuse(ir, "scale-d: a predicate expected");
  if (!integer) {
    int64_t sa, sb;
    if (!Immediate(ir, 4, sa) || !Immediate(ir, 5, sb) || (sa != 1 && sa != -1) || (sb != 1 && sb != -1))
      return Refuse(ir, "imm-scale-a / imm-scale-b: 1 or -1 expected");
    f.neg_a = sa == -1;
    f.neg_b = sb == -1;
  }
  if (half) {
    int64_t ta = 0, tb;
    if ((!f.a_regs && !Immediate(ir, 6, ta)) || !Immediate(ir, f.a_regs ? 6 : 7, tb) || (ta != 0 && ta != 1) ||
        (tb != 0 && tb != 1))
      return Refuse(ir, "imm-trans-a / imm-trans-b: 0 or 1 expected");
    f.trans_a = ta == 1;
    f.trans_b = tb == 1;
  }
  inst.imm = std::bit_cast<uint64_t>(f);
  inst.fn = &WgmmaMma;
  return true;
}

}  // namespace barracuda::emu::tensor
