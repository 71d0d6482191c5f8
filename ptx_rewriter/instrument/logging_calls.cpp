// The instrumentation pass proper: decides what each instruction logs and
// rewrites function bodies (see instrument.h for the list and README.md,
// "Instrumentation", for the branch scheme).
#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "device_logger/logger_abi.h"
#include "device_logger/protocol.h"
#include "ptx_rewriter/access_record.h"
#include "ptx_rewriter/cfg.h"
#include "ptx_rewriter/instrument/instrument.h"
#include "ptx_rewriter/instrument/predication.h"
#include "ptx_rewriter/instrument/pruning.h"
#include "ptx_rewriter/instrument/register_types.h"
#include "ptx_rewriter/instrument/snippets.h"
#include "ptx_rewriter/printer.h"
#include "ptx_rewriter/reconvergence.h"
#include "ptx_rewriter/site_table.h"
#include "ptx_rewriter/sync_inference.h"
#include "ptx_rewriter/text_concat.h"

namespace barracuda::ptx {
namespace {

namespace abi = barracuda::logger_abi;
namespace proto = barracuda::protocol;
using Kind = AccessClass::Kind;
using snippet::Arg;

enum class Action : uint8_t {
  kNone,
  kAccess,
  kFence,
  kBarrier,
  kWarpSync,
  kBranch,
  kExit,
  kMbarrier,
  kAsyncCopy,    // cp.async.{ca,cg}
  kAsyncCommit,  // cp.async.commit_group: no record, the thread's group boundary
  kAsyncWait,    // cp.async.wait_group N / wait_all: kAsyncWait
  kAsyncArrive,  // cp.async.mbarrier.arrive[.noinc]
  kBulkCopy,     // cp.async.bulk global -> shared with mbarrier::complete_tx::bytes
  kProxyFence,   // fence.proxy.async*
  kMatrix,       // ldmatrix / stmatrix (.m8n8)
  kWmma,         // wmma.load / wmma.store
  kNotCovered
};

// Header fields as the emulator's decoder packs them (ptx_rewriter/access_record.h).
uint8_t ProtocolOp(Kind k) {
  const std::optional<proto::Op> op = RecordOp(k);
  return op ? static_cast<uint8_t>(*op) : 0xff;
}
uint8_t ProtocolFlags(const AccessClass& a) { return RecordFlags(a); }
uint8_t ProtocolScope(Scope s) { return static_cast<uint8_t>(RecordScope(s)); }

std::optional<abi::InstSpace> InstSpaceOf(StateSpace s) {
  switch (s) {
    case StateSpace::kGlobal: return abi::InstSpace::kGlobal;
    case StateSpace::kShared:
    case StateSpace::kSharedCluster: return abi::InstSpace::kShared;
    case StateSpace::kNone:
    case StateSpace::kGeneric: return abi::InstSpace::kGeneric;
    default: return std::nullopt;
  }
}

// The cp.async family, as ptx_emulator/ops/async_copy_ops.cpp and
// bulk_copy_ops.cpp select it.
Action DecideCp(const Instruction& in) {
  if (in.modifiers.empty() || in.modifiers[0] != ".async" || in.opaque) return Action::kNotCovered;
  if (in.info.bulk || in.HasModifier(".bulk")) {
    if (in.HasModifier(".prefetch")) return Action::kNone;  // a cache hint
    const bool from_global = in.modifiers.size() > 3 && in.modifiers[3] == ".global";
    const bool to_shared =
        in.modifiers.size() > 2 && (in.modifiers[2] == ".shared::cluster" || in.modifiers[2] == ".shared::cta");
    if (to_shared && from_global && in.HasModifier(".mbarrier::complete_tx::bytes") &&
        !in.HasModifier(".multicast::cluster") && !in.HasModifier(".tensor") && in.operands.size() >= 4 &&
        in.operands[0].is_address() && in.operands[1].is_address() && in.operands[3].is_address())
      return Action::kBulkCopy;
    return Action::kNotCovered;  // bulk async-groups, shared -> global, TMA: not logged
  }
  if (in.HasModifier(".commit_group")) return Action::kAsyncCommit;
  if (in.HasModifier(".wait_all")) return Action::kAsyncWait;
  if (in.HasModifier(".wait_group")) {
    if (in.operands.size() != 1 || in.operands[0].kind != Operand::Kind::kImmediate || in.operands[0].value < 0 ||
        in.operands[0].value > 64)
      return Action::kNotCovered;
    return Action::kAsyncWait;
  }
  if (in.HasModifier(".mbarrier")) {
    if (!in.HasModifier(".arrive") || in.operands.size() != 1 || !in.operands[0].is_address() ||
        !InstSpaceOf(in.info.space))
      return Action::kNotCovered;
    return Action::kAsyncArrive;
  }
  if (in.operands.size() < 3 || !in.operands[0].is_address() || !in.operands[1].is_address() ||
      in.operands[2].kind != Operand::Kind::kImmediate)
    return Action::kNotCovered;
  const int64_t size = in.operands[2].value;
  if (size != 4 && size != 8 && size != 16) return Action::kNotCovered;
  return Action::kAsyncCopy;
}

// ldmatrix / stmatrix: .x1 / .x2 / .x4 (0: none of them).
uint32_t MatrixCount(const Instruction& in) {
  if (in.HasModifier(".x1")) return 1;
  if (in.HasModifier(".x2")) return 2;
  if (in.HasModifier(".x4")) return 4;
  return 0;
}

// A wmma.load / wmma.store as the emulator decodes it
// (ptx_emulator/ops/tensor_core_ops.cpp, tensor_layouts.cpp "wmma").
struct WmmaForm {
  bool store = false;
  bool c = false;          // the accumulator (C / D): row-major fragment order whatever the layout
  bool col_major = false;  // .col
  uint32_t rows = 0, cols = 0;
  uint32_t per_lane = 0;   // S: elements per lane
  uint32_t elem_bytes = 0;
  int address = 0;         // operand index of the address
};

std::optional<WmmaForm> ParseWmma(const Instruction& in) {
  if (in.modifiers.size() < 2) return std::nullopt;
  WmmaForm f;
  const std::string& verb = in.modifiers[0];
  const std::string& which = in.modifiers[1];
  if (verb == ".load" && (which == ".a" || which == ".b" || which == ".c")) {
    f.address = 1;
  } else if (verb == ".store" && which == ".d") {
    f.store = true;
  } else {
    return std::nullopt;
  }
  f.c = which == ".c" || which == ".d";
  uint32_t m = 0, n = 0, k = 0, layouts = 0;
  uint32_t bytes = 0;
  bool multiplicand_f16 = false;
  for (size_t i = 2; i < in.modifiers.size(); ++i) {
    const std::string& mod = in.modifiers[i];
    if (mod == ".row" || mod == ".col") {
      f.col_major = mod == ".col";
      ++layouts;
    } else if (mod == ".m16n16k16") {
      m = 16, n = 16, k = 16;
    } else if (mod == ".m32n8k16") {
      m = 32, n = 8, k = 16;
    } else if (mod == ".m8n32k16") {
      m = 8, n = 32, k = 16;
    } else if (mod == ".m16n16k8") {
      m = 16, n = 16, k = 8;
    } else if (mod == ".m8n8k4") {
      m = 8, n = 8, k = 4;
    } else if (mod == ".f16" || mod == ".bf16") {
      bytes = 2;
      multiplicand_f16 = mod == ".f16";
    } else if (mod == ".tf32" || mod == ".f32" || mod == ".s32") {
      bytes = 4;
    } else if (mod == ".f64") {
      bytes = 8;
    } else if (mod == ".s8" || mod == ".u8") {
      bytes = 1;
    }
  }
  if (layouts != 1 || m == 0 || bytes == 0) return std::nullopt;
  f.rows = which == ".b" ? k : m;
  f.cols = which == ".a" ? k : n;
  const uint32_t cells = f.rows * f.cols;
  if (cells % 32 != 0) return std::nullopt;
  // .f16 multiplicands: always 8 .f16x2 registers (the emulator's WmmaFragment).
  f.per_lane = multiplicand_f16 && !f.c ? 16 : cells / 32;
  f.elem_bytes = bytes;
  const size_t want = in.operands.size();
  if (want < 2 || want > 3 || !in.operands[f.address].is_address()) return std::nullopt;
  return f;
}

Action Decide(const Instruction& in, const AccessClass& c, bool is_entry, bool conditional_branch) {
  switch (in.op) {
    case Opcode::kLd:
    case Opcode::kLdu:
    case Opcode::kSt:
    case Opcode::kAtom:
    case Opcode::kRed:
      // st.async / red.async: their complete-tx on a cluster CTA's mbarrier is
      // not logged, so a plain record here would show the phase's waiters a
      // race that the release orders (emulator: ops/async_store_ops.cpp).
      if ((in.op == Opcode::kSt || in.op == Opcode::kRed) && in.HasModifier(".async")) return Action::kNotCovered;
      if (c.kind == Kind::kNone) return Action::kNone;  // local/param/const
      if (in.opaque || !InstSpaceOf(in.info.space)) return Action::kNotCovered;
      return Action::kAccess;
    case Opcode::kFence:
    case Opcode::kMembar:
      if (c.kind == Kind::kFence) return Action::kFence;
      return in.is_async_proxy_fence() ? Action::kProxyFence : Action::kNone;
    case Opcode::kCp:
      return DecideCp(in);
    case Opcode::kLdmatrix:
    case Opcode::kStmatrix:
      if (c.kind == Kind::kNone) return Action::kNone;
      if (in.opaque || !InstSpaceOf(in.info.space) || !in.HasModifier(".m8n8") || MatrixCount(in) == 0)
        return Action::kNotCovered;
      return Action::kMatrix;
    case Opcode::kWmma:
      if (c.kind == Kind::kNone) return Action::kNone;  // wmma.mma: registers only
      if (in.opaque || !InstSpaceOf(in.info.space) || !ParseWmma(in)) return Action::kNotCovered;
      return Action::kWmma;
    case Opcode::kBar:
    case Opcode::kBarrier:
      if (in.opaque) return Action::kNotCovered;
      if (in.HasModifier(".cluster")) return in.HasModifier(".wait") ? Action::kBarrier : Action::kNone;
      if (in.info.barrier == BarrierMode::kWarpSync) return Action::kWarpSync;
      return in.info.barrier == BarrierMode::kNone ? Action::kNotCovered : Action::kBarrier;
    case Opcode::kShfl:
    case Opcode::kVote:
    case Opcode::kMatch:
    case Opcode::kRedux:
    case Opcode::kElect:
      if (in.opaque) return Action::kNotCovered;
      return in.info.sync ? Action::kWarpSync : Action::kNotCovered;
    case Opcode::kMbarrier:
      // pending_count reads a register only.
      if (!in.modifiers.empty() && in.modifiers[0] == ".pending_count") return Action::kNone;
      if (in.opaque || !InstSpaceOf(in.info.space)) return Action::kNotCovered;
      return Action::kMbarrier;
    case Opcode::kBra:
      return conditional_branch ? Action::kBranch : Action::kNone;
    case Opcode::kExit:
      return Action::kExit;
    case Opcode::kRet:
      return is_entry ? Action::kExit : Action::kNone;
    default:
      break;
  }
  const auto site = ClassifySite(in);
  if (!site || *site == SiteKind::kBranch) {
    return site && in.is_indirect_branch() ? Action::kNotCovered : Action::kNone;
  }
  // activemask is a warp-sync site without a record in the emulator either.
  if (in.op == Opcode::kActivemask) return Action::kNone;
  return Action::kNotCovered;
}

// What lies between branch `br` and its join: the blocks reachable from the
// branch without passing the join (one walk answers every question below).
struct RegionFacts {
  // A lane can wait at a barrier (bar.sync, bar.red, barrier.cluster.wait). Only
  // then can some lanes of the divergence pass the join while others are parked
  // (sm_70+ barriers in divergent code; the emulator forks them,
  // ptx_emulator/exec/README.md), so the join is reached in several groups.
  bool barrier = false;
  // The region holds a cycle or leads back to the branch: a lane that leaves a
  // loop early must not wait at the join for lanes still looping, which may be
  // spinning on a lock or flag it releases only after the join (starvation-free
  // code that independent thread scheduling allows, sm_70+).
  bool cycle = false;
  // A call: the callee may spin or hold a barrier that this walk cannot see.
  bool call = false;
  // Whether the join may make the split lanes wait for each other.
  bool join_may_wait() const { return !barrier && !cycle && !call; }
};

RegionFacts ScanRegion(const Function& f, const FunctionCfg& cfg, const BranchReconvergence& br,
                       const std::vector<Action>& actions) {
  RegionFacts facts;
  const int n = static_cast<int>(cfg.blocks.size());
  std::vector<bool> scanned(n, false);
  auto scan = [&](int b) {
    if (scanned[b]) return;
    scanned[b] = true;
    const BasicBlock& block = cfg.blocks[b];
    for (size_t i = block.first_statement; i <= block.last_statement && i < actions.size(); ++i) {
      const auto* in = std::get_if<Instruction>(&f.body[i]);
      if (in == nullptr) continue;
      facts.call = facts.call || in->is_call();
      facts.barrier = facts.barrier || (actions[i] == Action::kBarrier && in->info.barrier != BarrierMode::kArrive);
    }
  };
  // Depth-first, to tell back edges: 0 unseen, 1 on the path, 2 done.
  std::vector<uint8_t> state(n, 0);
  std::vector<std::pair<int, size_t>> stack;
  state[br.block] = 1;
  stack.emplace_back(br.block, 0);
  while (!stack.empty()) {
    auto& [b, next] = stack.back();
    const std::vector<int>& succ = cfg.blocks[b].successors;
    if (next == succ.size()) {
      state[b] = 2;
      stack.pop_back();
      continue;
    }
    const int s = succ[next++];
    if (s == br.reconvergence_block || s < 0 || s >= n) continue;
    scan(s);
    if (state[s] == 1) facts.cycle = true;  // back to a block on the path
    if (state[s] == 0) {
      state[s] = 1;
      stack.emplace_back(s, 0);
    }
  }
  return facts;
}

// Whether the module's strong writes need stamp locks (logger_abi.h kRmwLock):
// only where something can order memory, a fence or an acquire/release access
// in any function (a fence in a caller pairs with an atom in a callee). A
// histogram's relaxed atomics order nothing; locking them tripled its time.
bool StampLocksNeeded(const Module& module) {
  for (const ModuleItem& item : module.items) {
    const auto* f = std::get_if<Function>(&item);
    if (f == nullptr || !f->has_body) continue;
    for (const AccessClass& c : ClassifyAccesses(*f))
      if (c.kind == AccessClass::Kind::kFence || c.kind == AccessClass::Kind::kAcquire ||
          c.kind == AccessClass::Kind::kRelease || c.kind == AccessClass::Kind::kAcqRel)
        return true;
  }
  return false;
}

class FunctionRewriter {
 public:
  // stamp_locks: the module orders memory (StampLocksNeeded).
  FunctionRewriter(const Module& module, Function& f, const std::vector<uint32_t>& sites,
                   const InstrumentOptions& options, InstrumentStats& stats, bool stamp_locks)
      : module_(module), f_(f), sites_(sites), options_(options), stats_(stats), regs_(f), stamp_locks_(stamp_locks) {}

