// The call ABI between instrumented PTX (ptx_rewriter/instrument) and the
// device logger (logger.cu): the names of the logging functions, their PTX
// parameter lists and how an access is described in one 32-bit word.
//
// Both sides include this header: the rewriter to spell the calls, logger.cu to
// unpack them. Every logging function is a PTX `.func` taking `.param .b32` /
// `.param .b64` arguments by value; none of them touches the caller's
// registers, so a call can be inserted anywhere an instruction can.
//
// Thread identity: the logger recomputes the grid-unique warp id and the lane
// from %ctaid/%nctaid/%tid/%ntid/%laneid in every call instead of receiving a
// thread id computed at kernel entry. Passing an extra parameter (the paper's
// choice) would change the signature of every device function, which breaks
// indirect calls through .callprototype, functions shared between -rdc modules
// and extern functions the rewriter never sees; special registers are readable
// in any function and cost a few cycles next to the queue atomics.
#ifndef BARRACUDA_DEVICE_LOGGER_LOGGER_ABI_H_
#define BARRACUDA_DEVICE_LOGGER_LOGGER_ABI_H_

#include <stdint.h>

namespace barracuda::logger_abi {

// ---- function names (prefix reserved for barracuda; nvcc never emits it)
// __barracuda_log_access(.b32 desc, .b32 site, .b64 addr)
//   ld / ldu / atom / red, and st classified acquire/release: one call
//   per vector element, `addr` in the instruction's own space (a shared-window
//   offset for .shared, a generic address for generic accesses).
inline constexpr const char* kLogAccess = "__barracuda_log_access";
// __barracuda_log_store(.b32 desc, .b32 site, .b64 addr, .b64 value_lo, .b64 value_hi)
//   st classified as a write (volatile included): as log_access plus the element's stored bits (zero-extended; the
//   high half only for 16-byte elements) so the logger can set kFlagSameValue.
inline constexpr const char* kLogStore = "__barracuda_log_store";
// __barracuda_log_fence(.b32 desc, .b32 site): fence / membar not folded into
//   an acquire/release bundle. desc: op kFence, flags, scope. With
//   kFlagAsyncProxy (fence.proxy.async) the record takes no stamp.
inline constexpr const char* kLogFence = "__barracuda_log_fence";
// __barracuda_log_barrier(.b32 desc, .b32 site, .b32 barrier_id, .b32 thread_count)
//   bar.sync / barrier.sync / bar.red (op kBarrier) and bar.arrive (kBarrierArrive);
//   logged before the barrier, as the emulator records the arrival.
inline constexpr const char* kLogBarrier = "__barracuda_log_barrier";
// __barracuda_rmw_lock(.b64 addr, .b32 space) / __barracuda_rmw_unlock(.b64 addr,
//   .b32 space), space an InstSpace (below): around an atom or a strong or
//   release st outside shared memory and its logging call (lock, log, access,
//   unlock), with the access's address. The lock is a device-memory word that
//   the location hashes to (gpu_queue.h QueueSet::rmw_locks), so no other such
//   write of the location comes between the write's stamp, taken in the
//   logging call, and its execution: stamp order is the location's
//   modification order (a lock taken by exchange and released by exchange or
//   by a release store keeps its release-acquire edge), and a strong read,
//   logged after it executed, is stamped after the write it read from. Not
//   red, nor shared memory (generic addresses included): their stamp is taken
//   before they execute, unlocked (ptx_rewriter/README.md "Stamp locks").
//   Bounded: a lock held too long is not waited for (precision, not a hang).
inline constexpr const char* kRmwLock = "__barracuda_rmw_lock";
inline constexpr const char* kRmwUnlock = "__barracuda_rmw_unlock";
// __barracuda_log_warp_sync(.b32 site, .b32 member_mask): bar.warp.sync and the
//   *.sync warp primitives (shfl, vote, match, redux, elect).
inline constexpr const char* kLogWarpSync = "__barracuda_log_warp_sync";
// (.b32 diverged) __barracuda_log_branch(.b32 site, .b32 taken): before `@p bra`.
//   taken = the guard's value in this lane. Logs kIf (header = active lanes,
//   then_mask = taken lanes) when the branch splits the warp and returns the
//   active mask in every lane then (the join reconverges those lanes), else 0.
inline constexpr const char* kLogBranch = "__barracuda_log_branch";
// __barracuda_log_else(.b32 site): first thing on the fall-through edge of a
//   branch, called only by lanes whose log_branch returned non-zero: logs kElse with
//   the lanes that start the second side.
inline constexpr const char* kLogElse = "__barracuda_log_else";
// __barracuda_log_fi(.b32 site, .b32 packed, .b32 join_mask): at the branch's
//   reconvergence point. join_mask: the lanes of the outermost split since the
//   join last ran (log_branch's results), which log_fi waits for and logs as one
//   group; 0 where lanes may not wait there (a barrier, loop or call between
//   branch and join) or none split: then the lanes that arrive together.
//   packed = depth | the kFi* bits below. `depth` counts this lane's
//   divergent executions of the branch since it last passed here (loops nest
//   them); the logger emits one kFi per level, innermost first, each with the
//   lanes of that level.
inline constexpr const char* kLogFi = "__barracuda_log_fi";
// __barracuda_log_exit(): before ret (of a kernel) and exit: kExit.
inline constexpr const char* kLogExit = "__barracuda_log_exit";
// __barracuda_log_sized(.b32 desc, .b32 site, .b64 addr, .b32 size): as
//   log_access with each lane's own access size (0: the lane logs nothing); one
//   record per distinct size, the lowest lane's size first (cp.async's source
//   reads with src-size / ignore-src zero-fill, as the emulator groups them).
inline constexpr const char* kLogSized = "__barracuda_log_sized";
// __barracuda_log_async_wait(.b32 site, .b32 count): kAsyncWait for the calling
//   lanes, addr[lane] = count = how many of the lane's async records (kFlagAsync)
//   are now complete. Called after cp.async.wait_group / wait_all by the lanes
//   whose count grew (the rewriter keeps the per-thread counts in registers:
//   ptx_rewriter/README.md "Asynchronous copies").
inline constexpr const char* kLogAsyncWait = "__barracuda_log_async_wait";
// __barracuda_log_bulk(.b32 desc, .b32 site, .b64 src, .b64 dst, .b32 bytes):
//   a bulk copy (cp.async.bulk global -> shared, shared::cta -> global) of
//   `bytes` (a multiple of 16) per lane: lane by lane, a kRead per 16 bytes of
//   src then a kWrite per 16 bytes of dst, each of that lane alone, with
//   desc's flags (kFlagAsync | kFlagAsyncProxy). desc's space is dst's; its op
//   byte holds src's InstSpace (a copy has two spaces and no op of its own;
//   0 = global). Not stamped.
inline constexpr const char* kLogBulk = "__barracuda_log_bulk";
// __barracuda_log_bulk_reduce(.b32 desc, .b32 site, .b64 src, .b64 dst, .b32 bytes):
//   cp.reduce.async.bulk (not .tensor) of `bytes` (a multiple of 16) per lane,
//   lane by lane as the emulator records it (ptx_emulator/ops/bulk_copy_ops.cpp
//   ReduceBulk): a kRead per 16 bytes of src (shared::cta, kFlagAsync |
//   kFlagAsyncProxy), then per element of dst a stamped kAtomic (load|store).
//   desc: op kAtomic, flags, access size = the element's bytes, space = dst's,
//   scope = the reduction's (gpu to global, cluster to shared::cluster).
inline constexpr const char* kLogBulkReduce = "__barracuda_log_bulk_reduce";

// (.b64 counts) __barracuda_log_tensor(.b32 desc, .b32 site, .b64 map, .b64 shared,
//   .b32 c0, .b32 c1, .b32 c2, .b32 c3, .b32 c4, .b64 bar, .b32 mask, .b64 offsets):
//   a TMA tensor copy (cp.async.bulk.tensor .tile, or an .im2col load: desc's
//   scope kTensorIm2col): desc's op kTensorLoad (global
//   -> shared, before its complete_tx, which the caller logs as for a bulk
//   copy), kTensorStore (shared::cta -> global, in the bulk group) or
//   kTensorReduce (cp.reduce.async.bulk.tensor, shared::cta -> global in the
//   bulk group: each global element a stamped gpu-scope kAtomic), its
//   flags kFlagAsync | kFlagAsyncProxy, its size the copy's rank, its space
//   the shared side's; `map` the generic address of the CUtensorMap, `shared`
//   the shared side's address, c0.. the box's coordinates (0 past the rank).
//   The logger finds the map's geometry in the QueueSet's tensor map table
//   (gpu_queue.h: the agent fills it from cuTensorMapEncodeTiled) and logs the
//   box as the emulator records it (ptx_emulator/ops/tensor_map_copy_ops.cpp):
//   lane by lane, a load's rows part by part (global reads, then shared
//   writes; fill writes outside the tensor), a store's shared reads, then its
//   global writes (a reduction's: its elements); pieces of 16, 8, 4, 2 or 1 bytes by alignment, async
//   records of that lane alone, not stamped. Returns the calling lane's read
//   records << 32 | its async write records (its async-record numbering, which the
//   rewriter keeps in registers); 0 for a copy through a map not in the
//   table, which it counts in QueueSet::tensor_copies_unchecked instead.
inline constexpr const char* kLogTensor = "__barracuda_log_tensor";
// (.b32 records) __barracuda_log_multicast(.b32 desc, .b32 site, .b64 src, .b64 dst,
//   .b64 bar, .b32 bytes, .b32 mask): cp.async.bulk.shared::cluster.global
//   .mbarrier::complete_tx::bytes.multicast::cluster: lane by lane, per CTA
//   of ctaMask `mask` in rank order (ranks past the cluster's size ignored),
//   per 16 bytes a kRead of src, then per 16 bytes a kWrite of that CTA's
//   dst (desc's flags: kFlagAsync | kFlagAsyncProxy), then the complete-tx on
//   that CTA's mbarrier (a stamped release with kFlagAsync, the lane alone),
//   as bulk_copy_ops.cpp CopyToSharedMulticast; dst and bar are
//   .shared::cluster addresses (kClusterMap moves them to each rank).
//   Returns the lane's async records.
inline constexpr const char* kLogMulticast = "__barracuda_log_multicast";
inline constexpr uint8_t kTensorLoad = 0;
inline constexpr uint8_t kTensorStore = 1;
inline constexpr uint8_t kTensorReduce = 2;
// A .multicast::cluster load: the box into the CTAs of `mask` (`bar`: the
// mbarrier, whose complete-tx per CTA the logger logs itself).
inline constexpr uint8_t kTensorLoadMulticast = 3;
// desc's scope field of an .im2col load (the map must be an im2col one; the
// offsets: `offsets`, four 16-bit values, rank - 2 of them used).
inline constexpr uint8_t kTensorIm2col = 1;
inline constexpr uint32_t kLogTensorCoords = 5;  // c0 .. c4

// log_fi's packed word. kFiFell: this lane fell through at its last divergent
// execution of the branch. kFiElseAtFi: the fall-through is the join, so the
// branch's kElse (the lanes that fell) is logged here. Where log_fi cannot wait
// (a barrier, loop or call between branch and join), lanes reach the join in
// several groups (sm_70+) and each group logs the levels its lanes close; the
// detector closes a level when every lane of it has arrived
// (host_detector/detector/SEMANTICS.md, "Joins reached in groups"). Bit 29 is unused
// (it was kFiFellCloses, which made only fall-through lanes close a level).
inline constexpr uint32_t kFiFell = 1u << 31;
inline constexpr uint32_t kFiElseAtFi = 1u << 30;
inline constexpr uint32_t kFiDepthMask = (1u << 29) - 1;

// (.b64 owner) __barracuda_cluster_shared(.b64 addr, .b32 cluster_space): not
//   a logging function but the logger's one callee outside it, defined at
//   merge time (ptx_rewriter/instrument/cluster_hook.cpp): the logger is PTX
//   for compute_75, where the cluster instructions (isspacep.shared::cluster,
//   getctarank, mapa, %cluster_*) do not exist, so the instrumented module
//   supplies them when its target has them (sm_90 and later). Returns, for a
//   shared memory address of a CTA of the calling thread's cluster (a
//   .shared::cluster address with cluster_space != 0, else a generic one),
//   the owning CTA's grid-linear block << 32 | the .shared::cta address the
//   same byte has in the caller's own window; ~0 for an address in no
//   cluster CTA's window (and always on targets without clusters).
inline constexpr const char* kClusterShared = "__barracuda_cluster_shared";
// (.b32 mapped) __barracuda_cluster_map(.b32 addr, .b32 rank): the logger's
//   other module-defined callee (cluster_hook.cpp): mapa.shared::cluster of
//   `addr` (a .shared::cluster address) to the CTA of cluster rank `rank`;
//   ~0 for a rank past the cluster's size (on targets without clusters:
//   `addr` for rank 0, else ~0). The multicast copies' destinations.
inline constexpr const char* kClusterMap = "__barracuda_cluster_map";

// The queue array the host allocates; see gpu_queue.h. A .global .u64 in the
// logger module holding the device address of the QueueSet.
inline constexpr const char* kQueueSetSymbol = "__barracuda_queue_set";

// ---- desc: op | flags << 8 | access_size << 16 | space << 24 | scope << 28
// `space` is the instruction's space, which for generic accesses the logger
// resolves per lane with isspacep (local/param/const lanes are not logged).
// kSharedCluster: a .shared::cluster address (distributed shared memory: the
// owning CTA may be a neighbour of the cluster, kClusterShared says which).
// kSharedRecord: the address is already a record's shared address
// (protocol::SharedAddress; the synthetic cluster-barrier locations).
enum class InstSpace : uint8_t { kGlobal = 0, kShared = 1, kGeneric = 2, kSharedCluster = 3, kSharedRecord = 4 };

constexpr uint32_t PackDesc(uint8_t op, uint8_t flags, uint8_t access_size, InstSpace space, uint8_t scope) {
  return static_cast<uint32_t>(op) | static_cast<uint32_t>(flags) << 8 |
         static_cast<uint32_t>(access_size) << 16 | static_cast<uint32_t>(space) << 24 |
         static_cast<uint32_t>(scope & 0xf) << 28;
}
constexpr uint8_t DescOp(uint32_t d) { return static_cast<uint8_t>(d & 0xff); }
constexpr uint8_t DescFlags(uint32_t d) { return static_cast<uint8_t>((d >> 8) & 0xff); }
constexpr uint8_t DescSize(uint32_t d) { return static_cast<uint8_t>((d >> 16) & 0xff); }
constexpr InstSpace DescSpace(uint32_t d) { return static_cast<InstSpace>((d >> 24) & 0xf); }
constexpr uint8_t DescScope(uint32_t d) { return static_cast<uint8_t>(d >> 28); }

static_assert(DescOp(PackDesc(5, 0x12, 16, InstSpace::kGeneric, 4)) == 5, "op round-trips");
static_assert(DescFlags(PackDesc(5, 0x12, 16, InstSpace::kGeneric, 4)) == 0x12, "flags round-trip");
static_assert(DescSize(PackDesc(5, 0x12, 16, InstSpace::kGeneric, 4)) == 16, "size round-trips");
static_assert(DescSpace(PackDesc(5, 0x12, 16, InstSpace::kGeneric, 4)) == InstSpace::kGeneric, "space");
static_assert(DescScope(PackDesc(5, 0x12, 16, InstSpace::kGeneric, 4)) == 4, "scope round-trips");

}  // namespace barracuda::logger_abi

#endif  // BARRACUDA_DEVICE_LOGGER_LOGGER_ABI_H_
