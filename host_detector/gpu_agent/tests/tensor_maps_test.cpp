// TensorMapRegistry and the device table (gpu_queue.h): entries are keyed by
// the hash of the map's bytes as the logger computes it, survive until a
// table is attached, follow cuTensorMapReplaceAddress, and only the layouts
// the logger walks are usable.
#include <atomic>
#include <cstring>
#include <vector>

#include <catch2/catch.hpp>

#include "device_logger/gpu_queue.h"
#include "device_logger/tensor_map_table.h"
#include "host_detector/gpu_agent/tensor_maps.h"

namespace barracuda::gpu_agent {
namespace {

struct Map {
  alignas(64) uint8_t bytes[gpu_queue::kTensorMapBytes] = {};
  explicit Map(uint8_t fill) { std::memset(bytes, fill, sizeof bytes); }
};

struct Queues {
  std::vector<uint8_t> memory = std::vector<uint8_t>(gpu_queue::QueueSetBytes(1, 16));
  gpu_queue::QueueSet* set() { return reinterpret_cast<gpu_queue::QueueSet*>(memory.data()); }
  Queues() { REQUIRE(gpu_queue::InitQueueSet(memory.data(), 1, 16)); }
};

const uint64_t kDim[2] = {64, 4}, kStrides[1] = {256};
const uint32_t kBox[2] = {32, 4}, kOnes[2] = {1, 1};

gpu_queue::TiledMapArgs FloatArgs(uint64_t address, uint32_t swizzle = 0) {
  gpu_queue::TiledMapArgs a;
  a.data_type = 7;  // FLOAT32
  a.rank = 2;
  a.global_address = address;
  a.global_dim = kDim;
  a.global_strides = kStrides;
  a.box_dim = kBox;
  a.element_strides = kOnes;
  a.swizzle = swizzle;
  return a;
}

// As the encoder hook does: the entry from the arguments, then the registry.
std::string Encode(TensorMapRegistry& registry, const void* map_bytes, const gpu_queue::TiledMapArgs& args) {
  std::string why;
  const gpu_queue::TensorMapEntry e = gpu_queue::TiledMapEntry(args, &why);
  return registry.Encoded(map_bytes, e, std::move(why));
}

TEST_CASE("tensor maps: geometry from the encoder's arguments, usable layouts only", "[tensor_maps]") {
  std::string why;
  gpu_queue::TensorMapEntry e = gpu_queue::TiledMapEntry(FloatArgs(0x1000), &why);
  CHECK(why.empty());
  CHECK(e.usable == 1);
  CHECK(e.rank == 2);
  CHECK(e.element_bytes == 4);
  CHECK(e.stride[0] == 4);
  CHECK(e.stride[1] == 256);
  CHECK(e.dim[1] == 4);
  CHECK(e.box[0] == 32);
  CHECK(e.swizzle_span == 0);
  // A 128-byte row with the 128B swizzle is walked; with the 64B one it is not.
  e = gpu_queue::TiledMapEntry(FloatArgs(0x1000, 3), &why);
  CHECK(e.usable == 1);
  CHECK(e.swizzle_span == 128);
  e = gpu_queue::TiledMapEntry(FloatArgs(0x1000, 2), &why);
  CHECK(e.usable == 0);
  CHECK(why.find("swizzle") != std::string::npos);
  gpu_queue::TiledMapArgs packed = FloatArgs(0x1000);
  packed.data_type = 13;  // 16U4_ALIGN8B
  CHECK(gpu_queue::TiledMapEntry(packed, &why).usable == 0);
  CHECK(why.find("sub-byte") != std::string::npos);
  gpu_queue::TiledMapArgs interleaved = FloatArgs(0x1000);
  interleaved.interleave = 1;
  CHECK(gpu_queue::TiledMapEntry(interleaved, &why).usable == 0);
}

TEST_CASE("tensor maps: written when a table is attached, found by the bytes' hash", "[tensor_maps]") {
  TensorMapRegistry registry;
  Map a(1), b(2), c(3);
  CHECK(Encode(registry, a.bytes, FloatArgs(0x1000)).empty());  // before the queues exist
  Queues q;
  registry.Attach(q.set());
  CHECK(Encode(registry, b.bytes, FloatArgs(0x2000)).empty());
  const gpu_queue::TensorMapEntry* ea = gpu_queue::FindTensorMap(q.set(), gpu_queue::TensorMapKeyOf(a.bytes));
  const gpu_queue::TensorMapEntry* eb = gpu_queue::FindTensorMap(q.set(), gpu_queue::TensorMapKeyOf(b.bytes));
  REQUIRE(ea != nullptr);
  REQUIRE(eb != nullptr);
  CHECK(ea->address == 0x1000);
  CHECK(eb->address == 0x2000);
  CHECK(gpu_queue::FindTensorMap(q.set(), gpu_queue::TensorMapKeyOf(c.bytes)) == nullptr);
  // cuTensorMapReplaceAddress: the new bytes name the same box at the new address.
  registry.AddressReplaced(gpu_queue::TensorMapKeyOf(a.bytes), c.bytes, 0x3000);
  const gpu_queue::TensorMapEntry* ec = gpu_queue::FindTensorMap(q.set(), gpu_queue::TensorMapKeyOf(c.bytes));
  REQUIRE(ec != nullptr);
  CHECK(ec->address == 0x3000);
  CHECK(ec->box[0] == 32);
  // The device's counter of copies it could not walk is taken once.
  std::atomic_ref<uint32_t>(q.set()->tensor_copies_unchecked).fetch_add(3);
  CHECK(registry.TakeUnchecked() == 3);
  CHECK(registry.TakeUnchecked() == 0);
  // A new table (after cudaDeviceReset) gets every map again.
  Queues q2;
  registry.Attach(q2.set());
  CHECK(gpu_queue::FindTensorMap(q2.set(), gpu_queue::TensorMapKeyOf(b.bytes)) != nullptr);
  CHECK(gpu_queue::FindTensorMap(q2.set(), gpu_queue::TensorMapKeyOf(c.bytes)) != nullptr);
}

TEST_CASE("tensor maps: a full table refuses and counts, colliding slots probe on", "[tensor_maps]") {
  Queues q;
  TensorMapRegistry registry;
  registry.Attach(q.set());
  std::vector<Map> maps;
  maps.reserve(gpu_queue::kTensorMapSlots + 2);
  for (uint32_t i = 0; i < gpu_queue::kTensorMapSlots + 2; ++i) {
    maps.emplace_back(0);
    std::memcpy(maps.back().bytes, &i, sizeof i);
    Encode(registry, maps.back().bytes, FloatArgs(0x1000 + i * 0x100));
  }
  CHECK(registry.overflowed() == 2);
  for (uint32_t i = 0; i < gpu_queue::kTensorMapSlots; ++i) {
    const gpu_queue::TensorMapEntry* e = gpu_queue::FindTensorMap(q.set(), gpu_queue::TensorMapKeyOf(maps[i].bytes));
    REQUIRE(e != nullptr);
    CHECK(e->address == 0x1000 + i * 0x100);
  }
}

}  // namespace
}  // namespace barracuda::gpu_agent
