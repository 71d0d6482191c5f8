// TMA tensor maps seen being made (cuTensorMapEncodeTiled and
// cuTensorMapReplaceAddress through the agent's driver hooks), for the
// device logger's tensor map table (device_logger/gpu_queue.h): a CUtensorMap
// is 128 bytes whose encoding only the driver knows, so the geometry comes
// from the encoder's arguments, keyed by a hash of the bytes it returned.
//
// The registry outlives the queues: maps made before the first launch (or
// before a cudaDeviceReset set the queues up again) are written when a
// table is attached. Thread-safe.
#ifndef BARRACUDA_HOST_DETECTOR_GPU_AGENT_TENSOR_MAPS_H_
#define BARRACUDA_HOST_DETECTOR_GPU_AGENT_TENSOR_MAPS_H_

#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "device_logger/gpu_queue.h"
#include "device_logger/tensor_map_table.h"

namespace barracuda::gpu_agent {

class TensorMapRegistry {
 public:
  // A map the encoder wrote to `map_bytes` (128 bytes): `e` is its entry made
  // from the encoder's arguments (gpu_queue::TiledMapEntry / Im2colMapEntry;
  // the key is set here), `why` what those said copies through it cannot be
  // logged for (empty: they can). Returns `why`.
  std::string Encoded(const void* map_bytes, gpu_queue::TensorMapEntry e, std::string why);
  // cuTensorMapReplaceAddress: `old_key` (TensorMapKeyOf the bytes before the
  // call) now holds `new_bytes`, the same geometry at `address`.
  void AddressReplaced(uint64_t old_key, const void* new_bytes, uint64_t address);
  // The table the device reads: every map so far is written there, and
  // later ones as they are made. nullptr detaches (the queues are freed).
  void Attach(gpu_queue::QueueSet* set);
  // Copies through maps not in the table since the last call (the logger's
  // counter, reset).
  uint32_t TakeUnchecked();
  // Maps not written because the table was full (each said once by the caller).
  uint32_t overflowed() const;

 private:
  void WriteLocked(const gpu_queue::TensorMapEntry& e);
  mutable std::mutex mu_;
  absl::flat_hash_map<uint64_t, gpu_queue::TensorMapEntry> by_key_;
  std::vector<uint64_t> order_;  // keys in the order made (the table fills in that order)
  gpu_queue::QueueSet* set_ = nullptr;
  uint32_t overflowed_ = 0;
};

}  // namespace barracuda::gpu_agent

#endif  // BARRACUDA_HOST_DETECTOR_GPU_AGENT_TENSOR_MAPS_H_
