#include "shadow_memory/key_map.h"

#include <cassert>

namespace barracuda::shadow {

void KeyMap::Insert(VcKey t, const VcEntry& e) {
  assert(Find(t) == nullptr);
  if (dense_count_ == 0) dense_entry_ = e;  // the pages are empty: they take e
  if (e == dense_entry_) {
    const unsigned i = static_cast<unsigned>(t) & ((1u << kPageBits) - 1);
    dense_[t >> kPageBits][i / 64] |= uint64_t{1} << (i % 64);
    ++dense_count_;
    return;
  }
  other_.emplace(t, e);
}

void KeyMap::Erase(VcKey t) {
  if (dense_count_ != 0) {
    auto it = dense_.find(t >> kPageBits);
    if (it != dense_.end() && Test(it->second, t)) {
      const unsigned i = static_cast<unsigned>(t) & ((1u << kPageBits) - 1);
      it->second[i / 64] &= ~(uint64_t{1} << (i % 64));
      --dense_count_;
      if (Empty(it->second)) dense_.erase(it);
      return;
    }
  }
  [[maybe_unused]] const size_t erased = other_.erase(t);
  assert(erased == 1);
}

size_t KeyMap::Bytes() const {
  // flat_hash_map: one slot plus one control byte per unit of capacity.
  return sizeof(KeyMap) + dense_.capacity() * (sizeof(decltype(dense_)::value_type) + 1) +
         other_.capacity() * (sizeof(decltype(other_)::value_type) + 1);
}

}  // namespace barracuda::shadow
