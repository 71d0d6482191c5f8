// Device memory of the emulated GPU: one reserved range of host address space
// from which cudaMalloc, cudaMallocManaged, cudaHostAlloc and module globals are
// carved. Device pointers are host pointers, so generic addressing, host access
// to managed/host-mapped memory and memcpy need no translation; keeping them in
// one range makes "is this a valid global address" two compares on the fast path
// and lets reports attribute an address to its allocation.
//
// Owner: decode/ (loader). Thread-safe.
#ifndef BARRACUDA_PTX_EMULATOR_CORE_DEVICE_MEMORY_H_
#define BARRACUDA_PTX_EMULATOR_CORE_DEVICE_MEMORY_H_

#include <cstddef>
#include <cstdint>
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
  };

  // Reserves `reserve_bytes` of address space (not committed: pages are
  // zero-filled on first touch).
  explicit DeviceMemory(uint64_t reserve_bytes = uint64_t{64} << 30);
  ~DeviceMemory();
  DeviceMemory(const DeviceMemory&) = delete;
  DeviceMemory& operator=(const DeviceMemory&) = delete;

  // 256-byte aligned, zero-filled (cudaMalloc does not promise zeros; zeros make
  // runs deterministic). ResourceExhausted when the range is full.
  absl::StatusOr<void*> Allocate(uint64_t bytes, Kind kind, std::string label = "");
  // NotFound for a pointer that is not the base of a live allocation.
  absl::Status Free(void* base);
  // The live allocation containing [address, address + size), if any.
  std::optional<Allocation> Find(uint64_t address, uint64_t size = 1) const;
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
  uint64_t begin_ = 0, end_ = 0;
  mutable std::mutex mu_;
  uint64_t bump_ = 0;  // next never-used address
  std::map<uint64_t, Allocation> live_;      // by base
  std::multimap<uint64_t, uint64_t> free_;   // size -> base, reusable ranges
  uint64_t in_use_ = 0;
};

}  // namespace barracuda::emu

#endif  // BARRACUDA_PTX_EMULATOR_CORE_DEVICE_MEMORY_H_
