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
  DeviceMemory mem(uint64_t{1} << 30, /*quarantine_bytes=*/0);
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
  DeviceMemory mem(uint64_t{1} << 30, /*quarantine_bytes=*/0);
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
  // The whole range but the redzone after the allocation.
  auto b = mem.Allocate((uint64_t{1} << 20) - DeviceMemory::kRedzone, DeviceMemory::Kind::kDevice);
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

using Access = DeviceMemory::Access;

TEST_CASE("DeviceMemory's addressability map: live bytes, partial granules, redzones", "[decode][memory][memcheck]") {
  DeviceMemory mem(uint64_t{1} << 30);
  auto a = mem.Allocate(100, DeviceMemory::Kind::kDevice);
  auto b = mem.Allocate(512, DeviceMemory::Kind::kDevice);
  REQUIRE(a.ok());
  REQUIRE(b.ok());
  const auto pa = reinterpret_cast<uint64_t>(*a), pb = reinterpret_cast<uint64_t>(*b);
  CHECK(pb - pa >= 256 + DeviceMemory::kRedzone);  // a redzone between neighbours
  CHECK(mem.Check(pa, 4) == Access::kOk);
  CHECK(mem.Check(pa + 96, 4) == Access::kOk);
  CHECK(mem.Check(pa + 97, 4) == Access::kOutOfBounds);  // runs past the end
  CHECK(mem.Check(pa + 100, 1) == Access::kOutOfBounds);  // the rest of its granule
  CHECK(mem.Check(pa + 256, 4) == Access::kOutOfBounds);  // the redzone
  CHECK(mem.Check(pb - 128, 4) == Access::kOutOfBounds);  // 128 bytes before b
  CHECK(mem.Check(pb + 252, 8) == Access::kOk);           // across b's granules
  CHECK(mem.Check(pb + 508, 8) == Access::kOutOfBounds);
  CHECK(mem.Check(pb, 512) == Access::kOk);               // a bulk copy of all of it
  CHECK(mem.Addressable(pb, 16));
  CHECK_FALSE(mem.Addressable(mem.end() - 4, 8));
  // Never-allocated memory beyond the bump pointer.
  CHECK(mem.Check(pb + 4096, 4) == Access::kOutOfBounds);
}

TEST_CASE("DeviceMemory: a freed range is a use after free until it leaves the quarantine",
          "[decode][memory][memcheck]") {
  DeviceMemory mem(uint64_t{1} << 30, /*quarantine_bytes=*/4096);
  auto a = mem.Allocate(1000, DeviceMemory::Kind::kDevice, "first");
  auto keep = mem.Allocate(16, DeviceMemory::Kind::kDevice);
  REQUIRE(a.ok());
  REQUIRE(keep.ok());
  const auto pa = reinterpret_cast<uint64_t>(*a);
  REQUIRE(mem.Free(*a).ok());
  CHECK(mem.Check(pa + 8, 4) == Access::kFreed);
  CHECK(mem.Check(pa + 996, 8) == Access::kFreed);  // partly freed bytes, partly the tail: a use after free
  auto near = mem.Near(pa + 8);
  REQUIRE(near.has_value());
  CHECK(near->freed);
  CHECK(near->offset == 8);
  CHECK(mem.Describe(pa + 8, 4).find("inside an allocation at") != std::string::npos);
  // Not reused while quarantined.
  auto again = mem.Allocate(1000, DeviceMemory::Kind::kDevice);
  REQUIRE(again.ok());
  CHECK(*again != *a);
  // Freeing more than the quarantine holds releases the oldest for reuse.
  auto big = mem.Allocate(8192, DeviceMemory::Kind::kDevice);
  REQUIRE(big.ok());
  REQUIRE(mem.Free(*big).ok());
  CHECK(mem.Check(pa + 8, 4) == Access::kOutOfBounds);
  auto reused = mem.Allocate(1000, DeviceMemory::Kind::kDevice);
  REQUIRE(reused.ok());
  CHECK(*reused == *a);
  CHECK(mem.Check(pa + 8, 4) == Access::kOk);
}

