// The logging of the bulk async-groups (PTX ISA "cp.async.bulk",
// "cp.reduce.async.bulk", "cp.async.bulk.commit_group",
// "cp.async.bulk.wait_group"), as ptx_emulator/ops/bulk_copy_ops.cpp records
// them (README.md "Asynchronous copies"):
//   cp.async.bulk.global.shared::cta.bulk_group{.L2::cache_hint} [dst], [src], size{, policy}
//   cp.reduce.async.bulk.global.shared::cta.bulk_group{.L2::cache_hint}.op.type [dst], [src], size{, policy}
//   cp.reduce.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes.op.type
//       [dst], [src], size, [mbar]
//   cp.async.bulk.commit_group, cp.async.bulk.wait_group{.read} N
//
// Each thread keeps, besides async_logging.cpp's counts (ar, ao):
//   br  ar right after the reads of its last bulk-group copy (a copy's reads
//       are numbered before its writes, so a .read wait can name them alone);
//   be  ar right after its last bulk-group copy;
//   bg0..K / bq0..K  be / br at its K+1 most recent bulk commit_groups (newest
//       first), K the largest N of the function's bulk wait_group N.
// The emulator keeps each group's own (reads_end, end), 0 for an empty group,
// and drops the groups a full wait completed. Counts only grow, so the
// largest end among the groups older than the N newest is be as of the
// (N+1)-th most recent commit; a group the emulator dropped (or an empty one)
// only ever gives a count the thread has already logged, and neither side
// logs a count that is not above the last one (ao), so the records agree.
#include <string>

#include "absl/status/status.h"
#include "ptx_rewriter/instrument/function_rewriter.h"

