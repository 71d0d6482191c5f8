// The host side of the QueueSet's TMA tensor map table (gpu_queue.h): an
// entry's geometry from cuTensorMapEncodeTiled's arguments, and the table's
// insert and lookup as the logger probes it (logger.cu FindTensorMap).
// Written by the GPU agent (host_detector/gpu_agent/tensor_maps.h) and by
// the logger's equivalence tests.
#ifndef BARRACUDA_DEVICE_LOGGER_TENSOR_MAP_TABLE_H_
#define BARRACUDA_DEVICE_LOGGER_TENSOR_MAP_TABLE_H_

#include <cstdint>
#include <string>

#include "device_logger/gpu_queue.h"

namespace barracuda::gpu_queue {

// cuTensorMapEncodeTiled's arguments (CUDA driver API; enumerators by value).
struct TiledMapArgs {
  uint32_t data_type = 0;  // CUtensorMapDataType
  uint32_t rank = 0;
  uint64_t global_address = 0;
  const uint64_t* global_dim = nullptr;      // rank entries
  const uint64_t* global_strides = nullptr;  // rank - 1 entries (bytes; dimensions 1 ..)
  const uint32_t* box_dim = nullptr;         // rank entries
  const uint32_t* element_strides = nullptr; // rank entries
  uint32_t interleave = 0;                   // CUtensorMapInterleave
  uint32_t swizzle = 0;                      // CUtensorMapSwizzle
};

// The table entry of a map made from `args` (key 0: set by the caller).
// `usable` only for the layouts the logger walks as the emulator does
// (gpu_queue.h TensorMapEntry); `why` says what is not modelled otherwise.
TensorMapEntry TiledMapEntry(const TiledMapArgs& args, std::string* why = nullptr);

// cuTensorMapEncodeIm2col's arguments: the tiled ones without box_dim, the
// bounding box's corners (rank - 2 entries each) and the box's shape.
struct Im2colMapArgs : TiledMapArgs {
  const int* lower_corner = nullptr;
  const int* upper_corner = nullptr;
  uint32_t channels_per_pixel = 0;
  uint32_t pixels_per_column = 0;
};
TensorMapEntry Im2colMapEntry(const Im2colMapArgs& args, std::string* why = nullptr);

// TensorMapKey of 128 map bytes (any alignment).
uint64_t TensorMapKeyOf(const void* map_bytes);
// Puts `entry` (its key set) into the table, replacing an entry of the same
// key; the key is stored last (release), so a device reading the key sees
// the rest. False when the table is full.
bool AddTensorMap(QueueSet* set, const TensorMapEntry& entry);
// The entry of `key`, nullptr when absent (the device's lookup, on the host).
const TensorMapEntry* FindTensorMap(const QueueSet* set, uint64_t key);

}  // namespace barracuda::gpu_queue

#endif  // BARRACUDA_DEVICE_LOGGER_TENSOR_MAP_TABLE_H_
