// The GPU record queues (paper §4.2): one QueueSet in memory both the device
// logger and the host can reach (mapped pinned memory on a GPU, device memory
// on the emulator, which is host memory).
//
// Layout, no pointers (offsets from the QueueSet), shared by logger.cu and the
// host reader:
//   QueueSet header (256 bytes) | tensor map table (kTensorMapSlots entries) |
//   queue 0 | queue 1 | ...
//   queue = QueueHeader (3 x 128-byte lines: write head, commit, read head) |
//           slots_per_queue x protocol::Record (280 bytes)
// Indices are virtual and only grow; slot = index % slots_per_queue (a power
// of two). write_head: next index a warp leader reserves (atomicAdd); commit:
// every index below it is complete (leaders commit in index order); read_head:
// the host has consumed every index below it. The queue is full when
// write_head - read_head == slots_per_queue: the reserving leader waits, so
// nothing is dropped.
//
// Block b logs into queue b % queue_count (the paper's mapping: one queue per
// block, ~1.1-1.5 queues per SM), so a block's shared-memory records stay in
// one queue, in order.
#ifndef BARRACUDA_DEVICE_LOGGER_GPU_QUEUE_H_
#define BARRACUDA_DEVICE_LOGGER_GPU_QUEUE_H_

#include <stddef.h>
#include <stdint.h>

#include "device_logger/protocol.h"

namespace barracuda::gpu_queue {

inline constexpr uint32_t kMagic = 0x42435155;  // "UQCB"
inline constexpr uint32_t kVersion = 3;  // 2: RMW locks; 3: the tensor map table
// Lock words for strong writes (QueueSet::rmw_locks): 64 KiB of device memory.
inline constexpr uint32_t kRmwLocks = 16384;

struct QueueSet {
  uint32_t magic;
  uint32_t version;
  uint32_t queue_count;
  uint32_t slots_per_queue;  // power of two
  uint64_t queue_stride;     // bytes from one queue to the next
  uint64_t first_queue;      // offset of queue 0 from the QueueSet
  uint64_t stamp;            // global sequence stamp counter (last stamp handed out)
  // Shared-window offset of the program's first shared byte: the driver reserves
  // the start of each block's window on sm_80+ (1 KiB: static shared variables
  // begin at 0x400 there), the emulator does not (0). The logger subtracts it so
  // that shared addresses are offsets into the program's own shared memory.
  uint32_t shared_base;
  // Locks that make a strong write's stamp agree with its place in its
  // location's modification order (logger_abi.h kRmwLock): location -> one of
  // rmw_lock_count words at device address rmw_locks, in device memory (set by
  // the host: their atomics stay in the GPU's L2; in this mapped memory each
  // crossed PCIe, and a shared-atomic histogram ran 60x slower). 0: no locks.
  uint32_t rmw_lock_count;
  uint64_t rmw_locks;
  // The TMA tensor map table (TensorMapEntry below): its offset from the
  // QueueSet and slot count; and the tensor copies the logger could not walk
  // (their map is not in the table), counted by the device, read and reset
  // by the host after each launch.
  uint64_t tensor_maps;
  uint32_t tensor_map_slots;
  uint32_t tensor_copies_unchecked;
  uint8_t reserved[256 - 72];
};
static_assert(sizeof(QueueSet) == 256, "QueueSet header is 256 bytes");

// ---- TMA tensor maps (cp.async.bulk.tensor; logger.cu __barracuda_log_tensor)
// A CUtensorMap is 128 opaque bytes: the driver's encoding is undocumented, so
// the device cannot read the tensor's address or the box from it. The agent
// sees the arguments of every cuTensorMapEncodeTiled and writes their geometry
// here, keyed by TensorMapKey of the 128 bytes the encoder returned; the
// logger hashes the map a tensor copy names the same way and walks the box
// from the entry. A copy through a map not in the table (made by another
// encoder, edited on the device, or past a full table) is not logged and is
// counted in tensor_copies_unchecked instead, which the agent reports.
inline constexpr uint32_t kTensorMapBytes = 128;
inline constexpr uint32_t kTensorMapSlots = 256;
inline constexpr uint32_t kTensorMapMaxRank = 5;

struct TensorMapEntry {
  uint64_t key;                               // TensorMapKey of the map's bytes; 0: an empty slot
  uint64_t address;                           // the tensor's global address
  uint64_t dim[kTensorMapMaxRank];            // elements along each dimension
  uint64_t stride[kTensorMapMaxRank];         // bytes from one element to the next (stride[0]: element size)
  // boxDim; an im2col map: box[0] = channelsPerPixel, box[1] = pixelsPerColumn.
  uint16_t box[kTensorMapMaxRank];
  uint8_t element_stride[kTensorMapMaxRank];  // elementStrides (traversal strides)
  uint8_t rank;
  uint8_t element_bytes;
  uint8_t swizzle_span;  // 0 (none), 32, 64 or 128: 16-byte chunks permuted within 128-byte lines
  // 1: a layout the logger walks (no interleave, whole-byte elements, no
  // swizzle or one whose span is the box's inner dimension: what the
  // emulator implements); 0: copies through it count as unchecked.
  uint8_t usable;
  uint8_t im2col;  // 1: made by cuTensorMapEncodeIm2col
  // An im2col map's bounding box corners (spatial dimensions 1 .. rank - 2: W, H, D).
  int16_t lower[kTensorMapMaxRank - 2];
  int16_t upper[kTensorMapMaxRank - 2];
};
static_assert(sizeof(TensorMapEntry) == 128, "a table entry is 128 bytes");

constexpr uint64_t TensorMapTableBytes() { return uint64_t{kTensorMapSlots} * sizeof(TensorMapEntry); }

// A 64-bit hash of a map's 16 words (FNV-1a over words, with a shift to mix
// the high bits down); never 0, which marks an empty slot. Host and device.
#if defined(__CUDACC__)
__host__ __device__
#endif
inline uint64_t TensorMapKey(const uint64_t* words) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (int i = 0; i < static_cast<int>(kTensorMapBytes / 8); ++i) {
    h ^= words[i];
    h *= 0x100000001b3ull;
    h ^= h >> 29;
  }
  return h == 0 ? 1 : h;
}

