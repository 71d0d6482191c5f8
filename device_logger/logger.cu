// The device-side logger (paper §4.2): the functions instrumented PTX calls
// (logger_abi.h), writing protocol::Records into the queues of gpu_queue.h.
//
// Compiled to PTX at build time (logger.cmake: nvcc -ptx -rdc=true for
// compute_75, the oldest target CUDA 13 supports) and merged into each
// instrumented module (logger_merge.h), where its functions lose their
// .visible linkage. Every function is warp-cooperative: the lanes that call it
// together are the lanes that performed the logged instruction (the rewriter
// turns predication into branches), %activemask names them.
//
// Per record: the leader (lowest calling lane) reserves an index with an
// atomicAdd on the queue's write head, waiting while the queue is full, and
// broadcasts it; each lane writes its own address word; after __syncwarp the
// leader writes the header, waits until the commit index reaches its index
// (commits are in order), takes the stamp, fences at system scope and bumps
// the commit index.
//
// barracuda-corpus: skip the device logger, not an application: logger.cmake builds it with its own flags (-rdc=true --expt-relaxed-constexpr) and device_logger_emu_tests parses and merges its PTX
#include <stdint.h>

#include "device_logger/gpu_queue.h"
#include "device_logger/logger_abi.h"
#include "device_logger/protocol.h"

namespace proto = barracuda::protocol;
namespace abi = barracuda::logger_abi;
namespace gq = barracuda::gpu_queue;

// Device address of the QueueSet, set by the host before a launch.
extern "C" __device__ uint64_t __barracuda_queue_set = 0;

// Defined by the instrumented module at merge time (logger_abi.h
// kClusterShared): the owner and own-window offset of a distributed shared
// memory address, ~0 when it is in no cluster CTA's window.
extern "C" __device__ __noinline__ uint64_t __barracuda_cluster_shared(uint64_t addr, uint32_t cluster_space);
// Also defined at merge time (logger_abi.h kClusterMap): mapa.shared::cluster
// of `addr` to cluster rank `rank`, ~0 past the cluster's size.
extern "C" __device__ __noinline__ uint32_t __barracuda_cluster_map(uint32_t addr, uint32_t rank);

