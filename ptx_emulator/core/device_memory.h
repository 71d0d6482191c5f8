// Device memory of the emulated GPU: one reserved range of host address space
// from which cudaMalloc, cudaMallocManaged, cudaHostAlloc and module globals are
// carved. Device pointers are host pointers, so generic addressing, host access
// to managed/host-mapped memory and memcpy need no translation; keeping them in
// one range makes "is this a valid global address" two compares on the fast path
// and lets reports attribute an address to its allocation.
//
// Memory errors (memcheck): an addressability map of one 16-bit word per
// 256-byte granule says which bytes belong to a live allocation, so that an
// access outside every allocation (out of bounds) or into a freed one (use
// after free) faults as it would under compute-sanitizer's memcheck, instead
// of silently reading a neighbour. Each allocation is followed by a 256-byte
// redzone that nothing is allocated in, and a freed range stays unusable
// (quarantined) until 256 MiB more have been freed, so that recent
// frees are still recognised as such.
//
// Owner: decode/ (loader). Thread-safe.
#ifndef BARRACUDA_PTX_EMULATOR_CORE_DEVICE_MEMORY_H_
#define BARRACUDA_PTX_EMULATOR_CORE_DEVICE_MEMORY_H_

#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <mutex>
#include <optional>
#include <string>

#include "absl/status/statusor.h"

namespace barracuda::emu {

class DeviceMemory {
 public:
  enum class Kind : uint8_t { kDevice, kManaged, kHost, kGlobalVariable, kConstVariable };
  struct Allocation {
    uint64_t base = 0;
    uint64_t size = 0;
    Kind kind = Kind::kDevice;
    std::string label;  // variable name for module globals; "" otherwise
    // Address space the allocation holds: [span_base, span_base + span)
    // (its granules and redzone; for AllocatePageAligned, whole pages too).
    uint64_t span_base = 0, span = 0;
    // Kept but not accessible: a CUDA graph memory node's allocation outside
    // its lifetime (before its alloc node ran, after its free node). Accesses
    // fault as use after free; Find does not return it.
    bool dormant = false;
  };

  // Reserves `reserve_bytes` of address space (not committed: pages are
  // zero-filled on first touch).
  // `quarantine_bytes`: how much freed memory waits before reuse (0: none).
  explicit DeviceMemory(uint64_t reserve_bytes = uint64_t{64} << 30,
                        uint64_t quarantine_bytes = kDefaultQuarantineBytes);
  ~DeviceMemory();
  DeviceMemory(const DeviceMemory&) = delete;
  DeviceMemory& operator=(const DeviceMemory&) = delete;

  // 256-byte aligned, zero-filled (cudaMalloc does not promise zeros; zeros make
  // runs deterministic). ResourceExhausted when the range is full.
  absl::StatusOr<void*> Allocate(uint64_t bytes, Kind kind, std::string label = "");
  // An allocation whose first byte is `lead` bytes (< one page) past a page
  // boundary and whose pages [result - lead, + AlignUp(lead + bytes, page))
  // belong to it alone, so that the caller may map other memory over them
  // (cudaHostRegister's alias of host pages). Addressable from the granule
  // holding its first byte (live bytes are a granule prefix in the map), so up
  // to 255 bytes before it are not reported as out of bounds. The caller must
  // restore zero anonymous pages there before Free (Free clears the span).
  absl::StatusOr<void*> AllocatePageAligned(uint64_t bytes, uint64_t lead, Kind kind);
  static constexpr uint64_t kPageBytes = 4096;
  // NotFound for a pointer that is not the base of a live allocation.
  absl::Status Free(void* base);
  // Makes a live allocation dormant (inaccessible, as if freed, its address
  // kept) or accessible again; NotFound for a pointer that is not the base of
  // a live allocation.
  absl::Status SetDormant(void* base, bool dormant);
  // The live allocation containing [address, address + size), if any; a
  // dormant one only with `dormant_too` (a graph node naming graph memory).
  std::optional<Allocation> Find(uint64_t address, uint64_t size = 1, bool dormant_too = false) const;

