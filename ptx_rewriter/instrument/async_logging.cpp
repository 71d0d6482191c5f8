// The logging of asynchronous memory operations: mbarrier, cp.async and its
// commit / wait groups, cp.async.mbarrier.arrive, bulk copies and proxy fences
// (README.md "Asynchronous copies").
#include <algorithm>
#include <string>

#include "absl/status/status.h"
#include "ptx_rewriter/instrument/function_rewriter.h"

namespace barracuda::ptx::logging_pass {

bool CtaMaskOperand(const Operand& o) { return o.is_register() || o.kind == Operand::Kind::kImmediate; }

Action DecideCp(const Instruction& in) {
  if (!in.modifiers.empty() && in.modifiers[0] == ".reduce") return DecideBulkReduce(in);
  if (in.modifiers.empty() || in.modifiers[0] != ".async" || in.opaque) return Action::kNotCovered;
  if (in.info.bulk || in.HasModifier(".bulk")) {
    if (in.HasModifier(".prefetch")) return Action::kNone;  // a cache hint
    if (in.HasModifier(".commit_group")) return Action::kBulkCommit;
    if (in.HasModifier(".wait_group")) return DecideBulkWait(in);
    if (in.HasModifier(".tensor")) return DecideTensorCopy(in);
    if (DecideBulkStore(in)) return Action::kBulkStore;
    const bool from_global = in.modifiers.size() > 3 && in.modifiers[3] == ".global";
    const bool to_shared =
        in.modifiers.size() > 2 && (in.modifiers[2] == ".shared::cluster" || in.modifiers[2] == ".shared::cta");
    if (to_shared && from_global && in.HasModifier(".mbarrier::complete_tx::bytes") &&
        !in.HasModifier(".tensor") && in.operands.size() >= 4 && in.operands[0].is_address() &&
        in.operands[1].is_address() && in.operands[3].is_address()) {
      if (!in.HasModifier(".multicast::cluster")) return Action::kBulkCopy;
      if (in.modifiers[2] == ".shared::cluster" && in.operands.size() >= 5 && CtaMaskOperand(in.operands[4]))
        return Action::kBulkMulticast;
    }
    return Action::kNotCovered;  // shared::cluster -> shared::cta, byte masks: not logged
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
  // max, not mov: a bulk wait (bulk_groups.cpp) may have logged past ac.
  s += Cat("max.u32 ", seen, ", ", seen, ", ", done, ";\n");
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

// st.async / red.async (ptx_emulator/ops/async_store_ops.cpp):
//   st.async{.weak}{.shared::cluster}.mbarrier::complete_tx::bytes{.v2,.v4}.type [a], b, [mbar]
//   red.async.relaxed.cluster{.shared::cluster}.mbarrier::complete_tx::bytes.op.type [a], b, [mbar]
// 32- or 64-bit elements, at most 16 bytes.
Action DecideAsyncStore(const Instruction& in) {
  if (in.opaque || !in.HasModifier(".mbarrier::complete_tx::bytes") || !InstSpaceOf(in.info.space) ||
      in.operands.size() != 3 || !in.operands[0].is_address() || !in.operands[2].is_address())
    return Action::kNotCovered;
  const uint32_t elem = TypeSize(in.info.type());
  const Operand& b = in.operands[1];
  const size_t elements = b.kind == Operand::Kind::kVector ? b.elements.size() : 1;
  if ((elem != 4 && elem != 8) || (elements != 1 && elements != 2 && elements != 4) || elem * elements > 16 ||
      (in.op == Opcode::kRed && elements != 1))
    return Action::kNotCovered;
  return Action::kAsyncStore;
}

// st.async: its bytes an async write of the lane (kFlagAsync, one of its
// async records: ar += 1), ordered before other threads only through the
// phase its complete-tx feeds; red.async: its element a stamped
// read-modify-write at cluster scope. Then the complete-tx, a release with
// kFlagAsync on the mbarrier, as for the bulk copies.
absl::Status FunctionRewriter::AsyncStore(const Instruction& in, size_t stmt, std::string& before) const {
  const bool reduce = in.op == Opcode::kRed;
  const uint32_t elem = TypeSize(in.info.type());
  const Operand& b = in.operands[1];
  const uint32_t elements = b.kind == Operand::Kind::kVector ? static_cast<uint32_t>(b.elements.size()) : 1;
  const abi::InstSpace space = *InstSpaceOf(in.info.space);
  auto addr = AddressText(in, in.operands[0]);
  if (!addr.ok()) return addr.status();
  auto bar = AddressText(in, in.operands[2]);
  if (!bar.ok()) return bar.status();
  const uint32_t desc =
      reduce ? abi::PackDesc(static_cast<uint8_t>(proto::Op::kAtomic), proto::kFlagLoad | proto::kFlagStore,
                             static_cast<uint8_t>(elem), space, static_cast<uint8_t>(proto::Scope::kCluster))
             : abi::PackDesc(static_cast<uint8_t>(proto::Op::kWrite), proto::kFlagAsync,
                             static_cast<uint8_t>(elem * elements), space, 0);
  const std::string a(snippet::kAddr), records(snippet::kAsyncRecords);
  before += *addr + snippet::Call(abi::kLogAccess, {Arg{32, Cat(desc)}, Arg{32, Cat(Site(stmt))}, Arg{64, a}});
  if (!reduce) before += Cat("add.u32 ", records, ", ", records, ", 1;\n");
  const uint32_t tx_desc =
      abi::PackDesc(static_cast<uint8_t>(proto::Op::kRelease), proto::kFlagLoad | proto::kFlagStore | proto::kFlagAsync,
                    8, space, static_cast<uint8_t>(proto::Scope::kCta));
  before += *bar + snippet::Call(abi::kLogAccess, {Arg{32, Cat(tx_desc)}, Arg{32, Cat(Site(stmt))}, Arg{64, a}});
  return absl::OkStatus();
}

// A multicast's ctaMask (a .b16 register or a constant) into kDiverged, free
// outside a branch's own snippet.
absl::StatusOr<std::string> FunctionRewriter::CtaMaskText(const Instruction& in, const Operand& mask) const {
  const std::string d(snippet::kDiverged);
  if (mask.kind == Operand::Kind::kImmediate) return Cat("mov.u32 ", d, ", ", static_cast<uint32_t>(mask.value) & 0xffff, ";\n");
  switch (TypeSize(regs_.Lookup(mask.text))) {
    case 2: return Cat("cvt.u32.u16 ", d, ", ", mask.text, ";\n");
    case 4: return Cat("and.b32 ", d, ", ", mask.text, ", 65535;\n");
    default: return Error(in, "a 16-bit ctaMask expected");
  }
}

// cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster
//   [dst], [src], size, [mbar], ctaMask: log_multicast (per CTA of the mask:
//   the copy's reads and writes, then its complete-tx), ar += its records.
absl::Status FunctionRewriter::BulkMulticast(const Instruction& in, size_t stmt, std::string& before) const {
  auto src = AddressText(in, in.operands[1]);
  if (!src.ok()) return src.status();
  auto bar = AddressText(in, in.operands[3]);
  if (!bar.ok()) return bar.status();
  auto dst = AddressText(in, in.operands[0]);
  if (!dst.ok()) return dst.status();
  const std::string t(snippet::kTmp32), a(snippet::kAddr), v(snippet::kValue), vh(snippet::kValueHi),
      d(snippet::kDiverged), records(snippet::kAsyncRecords);
  auto bytes = U32Text(in, in.operands[2], t);
  if (!bytes.ok()) return bytes.status();
  auto mask = CtaMaskText(in, in.operands[4]);
  if (!mask.ok()) return mask.status();
  before += *src + Cat("mov.b64 ", v, ", ", a, ";\n") + *bar + Cat("mov.b64 ", vh, ", ", a, ";\n") + *dst + *bytes +
            *mask;
  const uint32_t desc =
      abi::PackDesc(0, proto::kFlagAsync | proto::kFlagAsyncProxy, 16, abi::InstSpace::kSharedCluster, 0);
  before += snippet::Call(abi::kLogMulticast,
                          {Arg{32, Cat(desc)}, Arg{32, Cat(Site(stmt))}, Arg{64, v}, Arg{64, a}, Arg{64, vh},
                           Arg{32, t}, Arg{32, d}},
                          t);
  before += Cat("add.u32 ", records, ", ", records, ", ", t, ";\n");
  return absl::OkStatus();
}

// fence.proxy.async*: a kFence with kFlagAsyncProxy for the active lanes.
std::string FunctionRewriter::ProxyFence(size_t stmt) const {
  const uint32_t desc =
      abi::PackDesc(static_cast<uint8_t>(proto::Op::kFence), proto::kFlagAsyncProxy, 0, abi::InstSpace::kGlobal, 0);
  return snippet::Call(abi::kLogFence, {Arg{32, Cat(desc)}, Arg{32, Cat(Site(stmt))}});
}

}  // namespace barracuda::ptx::logging_pass