namespace {

__device__ __forceinline__ uint32_t LaneId() {
  uint32_t lane;
  asm volatile("mov.u32 %0, %%laneid;" : "=r"(lane));
  return lane;
}
__device__ __forceinline__ uint32_t BlockLinear() {
  return blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
}
// Grid-unique warp id, as protocol.h defines it (recomputed here rather than
// passed from kernel entry: logger_abi.h says why).
__device__ __forceinline__ uint32_t WarpId() {
  const uint32_t threads = blockDim.x * blockDim.y * blockDim.z;
  const uint32_t linear = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  return BlockLinear() * ((threads + proto::kWarpSize - 1) / proto::kWarpSize) + linear / proto::kWarpSize;
}
__device__ __forceinline__ uint32_t Leader(uint32_t mask) { return __ffs(mask) - 1; }
// The lanes that called the logging function from the same instruction
// (`site`). Independent thread scheduling can run lanes that called it from
// different sites together inside the (not inlined) function, and
// __activemask() then names them all: on an H200 a polling lane's volatile
// flag read and the other lanes' data read went out as one record, with the
// flag read's site and flags for every lane.
__device__ __forceinline__ uint32_t CallersOf(uint32_t site) { return __match_any_sync(__activemask(), site); }

__device__ __forceinline__ uint64_t LoadVolatile(const uint64_t* p) { return *reinterpret_cast<const volatile uint64_t*>(p); }

__device__ __forceinline__ uint64_t NextStamp(gq::QueueSet* set) {
  return atomicAdd(reinterpret_cast<unsigned long long*>(&set->stamp), 1ull) + 1;
}

// Appends one record. `active`: the calling lanes (all of them run this);
// lanes in `lanes` write `word` into addr[lane]; the leader writes `payload`
// into addr[0] when `lanes` is 0 (control records).
// `stamp`: take a sequence stamp; otherwise the stamp field holds `stored`
// (a plain write's uniform value, kFlagValue; 0 for other records).
__device__ void Append(uint32_t active, proto::RecordHeader header, bool stamp, uint32_t lanes, uint64_t word,
                       uint64_t payload, uint64_t stored = 0) {
  auto* set = reinterpret_cast<gq::QueueSet*>(__barracuda_queue_set);
  if (set == nullptr) return;  // not set up: log nothing rather than fault
  const uint32_t lane = LaneId();
  const uint32_t leader = Leader(active);
  const uint32_t queue = BlockLinear() % set->queue_count;
  auto* base = reinterpret_cast<uint8_t*>(set) + set->first_queue + queue * set->queue_stride;
  auto* q = reinterpret_cast<gq::QueueHeader*>(base);
  auto* slots = reinterpret_cast<proto::Record*>(base + sizeof(gq::QueueHeader));
  unsigned long long index = 0;
  if (lane == leader) {
    index = atomicAdd(reinterpret_cast<unsigned long long*>(&q->write_head), 1ull);
    while (index - LoadVolatile(&q->read_head) >= set->slots_per_queue) __nanosleep(256);
  }
  index = __shfl_sync(active, index, leader);
  proto::Record* r = &slots[index & (set->slots_per_queue - 1)];
  if ((lanes >> lane) & 1u) r->addr[lane] = word;
  __syncwarp(active);
  if (lane == leader) {
    if (lanes == 0) r->addr[0] = payload;
    r->header = header;
    while (LoadVolatile(&q->commit) != index) __nanosleep(32);
    // Stamped only on its commit turn, so the stamps of one queue grow with
    // its indices: the host moves a queue onto one ring in order, and the
    // detector processes a ring in order while honouring stamp order (a
    // stamp taken before reserving could be overtaken by a later index).
    // Still inside the logging call, so a release stamps before it
    // publishes and an acquire after it observed.
    r->stamp = stamp ? NextStamp(set) : stored;
    __threadfence_system();
    *reinterpret_cast<volatile uint64_t*>(&q->commit) = index + 1;
    __threadfence_system();
  }
  __syncwarp(active);
}

__device__ __forceinline__ proto::RecordHeader Header(proto::Op op, uint8_t flags, uint8_t size, uint8_t space_scope,
                                                      uint32_t mask, uint32_t site) {
  proto::RecordHeader h;
  h.op = static_cast<uint8_t>(op);
  h.flags = flags;
  h.access_size = size;
  h.space_scope = space_scope;
  h.active_mask = mask;
  h.warp_id = WarpId();
  h.site_id = site;
  return h;
}

// Synchronisation and every strong access (kAtomic: relaxed, volatile,
// atom/red), which takes part in release/acquire patterns with fences at run
// time (host_detector/detector/SEMANTICS.md).
__device__ __forceinline__ bool IsStamped(uint8_t op) {
  return op == static_cast<uint8_t>(proto::Op::kAcquire) || op == static_cast<uint8_t>(proto::Op::kRelease) ||
         op == static_cast<uint8_t>(proto::Op::kAcqRel) || op == static_cast<uint8_t>(proto::Op::kFence) ||
         op == static_cast<uint8_t>(proto::Op::kAtomic);
}

// Where the program's shared memory begins in the window (gpu_queue.h); read
// only for shared accesses.
__device__ __forceinline__ uint32_t SharedBase() {
  const auto* set = reinterpret_cast<const gq::QueueSet*>(__barracuda_queue_set);
  return set != nullptr ? set->shared_base : 0;
}

// A cluster CTA's shared byte (kClusterShared's answer, not ~0) as a record address.
__device__ __forceinline__ uint64_t OwnerAddress(uint64_t owner) {
  return proto::SharedAddress(static_cast<uint32_t>(owner >> 32), static_cast<uint32_t>(owner) - SharedBase());
}

// The space (0 global, 1 shared, -1 local/param/const: not logged) and the
// record address of `addr`, an address in the instruction's space `space`.
// A neighbour CTA's shared memory (distributed shared memory) is recorded
// as that CTA's, as the emulator records it.
__device__ __forceinline__ int Locate(abi::InstSpace inst_space, uint64_t addr, uint64_t& logged) {
  logged = addr;
  switch (inst_space) {
    case abi::InstSpace::kGlobal: return 0;
    case abi::InstSpace::kShared:
      logged = proto::SharedAddress(BlockLinear(), static_cast<uint32_t>(addr) - SharedBase());
      return 1;
    case abi::InstSpace::kSharedRecord: return 1;
    case abi::InstSpace::kSharedCluster: {
      const uint64_t owner = __barracuda_cluster_shared(addr, 1);
      logged = owner != ~0ull ? OwnerAddress(owner)
                              : proto::SharedAddress(BlockLinear(), static_cast<uint32_t>(addr) - SharedBase());
      return 1;
    }
    case abi::InstSpace::kGeneric: {
      const void* p = reinterpret_cast<const void*>(addr);
      if (__isShared(p)) {
        logged = proto::SharedAddress(BlockLinear(), static_cast<uint32_t>(__cvta_generic_to_shared(p)) - SharedBase());
        return 1;
      }
      if (__isGlobal(p)) return 0;
      // isspacep.shared is the own CTA's window only: a neighbour's (from
      // mapa) is neither, like local and param addresses.
      const uint64_t owner = __barracuda_cluster_shared(addr, 0);
      if (owner == ~0ull) return -1;
      logged = OwnerAddress(owner);
      return 1;
    }
  }
  return -1;
}

// One side of a bulk copy: its space (Locate), record address and op.
struct Side {
  int space;
  uint64_t base;
  proto::Op op;
};

// One access by the lanes of `active` for which `mine` holds (all of `active`
// run this): a record per space the lanes' addresses fall in (global first,
// then shared), as the emulator's tracer emits them; `size` overrides the
// descriptor's access size.
__device__ __forceinline__ void LogAccessOf(uint32_t active, bool mine, uint32_t desc, uint8_t size, uint32_t site,
                                            uint64_t addr, uint64_t lo, uint64_t hi, bool with_value) {
  const uint32_t lane = LaneId();
  uint64_t logged = addr;
  int space = Locate(abi::DescSpace(desc), addr, logged);
  if (!mine) space = -1;
  const uint8_t op = abi::DescOp(desc);
  const bool stamp = IsStamped(op);
  for (int s = 0; s < 2; ++s) {
    const uint32_t mask = __ballot_sync(active, space == s);
    if (mask == 0) continue;
    uint8_t flags = abi::DescFlags(desc);
    uint64_t stored = 0;
    if (with_value && op == static_cast<uint8_t>(proto::Op::kWrite)) {
      // kFlagSameValue: lanes writing the same (aligned, equal-size) address
      // wrote the same bits. kFlagValue: all lanes of the record wrote one
      // value (at most 8 bytes), carried in the stamp field.
      bool ok = true, uniform = true;
      const uint64_t width = size >= 8 ? ~0ull : (1ull << (8 * size)) - 1;
      if ((mask >> lane) & 1u) {
        const uint32_t same_addr = __match_any_sync(mask, logged);
        const uint32_t same_lo = __match_any_sync(mask, lo & width);
        const uint32_t same_hi = __match_any_sync(mask, size == 16 ? hi : 0ull);
        ok = (same_addr & ~(same_lo & same_hi)) == 0;
        uniform = size <= 8 && same_lo == mask;
      }
      if (__all_sync(active, ok)) flags |= proto::kFlagSameValue;
      if (__all_sync(active, uniform)) {
        flags |= proto::kFlagValue;
        stored = __shfl_sync(active, lo & width, __ffs(mask) - 1);
      }
    }
    const proto::RecordHeader h =
        Header(static_cast<proto::Op>(op), flags, size,
               proto::PackSpaceScope(static_cast<proto::Space>(s), static_cast<proto::Scope>(abi::DescScope(desc))),
               mask, site);
    Append(active, h, stamp, mask, logged, 0, stored);
  }
}

__device__ __forceinline__ void LogAccess(uint32_t desc, uint32_t site, uint64_t addr, uint64_t lo, uint64_t hi,
                                          bool with_value) {
  LogAccessOf(CallersOf(site), true, desc, abi::DescSize(desc), site, addr, lo, hi, with_value);
}

}  // namespace

