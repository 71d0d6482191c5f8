#include "ptx_emulator/core/phase_store_buffer.h"

#include <sys/mman.h>

#include <cstring>

namespace barracuda::emu {

namespace {
// Bit j of `bits` -> byte j all ones.
uint64_t ByteMask(uint8_t bits) {
  uint64_t m = 0;
  for (uint32_t j = 0; j < 8; ++j) m |= static_cast<uint64_t>((bits >> j) & 1) * (uint64_t{0xff} << (8 * j));
  return m;
}
}  // namespace

void PhaseStoreBuffer::ClearCache() {
  for (CacheEntry& e : cache_) e = CacheEntry{~uint64_t{0}, nullptr};
}

PhaseStoreBuffer::Copy* PhaseStoreBuffer::Lookup(uint64_t page, bool write) {
  CacheEntry& e = cache_[page & (kCacheEntries - 1)];
  if (auto it = pages_.find(page); it != pages_.end()) {
    e = CacheEntry{page, &it->second};
    return &it->second;
  }
  if (!write) {
    e = CacheEntry{page, nullptr};
    return nullptr;
  }
  if (pool_used_ == pool_.size()) pool_.push_back(std::make_unique<uint8_t[]>(kPoolBytes));
  uint8_t* mem = pool_[pool_used_++].get();
  auto* stored = reinterpret_cast<uint64_t*>(mem + 2 * kPageSize);
  std::memset(stored, 0, kLines * sizeof(uint64_t));
  auto* device = reinterpret_cast<uint8_t*>(page << kPageBits);
  // Fault the device page in now, on this thread, rather than in the serial
  // commit; MADV_POPULATE_WRITE (Linux 5.14+) writes nothing, so other blocks
  // reading the page meanwhile see no change. Older kernels: the commit faults.
  (void)madvise(device, kPageSize, MADV_POPULATE_WRITE);
  Copy* c = &pages_.try_emplace(page, Copy{mem, mem + kPageSize, device, 0, stored}).first->second;
  e = CacheEntry{page, c};
  return c;
}

void PhaseStoreBuffer::CopyLines(Copy& c, uint64_t lines) {
  c.lines |= lines;
  for (; lines != 0; lines &= lines - 1) {
    const uint64_t off = static_cast<uint64_t>(__builtin_ctzll(lines)) << kLineBits;
    std::memcpy(c.priv + off, c.device + off, kLineSize);
    std::memcpy(c.twin + off, c.device + off, kLineSize);
  }
}

void PhaseStoreBuffer::Commit() {
  if (pages_.empty()) return;
  for (const auto& [page, c] : pages_) {
    uint8_t* device = c.device;
    for (uint64_t lines = c.lines; lines != 0; lines &= lines - 1) {
      const uint64_t line = static_cast<uint64_t>(__builtin_ctzll(lines)) << kLineBits;
      for (uint64_t off = line; off < line + kLineSize; off += 8) {
        uint64_t p, t;
        std::memcpy(&p, c.priv + off, 8);
        std::memcpy(&t, c.twin + off, 8);
        const uint64_t x = p ^ t;
        const auto stored_bits = static_cast<uint8_t>(c.stored[line >> kLineBits] >> (off - line));
        if (x == 0 && stored_bits == 0) continue;
        const uint64_t stored = ByteMask(stored_bits);
        // The bytes this slot stored, and any other it changed: a byte's
        // high bit of `nonzero` is set when any of its bits differ.
        constexpr uint64_t kLow7 = 0x7f7f7f7f7f7f7f7full;
        const uint64_t nonzero = (((x & kLow7) + kLow7) | x) & ~kLow7;
        const uint64_t mask = ((nonzero >> 7) * 0xff) | stored;
        if (mask == ~uint64_t{0}) {
          std::memcpy(device + off, &p, 8);
          continue;
        }
        uint64_t d;
        std::memcpy(&d, device + off, 8);
        d = (d & ~mask) | (p & mask);
        std::memcpy(device + off, &d, 8);
      }
    }
  }
  pages_.clear();
  pool_used_ = 0;
  ClearCache();
}

}  // namespace barracuda::emu
