// DeviceMemory: one reserved range of host address space, carved by a bump
// pointer plus best-fit reuse of freed ranges.
//
// Each allocation takes its size rounded to 256 bytes plus a 256-byte redzone
// (its span); a freed span waits in a FIFO quarantine (256 MiB by default)
// before it is reused, so that the addressability map can still call an
// access to it a use after free.
//
// Invariant: every byte of a free range and of [bump_, end_) reads as zero, so
// Allocate never clears memory: Free clears (memset for small ranges,
// MADV_DONTNEED for the page-aligned interior of big ones, which also gives the
// pages back to the OS), and fresh pages of the MAP_NORESERVE mapping are zero.
#include "ptx_emulator/core/device_memory.h"

#include <sys/mman.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>

#include "ptx_rewriter/text_concat.h"

namespace barracuda::emu {
namespace {

constexpr uint64_t kAllocAlign = 256;     // cudaMalloc's documented alignment
constexpr uint64_t kPage = 4096;
constexpr uint64_t kMadviseMin = 1 << 20;  // below this a memset is cheaper than a syscall
constexpr uint64_t kMinReserve = uint64_t{256} << 20;
// Where the arena goes when that range is free (80 TiB, below PIE binaries and
// shared libraries; in user space on every x86-64 and AArch64 Linux with 47+ bit
// addresses).
constexpr uint64_t kPreferredBase = uint64_t{0x5000} << 32;

constexpr uint64_t AlignUp(uint64_t v, uint64_t a) { return (v + a - 1) & ~(a - 1); }
constexpr uint64_t Rounded(uint64_t bytes) { return AlignUp(bytes == 0 ? 1 : bytes, kAllocAlign); }
// Address space an allocation takes: its granules and the redzone after them.
constexpr uint64_t Span(uint64_t bytes) { return Rounded(bytes) + DeviceMemory::kRedzone; }
static_assert(kAllocAlign == DeviceMemory::kGranule, "allocations start on a granule of the addressability map");

// Makes [base, base + size) read as zero again.
void Clear(uint64_t base, uint64_t size) {
  if (size >= kMadviseMin) {
    const uint64_t lo = AlignUp(base, kPage);
    const uint64_t hi = (base + size) & ~(kPage - 1);
    std::memset(reinterpret_cast<void*>(base), 0, lo - base);
    if (madvise(reinterpret_cast<void*>(lo), hi - lo, MADV_DONTNEED) != 0)
      std::memset(reinterpret_cast<void*>(lo), 0, hi - lo);
    std::memset(reinterpret_cast<void*>(hi), 0, base + size - hi);
  } else {
    std::memset(reinterpret_cast<void*>(base), 0, size);
  }
}

std::string Hex(uint64_t v) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(v));
  return buf;
}
std::string ShortHex(uint64_t v) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%llx", static_cast<unsigned long long>(v));
  return buf;
}

}  // namespace

DeviceMemory::DeviceMemory(uint64_t reserve_bytes, uint64_t quarantine_bytes) : quarantine_limit_(quarantine_bytes) {
  // The address space may be limited (ulimit -v, sanitizers' shadow): halve
  // the reservation until one fits.
  uint64_t size = AlignUp(reserve_bytes == 0 ? kPage : reserve_bytes, kPage);
  // The same device addresses on every run (reports and printed pointers are
  // then the same): a fixed address when it is free, else wherever the
  // kernel puts it. Not under ThreadSanitizer, whose shadow lives there.
#if defined(__SANITIZE_THREAD__)
  void* hint = nullptr;
#else
  void* hint = reinterpret_cast<void*>(kPreferredBase);
#endif
  while (true) {
    void* p = MAP_FAILED;
    if (hint != nullptr) {
      p = mmap(hint, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED_NOREPLACE,
               -1, 0);
      if (p != MAP_FAILED && p != hint) {  // kernels before 4.17 take the flag as a hint
        munmap(p, size);
        p = MAP_FAILED;
      }
      hint = nullptr;
    }
    if (p == MAP_FAILED)
      p = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p != MAP_FAILED) {
      begin_ = reinterpret_cast<uint64_t>(p);
      end_ = begin_ + size;
      break;
    }
    if (size <= kMinReserve) break;  // nothing reserved: every Allocate fails cleanly
    size = AlignUp(std::max(size / 2, kMinReserve), kPage);
  }
  bump_ = begin_;
  if (begin_ != 0) {
    map_bytes_ = AlignUp((end_ - begin_) / kGranule * sizeof(uint16_t), kPage);
    void* m = mmap(nullptr, map_bytes_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (m == MAP_FAILED) {  // no map, no memory: every Allocate fails cleanly
      munmap(reinterpret_cast<void*>(begin_), end_ - begin_);
      begin_ = end_ = bump_ = 0;
      map_bytes_ = 0;
    } else {
      map_ = static_cast<uint16_t*>(m);
    }
  }
}

