// The instrumentation pass proper: decides what each instruction logs and
// rewrites function bodies (see instrument.h for the list and README.md,
// "Instrumentation", for the branch scheme). The asynchronous and the matrix
// operations are logged by async_logging.cpp and matrix_logging.cpp.
#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "device_logger/logger_abi.h"
#include "device_logger/protocol.h"
#include "ptx_rewriter/access_record.h"
#include "ptx_rewriter/cfg.h"
#include "ptx_rewriter/instrument/function_rewriter.h"
#include "ptx_rewriter/instrument/instrument.h"
#include "ptx_rewriter/instrument/predication.h"
#include "ptx_rewriter/instrument/pruning.h"
#include "ptx_rewriter/instrument/snippets.h"
#include "ptx_rewriter/printer.h"
#include "ptx_rewriter/reconvergence.h"
#include "ptx_rewriter/site_table.h"
#include "ptx_rewriter/sync_inference.h"
#include "ptx_rewriter/text_concat.h"

namespace barracuda::ptx {
namespace logging_pass {
namespace {

Action Decide(const Instruction& in, const AccessClass& c, bool is_entry, bool conditional_branch) {
  switch (in.op) {
    case Opcode::kLd:
    case Opcode::kLdu:
    case Opcode::kSt:
    case Opcode::kAtom:
    case Opcode::kRed:
      // st.async / red.async: the access and its complete-tx on a cluster
      // CTA's mbarrier (async_logging.cpp).
      if ((in.op == Opcode::kSt || in.op == Opcode::kRed) && in.HasModifier(".async")) return DecideAsyncStore(in);
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
    case Opcode::kWmma:
      return DecideMatrix(in, c);
    case Opcode::kBar:
    case Opcode::kBarrier:
      if (in.opaque) return Action::kNotCovered;
      if (in.HasModifier(".cluster")) return Action::kClusterBarrier;
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
      facts.barrier = facts.barrier || (actions[i] == Action::kBarrier && in->info.barrier != BarrierMode::kArrive) ||
                      (actions[i] == Action::kClusterBarrier && in->HasModifier(".wait"));
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

}  // namespace

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
  if (in.op == Opcode::kAtom || in.op == Opcode::kRed) {
    // Vector atomics (sm_90, atom.global.add.v4.f32): one record per element,
    // each its own atomic, as the emulator logs them.
    const Operand* b = addr_index + 1 < in.operands.size() ? &in.operands[addr_index + 1] : nullptr;
    elements = b != nullptr && b->kind == Operand::Kind::kVector ? static_cast<uint32_t>(b->elements.size()) : 1;
  }
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
    // kAddr back at the first element (vector atomics): the unlock names it.
    if (elements > 1) before += Cat("sub.s64 ", snippet::kAddr, ", ", snippet::kAddr, ", ", (elements - 1) * size, ";\n");
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

// `mov` (or `cvt`) of a register or immediate into the .b32 register `dst`.
absl::StatusOr<std::string> FunctionRewriter::U32Text(const Instruction& in, const Operand& v,
                                                      std::string_view dst) const {
  if (v.kind == Operand::Kind::kImmediate) return Cat("mov.u32 ", dst, ", ", static_cast<uint32_t>(v.value), ";\n");
  if (v.kind != Operand::Kind::kRegister) return Error(in, "register or integer constant expected");
  if (TypeSize(regs_.Lookup(v.text)) == 8) return Cat("cvt.u32.u64 ", dst, ", ", v.text, ";\n");
  return Cat("mov.b32 ", dst, ", ", v.text, ";\n");
}

std::string FunctionRewriter::Barrier(const Instruction& in, size_t stmt) const {
  // Operands as the emulator reads them (exec/barriers.cpp): bar.red has its
  // destination first and its predicate last.
  std::string id = "0", count = "0";
  const bool red = in.info.barrier == BarrierMode::kRed;
  const size_t id_index = red ? 1 : 0;
  const size_t n = in.operands.size();
  const bool has_count = red ? n == 4 : n >= 2;
  if (n > id_index) id = PrintOperand(in.operands[id_index]);
  if (has_count) count = PrintOperand(in.operands[id_index + 1]);
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
    if (actions[i] == Action::kNotCovered) {
      ++stats_.not_covered;
      stats_.unchecked.push_back({f_.name, Site(i), OpcodeText(*in), in->pos.line});
    }
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
  bool async = false, bulk = false, tensor = false, cluster_barrier = false, im2col = false;
  for (size_t i = 0; i < n; ++i) {
    switch (actions[i]) {
      case Action::kAsyncCopy:
      case Action::kAsyncCommit:
      case Action::kAsyncArrive:
      case Action::kBulkCopy:
      case Action::kBulkMulticast:
      case Action::kAsyncStore:
        async = true;
        break;
      case Action::kTensorCopy:
        im2col |= std::get<Instruction>(f_.body[i]).HasModifier(".im2col");
        async = bulk = true;
        break;
      case Action::kBulkStore:
      case Action::kBulkReduce:
      case Action::kBulkCommit:
        async = bulk = true;
        break;
      case Action::kBulkWait: {
        async = bulk = true;
        const auto& in = std::get<Instruction>(f_.body[i]);
        bulk_groups_ = std::max(bulk_groups_, static_cast<int>(in.operands[0].value) + 1);
        break;
      }
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
      case Action::kClusterBarrier:
        cluster_barrier = true;
        break;
      default:
        break;
    }
  }
  if (tensor) prologue += snippet::TensorPrologue();
  if (async) prologue += snippet::AsyncPrologue(async_groups_);
  if (bulk) prologue += snippet::BulkPrologue(bulk_groups_);
  if (cluster_barrier) prologue += snippet::ClusterBarrierPrologue();
  if (im2col) prologue += Cat(".reg .b64 ", snippet::kIm2colOffsets, ";\n");
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
      case Action::kClusterBarrier:
        ++stats_.barriers;
        ClusterBarrier(*in, i, before, after);
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
      case Action::kBulkMulticast:
        ++stats_.accesses;
        if (auto st = BulkMulticast(*in, i, before); !st.ok()) return st;
        break;
      case Action::kBulkStore:
        ++stats_.accesses;
        if (auto st = BulkStore(*in, i, before); !st.ok()) return st;
        break;
      case Action::kBulkReduce:
        ++stats_.accesses;
        if (auto st = BulkReduce(*in, i, before); !st.ok()) return st;
        break;
      case Action::kTensorCopy:
        ++stats_.accesses;
        if (auto st = TensorCopy(*in, i, before); !st.ok()) return st;
        break;
      case Action::kAsyncStore:
        ++stats_.accesses;
        if (auto st = AsyncStore(*in, i, before); !st.ok()) return st;
        break;
      case Action::kBulkCommit:
        before = BulkCommit();
        break;
      case Action::kBulkWait:
        ++stats_.fences;
        after = BulkWait(*in, i);
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

}  // namespace logging_pass

namespace {

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
  unchecked.insert(unchecked.end(), o.unchecked.begin(), o.unchecked.end());
  return *this;
}

absl::StatusOr<InstrumentStats> InstrumentModule(Module& module, const InstrumentOptions& options) {
  for (const char* name : {logger_abi::kLogAccess, logger_abi::kLogStore, logger_abi::kLogBranch,
                           logger_abi::kLogExit})
    if (module.FindFunction(name) != nullptr)
      return absl::InvalidArgumentError(Cat(module.filename, ": already instrumented (declares ", name, ")"));
  // Site ids of the original module, by function and statement.
  const SiteTable table = BuildSiteTable(module);
  absl::flat_hash_map<std::string, std::vector<uint32_t>> sites;
  for (const Site& s : table.sites) {
    std::vector<uint32_t>& v = sites[s.function];
    if (v.size() <= s.statement) v.resize(s.statement + 1, protocol::kNoSite);
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
    logging_pass::FunctionRewriter rewriter(module, *f, it == sites.end() ? none : it->second, options, stats,
                                            stamp_locks);
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
