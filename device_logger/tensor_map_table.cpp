#include "device_logger/tensor_map_table.h"

#include <algorithm>
#include <atomic>
#include <cstring>

#include "absl/strings/str_cat.h"

namespace barracuda::gpu_queue {

namespace {

// Bytes per element of CUtensorMapDataType `t` (cuda.h order); 0 for the
// packed sub-byte types (16U4_ALIGN8B, 16U4_ALIGN16B, 16U6_ALIGN16B).
uint32_t ElementBytes(uint32_t t) {
  static constexpr uint8_t kBytes[] = {1, 2, 4, 4, 8, 8, 2, 4, 8, 2, 4, 4, 4};
  return t < std::size(kBytes) ? kBytes[t] : 0;
}

}  // namespace

TensorMapEntry Im2colMapEntry(const Im2colMapArgs& a, std::string* why) {
  // The tiled geometry with box = channelsPerPixel x pixelsPerColumn (the
  // rows the logger walks), then the corners.
  const uint32_t box[kTensorMapMaxRank] = {a.channels_per_pixel, a.pixels_per_column, 1, 1, 1};
  TiledMapArgs t = a;
  t.box_dim = box;
  std::string reason;
  TensorMapEntry e = TiledMapEntry(t, &reason);
  e.im2col = 1;
  if (reason.empty() && (a.rank < 3 || a.rank > kTensorMapMaxRank)) reason = "an im2col rank outside 3..5";
  if (reason.empty() && (a.lower_corner == nullptr || a.upper_corner == nullptr)) reason = "no bounding box";
  for (uint32_t j = 0; reason.empty() && j + 2 < a.rank; ++j) {
    e.lower[j] = static_cast<int16_t>(a.lower_corner[j]);
    e.upper[j] = static_cast<int16_t>(a.upper_corner[j]);
  }
  e.usable = reason.empty() ? 1 : 0;
  if (why != nullptr) *why = reason;
  return e;
}

TensorMapEntry TiledMapEntry(const TiledMapArgs& a, std::string* why) {
  TensorMapEntry e{};
  std::string reason;
  const uint32_t rank = std::min(a.rank, kTensorMapMaxRank);
  e.rank = static_cast<uint8_t>(rank);
  e.address = a.global_address;
  e.element_bytes = static_cast<uint8_t>(ElementBytes(a.data_type));
  for (uint32_t i = 0; i < rank; ++i) {
    e.dim[i] = a.global_dim != nullptr ? a.global_dim[i] : 0;
    e.stride[i] = i == 0 ? e.element_bytes : (a.global_strides != nullptr ? a.global_strides[i - 1] : 0);
    e.box[i] = static_cast<uint16_t>(a.box_dim != nullptr ? a.box_dim[i] : 0);
    e.element_stride[i] = static_cast<uint8_t>(a.element_strides != nullptr ? a.element_strides[i] : 1);
  }
  const uint32_t row_bytes = uint32_t{e.box[0]} * e.element_bytes;
  if (a.rank == 0 || a.rank > kTensorMapMaxRank) reason = absl::StrCat("rank ", a.rank);
  else if (e.element_bytes == 0) reason = "a packed sub-byte data type";
  else if (a.interleave != 0) reason = "an interleaved layout";
  else if (a.swizzle > 3) reason = "a 128B swizzle with 32B or 64B atomicity";
  for (uint32_t i = 0; i < rank && reason.empty(); ++i)
    if (e.box[i] == 0 || e.element_stride[i] == 0) reason = "a zero box or element stride";
  if (reason.empty() && a.swizzle != 0) {
    e.swizzle_span = static_cast<uint8_t>(16u << a.swizzle);  // 32, 64, 128
    if (row_bytes != e.swizzle_span)
      reason = absl::StrCat("a swizzle over a ", row_bytes, "-byte box row (only one of exactly the swizzle span)");
  }
  e.usable = reason.empty() ? 1 : 0;
  if (why != nullptr) *why = reason;
  return e;
}

namespace {
TensorMapEntry* TableOf(const QueueSet* set) {
  return reinterpret_cast<TensorMapEntry*>(reinterpret_cast<uintptr_t>(set) + set->tensor_maps);
}
}  // namespace

uint64_t TensorMapKeyOf(const void* map_bytes) {
  uint64_t words[kTensorMapBytes / 8];
  std::memcpy(words, map_bytes, sizeof words);
  return TensorMapKey(words);
}

// Open addressing from key % slots, as the logger probes (logger.cu FindTensorMap).
bool AddTensorMap(QueueSet* set, const TensorMapEntry& entry) {
  if (set->tensor_map_slots == 0 || entry.key == 0) return false;
  TensorMapEntry* table = TableOf(set);
  for (uint32_t i = 0; i < set->tensor_map_slots; ++i) {
    TensorMapEntry& slot = table[(entry.key + i) % set->tensor_map_slots];
    const uint64_t key = std::atomic_ref<uint64_t>(slot.key).load(std::memory_order_acquire);
    if (key != 0 && key != entry.key) continue;
    TensorMapEntry copy = entry;
    copy.key = 0;
    if (key == 0) std::memcpy(&slot, &copy, sizeof copy);  // an entry of this key is the same map's already
    std::atomic_ref<uint64_t>(slot.key).store(entry.key, std::memory_order_release);
    return true;
  }
  return false;
}

const TensorMapEntry* FindTensorMap(const QueueSet* set, uint64_t key) {
  if (set->tensor_map_slots == 0 || key == 0) return nullptr;
  const TensorMapEntry* table = TableOf(set);
  for (uint32_t i = 0; i < set->tensor_map_slots; ++i) {
    const TensorMapEntry& slot = table[(key + i) % set->tensor_map_slots];
    const uint64_t k = std::atomic_ref<uint64_t>(const_cast<uint64_t&>(slot.key)).load(std::memory_order_acquire);
    if (k == key) return &slot;
    if (k == 0) return nullptr;
  }
  return nullptr;
}

}  // namespace barracuda::gpu_queue
