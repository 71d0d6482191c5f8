// The GPU record queues (paper §4.2): one QueueSet in memory both the device
// logger and the host can reach (mapped pinned memory on a GPU, device memory
// on the emulator, which is host memory).
//
// Layout, no pointers (offsets from the QueueSet), shared by logger.cu and the
// host reader:
//   QueueSet header (256 bytes) | queue 0 | queue 1 | ...
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
inline constexpr uint32_t kVersion = 2;  // 2: RMW locks
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
  uint8_t reserved[256 - 56];
};
static_assert(sizeof(QueueSet) == 256, "QueueSet header is 256 bytes");

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
  return sizeof(QueueSet) + uint64_t{queues} * QueueStride(slots);
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
