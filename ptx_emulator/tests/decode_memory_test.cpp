#include <catch2/catch.hpp>

#include <cstring>
#include <set>
#include <thread>
#include <vector>

#include "ptx_emulator/core/device_memory.h"

namespace barracuda::emu {
namespace {

bool AllZero(const void* p, size_t n) {
  const auto* b = static_cast<const uint8_t*>(p);
  for (size_t i = 0; i < n; ++i)
    if (b[i] != 0) return false;
  return true;
}

TEST_CASE("DeviceMemory allocations are 256-byte aligned, zeroed and in range", "[decode][memory]") {
  DeviceMemory mem(uint64_t{1} << 30);
  REQUIRE(mem.end() > mem.begin());
  std::vector<void*> ptrs;
  for (uint64_t size : {1ull, 7ull, 256ull, 257ull, 4096ull, 100000ull}) {
    auto p = mem.Allocate(size, DeviceMemory::Kind::kDevice);
    REQUIRE(p.ok());
    const auto a = reinterpret_cast<uint64_t>(*p);
    CHECK(a % 256 == 0);
    CHECK(mem.InRange(a, size));
    CHECK(AllZero(*p, size));
    ptrs.push_back(*p);
  }
  CHECK(mem.bytes_in_use() == 1 + 7 + 256 + 257 + 4096 + 100000);
  // Distinct, non-overlapping.
  std::set<void*> unique(ptrs.begin(), ptrs.end());
  CHECK(unique.size() == ptrs.size());
  CHECK_FALSE(mem.InRange(mem.end(), 1));
  CHECK_FALSE(mem.InRange(mem.begin() - 1, 1));
  CHECK_FALSE(mem.InRange(mem.end() - 4, 8));
}

TEST_CASE("DeviceMemory::Find attributes addresses to live allocations", "[decode][memory]") {
  DeviceMemory mem(uint64_t{1} << 30);
  auto a = mem.Allocate(100, DeviceMemory::Kind::kGlobalVariable, "table");
  auto b = mem.Allocate(50, DeviceMemory::Kind::kManaged);
  REQUIRE(a.ok());
  REQUIRE(b.ok());
  const auto base = reinterpret_cast<uint64_t>(*a);
  auto f = mem.Find(base + 10, 4);
  REQUIRE(f.has_value());
  CHECK(f->base == base);
  CHECK(f->size == 100);
  CHECK(f->kind == DeviceMemory::Kind::kGlobalVariable);
  CHECK(f->label == "table");
  CHECK(mem.Find(base + 96, 4).has_value());
  CHECK_FALSE(mem.Find(base + 97, 4).has_value());   // runs past the end
  CHECK_FALSE(mem.Find(base + 100, 1).has_value());  // padding after the allocation
  CHECK_FALSE(mem.Find(mem.begin() - 1).has_value());
  REQUIRE(mem.Find(reinterpret_cast<uint64_t>(*b))->kind == DeviceMemory::Kind::kManaged);
}

TEST_CASE("DeviceMemory::Free checks its argument and zeroes reused memory", "[decode][memory]") {
  DeviceMemory mem(uint64_t{1} << 30);
  auto a = mem.Allocate(1000, DeviceMemory::Kind::kDevice);
  auto keep = mem.Allocate(16, DeviceMemory::Kind::kDevice);  // so `a` is not the top range
  REQUIRE(a.ok());
  REQUIRE(keep.ok());
  std::memset(*a, 0xab, 1000);
  CHECK(mem.Free(static_cast<uint8_t*>(*a) + 8).code() == absl::StatusCode::kNotFound);
  REQUIRE(mem.Free(*a).ok());
  CHECK(mem.Free(*a).code() == absl::StatusCode::kNotFound);
  CHECK_FALSE(mem.Find(reinterpret_cast<uint64_t>(*a)).has_value());
  CHECK(mem.bytes_in_use() == 16);
  auto again = mem.Allocate(900, DeviceMemory::Kind::kDevice);
  REQUIRE(again.ok());
  CHECK(*again == *a);  // best fit reuses the freed range
  CHECK(AllZero(*again, 900));
}

TEST_CASE("DeviceMemory gives big freed ranges back zeroed", "[decode][memory]") {
  DeviceMemory mem(uint64_t{1} << 30);
  const size_t big = (size_t{8} << 20) + 123;
  auto a = mem.Allocate(big, DeviceMemory::Kind::kDevice);
  auto keep = mem.Allocate(16, DeviceMemory::Kind::kDevice);
  REQUIRE(a.ok());
  REQUIRE(keep.ok());
  std::memset(*a, 0x5a, big);
  REQUIRE(mem.Free(*a).ok());
  auto b = mem.Allocate(big, DeviceMemory::Kind::kDevice);
  REQUIRE(b.ok());
  CHECK(*b == *a);
  CHECK(AllZero(*b, big));
}

TEST_CASE("DeviceMemory reports exhaustion and Reset releases everything", "[decode][memory]") {
  DeviceMemory mem(uint64_t{1} << 20);  // smaller than the minimum fallback: reserved as asked
  REQUIRE(mem.end() - mem.begin() == uint64_t{1} << 20);
  auto a = mem.Allocate(uint64_t{1} << 19, DeviceMemory::Kind::kDevice);
  REQUIRE(a.ok());
  std::memset(*a, 1, 64);
  auto too_big = mem.Allocate(uint64_t{1} << 20, DeviceMemory::Kind::kDevice);
  CHECK(too_big.status().code() == absl::StatusCode::kResourceExhausted);
  CHECK(mem.Allocate(uint64_t{1} << 40, DeviceMemory::Kind::kDevice).status().code() ==
        absl::StatusCode::kResourceExhausted);
  mem.Reset();
  CHECK(mem.bytes_in_use() == 0);
  CHECK_FALSE(mem.Find(reinterpret_cast<uint64_t>(*a)).has_value());
  auto b = mem.Allocate(uint64_t{1} << 20, DeviceMemory::Kind::kDevice);
  REQUIRE(b.ok());
  CHECK(AllZero(*b, 64));
}

TEST_CASE("DeviceMemory is safe to use from several threads", "[decode][memory]") {
  DeviceMemory mem(uint64_t{1} << 30);
  std::vector<std::thread> threads;
  std::vector<std::vector<void*>> kept(4);
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < 500; ++i) {
        auto p = mem.Allocate(64 + 8 * static_cast<uint64_t>(i % 7), DeviceMemory::Kind::kDevice);
        if (!p.ok()) continue;
        std::memset(*p, t + 1, 64);
        if (i % 2) {
          (void)mem.Free(*p);
        } else {
          kept[t].push_back(*p);
        }
      }
    });
  for (auto& th : threads) th.join();
  std::set<void*> all;
  for (int t = 0; t < 4; ++t)
    for (void* p : kept[t]) {
      all.insert(p);
      CHECK(static_cast<uint8_t*>(p)[63] == t + 1);  // nobody else got this range
    }
  CHECK(all.size() == 4 * 250);
}

}  // namespace
}  // namespace barracuda::emu