  // Why [address, address + size) (inside the range) may not be accessed.
  enum class Access : uint8_t { kOk, kOutOfBounds, kFreed };
  // Branch-free and conservative, for the interpreter's fast paths (after
  // InRange): 0 only when [address, address + size) lies in one granule's
  // live prefix; non-zero sends the caller to Check, which is exact.
  uint64_t QuickReject(uint64_t address, uint64_t size) const {
    const uint64_t first = address - begin_;
    const uint64_t v = __atomic_load_n(&map_[first / kGranule], __ATOMIC_RELAXED);
    return static_cast<uint64_t>(first % kGranule + size > v) | static_cast<uint64_t>(v > kGranule);
  }
  // The same for a warp's whole footprint [lo, hi) (after InRange): 0 only when
  // every byte is live. A span of fully live granules is one allocation (a
  // redzone granule follows each), so a coalesced warp costs a few map loads
  // instead of one per lane; wider spans (over 8 granules) are rejected.
  uint64_t QuickRejectSpan(uint64_t lo, uint64_t hi) const {
    const uint64_t first = lo - begin_, last = hi - 1 - begin_;
    const uint64_t g0 = first / kGranule, g1 = last / kGranule;
    if (hi <= lo || g1 - g0 > 8) return 1;
    uint64_t bad = 0;
    for (uint64_t g = g0; g < g1; ++g) bad |= static_cast<uint64_t>(__atomic_load_n(&map_[g], __ATOMIC_RELAXED) != kGranule);
    const uint64_t v = __atomic_load_n(&map_[g1], __ATOMIC_RELAXED);
    return bad | static_cast<uint64_t>(last % kGranule >= v) | static_cast<uint64_t>(v > kGranule);
  }
  // On every global access after InRange: one load of the map for an access
  // inside one granule.
  Access Check(uint64_t address, uint64_t size) const {
    if (size == 0) size = 1;  // an empty access is checked as its first byte
    if (QuickReject(address, size) == 0) return Access::kOk;
    const uint64_t first = address - begin_;
    return CheckSlow(first, first + size - 1);
  }
  // InRange and Check == kOk: what the emulator's global accesses require.
  bool Addressable(uint64_t address, uint64_t size) const {
    return InRange(address, size) && (QuickReject(address, size) == 0 || Check(address, size) == Access::kOk);
  }
  // The allocation an address that Check rejected belongs to or is nearest
  // to, for messages: a freed one still in quarantine or a dormant one that
  // contains it, else the live one with the nearest edge. nullopt when there
  // is none.
  struct Nearby {
    Allocation allocation;
    bool freed = false;
    int64_t offset = 0;  // address - allocation.base (negative: before it)
  };
  std::optional<Nearby> Near(uint64_t address) const;
  // "128 bytes before the nearest allocation at 0x.. of 4096 bytes", "inside an
  // allocation at 0x.. of 64 bytes that was freed", "not in any allocation".
  std::string Describe(uint64_t address, uint64_t size) const;
  static constexpr uint64_t kGranule = 256;          // also cudaMalloc's alignment
  static constexpr uint64_t kRedzone = 256;          // after every allocation
  static constexpr uint64_t kDefaultQuarantineBytes = 256u << 20;
  // Bytes in live allocations.
  uint64_t bytes_in_use() const;
  // Fast check used on every global access: inside the reserved range.
  bool InRange(uint64_t address, uint64_t size) const {
    return address >= begin_ && size <= end_ - begin_ && address - begin_ <= (end_ - begin_) - size;
  }
  uint64_t begin() const { return begin_; }
  uint64_t end() const { return end_; }
  // Releases every allocation (cudaDeviceReset).
  void Reset();

 private:
  static constexpr uint16_t kFreedMark = 0x8000;
  Access CheckSlow(uint64_t first, uint64_t last) const;
  // Sets the map of [base, base + bytes) rounded to granules: the first
  // `bytes` addressable (when live), else `mark` (0 or kFreedMark).
  void Mark(uint64_t base, uint64_t bytes, uint64_t span, bool live, uint16_t mark);
  // Takes `need` bytes (granule multiple) of never-used or freed space (mu_ held).
  absl::StatusOr<uint64_t> Take(uint64_t need, uint64_t bytes);
  // Gives a quarantined range back for reuse (mu_ held).
  void Release(uint64_t base, uint64_t span);

  uint64_t begin_ = 0, end_ = 0;
  uint16_t* map_ = nullptr;  // one word per granule of [begin_, end_), MAP_NORESERVE
  uint64_t map_bytes_ = 0;
  mutable std::mutex mu_;
  struct Quarantined {
    Allocation allocation;
  };
  uint64_t quarantine_limit_ = 0;
  std::deque<Quarantined> quarantine_;  // oldest first
  uint64_t quarantine_bytes_ = 0;
  uint64_t bump_ = 0;  // next never-used address
  std::map<uint64_t, Allocation> live_;      // by base
  std::multimap<uint64_t, uint64_t> free_;   // size -> base, reusable ranges
  uint64_t in_use_ = 0;
};

}  // namespace barracuda::emu

#endif  // BARRACUDA_PTX_EMULATOR_CORE_DEVICE_MEMORY_H_
