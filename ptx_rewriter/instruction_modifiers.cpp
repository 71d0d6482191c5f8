// ClassifyModifiers: dot-modifier text -> ModifierInfo. Opcode-aware where PTX
// reuses a spelling (.lo is a comparison on setp and the low half on mul; .uni
// is a vote mode on vote and "non-divergent" on bra/call; .and is a boolean op
// on setp and an atomic op on atom).
#include "ptx_rewriter/instruction_modifiers.h"

namespace barracuda::ptx {
namespace {

bool IsCompareOpcode(Opcode op) {
  return op == Opcode::kSetp || op == Opcode::kSet || op == Opcode::kVset || op == Opcode::kVset2 ||
         op == Opcode::kVset4;
}
bool IsAtomicOpcode(Opcode op) {
  return op == Opcode::kAtom || op == Opcode::kRed || op == Opcode::kRedux || op == Opcode::kMultimem ||
         op == Opcode::kCp || op == Opcode::kSured;
}
bool IsMulOpcode(Opcode op) {
  return op == Opcode::kMul || op == Opcode::kMad || op == Opcode::kMul24 || op == Opcode::kMad24 ||
         op == Opcode::kMadc;
}

CmpOp LookupCmp(std::string_view m) {
  static constexpr std::pair<std::string_view, CmpOp> kTable[] = {
      {".eq", CmpOp::kEq},   {".ne", CmpOp::kNe},   {".lt", CmpOp::kLt},   {".le", CmpOp::kLe},
      {".gt", CmpOp::kGt},   {".ge", CmpOp::kGe},   {".lo", CmpOp::kLo},   {".ls", CmpOp::kLs},
      {".hi", CmpOp::kHi},   {".hs", CmpOp::kHs},   {".equ", CmpOp::kEqu}, {".neu", CmpOp::kNeu},
      {".ltu", CmpOp::kLtu}, {".leu", CmpOp::kLeu}, {".gtu", CmpOp::kGtu}, {".geu", CmpOp::kGeu},
      {".num", CmpOp::kNum}, {".nan", CmpOp::kNan},
  };
  for (auto [s, c] : kTable)
    if (s == m) return c;
  return CmpOp::kNone;
}

AtomOp LookupAtom(std::string_view m) {
  static constexpr std::pair<std::string_view, AtomOp> kTable[] = {
      {".add", AtomOp::kAdd}, {".min", AtomOp::kMin}, {".max", AtomOp::kMax},   {".inc", AtomOp::kInc},
      {".dec", AtomOp::kDec}, {".cas", AtomOp::kCas}, {".exch", AtomOp::kExch}, {".and", AtomOp::kAnd},
      {".or", AtomOp::kOr},   {".xor", AtomOp::kXor},
  };
  for (auto [s, a] : kTable)
    if (s == m) return a;
  return AtomOp::kNone;
}

Eviction LookupEviction(std::string_view rest) {
  if (rest == "evict_normal") return Eviction::kEvictNormal;
  if (rest == "evict_first") return Eviction::kEvictFirst;
  if (rest == "evict_last") return Eviction::kEvictLast;
  if (rest == "evict_unchanged") return Eviction::kEvictUnchanged;
  if (rest == "no_allocate") return Eviction::kNoAllocate;
  return Eviction::kNone;
}

// One modifier; returns false if it means nothing to the classifier.
bool Classify(Opcode op, std::string_view m, ModifierInfo& info) {
  if (m.size() < 2 || m[0] != '.') return false;
  if (Type t = LookupType(m); t != Type::kNone) {
    if (info.num_types < ModifierInfo::kMaxTypes) info.types[info.num_types++] = t;
    return true;
  }
  if (StateSpace s = LookupStateSpace(m); s != StateSpace::kNone) {
    if (info.space == StateSpace::kNone) info.space = s;
    return true;
  }
  if (IsCompareOpcode(op)) {
    if (CmpOp c = LookupCmp(m); c != CmpOp::kNone && info.cmp == CmpOp::kNone) {
      info.cmp = c;
      return true;
    }
    if (m == ".and") return info.bool_op = BoolOp::kAnd, true;
    if (m == ".or") return info.bool_op = BoolOp::kOr, true;
    if (m == ".xor") return info.bool_op = BoolOp::kXor, true;
  }
  if (IsAtomicOpcode(op)) {
    if (AtomOp a = LookupAtom(m); a != AtomOp::kNone) return info.atom_op = a, true;
  }
  if (op == Opcode::kBar || op == Opcode::kBarrier) {
    if (m == ".sync") {
      info.sync = true;
      if (info.barrier == BarrierMode::kNone) info.barrier = BarrierMode::kSync;
      return true;
    }
    if (m == ".arrive") return info.barrier = BarrierMode::kArrive, true;
    if (m == ".red") return info.barrier = BarrierMode::kRed, true;
    if (m == ".warp") return info.barrier = BarrierMode::kWarpSync, true;
    if (m == ".popc") return info.bool_op = BoolOp::kPopc, true;
    if (m == ".and") return info.bool_op = BoolOp::kAnd, true;
    if (m == ".or") return info.bool_op = BoolOp::kOr, true;
  }
  if (op == Opcode::kVote) {
    if (m == ".all") return info.vote = VoteMode::kAll, true;
    if (m == ".any") return info.vote = VoteMode::kAny, true;
    if (m == ".uni") return info.vote = VoteMode::kUni, true;
    if (m == ".ballot") return info.vote = VoteMode::kBallot, true;
  }
  if (op == Opcode::kShfl) {
    if (m == ".up") return info.shfl = ShflMode::kUp, true;
    if (m == ".down") return info.shfl = ShflMode::kDown, true;
    if (m == ".bfly") return info.shfl = ShflMode::kBfly, true;
    if (m == ".idx") return info.shfl = ShflMode::kIdx, true;
  }
  if (IsMulOpcode(op)) {
    if (m == ".wide") return info.mul = MulMode::kWide, true;
    if (m == ".hi") return info.mul = MulMode::kHi, true;
    if (m == ".lo") return info.mul = MulMode::kLo, true;
  }
  if (op == Opcode::kMembar) {
    if (m == ".gl") return info.scope = Scope::kGpu, true;
  }
  if (op == Opcode::kBrx && m == ".idx") return true;
  // Memory semantics and scope.
  if (m == ".relaxed") return info.sem = MemSemantics::kRelaxed, true;
  if (m == ".acquire") return info.sem = MemSemantics::kAcquire, true;
  if (m == ".release") return info.sem = MemSemantics::kRelease, true;
  if (m == ".acq_rel") return info.sem = MemSemantics::kAcqRel, true;
  if (m == ".sc") return info.sem = MemSemantics::kSc, true;
  if (m == ".volatile") return info.sem = MemSemantics::kVolatile, true;
  if (m == ".weak") return info.sem = MemSemantics::kWeak, true;
  if (m == ".mmio") return info.sem = MemSemantics::kMmio, true;
  if (m == ".cta") return info.scope = Scope::kCta, true;
  if (m == ".cluster") return info.scope = Scope::kCluster, true;
  if (m == ".gpu") return info.scope = Scope::kGpu, true;
  if (m == ".sys") return info.scope = Scope::kSys, true;
  // Cache operators and eviction priorities.
  if (m == ".ca") return info.cache_op = CacheOp::kCa, true;
  if (m == ".cg") return info.cache_op = CacheOp::kCg, true;
  if (m == ".cs") return info.cache_op = CacheOp::kCs, true;
  if (m == ".lu") return info.cache_op = CacheOp::kLu, true;
  if (m == ".cv") return info.cache_op = CacheOp::kCv, true;
  if (m == ".wb") return info.cache_op = CacheOp::kWb, true;
  if (m == ".wt") return info.cache_op = CacheOp::kWt, true;
  if (m.starts_with(".L1::")) {
    Eviction e = LookupEviction(m.substr(5));
    if (e == Eviction::kNone) return false;
    info.l1_eviction = e;
    return true;
  }
  if (m.starts_with(".L2::")) {
    std::string_view rest = m.substr(5);
    if (rest == "cache_hint") return info.l2_cache_hint = true, true;
    if (rest == "64B") return info.l2_prefetch_size = 64, true;
    if (rest == "128B") return info.l2_prefetch_size = 128, true;
    if (rest == "256B") return info.l2_prefetch_size = 256, true;
    Eviction e = LookupEviction(rest);
    if (e == Eviction::kNone) return false;
    info.l2_eviction = e;
    return true;
  }
  if (m == ".v2") return info.vector_width = 2, true;
  if (m == ".v4") return info.vector_width = 4, true;
  if (m == ".v8") return info.vector_width = 8, true;
  // Rounding.
  static constexpr std::pair<std::string_view, Rounding> kRounding[] = {
      {".rn", Rounding::kRn},   {".rz", Rounding::kRz},   {".rm", Rounding::kRm},   {".rp", Rounding::kRp},
      {".rna", Rounding::kRna}, {".rs", Rounding::kRs},   {".rni", Rounding::kRni}, {".rzi", Rounding::kRzi},
      {".rmi", Rounding::kRmi}, {".rpi", Rounding::kRpi},
  };
  for (auto [s, r] : kRounding)
    if (s == m) return info.rounding = r, true;
  if (m == ".ftz") return info.ftz = true, true;
  if (m == ".sat" || m == ".satfinite") return info.sat = true, true;
  if (m == ".approx") return info.approx = true, true;
  if (m == ".full") return info.full = true, true;
  if (m == ".uni") return info.uni = true, true;
  if (m == ".sync") return info.sync = true, true;
  if (m == ".aligned") return info.aligned = true, true;
  if (m == ".nc") return info.nc = true, true;
  if (m == ".to") return info.to = true, true;
  if (m == ".cc") return info.cc = true, true;
  if (m == ".proxy") return info.proxy = true, true;
  if (m == ".async") return info.async = true, true;
  if (m == ".bulk") return info.bulk = true, true;
  if (m == ".wide") return info.mul = MulMode::kWide, true;
  return false;
}

}  // namespace

ModifierInfo ClassifyModifiers(Opcode op, std::span<const std::string> modifiers) {
  ModifierInfo info;
  for (const std::string& m : modifiers)
    if (!Classify(op, m, info) && info.unclassified < 255) ++info.unclassified;
  return info;
}

std::string_view ToString(MemSemantics s) {
  switch (s) {
    case MemSemantics::kNone: return "";
    case MemSemantics::kWeak: return ".weak";
    case MemSemantics::kRelaxed: return ".relaxed";
    case MemSemantics::kAcquire: return ".acquire";
    case MemSemantics::kRelease: return ".release";
    case MemSemantics::kAcqRel: return ".acq_rel";
    case MemSemantics::kSc: return ".sc";
    case MemSemantics::kVolatile: return ".volatile";
    case MemSemantics::kMmio: return ".mmio";
  }
  return "";
}

std::string_view ToString(Scope s) {
  switch (s) {
    case Scope::kNone: return "";
    case Scope::kCta: return ".cta";
    case Scope::kCluster: return ".cluster";
    case Scope::kGpu: return ".gpu";
    case Scope::kSys: return ".sys";
  }
  return "";
}

std::string_view ToString(AtomOp a) {
  switch (a) {
    case AtomOp::kNone: return "";
    case AtomOp::kAdd: return ".add";
    case AtomOp::kMin: return ".min";
    case AtomOp::kMax: return ".max";
    case AtomOp::kInc: return ".inc";
    case AtomOp::kDec: return ".dec";
    case AtomOp::kCas: return ".cas";
    case AtomOp::kExch: return ".exch";
    case AtomOp::kAnd: return ".and";
    case AtomOp::kOr: return ".or";
    case AtomOp::kXor: return ".xor";
  }
  return "";
}

std::string_view ToString(CmpOp c) {
  static constexpr std::string_view kNames[] = {"",     ".eq",  ".ne",  ".lt",  ".le",  ".gt",  ".ge",
                                                ".lo",  ".ls",  ".hi",  ".hs",  ".equ", ".neu", ".ltu",
                                                ".leu", ".gtu", ".geu", ".num", ".nan"};
  auto i = static_cast<size_t>(c);
  return i < std::size(kNames) ? kNames[i] : std::string_view();
}

}  // namespace barracuda::ptx
