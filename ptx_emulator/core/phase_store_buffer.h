// One slot's weak global stores during the parallel phase of a deterministic
// round (exec/deterministic_rounds.cpp), kept out of device memory until the
// phase ends, so that what other blocks read in that phase never depends on
// the host threads' timing.
//
// Twins (TreadMarks-style), per 64-byte line of a 4 KiB page: the first store
// of the phase to a line copies it twice, a private copy that the slot's
// loads and stores then use, and a twin that stays as it was. Commit() writes
// back exactly the bytes the slot stored (a mask per line, one bit per byte,
// from the sizes Redirect is given) and any other byte where the private copy
// differs from the twin, so slots that stored to different bytes of one page
// do not undo each other, and slots that stored to the same bytes (a data
// race) resolve in commit order, which is the slot order, each store whole:
// an aligned word is never torn into bytes of two racing stores, as hardware
// never tears it (committing only the changed bytes did: 0x11223344 stored as
// 0xAA223344 by one block and 0x112233BB by another became 0xAA2233BB, a value
// no thread stored). Loads of pages the slot has not stored to read device
// memory, which no one writes during the phase.
//
// Cost (measured with ld/st.global over a full warp, emu_memory_bench): one
// page lookup per warp instruction when the lanes share a page (a
// direct-mapped cache in front of a hash map), per lane otherwise.
#ifndef BARRACUDA_PTX_EMULATOR_CORE_PHASE_STORE_BUFFER_H_
#define BARRACUDA_PTX_EMULATOR_CORE_PHASE_STORE_BUFFER_H_

#include <array>
#include <cstdint>
#include <memory>
#include <vector>

#include "absl/container/node_hash_map.h"

namespace barracuda::emu {

class PhaseStoreBuffer {
 public:
  static constexpr uint32_t kPageBits = 12;
  static constexpr uint64_t kPageSize = uint64_t{1} << kPageBits;

  // Device memory spans [begin, end): only addresses in it are buffered.
  PhaseStoreBuffer(uint64_t begin, uint64_t end) : begin_(begin), end_(end) { ClearCache(); }

  // Rewrites the lanes' host pointers (lanes of `exec`) that point into
  // device memory: to the private copy of their line when there is one, and
  // for a store of `size` bytes per lane making one first and marking its
  // bytes stored. Accesses never cross a line (aligned, at most 16 bytes).
  void Redirect(uint8_t** ptr, uint32_t exec, bool write, uint32_t size = 0) {
    if (!write && pages_.empty()) return;
    const uint32_t first = static_cast<uint32_t>(__builtin_ctz(exec));
    const uint64_t a0 = reinterpret_cast<uint64_t>(ptr[first]);
    uint64_t differ = 0, lines = 0;
    for (uint32_t m = exec; m; m &= m - 1) {
      const uint64_t a = reinterpret_cast<uint64_t>(ptr[__builtin_ctz(m)]);
      differ |= a ^ a0;
      lines |= uint64_t{1} << ((a >> kLineBits) & 63);
    }
    if ((differ >> kPageBits) == 0) {
      if (a0 - begin_ >= end_ - begin_) return;
      Copy* c = Page(a0 >> kPageBits, write);
      if (c == nullptr) return;
      if (write) {
        if ((lines & ~c->lines) != 0) CopyLines(*c, lines & ~c->lines);
      } else if ((lines & c->lines) == 0) {
        return;
      }
      const bool all = (lines & ~c->lines) == 0;
      for (uint32_t m = exec; m; m &= m - 1) {
        const uint32_t l = static_cast<uint32_t>(__builtin_ctz(m));
        const uint64_t a = reinterpret_cast<uint64_t>(ptr[l]);
        if (all || (c->lines >> ((a >> kLineBits) & 63) & 1)) ptr[l] = c->priv + (a & (kPageSize - 1));
        if (write) MarkStored(*c, a, size);
      }
      return;
    }
    for (uint32_t m = exec; m; m &= m - 1) {
      const uint32_t l = static_cast<uint32_t>(__builtin_ctz(m));
      const uint64_t a = reinterpret_cast<uint64_t>(ptr[l]);
      if (a - begin_ >= end_ - begin_) continue;
      Copy* c = Page(a >> kPageBits, write);
      if (c == nullptr) continue;
      const uint64_t bit = uint64_t{1} << ((a >> kLineBits) & 63);
      if (write && (c->lines & bit) == 0) CopyLines(*c, bit);
      if (c->lines & bit) ptr[l] = c->priv + (a & (kPageSize - 1));
      if (write) MarkStored(*c, a, size);
    }
  }

  // Writes the changed bytes back to device memory and forgets the pages.
  void Commit();
  size_t dirty_pages() const { return pages_.size(); }

 private:
  static constexpr uint32_t kLineBits = 6;  // 64 lines of 64 bytes per page
  static constexpr uint64_t kLineSize = uint64_t{1} << kLineBits;
  static constexpr uint32_t kLines = kPageSize / kLineSize;
  // A pool entry: the private copy, the twin and the stored-byte masks.
  static constexpr size_t kPoolBytes = 2 * kPageSize + kLines * sizeof(uint64_t);
  struct Copy {
    uint8_t* priv;
    uint8_t* twin;
    uint8_t* device;
    uint64_t lines;  // lines copied (bit i: bytes [64 i, 64 i + 64))
    uint64_t* stored;  // per line, the bytes stored (bit j: byte 64 i + j)
  };
  static void MarkStored(Copy& c, uint64_t a, uint32_t size) {
    const uint32_t at = static_cast<uint32_t>(a & (kLineSize - 1));
    const uint64_t bytes = size >= 64 ? ~uint64_t{0} : (uint64_t{1} << size) - 1;
    c.stored[(a >> kLineBits) & 63] |= bytes << at;
  }
  struct CacheEntry {
    uint64_t page;
    Copy* copy;  // nullptr: the slot has no copy of the page
  };
  static constexpr uint32_t kCacheEntries = 256;

  Copy* Page(uint64_t page, bool write) {
    CacheEntry& e = cache_[page & (kCacheEntries - 1)];
    if (e.page == page && (e.copy != nullptr || !write)) return e.copy;
    return Lookup(page, write);
  }
  Copy* Lookup(uint64_t page, bool write);
  // First store of the phase to these lines: private copy and twin.
  void CopyLines(Copy& c, uint64_t lines);
  void ClearCache();

  uint64_t begin_, end_;
  std::array<CacheEntry, kCacheEntries> cache_;
  // Node map: Copy addresses (held by the cache) stay valid while pages are
  // added. Commit order among them is free: a slot's pages are distinct.
  absl::node_hash_map<uint64_t, Copy> pages_;
  std::vector<std::unique_ptr<uint8_t[]>> pool_;  // 2 pages each, reused across phases
  size_t pool_used_ = 0;
};

}  // namespace barracuda::emu

#endif  // BARRACUDA_PTX_EMULATOR_CORE_PHASE_STORE_BUFFER_H_