extern "C" __device__ __noinline__ void __barracuda_log_access(uint32_t desc, uint32_t site, uint64_t addr) {
  LogAccess(desc, site, addr, 0, 0, false);
}

extern "C" __device__ __noinline__ void __barracuda_log_store(uint32_t desc, uint32_t site, uint64_t addr,
                                                              uint64_t value_lo, uint64_t value_hi) {
  LogAccess(desc, site, addr, value_lo, value_hi, true);
}

extern "C" __device__ __noinline__ void __barracuda_log_sized(uint32_t desc, uint32_t site, uint64_t addr,
                                                              uint32_t size) {
  // One record per distinct size, the lowest lane's first (the emulator's
  // cp.async zero-fill reads); lanes with size 0 log nothing.
  const uint32_t active = CallersOf(site);
  for (uint32_t left = __ballot_sync(active, size != 0); left != 0;) {
    const uint32_t n = __shfl_sync(active, size, __ffs(left) - 1);
    const bool mine = ((left >> LaneId()) & 1u) != 0 && size == n;
    left &= ~__ballot_sync(active, mine);
    LogAccessOf(active, mine, desc, static_cast<uint8_t>(n), site, addr, 0, 0, false);
  }
}

extern "C" __device__ __noinline__ void __barracuda_log_async_wait(uint32_t site, uint32_t count) {
  const uint32_t active = CallersOf(site);
  Append(active, Header(proto::Op::kAsyncWait, 0, 0, 0, active, site), false, active, count, 0);
}

extern "C" __device__ __noinline__ void __barracuda_log_bulk(uint32_t desc, uint32_t site, uint64_t src, uint64_t dst,
                                                             uint32_t bytes) {
  // Lane by lane (the emulator's order): a record per 16 bytes of the source,
  // then per 16 bytes of the destination, each of that lane alone.
  const uint32_t active = CallersOf(site);
  uint64_t src_log = src, dst_log = dst;
  const int src_space = Locate(static_cast<abi::InstSpace>(abi::DescOp(desc)), src, src_log);
  const int dst_space = Locate(abi::DescSpace(desc), dst, dst_log);
  const uint8_t flags = abi::DescFlags(desc);
  for (uint32_t m = active; m != 0; m &= m - 1) {
    const uint32_t l = __ffs(m) - 1;
    const uint32_t n = __shfl_sync(active, bytes, l);
    const Side sides[2] = {{__shfl_sync(active, src_space, l), src_log, proto::Op::kRead},
                           {__shfl_sync(active, dst_space, l), dst_log, proto::Op::kWrite}};
    for (const Side& side : sides) {
      if (side.space < 0) continue;
      for (uint32_t off = 0; off < n; off += 16)
        Append(active,
               Header(side.op, flags, 16,
                      proto::PackSpaceScope(static_cast<proto::Space>(side.space), proto::Scope::kNone), 1u << l,
                      site),
               false, 1u << l, side.base + off, 0);
    }
  }
}