DeviceMemory::~DeviceMemory() {
  if (begin_ != 0) munmap(reinterpret_cast<void*>(begin_), end_ - begin_);
  if (map_ != nullptr) munmap(map_, map_bytes_);
}

void DeviceMemory::Mark(uint64_t base, uint64_t bytes, uint64_t span, bool live, uint16_t mark) {
  const uint64_t first = (base - begin_) / kGranule, count = span / kGranule;
  for (uint64_t g = 0; g < count; ++g) {
    uint16_t v = mark;
    if (live) {
      const uint64_t at = g * kGranule;
      v = at >= bytes ? 0 : static_cast<uint16_t>(std::min(bytes - at, kGranule));
    }
    __atomic_store_n(&map_[first + g], v, __ATOMIC_RELAXED);
  }
}

DeviceMemory::Access DeviceMemory::CheckSlow(uint64_t first, uint64_t last) const {
  bool freed = false, outside = false;
  for (uint64_t g = first / kGranule; g <= last / kGranule; ++g) {
    const uint16_t v = __atomic_load_n(&map_[g], __ATOMIC_RELAXED);
    if (v == kFreedMark) {
      freed = true;
      continue;
    }
    // The last byte of this granule the access touches must be addressable
    // (live bytes are a prefix of the granule).
    const uint64_t hi = g == last / kGranule ? last % kGranule : kGranule - 1;
    if (v == 0 || hi >= v) outside = true;
  }
  // An access reaching into a freed allocation is a use after free even when
  // it also crosses an edge.
  if (freed) return Access::kFreed;
  return outside ? Access::kOutOfBounds : Access::kOk;
}

absl::StatusOr<uint64_t> DeviceMemory::Take(uint64_t need, uint64_t bytes) {
  uint64_t base = 0;
  // Best fit among freed ranges (all zero already, see the file comment).
  if (auto it = free_.lower_bound(need); it != free_.end()) {
    const uint64_t size = it->first;
    base = it->second;
    free_.erase(it);
    if (size > need) free_.emplace(size - need, base + need);
  } else {
    if (need > end_ - bump_)
      return absl::ResourceExhaustedError(ptx::Cat("device memory: out of memory allocating ", bytes,
                                                       " bytes (", in_use_, " bytes in use)"));
    base = bump_;
    bump_ += need;
  }
  return base;
}

absl::StatusOr<void*> DeviceMemory::Allocate(uint64_t bytes, Kind kind, std::string label) {
  if (bytes > end_ - begin_)
    return absl::ResourceExhaustedError(ptx::Cat("device memory: cannot allocate ", bytes, " bytes"));
  const uint64_t need = Span(bytes);
  std::lock_guard<std::mutex> lock(mu_);
  absl::StatusOr<uint64_t> base = Take(need, bytes);
  if (!base.ok()) return base.status();
  live_.emplace(*base, Allocation{*base, bytes, kind, std::move(label), *base, need});
  in_use_ += bytes;
  Mark(*base, bytes, need, /*live=*/true, 0);
  return reinterpret_cast<void*>(*base);
}

absl::StatusOr<void*> DeviceMemory::AllocatePageAligned(uint64_t bytes, uint64_t lead, Kind kind) {
  if (lead >= kPage || bytes > end_ - begin_)
    return absl::ResourceExhaustedError(ptx::Cat("device memory: cannot allocate ", bytes, " bytes"));
  // Slack to reach a page boundary, the pages, and a redzone page after them.
  const uint64_t pages = AlignUp(lead + bytes, kPage);
  const uint64_t need = kPage - kAllocAlign + pages + kPage;
  std::lock_guard<std::mutex> lock(mu_);
  absl::StatusOr<uint64_t> span_base = Take(need, bytes);
  if (!span_base.ok()) return span_base.status();
  const uint64_t base = AlignUp(*span_base, kPage) + lead;
  live_.emplace(base, Allocation{base, bytes, kind, "", *span_base, need});
  in_use_ += bytes;
  const uint64_t granule = base & ~(kGranule - 1);
  Mark(granule, base - granule + bytes, Span(base - granule + bytes), /*live=*/true, 0);
  return reinterpret_cast<void*>(base);
}

absl::Status DeviceMemory::Free(void* pointer) {
  const uint64_t base = reinterpret_cast<uint64_t>(pointer);
  std::lock_guard<std::mutex> lock(mu_);
  auto it = live_.find(base);
  if (it == live_.end())
    return absl::NotFoundError(ptx::Cat("device memory: 0x", Hex(base),
                                            " is not the base of a live allocation"));
  const uint64_t span_base = it->second.span_base, span = it->second.span;
  in_use_ -= it->second.size;
  Clear(span_base, span);  // now: the pages go back to the OS while quarantined
  Mark(span_base, 0, span, /*live=*/false, kFreedMark);
  quarantine_.push_back(Quarantined{std::move(it->second)});
  quarantine_bytes_ += span;
  live_.erase(it);
  while (quarantine_bytes_ > quarantine_limit_) {
    const Quarantined& q = quarantine_.front();
    quarantine_bytes_ -= q.allocation.span;
    Release(q.allocation.span_base, q.allocation.span);
    quarantine_.pop_front();
  }
  return absl::OkStatus();
}

