#include "device_logger/gpu_queue.h"

#include <cstring>

namespace barracuda::gpu_queue {

bool InitQueueSet(void* memory, uint32_t queues, uint32_t slots) {
  if (memory == nullptr || queues == 0 || slots == 0 || (slots & (slots - 1)) != 0) return false;
  // The header, the tensor map table and each queue's counters; not the
  // slots: a slot is read only below the commit index, after its record was
  // written, and lanes a record does not name hold what an earlier record
  // left there once a queue wraps anyway. Clearing them touched every page of
  // the set (87 MiB by default: ~0.25 s of page faults per run of the GPU path
  // on the emulator, whose mapped pinned memory is plain anonymous memory).
  std::memset(memory, 0, sizeof(QueueSet) + TensorMapTableBytes());
  for (uint32_t q = 0; q < queues; ++q)
    std::memset(static_cast<uint8_t*>(memory) + sizeof(QueueSet) + TensorMapTableBytes() + q * QueueStride(slots), 0,
                sizeof(QueueHeader));
  auto* set = static_cast<QueueSet*>(memory);
  set->magic = kMagic;
  set->version = kVersion;
  set->queue_count = queues;
  set->slots_per_queue = slots;
  set->queue_stride = QueueStride(slots);
  set->tensor_maps = sizeof(QueueSet);
  set->tensor_map_slots = kTensorMapSlots;
  set->first_queue = sizeof(QueueSet) + TensorMapTableBytes();
  return true;
}

}  // namespace barracuda::gpu_queue