extern "C" __device__ __noinline__ void __barracuda_log_bulk_reduce(uint32_t desc, uint32_t site, uint64_t src,
                                                                    uint64_t dst, uint32_t bytes) {
  // Lane by lane, as ReduceBulk records it: the source reads (async records of
  // the lane), then each destination element as a strong read-modify-write,
  // stamped (the emulator stamps it with its update, as atom).
  const uint32_t active = CallersOf(site);
  uint64_t src_log = src, dst_log = dst;
  const int src_space = Locate(abi::InstSpace::kShared, src, src_log);
  const int dst_space = Locate(abi::DescSpace(desc), dst, dst_log);
  const uint8_t flags = abi::DescFlags(desc);
  const uint8_t elem = abi::DescSize(desc);
  const uint8_t read_flags = proto::kFlagAsync | proto::kFlagAsyncProxy;
  const auto scope = static_cast<proto::Scope>(abi::DescScope(desc));
  for (uint32_t m = active; m != 0; m &= m - 1) {
    const uint32_t l = __ffs(m) - 1;
    const uint32_t n = __shfl_sync(active, bytes, l);
    const int ds = __shfl_sync(active, dst_space, l);
    for (uint32_t off = 0; off < n; off += 16)
      Append(active,
             Header(proto::Op::kRead, read_flags, 16,
                    proto::PackSpaceScope(static_cast<proto::Space>(src_space), proto::Scope::kNone), 1u << l, site),
             false, 1u << l, src_log + off, 0);
    if (ds < 0 || elem == 0) continue;
    for (uint32_t off = 0; off < n; off += elem)
      Append(active,
             Header(proto::Op::kAtomic, flags, elem, proto::PackSpaceScope(static_cast<proto::Space>(ds), scope),
                    1u << l, site),
             true, 1u << l, dst_log + off, 0);
  }
}

