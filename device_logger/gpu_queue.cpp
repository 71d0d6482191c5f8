#include "device_logger/gpu_queue.h"

#include <cstring>

namespace barracuda::gpu_queue {

bool InitQueueSet(void* memory, uint32_t queues, uint32_t slots) {
  if (memory == nullptr || queues == 0 || slots == 0 || (slots & (slots - 1)) != 0) return false;
  std::memset(memory, 0, QueueSetBytes(queues, slots));
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
