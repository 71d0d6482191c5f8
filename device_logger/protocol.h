// The record contract between the producers of warp-level events (the PTX
// emulator's tracer, the device-side logger on a GPU) and their consumer (the
// host detector). See DESIGN.md, "The record contract".
//
// This header is included by C++ host code and by the CUDA device logger, so it
// uses only fixed-width integers, plain structs and constexpr helpers.
//
// Layout: one fixed 280-byte slot per warp-level event:
//   16-byte header | 8-byte sequence stamp | 32 x 8-byte payload words.
// DESIGN.md asks for a 16-byte header "with room for a sequence stamp"; the
// operation, flags, access size, space/scope, active mask, warp id and site id
// already fill 16 bytes, so the 64-bit stamp gets its own word after the header
// (a 32-bit stamp would wrap within minutes of a lock-heavy kernel).
#ifndef BARRACUDA_DEVICE_LOGGER_PROTOCOL_H_
#define BARRACUDA_DEVICE_LOGGER_PROTOCOL_H_

#include <stddef.h>
#include <stdint.h>

namespace barracuda::protocol {

inline constexpr uint32_t kProtocolVersion = 1;
inline constexpr uint32_t kWarpSize = 32;

// What a warp did. Memory operations carry one address per lane in the payload;
// control and barrier operations carry an op-specific payload struct.
enum class Op : uint8_t {
  kRead = 0,        // rd(t,x) per active lane, then endi(w)
  kWrite = 1,       // wr(t,x) per active lane, then endi(w)
  kAtomic = 2,      // a strong access without acquire/release meaning, at header scope:
                    // atom.* / red.*, ld/st.relaxed, ld/st.volatile (.relaxed.sys)
  kAcquire = 3,     // acq(t,x) at header scope (ld.acquire, atom.acquire)
  kRelease = 4,     // rel(t,x) at header scope (st.release, atom.release)
  kAcqRel = 5,      // ar(t,x) at header scope (atom.acq_rel, atom.sc)
  kFence = 6,       // fence.* / membar.*: kFlagLoad = acquire side, kFlagStore = release
                    // side (neither: both); handled at run time (SEMANTICS.md)
  kBarrier = 7,     // bar.sync / barrier.sync / bar.red: payload BarrierPayload
  kBarrierArrive = 8,  // bar.arrive / barrier.arrive: payload BarrierPayload
  kIf = 9,          // conditional branch splits the warp: payload BranchPayload
  kElse = 10,       // second path of the innermost divergence starts
  kFi = 11,         // reconvergence of the innermost divergence
  kWarpSync = 12,   // bar.warp.sync and *.sync warp primitives: mask = members that
                    // arrived; payload WarpSyncPayload (all members)
  kKernelBegin = 13,  // first record of a launch: payload KernelPayload
  kKernelEnd = 14,    // last record of a launch (after every warp exited)
  kExit = 15,         // lanes in active_mask exited (ret/exit of the kernel); they no
                      // longer count towards whole-block barriers
  kAsyncWait = 16,    // lanes in active_mask observed the completion of their first
                      // addr[lane] asynchronous records (kFlagAsync; cp.async.wait_group /
                      // wait_all): an acquire of what their copies did
  kGridDepWait = 17,  // lanes in active_mask passed griddepcontrol.wait
                      // (cudaGridDependencySynchronize): the grids their launch
                      // depends on programmatically have completed and their memory
                      // is visible. No ordering within the launch; the daemon's
                      // stream-order check splits a programmatic launch's accesses
                      // at it (emulator only; the GPU logger does not log it yet)
  kCount
};

// PTX memory-model scope of a synchronisation operation.
enum class Scope : uint8_t { kNone = 0, kCta = 1, kCluster = 2, kGpu = 3, kSys = 4 };

// Where a logged access went. Generic addresses are classified before logging
// (isspacep on the GPU, the emulator's address map on the CPU); local, const and
// param accesses are thread-private or read-only and are never logged.
enum class Space : uint8_t { kGlobal = 0, kShared = 1 };

// Header flag bits.
enum Flag : uint8_t {
  kFlagSameValue = 1u << 0,  // store: no two active lanes wrote different values to overlapping
                             // bytes (paper §3.3.1: such intra-warp write-write pairs are not races)
  kFlagLoad = 1u << 1,       // strong accesses: the access reads memory; kFence: acquire side
  kFlagStore = 1u << 2,      // ... writes memory (both bits: a read-modify-write); kFence: release side
  kFlagVolatile = 1u << 3,   // ld.volatile / st.volatile (a kAtomic at kSys scope)
  kFlagInferred = 1u << 4,   // unused since wave 2 (was: acquire/release inferred from fence
                             // adjacency, paper §3.1); fences are records of their own now
  kFlagValue = 1u << 5,      // kWrite (plain store) of at most 8 bytes: every active lane stored
                             // the same value, carried in the record's `stamp` field (plain
                             // writes take no stamp); lets the detector tell same-value writes
                             // of different warps and blocks apart (SEMANTICS.md "Same-value")
  kFlagAsync = 1u << 6,      // kRead / kWrite: done by each active lane's asynchronous copy
                             // (cp.async), not by the lane: unordered with everything until the
                             // lane observes its completion (kAsyncWait). Each such record is
                             // numbered per lane from 1 (the lane's async records so far), and
                             // a kAsyncWait names them by that number.
                             // kRelease / kAcqRel / kAtomic that stores: the arrive-on an
                             // mbarrier triggered by the completion of the lane's copies
                             // (cp.async.mbarrier.arrive): it also releases every async
                             // record of the lane so far (SEMANTICS.md "Asynchronous copies")
  kFlagAsyncProxy = 1u << 7,  // kRead / kWrite with kFlagAsync: the copy is done in the async
                              // proxy (cp{.reduce}.async.bulk, TMA): a generic-proxy write is
                              // ordered before it only through a proxy fence.
                              // kFence: fence.proxy.async (proxy ordering only, no memory
                              // ordering; SEMANTICS.md "Proxies")
};

struct RecordHeader {
  uint8_t op;            // Op
  uint8_t flags;         // Flag bits
  uint8_t access_size;   // bytes per lane for memory ops (1, 2, 4, 8, 16); 0 otherwise
  uint8_t space_scope;   // low nibble Space, high nibble Scope
  uint32_t active_mask;  // lanes that executed the operation
  uint32_t warp_id;      // grid-unique: block_linear * warps_per_block + warp_in_block
  uint32_t site_id;      // static site (ptx_rewriter site table); kNoSite when none
};
static_assert(sizeof(RecordHeader) == 16, "the header is 16 bytes (DESIGN.md)");

inline constexpr uint32_t kNoSite = 0xffffffffu;

// Shared-memory addresses are offsets in a block's window tagged with the
// (grid-linear) block id, so distributed shared memory of a cluster can name a
// neighbour's window: address = block << 32 | offset.
constexpr uint64_t SharedAddress(uint32_t block_linear, uint32_t offset) {
  return (static_cast<uint64_t>(block_linear) << 32) | offset;
}
constexpr uint32_t SharedBlock(uint64_t address) { return static_cast<uint32_t>(address >> 32); }
constexpr uint32_t SharedOffset(uint64_t address) { return static_cast<uint32_t>(address); }

// Thread-block clusters (sm_90; added for multi-CTA clusters). barrier.cluster
// is encoded with the synchronisation records rather than kBarrier, so that
// its ordering across the CTAs of a cluster follows from the existing
// acquire/release rules (host_detector/detector/SEMANTICS.md, "Thread-block clusters"):
//   barrier.cluster.arrive[.release]  -> kRelease, scope kCluster, flags
//       kFlagLoad | kFlagStore (a read-modify-write of the barrier's arrival
//       count: releases of the phase JOIN into the location clock), stamped
//       at arrival; .relaxed arrivals emit nothing (no memory ordering);
//   barrier.cluster.wait[.acquire]    -> kAcquire, scope kCluster, flag
//       kFlagLoad, stamped once the phase it waits for has completed (after
//       every arrival of the phase).
// Both with access_size 4, space kShared, every active lane's address =
// ClusterBarrierAddress(rank-0 block of the cluster, phase): a synthetic
// location per cluster and phase parity, at a shared offset that no real
// window reaches (shared windows are at most 228 KiB). Two parities keep a
// fast thread's arrival for phase p+1 out of the clock a slow thread acquires
// for phase p; phase p+2 cannot arrive before every thread waited for p.
inline constexpr uint32_t kClusterBarrierOffset = 0xfffffff0u;
constexpr uint64_t ClusterBarrierAddress(uint32_t rank0_block_linear, uint64_t phase) {
  return SharedAddress(rank0_block_linear, kClusterBarrierOffset + static_cast<uint32_t>(phase & 1) * 8);
}
constexpr bool IsClusterBarrierAddress(uint64_t shared_address) {
  return SharedOffset(shared_address) >= kClusterBarrierOffset;
}
// Largest cluster (CTAs) any producer emits: 16, the non-portable maximum of sm_90.
inline constexpr uint32_t kMaxClusterCtas = 16;

// Payload of kBarrier / kBarrierArrive.
struct BarrierPayload {
  uint32_t barrier_id;    // 0..15 (bar.sync 0 is __syncthreads)
  uint32_t thread_count;  // expected threads; 0 means every thread of the block
};

// Payload of kIf: the header's active_mask is the mask before the split.
// then_mask lanes run first; the else lanes (active_mask & ~then_mask) after
// the matching kElse. Either side may be empty.
struct BranchPayload {
  uint32_t then_mask;
  uint32_t reserved;
};

// Payload of kWarpSync. The header's active_mask names the members that logged
// their arrival in this record; member_mask names every member (0: the same as
// active_mask, as the emulator and producers before this field write it). A GPU
// warp's lanes may reach one __syncwarp in groups, each logging its arrival
// before the instruction makes it wait for the others: the members are
// joined once all of them (but the exited) have arrived.
// strays names the lanes that executed the primitive naming member_mask without
// being in it: undefined behaviour in PTX ("the executing thread must be in
// membermask"), reported as a warp-sync-mask error; they are not joined.
struct WarpSyncPayload {
  uint32_t member_mask;
  uint32_t strays;
};

// Payload of kKernelBegin. Dimensions are in threads/blocks; the kernel name is
// resolved through the producer's side table (name_id) so records stay fixed size.
struct KernelPayload {
  uint32_t grid[3];
  uint32_t block[3];
  uint32_t static_shared_bytes;
  uint32_t dynamic_shared_bytes;
  uint64_t launch_id;    // per-process launch counter, from 1
  uint64_t stream_id;    // 0 = legacy default stream
  uint32_t name_id;      // index into the producer's kernel-name table
  uint32_t process_id;   // pid of the app process (several processes may share a daemon)
  // Added for thread-block clusters: CTAs per cluster in x, y, z (each divides
  // grid[i]; product at most kMaxClusterCtas). All zero (producers that predate
  // the field) or all one: every block is its own cluster. Cluster of a block
  // with coordinates (x, y, z): (x / cluster[0], y / cluster[1], z / cluster[2]).
  uint32_t cluster[3];
};

struct Record {
  RecordHeader header;
  uint64_t stamp;  // global sequence stamp for synchronisation ops (0 when unused); the
                   // stored value for a kWrite with kFlagValue (read it with SequenceStamp /
                   // StoredValue, never directly)
  union {
    uint64_t addr[kWarpSize];  // per-lane address for memory ops (only active lanes meaningful)
    BarrierPayload barrier;
    BranchPayload branch;
    WarpSyncPayload warp_sync;
    KernelPayload kernel;
  };
};
static_assert(sizeof(Record) == 280, "fixed-size queue slots");
static_assert(offsetof(Record, addr) == 24, "payload follows header and stamp");
static_assert(sizeof(KernelPayload) <= sizeof(uint64_t) * kWarpSize, "payload fits");

// Accessors and builders: keep bit packing in one place.
constexpr Op OpOf(const RecordHeader& h) { return static_cast<Op>(h.op); }
constexpr Space SpaceOf(const RecordHeader& h) { return static_cast<Space>(h.space_scope & 0x0f); }
constexpr Scope ScopeOf(const RecordHeader& h) { return static_cast<Scope>(h.space_scope >> 4); }
constexpr uint8_t PackSpaceScope(Space space, Scope scope) {
  return static_cast<uint8_t>(static_cast<uint8_t>(space) | (static_cast<uint8_t>(scope) << 4));
}

// The record's place in the global synchronisation order (0: none). A plain
// write's stamp field holds its stored value instead (kFlagValue); a
// kKernelBegin's holds the last stamp handed out before the launch (its
// stamps follow it: LaunchFirstStamp).
constexpr uint64_t SequenceStamp(const Record& r) {
  const Op op = OpOf(r.header);
  return op == Op::kWrite || op == Op::kKernelBegin || op == Op::kKernelEnd ? 0 : r.stamp;
}
constexpr uint64_t LaunchFirstStamp(const Record& kernel_begin) { return kernel_begin.stamp + 1; }
// A plain write's uniform stored value, when it carries one.
constexpr bool HasStoredValue(const Record& r) {
  return OpOf(r.header) == Op::kWrite && (r.header.flags & kFlagValue) != 0;
}
constexpr uint64_t StoredValue(const Record& r) { return r.stamp; }

constexpr bool IsMemoryOp(Op op) {
  return op == Op::kRead || op == Op::kWrite || op == Op::kAtomic || op == Op::kAcquire ||
         op == Op::kRelease || op == Op::kAcqRel;
}
constexpr bool IsSyncOp(Op op) {
  return op == Op::kAcquire || op == Op::kRelease || op == Op::kAcqRel || op == Op::kFence;
}

// Warps per block for a block shape, as used in warp ids.
constexpr uint32_t WarpsPerBlock(uint32_t threads_per_block) {
  return (threads_per_block + kWarpSize - 1) / kWarpSize;
}

const char* OpName(Op op);  // defined in protocol.cpp (host only)

}  // namespace barracuda::protocol

#endif  // BARRACUDA_DEVICE_LOGGER_PROTOCOL_H_