namespace {

// The tensor map table's entry for the map at generic address `map` (its 128
// bytes hashed as the agent hashed the encoder's output: gpu_queue.h), or
// nullptr when it is not in the table.
__device__ const gq::TensorMapEntry* FindTensorMap(uint64_t map) {
  const auto* set = reinterpret_cast<const gq::QueueSet*>(__barracuda_queue_set);
  if (set == nullptr || set->tensor_map_slots == 0 || map == 0) return nullptr;
  uint64_t words[gq::kTensorMapBytes / 8];
  const auto* p = reinterpret_cast<const uint64_t*>(map);
  for (uint32_t i = 0; i < gq::kTensorMapBytes / 8; ++i) words[i] = p[i];
  const uint64_t key = gq::TensorMapKey(words);
  const auto* table =
      reinterpret_cast<const gq::TensorMapEntry*>(reinterpret_cast<const uint8_t*>(set) + set->tensor_maps);
  for (uint32_t i = 0; i < set->tensor_map_slots; ++i) {
    const gq::TensorMapEntry* e = &table[(key + i) % set->tensor_map_slots];
    const uint64_t k = LoadVolatile(&e->key);
    if (k == key) {
      __threadfence_system();  // the host stored the key last
      return e;
    }
    if (k == 0) return nullptr;
  }
  return nullptr;
}

// The largest piece (16, 8, 4, 2, 1 bytes) that `addr` is aligned to and
// that fits in `left`: the emulator's split of a box row (bulk_copy_runs.cpp).
__device__ __forceinline__ uint32_t PieceAt(uint64_t addr, uint32_t left) {
  for (uint32_t n = 16; n > 1; n /= 2)
    if ((addr & (n - 1)) == 0 && n <= left) return n;
  return 1;
}

// Lane `l`'s records of `bytes` at record address `at` in `space`, piece by
// piece (all of `active` run this); how many.
__device__ uint32_t LogRun(uint32_t active, uint32_t l, uint32_t site, int space, proto::Op op, uint64_t at,
                           uint32_t bytes) {
  uint32_t records = 0;
  for (uint32_t off = 0; off < bytes; ++records) {
    const uint32_t n = PieceAt(at + off, bytes - off);
    Append(active,
           Header(op, proto::kFlagAsync | proto::kFlagAsyncProxy, static_cast<uint8_t>(n),
                  proto::PackSpaceScope(static_cast<proto::Space>(space), proto::Scope::kNone), 1u << l, site),
           false, 1u << l, at + off, 0);
    off += n;
  }
  return records;
}

// The box of a copy through map `m` at `coord`, as the emulator walks it
// (ptx_emulator/ops/tensor_map_copy_ops.cpp Pieces, Im2colPieces, InShared):
// rows (tiled: dimension 1 fastest; im2col: the pixels of the bounding box
// from `coord`, moved by the im2col `offset`s), each split where it leaves
// the tensor, each part placed in shared memory (per 16-byte chunk under a
// swizzle, whose pattern starts at shared address `shared_phase`'s 128-byte
// line). Calls f(offset in the box's shared bytes, global address, inside,
// bytes).
template <typename F>
__device__ void WalkBox(const gq::TensorMapEntry& m, const int32_t* coord, const int32_t* offset,
                        uint32_t shared_phase, F&& f) {
  const uint32_t rank = m.rank, eb = m.element_bytes, row_bytes = uint32_t{m.box[0]} * eb;
  uint32_t count[gq::kTensorMapMaxRank] = {};
  uint64_t rows = 1;
  for (uint32_t i = 1; i < rank; ++i) {
    count[i] = (m.box[i] + m.element_stride[i] - 1) / m.element_stride[i];
    rows *= count[i];
  }
  auto part = [&](uint64_t lin, uint32_t bytes, bool inside, uint64_t global) {
    if (m.swizzle_span == 0) {
      f(lin, global, inside, bytes);
      return;
    }
    const uint64_t mask = m.swizzle_span / 16 - 1;
    for (uint32_t off = 0; off < bytes;) {
      const uint64_t at = lin + off;
      const uint32_t n = min(bytes - off, static_cast<uint32_t>(16 - (at & 15)));
      f(at ^ ((((shared_phase + at) >> 7) & mask) << 4), global + off, inside, n);
      off += n;
    }
  };
  // Whether coordinate y of dimension i lies in the tensor; its offset added to `base` if so.
  auto locate = [&](uint32_t i, int64_t y, uint64_t& base) {
    if (y < 0 || static_cast<uint64_t>(y) >= m.dim[i]) return false;
    base += static_cast<uint64_t>(y) * m.stride[i];
    return true;
  };
  auto row = [&](uint64_t r, bool inside, uint64_t base) {
    const uint64_t lin = r * row_bytes;
    const int64_t x0 = coord[0], x1 = x0 + m.box[0];
    const int64_t lo = max(x0, int64_t{0}), hi = min(x1, static_cast<int64_t>(m.dim[0]));
    if (!inside || lo >= hi) {
      part(lin, row_bytes, false, 0);
    } else {
      if (lo > x0) part(lin, static_cast<uint32_t>((lo - x0) * eb), false, 0);
      part(lin + static_cast<uint64_t>(lo - x0) * eb, static_cast<uint32_t>((hi - lo) * eb), true,
           base + static_cast<uint64_t>(lo) * eb);
      if (hi < x1) part(lin + static_cast<uint64_t>(hi - x0) * eb, static_cast<uint32_t>((x1 - hi) * eb), false, 0);
    }
  };
  if (m.im2col) {
    // box[1] pixels; past the box's upper corner a spatial dimension
    // restarts at the lower one and the next advances, past the last the
    // batch dimension (rank - 1) advances.
    const uint32_t n = rank - 1;
    int64_t pos[gq::kTensorMapMaxRank] = {};
    for (uint32_t i = 1; i < rank; ++i) pos[i] = coord[i];
    for (uint64_t r = 0; r < m.box[1]; ++r) {
      uint64_t base = m.address;
      bool inside = locate(n, pos[n], base);
      for (uint32_t i = 1; i < n; ++i) inside = locate(i, pos[i] + offset[i - 1], base) && inside;
      row(r, inside, base);
      uint32_t i = 1;
      for (; i < n; ++i) {
        pos[i] += m.element_stride[i];
        if (pos[i] <= static_cast<int64_t>(m.dim[i]) - 1 + m.upper[i - 1]) break;
        pos[i] = m.lower[i - 1];
      }
      if (i == n) ++pos[n];
    }
    return;
  }
  uint32_t k[gq::kTensorMapMaxRank] = {};
  for (uint64_t r = 0; r < rows; ++r) {
    bool inside = true;
    uint64_t base = m.address;
    for (uint32_t i = 1; i < rank; ++i)
      inside = locate(i, int64_t{coord[i]} + int64_t{k[i]} * m.element_stride[i], base) && inside;
    row(r, inside, base);
    for (uint32_t i = 1; i < rank && ++k[i] == count[i]; ++i) k[i] = 0;
  }
}

// Lane `l`'s complete-tx of a multicast delivery: a release with kFlagAsync
// on the mbarrier at `bar` (a .shared::cluster address), the lane alone,
// stamped (bulk_copy_ops.cpp CompleteTx).
__device__ void LogDeliveryTx(uint32_t active, uint32_t l, uint32_t site, uint32_t bar) {
  uint64_t logged = bar;
  Locate(abi::InstSpace::kSharedCluster, bar, logged);
  Append(active,
         Header(proto::Op::kRelease, proto::kFlagLoad | proto::kFlagStore | proto::kFlagAsync, 8,
                proto::PackSpaceScope(proto::Space::kShared, proto::Scope::kCta), 1u << l, site),
         true, 1u << l, logged, 0);
}

// The CTAs a multicast reaches: ranks set in `mask` within the cluster, in
// rank order (bulk_copy_ops.cpp Multicast); f(dst, bar) with the rank's
// .shared::cluster addresses of `dst` and `bar`.
template <typename F>
__device__ void ForEachDelivery(uint32_t mask, uint32_t dst, uint32_t bar, F&& f) {
  for (uint32_t r = 0; r < 16; ++r) {
    if (((mask >> r) & 1u) == 0) continue;
    const uint32_t to = __barracuda_cluster_map(dst, r), to_bar = __barracuda_cluster_map(bar, r);
    if (to == ~0u || to_bar == ~0u) continue;  // past the cluster's size: ignored, as the emulator does
    f(to, to_bar);
  }
}

}  // namespace

