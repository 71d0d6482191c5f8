// DeviceMemory: one reserved range of host address space, carved by a bump
// pointer plus best-fit reuse of freed ranges.
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

}  // namespace

DeviceMemory::DeviceMemory(uint64_t reserve_bytes) {
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
}

DeviceMemory::~DeviceMemory() {
  if (begin_ != 0) munmap(reinterpret_cast<void*>(begin_), end_ - begin_);
}

absl::StatusOr<void*> DeviceMemory::Allocate(uint64_t bytes, Kind kind, std::string label) {
  if (bytes > end_ - begin_)
    return absl::ResourceExhaustedError(ptx::Cat("device memory: cannot allocate ", bytes, " bytes"));
  const uint64_t need = Rounded(bytes);
  std::lock_guard<std::mutex> lock(mu_);
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
  live_.emplace(base, Allocation{base, bytes, kind, std::move(label)});
  in_use_ += bytes;
  return reinterpret_cast<void*>(base);
}

absl::Status DeviceMemory::Free(void* pointer) {
  const uint64_t base = reinterpret_cast<uint64_t>(pointer);
  std::lock_guard<std::mutex> lock(mu_);
  auto it = live_.find(base);
  if (it == live_.end())
    return absl::NotFoundError(ptx::Cat("device memory: 0x", Hex(base),
                                            " is not the base of a live allocation"));
  const uint64_t size = Rounded(it->second.size);
  in_use_ -= it->second.size;
  live_.erase(it);
  Clear(base, size);
  if (base + size == bump_) {
    bump_ = base;  // the top range goes back to the never-used region
  } else {
    free_.emplace(size, base);
  }
  return absl::OkStatus();
}

std::optional<DeviceMemory::Allocation> DeviceMemory::Find(uint64_t address, uint64_t size) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = live_.upper_bound(address);
  if (it == live_.begin()) return std::nullopt;
  --it;
  const Allocation& a = it->second;
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
  if (bump_ > begin_) Clear(begin_, bump_ - begin_);
  live_.clear();
  free_.clear();
  in_use_ = 0;
  bump_ = begin_;
}

}  // namespace barracuda::emu
