// The map tier of a SparseVc (sparse_vc.h): the entries of a clock too
// fragmented for runs. A hot word's clock holds thousands of concurrent
// accessors that mostly share one entry (a histogram bin: every thread's
// relaxed atomicAdd at the same clock and site) in random thread order, which
// no run describes. Those keys are kept as bits in 256-key pages, and the
// keys with any other entry in a hash map: 256 bins of a 4 M-element
// histogram held ~14,600 threads each, ~50 bytes per key in a hash map,
// ~0.2 bytes in pages (shadow_memory/README.md "Memory"). With keys spread
// one per page the pages cost about what the hash map does.
#ifndef BARRACUDA_SHADOW_MEMORY_KEY_MAP_H_
#define BARRACUDA_SHADOW_MEMORY_KEY_MAP_H_

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "shadow_memory/epoch.h"

namespace barracuda::shadow {

struct VcEntry {
  Clock clock = 0;       // > 0 for every stored entry
  SiteId site = kNoSite;  // static site of that thread's access
  bool atomic = false;   // write VCs: the access was an atomic
  ReadKind read_kind = ReadKind::kRead;  // read VCs: what the reader stands for
  Strength strength = kWeak;             // size and scope of a strong access (epoch.h)
  friend bool operator==(const VcEntry&, const VcEntry&) = default;
};

// Entries are keyed by thread, and in read VCs also by ReadKind and Strength
// (sparse_vc.h ReaderKey).
using VcKey = uint64_t;

class KeyMap {
 public:
  // The entry of t, nullptr if absent; valid until the next change.
  const VcEntry* Find(VcKey t) const {
    if (dense_count_ != 0) {
      const Bits* page = FindPage(t >> kPageBits);
      if (page != nullptr && Test(*page, t)) return &dense_entry_;
    }
    if (other_.empty()) return nullptr;
    auto it = other_.find(t);
    return it == other_.end() ? nullptr : &it->second;
  }
  // t must be absent. While the pages are empty, they take e's entry.
  void Insert(VcKey t, const VcEntry& e);
  // t must be present.
  void Erase(VcKey t);
  size_t size() const { return dense_count_ + other_.size(); }
  // Bytes held, this object included.
  size_t Bytes() const;

  template <class F>  // f(VcKey, const VcEntry&)
  void ForEach(F&& f) const {
    if (dense_count_ != 0) {
      ForEachPage([&](VcKey page, const Bits& bits) {
        for (unsigned w = 0; w < kWords; ++w) {
          for (uint64_t m = bits[w]; m != 0; m &= m - 1) {
            f((page << kPageBits) | (w * 64 + static_cast<unsigned>(std::countr_zero(m))), dense_entry_);
          }
        }
      });
    }
    for (const auto& [t, e] : other_) f(t, e);
  }
  template <class F>  // f(const VcEntry&, number of keys with it)
  void ForEachGroup(F&& f) const {
    if (dense_count_ != 0) f(dense_entry_, dense_count_);
    for (const auto& [t, e] : other_) f(e, 1u);
  }
  template <class P>  // removes the keys for which pred(VcKey, const VcEntry&)
  void EraseIf(P&& pred) {
    if (dense_count_ != 0) {
      ForEachPage([&](VcKey page, Bits& bits) {
        for (unsigned w = 0; w < kWords; ++w) {
          for (uint64_t m = bits[w]; m != 0; m &= m - 1) {
            const unsigned b = static_cast<unsigned>(std::countr_zero(m));
            if (pred((page << kPageBits) | (w * 64 + b), dense_entry_)) {
              bits[w] &= ~(uint64_t{1} << b);
              --dense_count_;
            }
          }
        }
      });
      DropEmptyPages();
    }
    for (auto it = other_.begin(); it != other_.end();) {
      if (pred(it->first, it->second)) {
        other_.erase(it++);
      } else {
        ++it;
      }
    }
  }

 private:
  static constexpr unsigned kPageBits = 8;  // 256 keys per page
  static constexpr unsigned kWords = (1u << kPageBits) / 64;
  // Direct pages may span at most kSpanFactor times the pages in use, plus
  // kMinSpan, before the pages move to a hash map.
  static constexpr uint64_t kSpanFactor = 2;
  static constexpr uint64_t kMinSpan = 64;
  using Bits = std::array<uint64_t, kWords>;
  static bool Test(const Bits& b, VcKey t) {
    const unsigned i = static_cast<unsigned>(t) & ((1u << kPageBits) - 1);
    return (b[i / 64] >> (i % 64) & 1) != 0;
  }
  static bool Empty(const Bits& b) {
    for (uint64_t w : b) {
      if (w != 0) return false;
    }
    return true;
  }
  const Bits* FindPage(VcKey page) const {
    if (!hashed_) {
      const uint64_t i = page - first_page_;  // wraps below the first page
      return i < direct_.size() ? &direct_[i] : nullptr;
    }
    auto it = hashed_pages_.find(page);
    return it == hashed_pages_.end() ? nullptr : &it->second;
  }
  Bits& PageFor(VcKey page);  // creates it
  void DropEmptyPages();      // after bits were cleared
  template <class F>          // f(VcKey page, Bits&) over pages, empty direct ones included
  void ForEachPage(F&& f) {
    if (hashed_) {
      for (auto& [page, bits] : hashed_pages_) f(page, bits);
    } else {
      for (size_t i = 0; i < direct_.size(); ++i) f(first_page_ + i, direct_[i]);
    }
  }
  template <class F>
  void ForEachPage(F&& f) const {
    const_cast<KeyMap*>(this)->ForEachPage([&](VcKey page, const Bits& bits) { f(page, bits); });
  }

  VcEntry dense_entry_;
  uint32_t dense_count_ = 0;
  // The pages of the keys that hold dense_entry_: while they are compact (the
  // thread ids of one launch), a vector indexed by page from first_page_; a
  // hash map (key >> kPageBits -> bits) when they spread. The vector makes a
  // hot word's lookup one array access: a 4 M-element histogram's atomics
  // spent 32% of the analysis in Find with hash-mapped pages (2026-11-29).
  bool hashed_ = false;
  VcKey first_page_ = 0;
  uint32_t pages_in_use_ = 0;  // non-empty pages
  std::vector<Bits> direct_;
  absl::flat_hash_map<VcKey, Bits> hashed_pages_;
  absl::flat_hash_map<VcKey, VcEntry> other_;
};

}  // namespace barracuda::shadow

#endif  // BARRACUDA_SHADOW_MEMORY_KEY_MAP_H_