TEST_CASE("DeviceMemory::Describe names the nearest allocation and the offset", "[decode][memory][memcheck]") {
  DeviceMemory mem(uint64_t{1} << 30);
  auto a = mem.Allocate(4096, DeviceMemory::Kind::kDevice);
  auto b = mem.Allocate(64, DeviceMemory::Kind::kGlobalVariable, "table");
  REQUIRE(a.ok());
  REQUIRE(b.ok());
  const auto pa = reinterpret_cast<uint64_t>(*a), pb = reinterpret_cast<uint64_t>(*b);
  auto before = mem.Near(pb - 128);
  REQUIRE(before.has_value());
  CHECK(before->allocation.base == pb);
  CHECK(before->offset == -128);
  CHECK(mem.Describe(pb - 128, 4).find("128 bytes before the nearest allocation") != std::string::npos);
  auto after = mem.Near(pa + 4096 + 4);
  REQUIRE(after.has_value());
  CHECK(after->allocation.base == pa);
  CHECK(after->offset == 4100);
  CHECK(mem.Describe(pa + 4100, 4).find("5 bytes after the nearest allocation") != std::string::npos);
  CHECK(mem.Describe(pb + 64, 4).find("(table)") != std::string::npos);
}

TEST_CASE("DeviceMemory::Reset clears the addressability map", "[decode][memory][memcheck]") {
  DeviceMemory mem(uint64_t{1} << 30);
  auto a = mem.Allocate(256, DeviceMemory::Kind::kDevice);
  REQUIRE(a.ok());
  const auto pa = reinterpret_cast<uint64_t>(*a);
  CHECK(mem.Check(pa, 4) == Access::kOk);
  mem.Reset();
  CHECK(mem.Check(pa, 4) == Access::kOutOfBounds);
}

}  // namespace
}  // namespace barracuda::emu

namespace barracuda::emu {
namespace {

TEST_CASE("DeviceMemory::AllocatePageAligned: pages of its own and an exact end", "[decode][memory][memcheck]") {
  DeviceMemory mem(uint64_t{1} << 30);
  constexpr uint64_t kPage = DeviceMemory::kPageBytes;
  auto before = mem.Allocate(100, DeviceMemory::Kind::kDevice);
  auto a = mem.AllocatePageAligned(5000, 0x9f0, DeviceMemory::Kind::kHost);
  auto after = mem.Allocate(100, DeviceMemory::Kind::kDevice);
  REQUIRE(before.ok());
  REQUIRE(a.ok());
  REQUIRE(after.ok());
  const uint64_t pa = reinterpret_cast<uint64_t>(*a);
  CHECK(pa % kPage == 0x9f0);
  const uint64_t lo = pa - 0x9f0, hi = (pa + 5000 + kPage - 1) / kPage * kPage;
  // Its pages hold no other allocation.
  for (void* other : {*before, *after}) {
    const uint64_t o = reinterpret_cast<uint64_t>(other);
    CHECK((o + 100 <= lo || o >= hi));
  }
  auto found = mem.Find(pa + 10);
  REQUIRE(found.has_value());
  CHECK(found->base == pa);
  CHECK(found->kind == DeviceMemory::Kind::kHost);
  CHECK_FALSE(mem.Find(pa - 1).has_value());
  CHECK(mem.Check(pa, 5000) == Access::kOk);
  CHECK(mem.Check(pa + 4999, 1) == Access::kOk);
  CHECK(mem.Check(pa + 5000, 1) == Access::kOutOfBounds);
  CHECK(mem.Check(lo, 4) == Access::kOutOfBounds);  // the page's start, before its granule
  CHECK(mem.AllocatePageAligned(16, kPage, DeviceMemory::Kind::kHost).status().code() ==
        absl::StatusCode::kResourceExhausted);  // lead past a page
  REQUIRE(mem.Free(*a).ok());
  CHECK(mem.Check(pa, 4) == Access::kFreed);
  CHECK(mem.bytes_in_use() == 200);
}

}  // namespace
}  // namespace barracuda::emu