absl::Status DeviceMemory::SetDormant(void* pointer, bool dormant) {
  const uint64_t base = reinterpret_cast<uint64_t>(pointer);
  std::lock_guard<std::mutex> lock(mu_);
  auto it = live_.find(base);
  if (it == live_.end())
    return absl::NotFoundError(ptx::Cat("device memory: 0x", Hex(base), " is not the base of a live allocation"));
  Allocation& a = it->second;
  a.dormant = dormant;
  if (dormant) {
    Mark(a.span_base, 0, a.span, /*live=*/false, kFreedMark);
  } else {
    // As Allocate / AllocatePageAligned marked it: from the granule holding its first byte.
    const uint64_t granule = base & ~(kGranule - 1);
    Mark(a.span_base, 0, a.span, /*live=*/false, 0);
    Mark(granule, base - granule + a.size, Span(base - granule + a.size), /*live=*/true, 0);
  }
  return absl::OkStatus();
}

void DeviceMemory::Release(uint64_t base, uint64_t span) {
  Mark(base, 0, span, /*live=*/false, 0);
  if (base + span == bump_) {
    bump_ = base;  // the top range goes back to the never-used region
  } else {
    free_.emplace(span, base);
  }
}

std::optional<DeviceMemory::Nearby> DeviceMemory::Near(uint64_t address) const {
  std::lock_guard<std::mutex> lock(mu_);
  for (const Quarantined& q : quarantine_) {
    const Allocation& a = q.allocation;
    if (address >= a.base && address < a.base + Rounded(a.size))
      return Nearby{a, true, static_cast<int64_t>(address - a.base)};
  }
  if (auto at = live_.upper_bound(address); at != live_.begin()) {
    const Allocation& a = std::prev(at)->second;
    if (a.dormant && address < a.base + Rounded(a.size)) return Nearby{a, true, static_cast<int64_t>(address - a.base)};
  }
  std::optional<Nearby> best;
  uint64_t best_distance = UINT64_MAX;
  auto after = live_.upper_bound(address);
  if (after != live_.end()) {  // starts after the address
    best = Nearby{after->second, false, -static_cast<int64_t>(after->first - address)};
    best_distance = after->first - address;
  }
  if (after != live_.begin()) {  // starts at or before it
    const Allocation& a = std::prev(after)->second;
    const uint64_t end = a.base + std::max<uint64_t>(a.size, 1);
    const uint64_t distance = address < end ? 0 : address - end + 1;
    if (distance <= best_distance) best = Nearby{a, false, static_cast<int64_t>(address - a.base)};
  }
  return best;
}

std::string DeviceMemory::Describe(uint64_t address, uint64_t size) const {
  const std::optional<Nearby> n = Near(address);
  if (!n) return "not in any allocation";
  const Allocation& a = n->allocation;
  const std::string where = ptx::Cat("allocation at 0x", ShortHex(a.base), " of ", a.size, " bytes",
                                     a.label.empty() ? "" : " (" + a.label + ")");
  if (n->freed) return ptx::Cat(n->offset, " bytes inside an ", where, " that was freed");
  if (n->offset < 0) return ptx::Cat(-n->offset, " bytes before the nearest ", where);
  const uint64_t offset = static_cast<uint64_t>(n->offset);
  // Counted as compute-sanitizer's memcheck (and barracuda's report) counts:
  // the byte just past the end is "1 bytes after" the allocation.
  if (offset >= a.size) return ptx::Cat(offset - a.size + 1, " bytes after the nearest ", where);
  return ptx::Cat("at offset ", offset, " of the ", where, ", ", size, " bytes running past its end");
}

std::optional<DeviceMemory::Allocation> DeviceMemory::Find(uint64_t address, uint64_t size, bool dormant_too) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = live_.upper_bound(address);
  if (it == live_.begin()) return std::nullopt;
  --it;
  const Allocation& a = it->second;
  if (a.dormant && !dormant_too) return std::nullopt;
  const uint64_t extent = a.size == 0 ? 1 : a.size;
  if (address - a.base >= extent || size > extent - (address - a.base)) return std::nullopt;
  return a;
}

uint64_t DeviceMemory::bytes_in_use() const {
  std::lock_guard<std::mutex> lock(mu_);
  return in_use_;
}

void DeviceMemory::Reset() {
  std::lock_guard<std::mutex> lock(mu_);
  if (bump_ > begin_) {
    Clear(begin_, bump_ - begin_);
    Mark(begin_, 0, bump_ - begin_, /*live=*/false, 0);
  }
  live_.clear();
  free_.clear();
  quarantine_.clear();
  quarantine_bytes_ = 0;
  in_use_ = 0;
  bump_ = begin_;
}

}  // namespace barracuda::emu