extern "C" __device__ __noinline__ uint32_t __barracuda_log_multicast(uint32_t desc, uint32_t site, uint64_t src,
                                                                      uint64_t dst, uint64_t bar, uint32_t bytes,
                                                                      uint32_t mask) {
  // Lane by lane, per CTA of ctaMask in rank order: per 16 bytes a read of
  // the source, then per 16 bytes a write of that CTA's destination, then
  // the complete-tx on that CTA's mbarrier (CopyToSharedMulticast).
  const uint32_t active = CallersOf(site);
  uint32_t mine = 0;
  for (uint32_t left = active; left != 0; left &= left - 1) {
    const uint32_t l = __ffs(left) - 1;
    const uint64_t src_l = __shfl_sync(active, src, l);
    const uint32_t dst_l = __shfl_sync(active, static_cast<uint32_t>(dst), l);
    const uint32_t bar_l = __shfl_sync(active, static_cast<uint32_t>(bar), l);
    const uint32_t n = __shfl_sync(active, bytes, l), m = __shfl_sync(active, mask, l);
    uint32_t records = 0;
    ForEachDelivery(m, dst_l, bar_l, [&](uint32_t to, uint32_t to_bar) {
      uint64_t to_log = to;
      Locate(abi::InstSpace::kSharedCluster, to, to_log);
      for (uint32_t off = 0; off < n; off += 16, ++records)
        Append(active,
               Header(proto::Op::kRead, abi::DescFlags(desc), 16,
                      proto::PackSpaceScope(proto::Space::kGlobal, proto::Scope::kNone), 1u << l, site),
               false, 1u << l, src_l + off, 0);
      for (uint32_t off = 0; off < n; off += 16, ++records)
        Append(active,
               Header(proto::Op::kWrite, abi::DescFlags(desc), 16,
                      proto::PackSpaceScope(proto::Space::kShared, proto::Scope::kNone), 1u << l, site),
               false, 1u << l, to_log + off, 0);
      LogDeliveryTx(active, l, site, to_bar);
    });
    if (LaneId() == l) mine = records;
  }
  return mine;
}

extern "C" __device__ __noinline__ uint64_t __barracuda_log_tensor(uint32_t desc, uint32_t site, uint64_t map,
                                                                   uint64_t shared, uint32_t c0, uint32_t c1,
                                                                   uint32_t c2, uint32_t c3, uint32_t c4,
                                                                   uint64_t bar, uint32_t mask, uint64_t offsets) {
  // Lane by lane, the emulator's order (TensorLoad / TensorStore /
  // TensorReduce): a load's box part by part, each inside part's global
  // reads then its shared writes, a part outside the tensor its (fill)
  // writes alone; a store's shared reads of every inside part, then its
  // global writes; a reduction's shared reads, then each global element.
  const uint32_t active = CallersOf(site);
  const bool multicast = abi::DescOp(desc) == abi::kTensorLoadMulticast;
  const bool store = abi::DescOp(desc) != abi::kTensorLoad && !multicast;
  const bool reduce = abi::DescOp(desc) == abi::kTensorReduce;
  const uint32_t rank = abi::DescSize(desc);
  const bool im2col = abi::DescScope(desc) == abi::kTensorIm2col;
  uint64_t shared_log = shared;
  const int shared_space = Locate(abi::DescSpace(desc), shared, shared_log);
  uint32_t my_reads = 0, my_writes = 0;
  for (uint32_t m_left = active; m_left != 0; m_left &= m_left - 1) {
    const uint32_t l = __ffs(m_left) - 1;
    const uint64_t map_l = __shfl_sync(active, map, l);
    const int space_l = __shfl_sync(active, shared_space, l);
    const uint64_t shared_l = __shfl_sync(active, shared_log, l);
    const uint32_t phase = __shfl_sync(active, static_cast<uint32_t>(shared) & 1023u, l);
    const uint32_t shared_raw = __shfl_sync(active, static_cast<uint32_t>(shared), l);
    const uint32_t bar_l = __shfl_sync(active, static_cast<uint32_t>(bar), l), mask_l = __shfl_sync(active, mask, l);
    const int32_t coord[gq::kTensorMapMaxRank] = {
        static_cast<int32_t>(__shfl_sync(active, c0, l)), static_cast<int32_t>(__shfl_sync(active, c1, l)),
        static_cast<int32_t>(__shfl_sync(active, c2, l)), static_cast<int32_t>(__shfl_sync(active, c3, l)),
        static_cast<int32_t>(__shfl_sync(active, c4, l))};
    const uint64_t offsets_l = __shfl_sync(active, offsets, l);
    const int32_t offset[gq::kTensorMapMaxRank - 2] = {static_cast<int16_t>(offsets_l),
                                                      static_cast<int16_t>(offsets_l >> 16),
                                                      static_cast<int16_t>(offsets_l >> 32)};
    const gq::TensorMapEntry* m = FindTensorMap(map_l);
    if (m == nullptr || !m->usable || m->rank != rank || (m->im2col != 0) != im2col || space_l < 0) {
      auto* set = reinterpret_cast<gq::QueueSet*>(__barracuda_queue_set);
      if (LaneId() == l && set != nullptr) atomicAdd(&set->tensor_copies_unchecked, 1u);
      continue;
    }
    uint32_t reads = 0, writes = 0;
    auto load_into = [&](int space, uint64_t base) {
      WalkBox(*m, coord, offset, phase, [&](uint64_t at, uint64_t global, bool inside, uint32_t n) {
        if (inside) reads += LogRun(active, l, site, 0, proto::Op::kRead, global, n);
        writes += LogRun(active, l, site, space, proto::Op::kWrite, base + at, n);
      });
    };
    if (multicast) {
      // The box into each CTA of ctaMask, each followed by its complete-tx
      // (TensorLoadMulticast).
      ForEachDelivery(mask_l, shared_raw, bar_l, [&](uint32_t to, uint32_t to_bar) {
        uint64_t to_log = to;
        Locate(abi::InstSpace::kSharedCluster, to, to_log);
        load_into(1, to_log);
        LogDeliveryTx(active, l, site, to_bar);
      });
    } else if (!store) {
      load_into(space_l, shared_l);
    } else {
      WalkBox(*m, coord, offset, phase, [&](uint64_t at, uint64_t, bool inside, uint32_t n) {
        if (inside) reads += LogRun(active, l, site, space_l, proto::Op::kRead, shared_l + at, n);
      });
      WalkBox(*m, coord, offset, phase, [&](uint64_t, uint64_t global, bool inside, uint32_t n) {
        if (!inside) return;
        if (!reduce) {
          writes += LogRun(active, l, site, 0, proto::Op::kWrite, global, n);
          return;
        }
        // Each element a strong read-modify-write at gpu scope, stamped
        // (bulk_copy_ops.cpp ReduceElements); not async records.
        for (uint32_t off = 0; off < n; off += m->element_bytes)
          Append(active,
                 Header(proto::Op::kAtomic, proto::kFlagLoad | proto::kFlagStore, m->element_bytes,
                        proto::PackSpaceScope(proto::Space::kGlobal, proto::Scope::kGpu), 1u << l, site),
                 true, 1u << l, global + off, 0);
      });
    }
    if (LaneId() == l) my_reads = reads, my_writes = writes;
  }
  return uint64_t{my_reads} << 32 | my_writes;
}

