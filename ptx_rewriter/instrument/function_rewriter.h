// The logging-call pass's per-function rewriter (instrument.h InstrumentModule),
// declared here so that its actions can be defined by concern:
// logging_calls.cpp (the driver Run, plain accesses, fences, barriers, warp
// syncs, branches and joins, exits), async_logging.cpp (mbarrier, cp.async and
// its groups, bulk copies, proxy fences), matrix_logging.cpp (ldmatrix,
// stmatrix, wmma). Private to instrument/: not part of the library's interface.
#ifndef BARRACUDA_PTX_REWRITER_INSTRUMENT_FUNCTION_REWRITER_H_
#define BARRACUDA_PTX_REWRITER_INSTRUMENT_FUNCTION_REWRITER_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "device_logger/logger_abi.h"
#include "device_logger/protocol.h"
#include "ptx_rewriter/access_record.h"
#include "ptx_rewriter/instrument/instrument.h"
#include "ptx_rewriter/instrument/register_types.h"
#include "ptx_rewriter/instrument/snippets.h"
#include "ptx_rewriter/ir.h"
#include "ptx_rewriter/printer.h"
#include "ptx_rewriter/sync_inference.h"
#include "ptx_rewriter/text_concat.h"

namespace barracuda::ptx::logging_pass {

namespace abi = barracuda::logger_abi;
namespace proto = barracuda::protocol;
using Kind = AccessClass::Kind;
using snippet::Arg;

// What an instruction logs: the FunctionRewriter action that rewrites it.
enum class Action : uint8_t {
  kNone,
  kAccess,
  kFence,
  kBarrier,
  kClusterBarrier,  // barrier.cluster.arrive / .wait (cluster_logging.cpp)
  kWarpSync,
  kBranch,
  kExit,
  kMbarrier,
  kAsyncCopy,    // cp.async.{ca,cg}
  kAsyncCommit,  // cp.async.commit_group: no record, the thread's group boundary
  kAsyncWait,    // cp.async.wait_group N / wait_all: kAsyncWait
  kAsyncArrive,  // cp.async.mbarrier.arrive[.noinc]
  kBulkCopy,     // cp.async.bulk global -> shared with mbarrier::complete_tx::bytes
  kBulkMulticast,  // ... with .multicast::cluster
  kBulkStore,    // cp.async.bulk.global.shared::cta.bulk_group: in the thread's open bulk async-group
  kBulkReduce,   // cp.reduce.async.bulk (not .tensor): to global with bulk_group, to shared::cluster with complete_tx
  kBulkCommit,   // cp.async.bulk.commit_group: no record, the thread's bulk group boundary
  kBulkWait,     // cp.async.bulk.wait_group{.read} N: kAsyncWait
  kTensorCopy,   // cp.async.bulk.tensor, tiled, load with complete_tx or store in the bulk group
  kAsyncStore,   // st.async / red.async with mbarrier::complete_tx::bytes
  kProxyFence,   // fence.proxy.async*
  kMatrix,       // ldmatrix / stmatrix (.m8n8)
  kWmma,         // wmma.load / wmma.store
  kNotCovered
};

// Header fields as the emulator's decoder packs them (ptx_rewriter/access_record.h).
inline uint8_t ProtocolOp(Kind k) {
  const std::optional<proto::Op> op = RecordOp(k);
  return op ? static_cast<uint8_t>(*op) : 0xff;
}
inline uint8_t ProtocolFlags(const AccessClass& a) { return RecordFlags(a); }
inline uint8_t ProtocolScope(Scope s) { return static_cast<uint8_t>(RecordScope(s)); }

inline std::optional<abi::InstSpace> InstSpaceOf(StateSpace s) {
  switch (s) {
    case StateSpace::kGlobal: return abi::InstSpace::kGlobal;
    case StateSpace::kShared: return abi::InstSpace::kShared;
    case StateSpace::kSharedCluster: return abi::InstSpace::kSharedCluster;
    case StateSpace::kNone:
    case StateSpace::kGeneric: return abi::InstSpace::kGeneric;
    default: return std::nullopt;
  }
}

// Decisions of the families whose logging has a file of its own (the rest is
// decided in logging_calls.cpp).
// The cp.async family, as ptx_emulator/ops/async_copy_ops.cpp and
// bulk_copy_ops.cpp select it (async_logging.cpp).
Action DecideCp(const Instruction& in);
// A multicast's ctaMask operand (register or constant).
bool CtaMaskOperand(const Operand& o);
// st.async / red.async (async_logging.cpp).
Action DecideAsyncStore(const Instruction& in);
// The bulk async-group forms DecideCp hands on (bulk_groups.cpp):
// cp.async.bulk.global.shared::cta.bulk_group (true when logged),
// cp.async.bulk.wait_group{.read} N, cp.reduce.async.bulk.
bool DecideBulkStore(const Instruction& in);
Action DecideBulkWait(const Instruction& in);
Action DecideBulkReduce(const Instruction& in);
// cp.async.bulk.tensor (tensor_copy_logging.cpp): kTensorCopy for the tiled
// loads and stores, kNotCovered for the rest.
Action DecideTensorCopy(const Instruction& in);
// ldmatrix / stmatrix / wmma of access class `c` (matrix_logging.cpp).
Action DecideMatrix(const Instruction& in, const AccessClass& c);

// Rewrites one function's body (Run) so that it calls the device logger; one
// per function of the module.
class FunctionRewriter {
 public:
  // stamp_locks: the module orders memory (StampLocksNeeded, logging_calls.cpp).
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
  // Operands as PTX text (logging_calls.cpp).
  absl::StatusOr<std::string> AddressText(const Instruction& in, const Operand& addr) const;
  absl::StatusOr<std::string> ValueText(const Instruction& in, const Operand& v, uint32_t size) const;
  absl::StatusOr<std::string> U32Text(const Instruction& in, const Operand& v, std::string_view dst) const;
  // Plain accesses, barriers, warp syncs, joins (logging_calls.cpp).
  absl::Status Access(const Instruction& in, size_t stmt, std::string& before, std::string& after) const;
  std::string Barrier(const Instruction& in, size_t stmt) const;
  std::string WarpSync(const Instruction& in, size_t stmt) const;
  std::string Fi(size_t branch_stmt, const BranchPlan& plan) const;
  // mbarrier and the cp.async family (async_logging.cpp; README "Asynchronous
  // copies").
  absl::Status Mbarrier(const Instruction& in, size_t stmt, std::string& before, std::string& after) const;
  absl::Status AsyncCopy(const Instruction& in, size_t stmt, std::string& before) const;
  std::string AsyncCommit() const;
  std::string AsyncWait(const Instruction& in, size_t stmt) const;
  absl::Status AsyncArrive(const Instruction& in, size_t stmt, std::string& before) const;
  absl::Status BulkCopy(const Instruction& in, size_t stmt, std::string& before) const;
  absl::Status BulkMulticast(const Instruction& in, size_t stmt, std::string& before) const;
  absl::StatusOr<std::string> CtaMaskText(const Instruction& in, const Operand& mask) const;
  absl::Status AsyncStore(const Instruction& in, size_t stmt, std::string& before) const;
  // The bulk async-groups (bulk_groups.cpp).
  // Both bulk forms' operands into the snippet registers: kValue the shared
  // source's address, kAddr the destination's, kTmp32 the byte count.
  absl::Status BulkOperands(const Instruction& in, std::string& before) const;
  absl::Status BulkStore(const Instruction& in, size_t stmt, std::string& before) const;
  absl::Status BulkReduce(const Instruction& in, size_t stmt, std::string& before) const;
  std::string BulkCommit() const;
  std::string BulkWait(const Instruction& in, size_t stmt) const;
  std::string ProxyFence(size_t stmt) const;
  // TMA tensor copies (tensor_copy_logging.cpp).
  absl::StatusOr<std::string> TensorMapAddress(const Instruction& in, const Operand& map) const;
  absl::Status TensorCopy(const Instruction& in, size_t stmt, std::string& before) const;
  // barrier.cluster (cluster_logging.cpp).
  void ClusterBarrier(const Instruction& in, size_t stmt, std::string& before, std::string& after) const;
  // The collective matrix moves (matrix_logging.cpp; README "Matrix loads and
  // stores").
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
  // Bulk group-boundary registers: the largest cp.async.bulk.wait_group N + 1.
  int bulk_groups_ = 0;
};

}  // namespace barracuda::ptx::logging_pass

#endif  // BARRACUDA_PTX_REWRITER_INSTRUMENT_FUNCTION_REWRITER_H_