namespace barracuda::ptx::logging_pass {

namespace {
// Operand shapes: [dst], [src], size{, ...} with addresses where the ISA has them.
bool AddressesAndSize(const Instruction& in, size_t min_operands) {
  return in.operands.size() >= min_operands && in.operands[0].is_address() && in.operands[1].is_address() &&
         !in.operands[2].is_address();
}
bool ToGlobalFromShared(const Instruction& in, size_t first) {
  return in.modifiers.size() > first + 1 && in.modifiers[first] == ".global" &&
         in.modifiers[first + 1] == ".shared::cta";
}
}  // namespace

bool DecideBulkStore(const Instruction& in) {
  // cp.async.bulk.global.shared::cta.bulk_group; .cp_mask (byte masks) is not
  // modelled by the emulator either.
  return ToGlobalFromShared(in, 2) && in.HasModifier(".bulk_group") && !in.HasModifier(".cp_mask") &&
         AddressesAndSize(in, 3);
}

Action DecideBulkWait(const Instruction& in) {
  if (in.operands.size() != 1 || in.operands[0].kind != Operand::Kind::kImmediate || in.operands[0].value < 0 ||
      in.operands[0].value > 64)
    return Action::kNotCovered;
  return Action::kBulkWait;
}

Action DecideBulkReduce(const Instruction& in) {
  // cp.reduce.async.bulk.dst.src.completion...: modifiers .reduce .async .bulk .dst .src
  if (!in.opaque && in.HasModifier(".tensor")) return DecideTensorCopy(in);
  if (in.opaque || in.modifiers.size() < 5 || in.modifiers[1] != ".async" || in.modifiers[2] != ".bulk" ||
      TypeSize(in.info.type()) == 0)
    return Action::kNotCovered;
  if (ToGlobalFromShared(in, 3) && in.HasModifier(".bulk_group") && AddressesAndSize(in, 3))
    return Action::kBulkReduce;
  if (in.modifiers[3] == ".shared::cluster" && in.modifiers[4] == ".shared::cta" &&
      in.HasModifier(".mbarrier::complete_tx::bytes") && AddressesAndSize(in, 4) && in.operands[3].is_address())
    return Action::kBulkReduce;
  return Action::kNotCovered;
}

absl::Status FunctionRewriter::BulkOperands(const Instruction& in, std::string& before) const {
  auto src = AddressText(in, in.operands[1]);
  if (!src.ok()) return src.status();
  auto dst = AddressText(in, in.operands[0]);
  if (!dst.ok()) return dst.status();
  auto bytes = U32Text(in, in.operands[2], snippet::kTmp32);
  if (!bytes.ok()) return bytes.status();
  before += *src + Cat("mov.b64 ", snippet::kValue, ", ", snippet::kAddr, ";\n") + *dst + *bytes;
  return absl::OkStatus();
}

// Shared -> global in the open bulk group: log_bulk (per 16 bytes a kRead of
// the shared source, then per 16 bytes a kWrite of the global destination,
// kFlagAsync | kFlagAsyncProxy), then ar += reads, br = ar, ar += writes,
// be = ar.
absl::Status FunctionRewriter::BulkStore(const Instruction& in, size_t stmt, std::string& before) const {
  if (auto st = BulkOperands(in, before); !st.ok()) return st;
  const std::string t(snippet::kTmp32), a(snippet::kAddr), v(snippet::kValue);
  // log_bulk: the source's space in the op byte (logger_abi.h).
  const uint32_t desc = abi::PackDesc(static_cast<uint8_t>(abi::InstSpace::kShared),
                                      proto::kFlagAsync | proto::kFlagAsyncProxy, 16, abi::InstSpace::kGlobal, 0);
  before += snippet::Call(abi::kLogBulk,
                          {Arg{32, Cat(desc)}, Arg{32, Cat(Site(stmt))}, Arg{64, v}, Arg{64, a}, Arg{32, t}});
  const std::string records(snippet::kAsyncRecords);
  before += Cat("shr.u32 ", t, ", ", t, ", 4;\nadd.u32 ", records, ", ", records, ", ", t, ";\nmov.u32 ",
                snippet::kBulkReadsEnd, ", ", records, ";\nadd.u32 ", records, ", ", records, ", ", t,
                ";\nmov.u32 ", snippet::kBulkEnd, ", ", records, ";\n");
  return absl::OkStatus();
}

// cp.reduce.async.bulk: log_bulk_reduce (per 16 bytes a kRead of the shared
// source, async; per element a stamped kAtomic of the destination at gpu
// scope in global memory, cluster scope in shared::cluster), ar += reads.
// To global it joins the open bulk group (br = be = ar); to shared::cluster
// its complete_tx on the mbarrier follows, a release with kFlagAsync, as
// for the bulk copies.
absl::Status FunctionRewriter::BulkReduce(const Instruction& in, size_t stmt, std::string& before) const {
  const bool to_global = in.modifiers[3] == ".global";
  if (auto st = BulkOperands(in, before); !st.ok()) return st;
  const std::string t(snippet::kTmp32), a(snippet::kAddr), v(snippet::kValue);
  const abi::InstSpace dst_space = to_global ? abi::InstSpace::kGlobal : abi::InstSpace::kSharedCluster;
  const proto::Scope scope = to_global ? proto::Scope::kGpu : proto::Scope::kCluster;
  const uint32_t desc =
      abi::PackDesc(static_cast<uint8_t>(proto::Op::kAtomic), proto::kFlagLoad | proto::kFlagStore,
                    static_cast<uint8_t>(TypeSize(in.info.type())), dst_space, static_cast<uint8_t>(scope));
  before += snippet::Call(abi::kLogBulkReduce,
                          {Arg{32, Cat(desc)}, Arg{32, Cat(Site(stmt))}, Arg{64, v}, Arg{64, a}, Arg{32, t}});
  if (!to_global) {
    auto bar = AddressText(in, in.operands[3]);
    if (!bar.ok()) return bar.status();
    const uint32_t tx_desc = abi::PackDesc(static_cast<uint8_t>(proto::Op::kRelease),
                                           proto::kFlagLoad | proto::kFlagStore | proto::kFlagAsync, 8,
                                           abi::InstSpace::kSharedCluster, static_cast<uint8_t>(proto::Scope::kCta));
    before += *bar;
    before += snippet::Call(abi::kLogAccess, {Arg{32, Cat(tx_desc)}, Arg{32, Cat(Site(stmt))}, Arg{64, a}});
  }
  const std::string records(snippet::kAsyncRecords);
  before += Cat("shr.u32 ", t, ", ", t, ", 4;\nadd.u32 ", records, ", ", records, ", ", t, ";\n");
  if (to_global)
    before += Cat("mov.u32 ", snippet::kBulkReadsEnd, ", ", records, ";\nmov.u32 ", snippet::kBulkEnd, ", ", records,
                  ";\n");
  return absl::OkStatus();
}

std::string FunctionRewriter::BulkCommit() const {
  std::string s;
  for (int k = bulk_groups_ - 1; k > 0; --k)
    s += Cat("mov.u32 ", snippet::BulkGroupReg(k), ", ", snippet::BulkGroupReg(k - 1), ";\nmov.u32 ",
             snippet::BulkReadsGroupReg(k), ", ", snippet::BulkReadsGroupReg(k - 1), ";\n");
  if (bulk_groups_ > 0)
    s += Cat("mov.u32 ", snippet::BulkGroupReg(0), ", ", snippet::kBulkEnd, ";\nmov.u32 ",
             snippet::BulkReadsGroupReg(0), ", ", snippet::kBulkReadsEnd, ";\n");
  return s;
}

// After cp.async.bulk.wait_group{.read} N: every bulk group but the N most
// recent is complete (.read: its reads), so the lanes whose count of
// observed records grows log kAsyncWait with it (the emulator's
// WaitBulkGroups + EmitObserved). Unlike cp.async's waits this leaves ac
// alone: ac counts cp.async completions, which a bulk wait does not make.
std::string FunctionRewriter::BulkWait(const Instruction& in, size_t stmt) const {
  const int n = static_cast<int>(in.operands[0].value);
  const std::string bound = in.HasModifier(".read") ? snippet::BulkReadsGroupReg(n) : snippet::BulkGroupReg(n);
  const std::string seen(snippet::kAsyncSeen), p(snippet::kPred);
  std::string s = Cat("setp.gt.u32 ", p, ", ", bound, ", ", seen, ";\n");
  s += snippet::Call(abi::kLogAsyncWait, {Arg{32, Cat(Site(stmt))}, Arg{32, bound}}, {}, p);
  s += Cat("max.u32 ", seen, ", ", seen, ", ", bound, ";\n");
  return s;
}

}  // namespace barracuda::ptx::logging_pass