extern "C" __device__ __noinline__ void __barracuda_log_fence(uint32_t desc, uint32_t site) {
  const uint32_t active = CallersOf(site);
  const uint8_t flags = abi::DescFlags(desc);
  const proto::RecordHeader h =
      Header(proto::Op::kFence, flags, 0,
             proto::PackSpaceScope(proto::Space::kGlobal, static_cast<proto::Scope>(abi::DescScope(desc))), active,
             site);
  // A proxy fence orders proxies, not threads: no stamp (as the emulator).
  Append(active, h, (flags & proto::kFlagAsyncProxy) == 0, 0, 0, 0);
}

extern "C" __device__ __noinline__ void __barracuda_log_barrier(uint32_t desc, uint32_t site, uint32_t barrier_id,
                                                                uint32_t thread_count) {
  const uint32_t active = CallersOf(site);
  const proto::RecordHeader h = Header(static_cast<proto::Op>(abi::DescOp(desc)), 0, 0, 0, active, site);
  Append(active, h, false, 0, 0, barrier_id | static_cast<uint64_t>(thread_count) << 32);
}

extern "C" __device__ __noinline__ void __barracuda_log_warp_sync(uint32_t site, uint32_t member_mask) {
  const uint32_t active = CallersOf(site);
  // Lanes may name different member masks (tiles of a warp: tile.sync() in each
  // tile of 8 lanes): one record per distinct mask, each with the members that
  // are here (exited lanes are not; the emulator uses its live mask).
  for (uint32_t remaining = active; remaining != 0;) {
    const uint32_t mask = __shfl_sync(active, member_mask, __ffs(remaining) - 1);
    const uint32_t naming = __ballot_sync(active, member_mask == mask);
    remaining &= ~naming;
    // Every member goes in the payload: lanes that have not arrived yet log
    // their own record when they do (WarpSyncPayload). Lanes naming the mask
    // without being in it are its strays (undefined in PTX).
    const uint64_t strays = naming & ~mask;
    Append(active, Header(proto::Op::kWarpSync, 0, 0, 0, mask & active, site), false, 0, 0, mask | strays << 32);
  }
}