  absl::Status Run();

 private:
  struct BranchPlan {
    int index = 0;            // register number
    bool has_fi = false;      // reconverges at a real instruction
    bool else_at_fi = false;  // the fall-through side is empty (it is the join): kElse logged at fi,
                              // from the fell register
    bool reconverge = false;  // the join may wait for the split lanes (RegionFacts::join_may_wait)
  };

  uint32_t Site(size_t stmt) const {
    const uint32_t s = stmt < sites_.size() ? sites_[stmt] : proto::kNoSite;
    return s == proto::kNoSite ? s : s + options_.site_base;
  }
  absl::Status Error(const Instruction& in, std::string_view what) const {
    return absl::InvalidArgumentError(
        Cat(module_.filename, ":", in.pos.line, ":", in.pos.column, ": cannot instrument ", PrintInstruction(in),
            ": ", what));
  }
  absl::StatusOr<std::string> AddressText(const Instruction& in, const Operand& addr) const;
  absl::StatusOr<std::string> ValueText(const Instruction& in, const Operand& v, uint32_t size) const;
  absl::Status Access(const Instruction& in, size_t stmt, std::string& before, std::string& after) const;
  std::string Barrier(const Instruction& in, size_t stmt) const;
  absl::Status Mbarrier(const Instruction& in, size_t stmt, std::string& before, std::string& after) const;
  std::string WarpSync(const Instruction& in, size_t stmt) const;
  std::string Fi(size_t branch_stmt, const BranchPlan& plan) const;
  // The cp.async family and the collective matrix moves (README "Asynchronous
  // copies", "Matrix loads and stores").
  absl::StatusOr<std::string> U32Text(const Instruction& in, const Operand& v, std::string_view dst) const;
  absl::Status AsyncCopy(const Instruction& in, size_t stmt, std::string& before) const;
  std::string AsyncCommit() const;
  std::string AsyncWait(const Instruction& in, size_t stmt) const;
  absl::Status AsyncArrive(const Instruction& in, size_t stmt, std::string& before) const;
  absl::Status BulkCopy(const Instruction& in, size_t stmt, std::string& before) const;
  std::string ProxyFence(size_t stmt) const;
  absl::Status Matrix(const Instruction& in, size_t stmt, std::string& before) const;
  absl::Status Wmma(const Instruction& in, size_t stmt, std::string& before) const;

