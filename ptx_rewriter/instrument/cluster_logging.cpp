// barrier.cluster.arrive / .wait, logged as the emulator records them
// (ptx_emulator/exec/cluster.cpp; device_logger/protocol.h "Thread-block
// clusters"; host_detector/detector/SEMANTICS.md): not a kBarrier but
//   arrive (not .relaxed): before it, a stamped cluster-scope kRelease
//     read-modify-write (kFlagLoad | kFlagStore) of 4 bytes,
//   wait: after it, a stamped cluster-scope kAcquire load (kFlagLoad),
// both at ClusterBarrierAddress(the cluster's rank-0 block, phase), a
// synthetic shared location per cluster and phase parity.
// The phase is the thread's own count of arrivals (%__bcda_cb): every live
// thread of the cluster arrives once per phase (arriving twice before the
// wait is undefined in PTX), so its count is the cluster's phase; a wait
// acquires the phase of the thread's last arrival. .relaxed arrivals log
// nothing but count. The rank-0 block is %ctaid - %cluster_ctaid, which the
// instrumented module can name: barrier.cluster needs sm_90, as they do.
#include <string>

#include "ptx_rewriter/instrument/function_rewriter.h"

namespace barracuda::ptx::logging_pass {

namespace {
// %__bcda_a = ClusterBarrierAddress(rank-0 block, phase & 1), phase in
// `phase` (not one of the %__bcda_cc temporaries, which this overwrites).
std::string BarrierAddress(const std::string& phase) {
  const std::string c0 = snippet::ClusterTmpReg(0), c1 = snippet::ClusterTmpReg(1), c2 = snippet::ClusterTmpReg(2),
                    c3 = snippet::ClusterTmpReg(3);
  std::string s;
  const char* dims[] = {"x", "y", "z"};
  const std::string* at[] = {&c0, &c2, &c3};
  for (int d = 0; d < 3; ++d)
    s += Cat("mov.u32 ", *at[d], ", %ctaid.", dims[d], ";\nmov.u32 ", c1, ", %cluster_ctaid.", dims[d], ";\nsub.u32 ",
             *at[d], ", ", *at[d], ", ", c1, ";\n");
  // linear = x + nctaid.x * (y + nctaid.y * z), as protocol.h numbers blocks.
  s += Cat("mov.u32 ", c1, ", %nctaid.y;\nmad.lo.u32 ", c3, ", ", c3, ", ", c1, ", ", c2, ";\n");
  s += Cat("mov.u32 ", c1, ", %nctaid.x;\nmad.lo.u32 ", c3, ", ", c3, ", ", c1, ", ", c0, ";\n");
  s += Cat("and.b32 ", c0, ", ", phase, ", 1;\nmad.lo.u32 ", c0, ", ", c0, ", 8, ", proto::kClusterBarrierOffset,
           ";\nmov.b64 ", snippet::kAddr, ", {", c0, ", ", c3, "};\n");
  return s;
}
}  // namespace

void FunctionRewriter::ClusterBarrier(const Instruction& in, size_t stmt, std::string& before,
                                      std::string& after) const {
  const std::string arrivals(snippet::kClusterArrivals);
  const uint8_t scope = static_cast<uint8_t>(proto::Scope::kCluster);
  if (in.HasModifier(".wait")) {
    // The phase of the last arrival: arrivals - 1.
    const std::string phase(snippet::kTmp32);
    after += Cat("sub.u32 ", phase, ", ", arrivals, ", 1;\n");
    after += BarrierAddress(phase);
    const uint32_t desc = abi::PackDesc(static_cast<uint8_t>(proto::Op::kAcquire), proto::kFlagLoad, 4,
                                        abi::InstSpace::kSharedRecord, scope);
    after += snippet::Call(abi::kLogAccess, {Arg{32, Cat(desc)}, Arg{32, Cat(Site(stmt))},
                                            Arg{64, std::string(snippet::kAddr)}});
    return;
  }
  if (in.info.sem != MemSemantics::kRelaxed) {
    before += BarrierAddress(arrivals);
    const uint32_t desc = abi::PackDesc(static_cast<uint8_t>(proto::Op::kRelease),
                                        proto::kFlagLoad | proto::kFlagStore, 4, abi::InstSpace::kSharedRecord,
                                        scope);
    before += snippet::Call(abi::kLogAccess, {Arg{32, Cat(desc)}, Arg{32, Cat(Site(stmt))},
                                             Arg{64, std::string(snippet::kAddr)}});
  }
  before += Cat("add.u32 ", arrivals, ", ", arrivals, ", 1;\n");
}

}  // namespace barracuda::ptx::logging_pass
