// The structured meaning of an instruction's dot-modifiers.
//
// Instructions keep their modifiers as written (Instruction::modifiers, so the
// printer reproduces them in order); ClassifyModifiers derives this struct from
// them once, at parse time (Instruction::RefreshInfo after edits). Modifiers the
// classifier does not know are left in the text and counted in `unclassified`.
#ifndef BARRACUDA_PTX_REWRITER_INSTRUCTION_MODIFIERS_H_
#define BARRACUDA_PTX_REWRITER_INSTRUCTION_MODIFIERS_H_

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "ptx_rewriter/opcodes.h"

namespace barracuda::ptx {

// Memory-consistency semantics (ld/st/atom/red/fence and friends).
enum class MemSemantics : uint8_t { kNone, kWeak, kRelaxed, kAcquire, kRelease, kAcqRel, kSc, kVolatile, kMmio };
// Scope: .cta/.cluster/.gpu/.sys. membar.cta/.gl/.sys map to kCta/kGpu/kSys.
enum class Scope : uint8_t { kNone, kCta, kCluster, kGpu, kSys };
enum class CacheOp : uint8_t { kNone, kCa, kCg, kCs, kLu, kCv, kWb, kWt };
// `.L1::evict_normal` etc. and `.L2::evict_*`.
enum class Eviction : uint8_t { kNone, kEvictNormal, kEvictFirst, kEvictLast, kEvictUnchanged, kNoAllocate };
enum class Rounding : uint8_t { kNone, kRn, kRz, kRm, kRp, kRna, kRs, kRni, kRzi, kRmi, kRpi };
enum class CmpOp : uint8_t {
  kNone, kEq, kNe, kLt, kLe, kGt, kGe, kLo, kLs, kHi, kHs,
  kEqu, kNeu, kLtu, kLeu, kGtu, kGeu, kNum, kNan,
};
// setp/set/bar.red/vote-style boolean combination; kPopc for bar.red.popc.
enum class BoolOp : uint8_t { kNone, kAnd, kOr, kXor, kPopc };
// atom/red/redux/multimem/cp.reduce operation.
enum class AtomOp : uint8_t { kNone, kAdd, kMin, kMax, kInc, kDec, kCas, kExch, kAnd, kOr, kXor };
enum class ShflMode : uint8_t { kNone, kUp, kDown, kBfly, kIdx };
enum class VoteMode : uint8_t { kNone, kAll, kAny, kUni, kBallot };
// mul/mad: .wide/.hi/.lo.
enum class MulMode : uint8_t { kNone, kWide, kHi, kLo };
// bar/barrier: what kind of barrier operation.
enum class BarrierMode : uint8_t { kNone, kSync, kArrive, kRed, kWarpSync };

struct ModifierInfo {
  static constexpr int kMaxTypes = 4;
  Type types[kMaxTypes] = {};   // type modifiers in order (cvt.f32.s32: {kF32, kS32})
  uint8_t num_types = 0;
  StateSpace space = StateSpace::kNone;   // first state-space modifier (cvta.to.global: kGlobal)
  MemSemantics sem = MemSemantics::kNone;
  Scope scope = Scope::kNone;
  CacheOp cache_op = CacheOp::kNone;
  Eviction l1_eviction = Eviction::kNone;
  Eviction l2_eviction = Eviction::kNone;
  bool l2_cache_hint = false;     // .L2::cache_hint (extra cache-policy operand)
  uint16_t l2_prefetch_size = 0;  // .L2::64B/128B/256B
  uint8_t vector_width = 1;       // .v2/.v4/.v8 -> 2/4/8
  Rounding rounding = Rounding::kNone;
  CmpOp cmp = CmpOp::kNone;
  BoolOp bool_op = BoolOp::kNone;
  AtomOp atom_op = AtomOp::kNone;
  ShflMode shfl = ShflMode::kNone;
  VoteMode vote = VoteMode::kNone;
  MulMode mul = MulMode::kNone;
  BarrierMode barrier = BarrierMode::kNone;
  bool ftz = false;
  bool sat = false;
  bool approx = false;
  bool full = false;
  bool uni = false;
  bool sync = false;      // .sync (bar.sync, shfl.sync, vote.sync, bar.warp.sync, ...)
  bool aligned = false;
  bool nc = false;        // ld.global.nc
  bool to = false;        // cvta.to.*
  bool cc = false;        // add.cc / addc.cc carry
  bool proxy = false;     // fence.proxy.* / membar.proxy
  bool async = false;     // cp.async, fence.proxy.async, ...
  bool bulk = false;      // .bulk
  uint8_t unclassified = 0;  // modifiers not recognised (kept in the text)

  Type type() const { return num_types ? types[0] : Type::kNone; }
  // Second type of two-type instructions (cvt dst.src); kNone otherwise.
  Type type2() const { return num_types > 1 ? types[1] : Type::kNone; }
  bool operator==(const ModifierInfo&) const = default;
};

ModifierInfo ClassifyModifiers(Opcode op, std::span<const std::string> modifiers);

std::string_view ToString(MemSemantics s);
std::string_view ToString(Scope s);
std::string_view ToString(AtomOp a);
std::string_view ToString(CmpOp c);

}  // namespace barracuda::ptx

#endif  // BARRACUDA_PTX_REWRITER_INSTRUCTION_MODIFIERS_H_