namespace {

// The lock word of a location (QueueSet::rmw_locks); nullptr for shared
// memory, which is not locked (logger_abi.h kRmwLock).
__device__ __forceinline__ uint32_t* RmwLock(gq::QueueSet* set, uint64_t address, uint32_t space) {
  if (space == static_cast<uint32_t>(abi::InstSpace::kShared) ||
      space == static_cast<uint32_t>(abi::InstSpace::kSharedCluster) ||
      space == static_cast<uint32_t>(abi::InstSpace::kSharedRecord) ||
      (space == static_cast<uint32_t>(abi::InstSpace::kGeneric) && __isShared(reinterpret_cast<const void*>(address))))
    return nullptr;
  // One lock per aligned 16 bytes: a vector atomic (atom.global.add.v4.f32,
  // aligned to its size) and a scalar atomic on any of its elements share it.
  const auto slot = static_cast<uint32_t>(((address >> 4) * 0x9E3779B97F4A7C15ull) >> 40) % set->rmw_lock_count;
  return reinterpret_cast<uint32_t*>(set->rmw_locks) + slot;
}

// The distinct lock words of the calling lanes' addresses, ascending (so that
// warps taking several never wait for each other in a cycle); every lane
// computes them, the leader takes and releases them.
__device__ uint32_t RmwLocks(gq::QueueSet* set, uint32_t active, uint64_t address, uint32_t space, uint32_t** out) {
  uint32_t n = 0;
  for (uint32_t l = 0; l < 32; ++l) {
    const uint64_t a = __shfl_sync(active, address, l);
    if (((active >> l) & 1u) == 0) continue;
    uint32_t* w = RmwLock(set, a, space);
    if (w == nullptr) continue;
    bool seen = false;
    for (uint32_t i = 0; i < n; ++i) seen |= out[i] == w;
    if (seen) continue;
    uint32_t i = n++;
    for (; i > 0 && out[i - 1] > w; --i) out[i] = out[i - 1];
    out[i] = w;
  }
  return n;
}

// The calling lanes (in `active`) and their distinct lock words (RmwLocks);
// 0 words when the locks are off or every address is in shared memory.
__device__ uint32_t CallersLocks(uint64_t address, uint32_t space, uint32_t& active, uint32_t** locks) {
  auto* set = reinterpret_cast<gq::QueueSet*>(__barracuda_queue_set);
  if (set == nullptr || set->rmw_lock_count == 0 || set->rmw_locks == 0) return 0;
  active = __activemask();
  const uint32_t n = RmwLocks(set, active, address, space, locks);
  __syncwarp(active);
  return n;
}

// Spins this long at most (~0.1 s) for a lock: the lock only orders stamps, so a
// holder that never releases (a logger bug, a killed warp) costs precision,
// not a hang.
constexpr uint32_t kRmwLockSpins = 1u << 20;

}  // namespace

extern "C" __device__ __noinline__ void __barracuda_rmw_lock(uint64_t address, uint32_t space) {
  uint32_t active = 0;
  uint32_t* locks[32];
  const uint32_t n = CallersLocks(address, space, active, locks);
  if (n == 0) return;
  if (LaneId() == Leader(active)) {
    for (uint32_t i = 0; i < n; ++i)
      for (uint32_t spin = 0; atomicCAS(locks[i], 0u, 1u) != 0u && spin < kRmwLockSpins; ++spin) __nanosleep(64);
    __threadfence();
  }
  __syncwarp(active);
}

extern "C" __device__ __noinline__ void __barracuda_rmw_unlock(uint64_t address, uint32_t space) {
  uint32_t active = 0;
  uint32_t* locks[32];
  const uint32_t n = CallersLocks(address, space, active, locks);
  if (n == 0) return;
  // Every lane's access is done (they ran before this call); release after it.
  if (LaneId() == Leader(active)) {
    __threadfence();
    for (uint32_t i = 0; i < n; ++i) atomicExch(locks[i], 0u);
  }
  __syncwarp(active);
}

extern "C" __device__ __noinline__ uint32_t __barracuda_log_branch(uint32_t site, uint32_t taken) {
  const uint32_t active = CallersOf(site);
  const uint32_t then_mask = __ballot_sync(active, taken != 0);
  if (then_mask == 0 || then_mask == active) return 0;
  Append(active, Header(proto::Op::kIf, 0, 0, 0, active, site), false, 0, 0, then_mask);
  return active;
}

extern "C" __device__ __noinline__ void __barracuda_log_else(uint32_t site) {
  const uint32_t active = CallersOf(site);
  Append(active, Header(proto::Op::kElse, 0, 0, 0, active, site), false, 0, 0, 0);
}

extern "C" __device__ __noinline__ void __barracuda_log_fi(uint32_t site, uint32_t packed, uint32_t join_mask) {
  // The lanes the branch split, when the join may wait for them (logger_abi.h):
  // __activemask() would name only the lanes that happen to run together (sm_70+
  // need not reconverge them here), so wait for the named lanes and log for them.
  if (join_mask != 0) __syncwarp(join_mask);
  const uint32_t active = join_mask != 0 ? join_mask : CallersOf(site);
  const uint32_t depth = packed & abi::kFiDepthMask;
  const bool fell = (packed & abi::kFiFell) != 0;
  const bool else_at_fi = (packed & abi::kFiElseAtFi) != 0;
  uint32_t max_depth = 0;
  for (uint32_t m = active; m != 0; m &= m - 1) {
    const uint32_t d = __shfl_sync(active, depth, __ffs(m) - 1);
    max_depth = d > max_depth ? d : max_depth;
  }
  // Innermost level first: its else side (when the join is the fall-through)
  // then its join, whose lanes are those at least that deep. Lanes that reach
  // the join in several groups (join_mask 0) log their own levels each; the
  // detector closes a level once all its lanes arrived.
  for (uint32_t level = max_depth; level >= 1; --level) {
    const uint32_t else_lanes = __ballot_sync(active, depth == level && fell && else_at_fi);
    if (else_lanes != 0) Append(active, Header(proto::Op::kElse, 0, 0, 0, else_lanes, site), false, 0, 0, 0);
    const uint32_t joined = __ballot_sync(active, depth >= level);
    Append(active, Header(proto::Op::kFi, 0, 0, 0, joined, site), false, 0, 0, 0);
  }
}

extern "C" __device__ __noinline__ void __barracuda_log_exit() {
  const uint32_t active = __activemask();
  Append(active, Header(proto::Op::kExit, 0, 0, 0, active, proto::kNoSite), false, 0, 0, 0);
}