  const Module& module_;
  Function& f_;
  const std::vector<uint32_t>& sites_;
  const InstrumentOptions& options_;
  InstrumentStats& stats_;
  RegisterTypes regs_;
  bool stamp_locks_;
  std::vector<AccessClass> classes_;
  // State spaces of the variables the body declares (read before the body is rewritten).
  absl::flat_hash_map<std::string, StateSpace> local_spaces_;
  int labels_ = 0;
  // Group-boundary registers of the async state: the largest wait_group N + 1.
  int async_groups_ = 0;
};

absl::StatusOr<std::string> FunctionRewriter::AddressText(const Instruction& in, const Operand& addr) const {
  const Operand* base = addr.address_base();
  if (base == nullptr || addr.elements.size() != 1) return Error(in, "address form not supported");
  const std::string a(snippet::kAddr);
  std::string s;
  int64_t offset = addr.offset;
  switch (base->kind) {
    case Operand::Kind::kRegister:
      if (TypeSize(regs_.Lookup(base->text)) == 4) {
        s = Cat("cvt.u64.u32 ", a, ", ", base->text, ";\n");
      } else {
        s = Cat("mov.b64 ", a, ", ", base->text, ";\n");
      }
      break;
    case Operand::Kind::kSymbol: {
      offset += base->offset;
      // A variable named by a generic access stands for its generic address.
      StateSpace var = StateSpace::kNone;
      if (auto it = local_spaces_.find(base->text); it != local_spaces_.end()) {
        var = it->second;
      } else if (const VarDecl* g = module_.FindGlobal(base->text)) {
        var = g->space;
      }
      const bool generic = in.info.space == StateSpace::kNone || in.info.space == StateSpace::kGeneric;
      if (generic && var == StateSpace::kShared) {
        s = Cat("cvta.shared.u64 ", a, ", ", base->text, ";\n");
      } else if (generic && var == StateSpace::kGlobal) {
        s = Cat("cvta.global.u64 ", a, ", ", base->text, ";\n");
      } else {
        s = Cat("mov.u64 ", a, ", ", base->text, ";\n");
      }
      break;
    }
    case Operand::Kind::kImmediate:
      offset += base->value;
      s = Cat("mov.u64 ", a, ", 0;\n");
      break;
    default:
      return Error(in, "address base not supported");
  }
  if (offset != 0) s += Cat("add.s64 ", a, ", ", a, ", ", offset, ";\n");
  return s;
}

// Loads kValue (and kValueHi for 16-byte elements) with the element's bits.
absl::StatusOr<std::string> FunctionRewriter::ValueText(const Instruction& in, const Operand& v,
                                                        uint32_t size) const {
  const std::string lo(snippet::kValue), hi(snippet::kValueHi);
  if (v.kind == Operand::Kind::kImmediate || v.kind == Operand::Kind::kFloat) {
    uint64_t bits = static_cast<uint64_t>(v.value);
    if (size < 8) bits &= (uint64_t{1} << (8 * size)) - 1;
    return Cat("mov.b64 ", lo, ", ", bits, ";\nmov.b64 ", hi, ", 0;\n");
  }
  if (v.kind != Operand::Kind::kRegister) return Error(in, "stored value is not a register or a constant");
  uint32_t reg_size = TypeSize(regs_.Lookup(v.text));
  if (reg_size == 0) reg_size = size;  // undeclared: assume the instruction's type
  switch (reg_size) {
    case 16: return Cat("mov.b128 {", lo, ", ", hi, "}, ", v.text, ";\n");
    case 8: return Cat("mov.b64 ", lo, ", ", v.text, ";\nmov.b64 ", hi, ", 0;\n");
    case 4:
      return Cat("mov.b32 ", snippet::kTmp32, ", ", v.text, ";\ncvt.u64.u32 ", lo, ", ", snippet::kTmp32,
                 ";\nmov.b64 ", hi, ", 0;\n");
    case 2:
      return Cat("mov.b16 ", snippet::kTmp16, ", ", v.text, ";\ncvt.u64.u16 ", lo, ", ", snippet::kTmp16,
                 ";\nmov.b64 ", hi, ", 0;\n");
    case 1: return Cat("cvt.u64.u8 ", lo, ", ", v.text, ";\nmov.b64 ", hi, ", 0;\n");
    default: return Error(in, "stored value has an unsupported register size");
  }
}

// Logging of ld/ldu/st/atom/red: one call per element; acquiring loads after
// the access (the logger stamps after it observed), everything else before.
absl::Status FunctionRewriter::Access(const Instruction& in, size_t stmt, std::string& before,
                                      std::string& after) const {
  const AccessClass& c = classes_[stmt];
  const Operand* addr = nullptr;
  size_t addr_index = 0;
  for (size_t i = 0; i < in.operands.size() && addr == nullptr; ++i)
    if (in.operands[i].is_address()) addr = &in.operands[i], addr_index = i;
  if (addr == nullptr) return Error(in, "no address operand");
  const uint32_t size = TypeSize(in.info.type());
  if (size == 0 || size > 16) return Error(in, "access size not supported");
  const bool is_store = in.op == Opcode::kSt;
  const Operand* data = nullptr;
  if (in.op == Opcode::kLd || in.op == Opcode::kLdu) data = addr_index > 0 ? &in.operands[0] : nullptr;
  if (is_store) data = addr_index + 1 < in.operands.size() ? &in.operands[addr_index + 1] : nullptr;
  uint32_t elements = 1;
  if (data != nullptr && data->kind == Operand::Kind::kVector)
    elements = static_cast<uint32_t>(data->elements.size());
  if (in.op == Opcode::kAtom || in.op == Opcode::kRed) elements = 1;  // vector atomics log their first element
  auto address = AddressText(in, *addr);
  if (!address.ok()) return address.status();
  const uint32_t desc = abi::PackDesc(ProtocolOp(c.kind), ProtocolFlags(c), static_cast<uint8_t>(size),
                                      *InstSpaceOf(in.info.space), ProtocolScope(c.scope));
  const bool with_value = c.kind == Kind::kWrite;
  std::string calls;
  for (uint32_t k = 0; k < elements; ++k) {
    if (k > 0) calls += Cat("add.s64 ", snippet::kAddr, ", ", snippet::kAddr, ", ", size, ";\n");
    if (with_value) {
      const Operand& v = data->kind == Operand::Kind::kVector ? data->elements[k] : *data;
      auto value = ValueText(in, v, size);
      if (!value.ok()) return value.status();
      calls += *value;
      calls += snippet::Call(abi::kLogStore, {Arg{32, Cat(desc)}, Arg{32, Cat(Site(stmt))},
                                              Arg{64, std::string(snippet::kAddr)},
                                              Arg{64, std::string(snippet::kValue)},
                                              Arg{64, std::string(snippet::kValueHi)}});
    } else {
      calls += snippet::Call(abi::kLogAccess, {Arg{32, Cat(desc)}, Arg{32, Cat(Site(stmt))},
                                               Arg{64, std::string(snippet::kAddr)}});
    }
  }
  before += *address;
  const bool strong_write = in.op == Opcode::kAtom || (is_store && c.kind != Kind::kWrite);
  if (stamp_locks_ && strong_write && in.info.space != StateSpace::kShared) {
    // Atomics and strong or release stores outside shared memory are stamped
    // with no other such write of the location between stamp and execution
    // (logger_abi.h kRmwLock): lock, log, access, unlock. Their stamp order is
    // then the location's modification order, and a strong read, logged after
    // it executes, follows the write it read from. Not red (it acquires
    // nothing) nor shared memory (a block's hot histogram bins): the cost
    // (ptx_rewriter/README.md "Stamp locks").
    const std::string space = Cat(static_cast<uint32_t>(*InstSpaceOf(in.info.space)));
    before += snippet::Call(abi::kRmwLock, {Arg{64, std::string(snippet::kAddr)}, Arg{32, space}});
    before += calls;
    after += snippet::Call(abi::kRmwUnlock, {Arg{64, std::string(snippet::kAddr)}, Arg{32, space}});
    return absl::OkStatus();
  }
  // Loads that may take part in an acquire (ld.acquire, and strong loads:
  // ld.relaxed/.volatile, acquire patterns with a later fence) are logged after
  // they observed; writes and read-modify-writes before they become visible.
  if (c.kind == Kind::kAcquire || (c.kind == Kind::kAtomic && c.loads && !c.stores)) {
    after += calls;
  } else {
    before += calls;
  }
  return absl::OkStatus();
}

// mbarrier.* as the emulator logs it (ptx_emulator/ops/mbarrier_ops.cpp;
// host_detector/detector/SEMANTICS.md "mbarrier"): init / inval a plain
// 8-byte write of the object, arrive (and arrive_drop, arrive.expect_tx) a
// release read-modify-write at the instruction's scope (.relaxed: strong
// only), expect_tx / complete_tx relaxed read-modify-writes, and a test_wait
// / try_wait that found its phase complete an acquire load: logged after
// the instruction by the lanes whose result predicate is true.
absl::Status FunctionRewriter::Mbarrier(const Instruction& in, size_t stmt, std::string& before,
                                        std::string& after) const {
  const Operand* addr = nullptr;
  for (const Operand& o : in.operands)
    if (addr == nullptr && o.is_address()) addr = &o;
  if (addr == nullptr || in.modifiers.empty()) return Error(in, "no address operand");
  const std::string& what = in.modifiers[0];
  const bool relaxed = in.info.sem == MemSemantics::kRelaxed;
  const bool wait = what == ".test_wait" || what == ".try_wait";
  proto::Op op = proto::Op::kAtomic;
  uint8_t flags = proto::kFlagLoad | proto::kFlagStore;
  if (what == ".init" || what == ".inval") {
    op = proto::Op::kWrite;
    flags = 0;
  } else if (what == ".arrive" || what == ".arrive_drop") {
    op = relaxed ? proto::Op::kAtomic : proto::Op::kRelease;
  } else if (wait) {
    op = relaxed ? proto::Op::kAtomic : proto::Op::kAcquire;
    flags = proto::kFlagLoad;
  }
  const proto::Scope scope = op == proto::Op::kWrite            ? proto::Scope::kNone
                            : in.info.scope == Scope::kCluster ? proto::Scope::kCluster
                                                               : proto::Scope::kCta;
  auto address = AddressText(in, *addr);
  if (!address.ok()) return address.status();
  const uint32_t desc =
      abi::PackDesc(static_cast<uint8_t>(op), flags, 8, *InstSpaceOf(in.info.space), static_cast<uint8_t>(scope));
  before += *address;
  if (!wait) {
    before += snippet::Call(abi::kLogAccess, {Arg{32, Cat(desc)}, Arg{32, Cat(Site(stmt))},
                                             Arg{64, std::string(snippet::kAddr)}});
    return absl::OkStatus();
  }
  const Operand& done = in.operands[0];
  if (done.kind != Operand::Kind::kRegister || regs_.Lookup(done.text) != Type::kPred)
    return Error(in, "waitComplete predicate expected");
  after += snippet::Call(abi::kLogAccess, {Arg{32, Cat(desc)}, Arg{32, Cat(Site(stmt))},
                                           Arg{64, std::string(snippet::kAddr)}},
                         {}, done.text);
  return absl::OkStatus();
}

// ---- Asynchronous copies (cp.async), as ptx_emulator/ops/async_copy_ops.cpp
// records them. Each thread keeps, in registers of the function (snippets.h):
//   ar  its async records (kFlagAsync) so far: +1 per cp.async destination,
//       +1 per source read (src-size > 0), +2 per 16 bytes of a bulk copy
//       (the emulator's per-lane numbering, protocol.h kFlagAsync);
//   al  ar right after its last cp.async (a bulk copy's records belong to no
//       cp.async-group);
//   ag0..agK  al at its K+1 most recent commit_groups (newest first), K the
//       largest N of the function's wait_group N: the copies of every group
//       but the N most recent are those issued before the (N+1)-th most recent
//       commit, and the last of them numbers its records up to agN;
//   ac  the records known complete: wait_group N raises it to agN (0 while
//       fewer than N+1 groups were committed), wait_all and
//       cp.async.mbarrier.arrive to al;
//   ao  the count the thread last logged: after a wait, the lanes whose ac
//       grew past it log kAsyncWait(ac) and set ao = ac.
// The state lives in one function's registers: copies issued in one device
// function and waited for in another (calls that nvcc did not inline) are
// counted per function, which only ever names fewer records complete than
// the emulator does (extra reports, never missed races).

// `mov` (or `cvt`) of a register or immediate into the .b32 register `dst`.
absl::StatusOr<std::string> FunctionRewriter::U32Text(const Instruction& in, const Operand& v,
                                                      std::string_view dst) const {
  if (v.kind == Operand::Kind::kImmediate) return Cat("mov.u32 ", dst, ", ", static_cast<uint32_t>(v.value), ";\n");
  if (v.kind != Operand::Kind::kRegister) return Error(in, "register or integer constant expected");
  if (TypeSize(regs_.Lookup(v.text)) == 8) return Cat("cvt.u32.u64 ", dst, ", ", v.text, ";\n");
  return Cat("mov.b32 ", dst, ", ", v.text, ";\n");
}

// cp.async.{ca,cg}.shared{::cta}.global [dst], [src], cp-size{, src-size | ignore-src}{, policy}:
// the source read (kRead of min(src-size, cp-size) bytes, lanes that read;
// with a per-lane size, one record per size: log_sized) then the destination
// write (kWrite of cp-size bytes), both kFlagAsync.
absl::Status FunctionRewriter::AsyncCopy(const Instruction& in, size_t stmt, std::string& before) const {
  const uint32_t size = static_cast<uint32_t>(in.operands[2].value);
  const size_t rest = in.operands.size() - (in.info.l2_cache_hint ? 1 : 0);
  const std::string t(snippet::kTmp32), a(snippet::kAddr), p(snippet::kPred);
  const std::string records(snippet::kAsyncRecords);
  auto src = AddressText(in, in.operands[1]);
  if (!src.ok()) return src.status();
  auto dst = AddressText(in, in.operands[0]);
  if (!dst.ok()) return dst.status();
  const uint32_t read_desc =
      abi::PackDesc(static_cast<uint8_t>(proto::Op::kRead), proto::kFlagAsync, 0, abi::InstSpace::kGlobal, 0);
  before += *src;
  // `count`: the thread's records of this copy (1 or 2), into t.
  std::string count;
  if (rest <= 3) {  // the whole cp-size is read
    before += snippet::Call(abi::kLogAccess,
                            {Arg{32, Cat(read_desc | size << 16)}, Arg{32, Cat(Site(stmt))}, Arg{64, a}});
    count = Cat("mov.u32 ", t, ", 2;\n");
  } else {
    const Operand& extra = in.operands[3];
    const bool ignore = extra.kind == Operand::Kind::kRegister && regs_.Lookup(extra.text) == Type::kPred;
    if (!ignore && extra.kind == Operand::Kind::kImmediate) {
      const uint32_t n = std::min<uint64_t>(static_cast<uint64_t>(extra.value), size);
      if (n != 0)
        before += snippet::Call(abi::kLogAccess,
                                {Arg{32, Cat(read_desc | n << 16)}, Arg{32, Cat(Site(stmt))}, Arg{64, a}});
      count = Cat("mov.u32 ", t, ", ", n != 0 ? 2 : 1, ";\n");
    } else {
      if (ignore) {
        // ignore-src p: lanes with p read nothing (zero-fill).
        before += Cat("selp.u32 ", t, extra.negated ? Cat(", ", size, ", 0, ") : Cat(", 0, ", size, ", "),
                      extra.text, ";\n");
      } else {
        auto v = U32Text(in, extra, t);
        if (!v.ok()) return v.status();
        before += *v + Cat("min.u32 ", t, ", ", t, ", ", size, ";\n");
      }
      before += snippet::Call(abi::kLogSized,
                              {Arg{32, Cat(read_desc)}, Arg{32, Cat(Site(stmt))}, Arg{64, a}, Arg{32, t}});
      count = Cat("setp.ne.u32 ", p, ", ", t, ", 0;\nselp.u32 ", t, ", 2, 1, ", p, ";\n");
    }
  }
  const uint32_t write_desc = abi::PackDesc(static_cast<uint8_t>(proto::Op::kWrite), proto::kFlagAsync,
                                            static_cast<uint8_t>(size), abi::InstSpace::kShared, 0);
  before += *dst;
  before += snippet::Call(abi::kLogAccess, {Arg{32, Cat(write_desc)}, Arg{32, Cat(Site(stmt))}, Arg{64, a}});
  before += count + Cat("add.u32 ", records, ", ", records, ", ", t, ";\nmov.u32 ", snippet::kAsyncLast, ", ",
                        records, ";\n");
  return absl::OkStatus();
}

std::string FunctionRewriter::AsyncCommit() const {
  std::string s;
  for (int k = async_groups_ - 1; k > 0; --k)
    s += Cat("mov.u32 ", snippet::AsyncGroupReg(k), ", ", snippet::AsyncGroupReg(k - 1), ";\n");
  if (async_groups_ > 0) s += Cat("mov.u32 ", snippet::AsyncGroupReg(0), ", ", snippet::kAsyncLast, ";\n");
  return s;
}

// After cp.async.wait_group N / wait_all: kAsyncWait by the lanes whose
// completed count grew (the emulator's EmitObserved).
std::string FunctionRewriter::AsyncWait(const Instruction& in, size_t stmt) const {
  const std::string done(snippet::kAsyncDone), seen(snippet::kAsyncSeen), p(snippet::kPred);
  const std::string bound = in.HasModifier(".wait_all")
                                ? std::string(snippet::kAsyncLast)
                                : snippet::AsyncGroupReg(static_cast<int>(in.operands[0].value));
  std::string s = Cat("max.u32 ", done, ", ", done, ", ", bound, ";\n");
  s += Cat("setp.gt.u32 ", p, ", ", done, ", ", seen, ";\n");
  s += snippet::Call(abi::kLogAsyncWait, {Arg{32, Cat(Site(stmt))}, Arg{32, done}}, {}, p);
  s += Cat("mov.u32 ", seen, ", ", done, ";\n");
  return s;
}

// cp.async.mbarrier.arrive[.noinc] [a]: the arrive-on the copies trigger, a
// release read-modify-write of the object with kFlagAsync; it completes the
// thread's copies (without telling the thread: no kAsyncWait).
absl::Status FunctionRewriter::AsyncArrive(const Instruction& in, size_t stmt, std::string& before) const {
  auto address = AddressText(in, in.operands[0]);
  if (!address.ok()) return address.status();
  const uint32_t desc = abi::PackDesc(static_cast<uint8_t>(proto::Op::kRelease),
                                      proto::kFlagLoad | proto::kFlagStore | proto::kFlagAsync, 8,
                                      *InstSpaceOf(in.info.space), static_cast<uint8_t>(proto::Scope::kCta));
  before += *address;
  before += snippet::Call(abi::kLogAccess, {Arg{32, Cat(desc)}, Arg{32, Cat(Site(stmt))},
                                           Arg{64, std::string(snippet::kAddr)}});
  before += Cat("max.u32 ", snippet::kAsyncDone, ", ", snippet::kAsyncDone, ", ", snippet::kAsyncLast, ";\n");
  return absl::OkStatus();
}

// cp.async.bulk.shared::{cta,cluster}.global.mbarrier::complete_tx::bytes
// [dst], [src], size, [mbar]{, policy} (ptx_emulator/ops/bulk_copy_ops.cpp):
// per 16 bytes a kRead of src then per 16 bytes a kWrite of dst, lane by lane,
// kFlagAsync | kFlagAsyncProxy (log_bulk); then complete_tx on the mbarrier, a
// release of the lane's async records (kRelease, kFlagAsync).
absl::Status FunctionRewriter::BulkCopy(const Instruction& in, size_t stmt, std::string& before) const {
  auto src = AddressText(in, in.operands[1]);
  if (!src.ok()) return src.status();
  auto dst = AddressText(in, in.operands[0]);
  if (!dst.ok()) return dst.status();
  auto bar = AddressText(in, in.operands[3]);
  if (!bar.ok()) return bar.status();
  const std::string t(snippet::kTmp32), a(snippet::kAddr), v(snippet::kValue);
  auto bytes = U32Text(in, in.operands[2], t);
  if (!bytes.ok()) return bytes.status();
  const abi::InstSpace space = *InstSpaceOf(in.info.space);
  const uint32_t copy_desc = abi::PackDesc(0, proto::kFlagAsync | proto::kFlagAsyncProxy, 16, space, 0);
  before += *src + Cat("mov.b64 ", v, ", ", a, ";\n") + *dst + *bytes;
  before += snippet::Call(abi::kLogBulk,
                          {Arg{32, Cat(copy_desc)}, Arg{32, Cat(Site(stmt))}, Arg{64, v}, Arg{64, a}, Arg{32, t}});
  const uint32_t tx_desc =
      abi::PackDesc(static_cast<uint8_t>(proto::Op::kRelease), proto::kFlagLoad | proto::kFlagStore | proto::kFlagAsync,
                    8, space, static_cast<uint8_t>(proto::Scope::kCta));
  before += *bar;
  before += snippet::Call(abi::kLogAccess, {Arg{32, Cat(tx_desc)}, Arg{32, Cat(Site(stmt))}, Arg{64, a}});
  const std::string records(snippet::kAsyncRecords);
  before += Cat("shr.u32 ", t, ", ", t, ", 4;\nshl.b32 ", t, ", ", t, ", 1;\nadd.u32 ", records, ", ", records, ", ",
                t, ";\n");
  return absl::OkStatus();
}

// fence.proxy.async*: a kFence with kFlagAsyncProxy for the active lanes.
std::string FunctionRewriter::ProxyFence(size_t stmt) const {
  const uint32_t desc =
      abi::PackDesc(static_cast<uint8_t>(proto::Op::kFence), proto::kFlagAsyncProxy, 0, abi::InstSpace::kGlobal, 0);
  return snippet::Call(abi::kLogFence, {Arg{32, Cat(desc)}, Arg{32, Cat(Site(stmt))}});
}

// ---- Matrix loads and stores (ptx_emulator/ops/tensor_moves.cpp,
// tensor_memory.cpp): weak kRead / kWrite records, one per run of bytes.

// ldmatrix / stmatrix .m8n8.xM: lanes 0 .. 8M-1 each move the 16-byte row at
// their address: one 16-byte access per such lane.
absl::Status FunctionRewriter::Matrix(const Instruction& in, size_t stmt, std::string& before) const {
  const AccessClass& c = classes_[stmt];
  const Operand* addr = nullptr;
  for (const Operand& o : in.operands)
    if (addr == nullptr && o.is_address()) addr = &o;
  if (addr == nullptr) return Error(in, "no address operand");
  auto address = AddressText(in, *addr);
  if (!address.ok()) return address.status();
  const uint32_t desc =
      abi::PackDesc(ProtocolOp(c.kind), ProtocolFlags(c), 16, *InstSpaceOf(in.info.space), ProtocolScope(c.scope));
  const uint32_t matrices = MatrixCount(in);
  before += *address;
  std::string guard;
  if (matrices < 4) {
    before += Cat("mov.u32 ", snippet::kTmp32, ", %laneid;\nsetp.lt.u32 ", snippet::kPred, ", ", snippet::kTmp32,
                  ", ", 8 * matrices, ";\n");
    guard = std::string(snippet::kPred);
  }
  before += snippet::Call(abi::kLogAccess,
                          {Arg{32, Cat(desc)}, Arg{32, Cat(Site(stmt))}, Arg{64, std::string(snippet::kAddr)}}, {},
                          guard);
  return absl::OkStatus();
}

// wmma.load / wmma.store: the emulator's fragment mapping (tensor_layouts.h
// "wmma"; the GPU's own is unspecified): element i of lane l is, for A / B,
// element (l S + i) mod (rows cols) in the operand's memory order, for C / D
// row-major element l S + i. The emulator moves each lane's elements in the
// widest runs (16, 8, 4, 2 bytes) that are contiguous and aligned in every lane
// (tensor_memory.h PlanRuns); since it faults unless every row (column) starts
// at a multiple of min(S * element size, 16) bytes, that choice depends only
// on the form, and is made here. Per run: the lanes compute their run's
// address from %laneid and log one access (global, then shared records).
absl::Status FunctionRewriter::Wmma(const Instruction& in, size_t stmt, std::string& before) const {
  const AccessClass& c = classes_[stmt];
  const WmmaForm f = *ParseWmma(in);
  const uint32_t cells = f.rows * f.cols;
  const uint32_t bytes = f.elem_bytes;
  const uint32_t total = f.per_lane * bytes;
  // Memory coordinates of element i of lane l: x (row of a row-major, column
  // of a column-major layout) and y within it.
  auto place = [&](uint32_t l, uint32_t i, uint32_t& x, uint32_t& y) {
    if (f.c) {
      const uint32_t j = l * f.per_lane + i, row = j / f.cols, col = j % f.cols;
      x = f.col_major ? col : row;
      y = f.col_major ? row : col;
      return;
    }
    const uint32_t j = (l * f.per_lane + i) % cells, minor = f.col_major ? f.rows : f.cols;
    x = j / minor;
    y = j % minor;
  };
  uint32_t width = bytes;
  for (uint32_t w = 16; w > bytes; w /= 2) {
    if (total % w != 0) continue;
    const uint32_t per_run = w / bytes;
    bool fits = true;
    for (uint32_t l = 0; l < 32 && fits; ++l)
      for (uint32_t first = 0; first < f.per_lane && fits; first += per_run) {
        uint32_t x0, y0;
        place(l, first, x0, y0);
        if ((y0 * bytes) % w != 0) fits = false;
        for (uint32_t t = 1; t < per_run && fits; ++t) {
          uint32_t x, y;
          place(l, first + t, x, y);
          fits = x == x0 && y == y0 + t;
        }
      }
    if (fits) {
      width = w;
      break;
    }
  }
  const uint32_t per_run = width / bytes;
  auto address = AddressText(in, in.operands[f.address]);
  if (!address.ok()) return address.status();
  const std::string a(snippet::kAddr), base(snippet::kTensorBase), off(snippet::kTensorOffset),
      x(snippet::kTensorX), y(snippet::kTensorY), ld(snippet::kTensorLd), lane(snippet::kTmp32);
  before += *address + Cat("mov.b64 ", base, ", ", a, ";\n");
  if (in.operands.size() > 2) {
    auto stride = U32Text(in, in.operands[2], ld);
    if (!stride.ok()) return stride.status();
    before += *stride;
  } else {
    before += Cat("mov.u32 ", ld, ", ", f.col_major ? f.rows : f.cols, ";\n");
  }
  before += Cat("mov.u32 ", lane, ", %laneid;\nmul.lo.u32 ", lane, ", ", lane, ", ", f.per_lane, ";\n");
  const uint32_t desc = abi::PackDesc(ProtocolOp(c.kind), ProtocolFlags(c), static_cast<uint8_t>(width),
                                      *InstSpaceOf(in.info.space), ProtocolScope(c.scope));
  uint32_t shift = 0;
  while ((1u << shift) < bytes) ++shift;
  for (uint32_t i = 0; i < f.per_lane; i += per_run) {
    // j = l S + i (mod cells for A / B) -> (x, y).
    before += Cat("add.u32 ", x, ", ", lane, ", ", i, ";\n");
    if (!f.c) before += Cat("rem.u32 ", x, ", ", x, ", ", cells, ";\n");
    const uint32_t minor = f.c ? f.cols : (f.col_major ? f.rows : f.cols);
    before += Cat("rem.u32 ", y, ", ", x, ", ", minor, ";\ndiv.u32 ", x, ", ", x, ", ", minor, ";\n");
    // C / D: (row, col) = (x, y); a column-major layout stores it at (col, row).
    const std::string& mx = f.c && f.col_major ? y : x;
    const std::string& my = f.c && f.col_major ? x : y;
    before += Cat("cvt.u64.u32 ", off, ", ", my, ";\nmad.wide.u32 ", off, ", ", mx, ", ", ld, ", ", off, ";\n");
    if (shift != 0) before += Cat("shl.b64 ", off, ", ", off, ", ", shift, ";\n");
    before += Cat("add.s64 ", a, ", ", base, ", ", off, ";\n");
    before += snippet::Call(abi::kLogAccess, {Arg{32, Cat(desc)}, Arg{32, Cat(Site(stmt))}, Arg{64, a}});
  }
  return absl::OkStatus();
}

std::string FunctionRewriter::Barrier(const Instruction& in, size_t stmt) const {
  // Operands as the emulator reads them (exec/barriers.cpp): bar.red has its
  // destination first and its predicate last; barrier.cluster.wait none.
  std::string id = "0", count = "0";
  const bool red = in.info.barrier == BarrierMode::kRed;
  const size_t id_index = red ? 1 : 0;
  const size_t n = in.operands.size();
  const bool has_count = red ? n == 4 : n >= 2;
  if (!in.HasModifier(".cluster")) {
    if (n > id_index) id = PrintOperand(in.operands[id_index]);
    if (has_count) count = PrintOperand(in.operands[id_index + 1]);
  }
  const auto op = in.info.barrier == BarrierMode::kArrive ? proto::Op::kBarrierArrive : proto::Op::kBarrier;
  const uint32_t desc = abi::PackDesc(static_cast<uint8_t>(op), 0, 0, abi::InstSpace::kGlobal, 0);
  return snippet::Call(abi::kLogBarrier, {Arg{32, Cat(desc)}, Arg{32, Cat(Site(stmt))}, Arg{32, id}, Arg{32, count}});
}

std::string FunctionRewriter::WarpSync(const Instruction& in, size_t stmt) const {
  // The member mask is the last operand of every .sync warp primitive.
  std::string mask = in.operands.empty() ? "-1" : PrintOperand(in.operands.back());
  return snippet::Call(abi::kLogWarpSync, {Arg{32, Cat(Site(stmt))}, Arg{32, mask}});
}

std::string FunctionRewriter::Fi(size_t branch_stmt, const BranchPlan& plan) const {
  static_assert(abi::kFiFell == 1u << 31, "the fell register is shifted into bit 31");
  std::string s;
  const std::string depth = snippet::DepthReg(plan.index);
  std::string arg = depth;
  if (plan.else_at_fi) {
    s += Cat("shl.b32 ", snippet::kTmp32, ", ", snippet::FellReg(plan.index), ", 31;\n");
    s += Cat("or.b32 ", snippet::kTmp32, ", ", snippet::kTmp32, ", ", depth, ";\n");
    s += Cat("or.b32 ", snippet::kTmp32, ", ", snippet::kTmp32, ", ", abi::kFiElseAtFi, ";\n");
    arg = std::string(snippet::kTmp32);
  }
  // Independent thread scheduling (sm_70+) does not promise that the lanes a
  // branch split meet again at its join, and the records' if/else/fi nesting
  // (SEMANTICS.md) needs them to: log_fi waits for the split's lanes
  // (__syncwarp on join_mask) and logs for them as one group, as the emulator
  // does. Every lane of the mask reaches the join (it post-dominates the branch).
  // Not where a barrier lies between them (lanes parked there would wait for the
  // lanes waiting here), a loop (lanes still looping may wait for a lane that
  // left) or a call: those joins pass 0, and each group that arrives together
  // logs the levels its lanes close (the detector closes a level when all its
  // lanes arrived: host_detector/detector/SEMANTICS.md, "Joins reached in groups")
  // (plan.reconverge).
  const std::string mask = snippet::JoinMaskReg(plan.index);
  s += snippet::Call(abi::kLogFi, {Arg{32, Cat(Site(branch_stmt))}, Arg{32, arg},
                                   Arg{32, plan.reconverge ? mask : std::string("0")}});
  s += Cat("mov.u32 ", depth, ", 0;\nmov.u32 ", mask, ", 0;\n");
  return s;
}

absl::Status FunctionRewriter::Run() {
  auto cfg = BuildCfg(f_, module_.filename);
  if (!cfg.ok()) return cfg.status();
  const Reconvergence rec = ComputeReconvergence(*cfg);
  classes_ = ClassifyAccesses(f_);
  const size_t n = f_.body.size();
  for (const Statement& s : f_.body)
    if (const auto* d = std::get_if<VarDecl>(&s))
      for (const Declarator& dd : d->declarators) local_spaces_[dd.name] = d->space;

  std::vector<Action> actions(n, Action::kNone);
  std::vector<bool> logged(n, false);
  for (size_t i = 0; i < n; ++i) {
    const auto* in = std::get_if<Instruction>(&f_.body[i]);
    if (in == nullptr) continue;
    ++stats_.static_instructions;
    const BranchReconvergence* br = rec.ForStatement(i);
    const bool conditional = in->is_branch() && in->guard.present() && br != nullptr && !br->multiway;
    actions[i] = Decide(*in, classes_[i], f_.is_entry, conditional);
    if (actions[i] == Action::kNotCovered) ++stats_.not_covered;
    logged[i] = actions[i] != Action::kNone && actions[i] != Action::kNotCovered;
  }
  std::vector<bool> pruned(n, false);
  if (options_.prune) {
    std::vector<bool> accesses(n);
    for (size_t i = 0; i < n; ++i) accesses[i] = actions[i] == Action::kAccess;
    pruned = ComputePruned(f_, *cfg, classes_, accesses);
  }

  // Branch plans, and the fi calls each reconvergence statement owes.
  absl::flat_hash_map<size_t, BranchPlan> branch_plans;
  absl::flat_hash_map<size_t, std::vector<size_t>> fi_at;  // reconvergence stmt -> branch stmts
  int branch_registers = 0;
  for (const BranchReconvergence& br : rec.branches) {
    if (actions[br.statement] != Action::kBranch) continue;
    BranchPlan p;
    p.index = branch_registers++;
    p.has_fi = !br.at_exit() && br.reconvergence_statement.has_value();
    if (p.has_fi) {
      // The fall-through side starts at the next block. When it is the join
      // itself (loop exits) or leads only to it, an else call on that edge
      // would move the emulator's (and the GPU's) reconvergence point there;
      // the else lanes are then logged at fi, from the fell registers.
      const int fall = br.block + 1;
      p.else_at_fi = fall < static_cast<int>(cfg->blocks.size()) &&
                     (fall == br.reconvergence_block || rec.pdom.PostDominates(fall, br.block));
      const RegionFacts region = ScanRegion(f_, *cfg, br, actions);
      p.reconverge = region.join_may_wait();
      fi_at[*br.reconvergence_statement].push_back(br.statement);
    }
    branch_plans[br.statement] = p;
  }
  for (auto& [stmt, list] : fi_at) std::sort(list.rbegin(), list.rend());  // later branch = inner, first

  bool any = false;
  for (size_t i = 0; i < n; ++i) any = any || (logged[i] && !pruned[i]);
  if (!any) {
    for (size_t i = 0; i < n; ++i) stats_.instrumented_before += logged[i];
    return absl::OkStatus();
  }

  std::vector<Statement> out;
  out.reserve(n * 2);
  auto append = [&](const std::string& text) -> absl::Status {
    if (text.empty()) return absl::OkStatus();
    auto parsed = snippet::Parse(text);
    if (!parsed.ok()) return absl::InternalError(Cat("instrumentation snippet: ", parsed.status().message()));
    for (Statement& s : *parsed) out.push_back(std::move(s));
    return absl::OkStatus();
  };
  std::string prologue = snippet::PrologueDecls(branch_registers);
  bool async = false, tensor = false;
  for (size_t i = 0; i < n; ++i) {
    switch (actions[i]) {
      case Action::kAsyncCopy:
      case Action::kAsyncCommit:
      case Action::kAsyncArrive:
      case Action::kBulkCopy:
        async = true;
        break;
      case Action::kAsyncWait: {
        async = true;
        const auto& in = std::get<Instruction>(f_.body[i]);
        if (in.HasModifier(".wait_group"))
          async_groups_ = std::max(async_groups_, static_cast<int>(in.operands[0].value) + 1);
        break;
      }
      case Action::kWmma:
        tensor = true;
        break;
      default:
        break;
    }
  }
  if (tensor) prologue += snippet::TensorPrologue();
  if (async) prologue += snippet::AsyncPrologue(async_groups_);
  for (int k = 0; k < branch_registers; ++k)
    prologue += Cat("mov.u32 ", snippet::DepthReg(k), ", 0;\nmov.u32 ", snippet::FellReg(k), ", 0;\nmov.u32 ",
                    snippet::JoinMaskReg(k), ", 0;\n");
  if (auto st = append(prologue); !st.ok()) return st;

  for (size_t i = 0; i < n; ++i) {
    auto* in = std::get_if<Instruction>(&f_.body[i]);
    if (in == nullptr) {
      out.push_back(std::move(f_.body[i]));
      continue;
    }
    if (auto it = fi_at.find(i); it != fi_at.end()) {
      std::string fis;
      for (size_t b : it->second) fis += Fi(b, branch_plans[b]);
      if (auto st = append(fis); !st.ok()) return st;
    }
    if (logged[i]) ++stats_.instrumented_before;
    if (!logged[i] || pruned[i]) {
      out.push_back(std::move(f_.body[i]));
      continue;
    }
    ++stats_.instrumented_after;
    std::string before, after;
    bool around = in->guard.present();
    switch (actions[i]) {
      case Action::kAccess: {
        ++stats_.accesses;
        if (auto st = Access(*in, i, before, after); !st.ok()) return st;
        break;
      }
      case Action::kFence: {
        ++stats_.fences;
        const AccessClass& c = classes_[i];
        const uint32_t desc = abi::PackDesc(static_cast<uint8_t>(proto::Op::kFence), ProtocolFlags(c), 0,
                                            abi::InstSpace::kGlobal, ProtocolScope(c.scope));
        before = snippet::Call(abi::kLogFence, {Arg{32, Cat(desc)}, Arg{32, Cat(Site(i))}});
        break;
      }
      case Action::kBarrier:
        ++stats_.barriers;
        before = Barrier(*in, i);
        break;
      case Action::kMbarrier:
        ++stats_.accesses;
        if (auto st = Mbarrier(*in, i, before, after); !st.ok()) return st;
        break;
      case Action::kWarpSync:
        ++stats_.warp_syncs;
        before = WarpSync(*in, i);
        break;
      case Action::kAsyncCopy:
        ++stats_.accesses;
        if (auto st = AsyncCopy(*in, i, before); !st.ok()) return st;
        break;
      case Action::kAsyncCommit:
        before = AsyncCommit();
        break;
      case Action::kAsyncWait:
        ++stats_.fences;
        after = AsyncWait(*in, i);
        break;
      case Action::kAsyncArrive:
        ++stats_.accesses;
        if (auto st = AsyncArrive(*in, i, before); !st.ok()) return st;
        break;
      case Action::kBulkCopy:
        ++stats_.accesses;
        if (auto st = BulkCopy(*in, i, before); !st.ok()) return st;
        break;
      case Action::kProxyFence:
        ++stats_.fences;
        before = ProxyFence(i);
        break;
      case Action::kMatrix:
        ++stats_.accesses;
        if (auto st = Matrix(*in, i, before); !st.ok()) return st;
        break;
      case Action::kWmma:
        ++stats_.accesses;
        if (auto st = Wmma(*in, i, before); !st.ok()) return st;
        break;
      case Action::kExit:
        ++stats_.exits;
        before = snippet::Call(abi::kLogExit, {});
        break;
      case Action::kBranch: {
        ++stats_.branches;
        around = false;  // the branch itself is the logged event
        const BranchPlan& p = branch_plans[i];
        const std::string taken = Cat("selp.u32 ", snippet::kTmp32, ", ", in->guard.negated ? "0, 1, " : "1, 0, ",
                                      in->guard.reg, ";\n");
        before = taken + snippet::Call(abi::kLogBranch, {Arg{32, Cat(Site(i))}, Arg{32, std::string(snippet::kTmp32)}},
                                       snippet::kDiverged);
        const std::string depth = snippet::DepthReg(p.index);
        if (p.has_fi) {
          // A later divergent execution splits a subset of the lanes of an earlier one
          // (loops, nesting), so the largest mask is the outermost split's.
          const std::string mask = snippet::JoinMaskReg(p.index);
          before += Cat("max.u32 ", mask, ", ", mask, ", ", snippet::kDiverged, ";\n");
        }
        before += Cat("setp.ne.u32 ", snippet::kPred, ", ", snippet::kDiverged, ", 0;\n");
        before += Cat("selp.u32 ", snippet::kDiverged, ", 1, 0, ", snippet::kPred, ";\n");
        if (p.has_fi) before += Cat("add.u32 ", depth, ", ", depth, ", ", snippet::kDiverged, ";\n");
        if (p.else_at_fi) {
          // fell = lanes not taking the branch, updated only when it diverged.
          before += Cat("@", snippet::kPred, " xor.b32 ", snippet::FellReg(p.index), ", ", snippet::kTmp32, ", 1;\n");
        }
        if (!p.else_at_fi) after = snippet::Call(abi::kLogElse, {Arg{32, Cat(Site(i))}}, {}, snippet::kPred);
        break;
      }
      case Action::kNone:
      case Action::kNotCovered:
        break;
    }
    std::string label;
    if (around) {
      ++stats_.predicated;
      label = SkipLabel(labels_++);
      before = SkipBranch(in->guard, label) + before;
      in->guard = Guard{};
    }
    if (auto st = append(before); !st.ok()) return st;
    out.push_back(std::move(f_.body[i]));
    if (!label.empty()) after += label + ":\n";
    if (auto st = append(after); !st.ok()) return st;
  }
  f_.body = std::move(out);
  return absl::OkStatus();
}

}  // namespace

InstrumentStats& InstrumentStats::operator+=(const InstrumentStats& o) {
  functions += o.functions;
  static_instructions += o.static_instructions;
  instrumented_before += o.instrumented_before;
  instrumented_after += o.instrumented_after;
  accesses += o.accesses;
  fences += o.fences;
  barriers += o.barriers;
  warp_syncs += o.warp_syncs;
  branches += o.branches;
  exits += o.exits;
  predicated += o.predicated;
  not_covered += o.not_covered;
  return *this;
}

absl::StatusOr<InstrumentStats> InstrumentModule(Module& module, const InstrumentOptions& options) {
  for (const char* name : {abi::kLogAccess, abi::kLogStore, abi::kLogBranch, abi::kLogExit})
    if (module.FindFunction(name) != nullptr)
      return absl::InvalidArgumentError(Cat(module.filename, ": already instrumented (declares ", name, ")"));
  // Site ids of the original module, by function and statement.
  const SiteTable table = BuildSiteTable(module);
  absl::flat_hash_map<std::string, std::vector<uint32_t>> sites;
  for (const Site& s : table.sites) {
    std::vector<uint32_t>& v = sites[s.function];
    if (v.size() <= s.statement) v.resize(s.statement + 1, proto::kNoSite);
    v[s.statement] = s.id;
  }
  InstrumentStats stats;
  const std::vector<uint32_t> none;
  const bool stamp_locks = StampLocksNeeded(module);
  for (ModuleItem& item : module.items) {
    auto* f = std::get_if<Function>(&item);
    if (f == nullptr || !f->has_body) continue;
    ++stats.functions;
    auto it = sites.find(f->name);
    FunctionRewriter rewriter(module, *f, it == sites.end() ? none : it->second, options, stats, stamp_locks);
    if (auto st = rewriter.Run(); !st.ok()) return st;
  }
  if (options.declare_logger) {
    auto decls = snippet::ParseItems(snippet::LoggerDeclarations());
    if (!decls.ok()) return absl::InternalError(Cat("logger declarations: ", decls.status().message()));
    module.items.insert(module.items.begin(), std::make_move_iterator(decls->begin()),
                        std::make_move_iterator(decls->end()));
  }
  return stats;
}

}  // namespace barracuda::ptx