struct QueueHeader {
  uint64_t write_head;  // device: next index to reserve
  uint8_t pad0[120];
  uint64_t commit;      // device: every index below is complete
  uint8_t pad1[120];
  uint64_t read_head;   // host: every index below is consumed
  uint8_t pad2[120];
};
static_assert(sizeof(QueueHeader) == 384, "one 128-byte line per counter");

constexpr uint64_t QueueStride(uint32_t slots) {
  return sizeof(QueueHeader) + uint64_t{slots} * sizeof(protocol::Record);
}
constexpr uint64_t QueueSetBytes(uint32_t queues, uint32_t slots) {
  return sizeof(QueueSet) + TensorMapTableBytes() + uint64_t{queues} * QueueStride(slots);
}
// ~1.25 queues per SM (the paper found 1.1-1.5 best), at least one.
constexpr uint32_t QueuesForSms(uint32_t sms) { return sms == 0 ? 1 : (sms * 5 + 3) / 4; }

#if !defined(__CUDACC__)
// Host side.

// Writes an empty QueueSet of `queues` queues of `slots` slots (a power of
// two) into `memory` (QueueSetBytes(queues, slots) bytes). False on bad sizes.
bool InitQueueSet(void* memory, uint32_t queues, uint32_t slots);

QueueHeader* QueueAt(QueueSet* set, uint32_t queue);
protocol::Record* SlotsOf(QueueSet* set, uint32_t queue);

// The tensor map table's host side: tensor_map_table.h.

// Copies the committed, unread records of `queue` into `out`, advancing the
// read head (acquire load of commit, release store of read_head).
template <typename Out>
size_t Drain(QueueSet* set, uint32_t queue, Out&& out);

#endif

}  // namespace barracuda::gpu_queue

#if !defined(__CUDACC__)
#include <atomic>

namespace barracuda::gpu_queue {

inline QueueHeader* QueueAt(QueueSet* set, uint32_t queue) {
  return reinterpret_cast<QueueHeader*>(reinterpret_cast<uint8_t*>(set) + set->first_queue +
                                        queue * set->queue_stride);
}
inline protocol::Record* SlotsOf(QueueSet* set, uint32_t queue) {
  return reinterpret_cast<protocol::Record*>(reinterpret_cast<uint8_t*>(QueueAt(set, queue)) + sizeof(QueueHeader));
}

template <typename Out>
size_t Drain(QueueSet* set, uint32_t queue, Out&& out) {
  QueueHeader* q = QueueAt(set, queue);
  const uint64_t commit = std::atomic_ref<uint64_t>(q->commit).load(std::memory_order_acquire);
  uint64_t read = std::atomic_ref<uint64_t>(q->read_head).load(std::memory_order_relaxed);
  const protocol::Record* slots = SlotsOf(set, queue);
  size_t n = 0;
  for (; read < commit; ++read, ++n) out(slots[read & (set->slots_per_queue - 1)]);
  std::atomic_ref<uint64_t>(q->read_head).store(read, std::memory_order_release);
  return n;
}

}  // namespace barracuda::gpu_queue
#endif

#endif  // BARRACUDA_DEVICE_LOGGER_GPU_QUEUE_H_
