#include "shadow_memory/key_map.h"

#include <algorithm>
#include <cassert>

namespace barracuda::shadow {

KeyMap::Bits& KeyMap::PageFor(VcKey page) {
  if (hashed_) {
    auto [it, inserted] = hashed_pages_.try_emplace(page);
    pages_in_use_ += inserted;
    return it->second;
  }
  if (direct_.empty()) {
    first_page_ = page;
    direct_.resize(1);
    ++pages_in_use_;
    return direct_[0];
  }
  const uint64_t i = page - first_page_;
  if (i < direct_.size()) {
    pages_in_use_ += Empty(direct_[i]);
    return direct_[i];
  }
  const VcKey lo = std::min(page, first_page_);
  const VcKey hi = std::max<VcKey>(page + 1, first_page_ + direct_.size());
  if (hi - lo > kMinSpan + kSpanFactor * (pages_in_use_ + 1)) {
    // Spread keys: the pages move to the hash map for good (until empty).
    for (size_t j = 0; j < direct_.size(); ++j) {
      if (!Empty(direct_[j])) hashed_pages_.emplace(first_page_ + j, direct_[j]);
    }
    direct_ = {};
    hashed_ = true;
    auto [it, inserted] = hashed_pages_.try_emplace(page);
    pages_in_use_ += inserted;
    return it->second;
  }
  if (page < first_page_) {
    // Grow downwards with room for half as many pages again below (keys
    // arriving in descending order must not shift the pages once per page),
    // never below page 0.
    const VcKey room = std::min<VcKey>(lo, direct_.size() / 2);
    const VcKey new_first = lo - room;
    direct_.insert(direct_.begin(), first_page_ - new_first, Bits{});
    first_page_ = new_first;
  } else {
    direct_.resize(page + 1 - first_page_);  // the vector's capacity grows geometrically
  }
  ++pages_in_use_;
  return direct_[page - first_page_];
}

void KeyMap::DropEmptyPages() {
  if (hashed_) {
    for (auto it = hashed_pages_.begin(); it != hashed_pages_.end();) {
      if (Empty(it->second)) {
        hashed_pages_.erase(it++);
      } else {
        ++it;
      }
    }
    pages_in_use_ = static_cast<uint32_t>(hashed_pages_.size());
  } else {
    pages_in_use_ = 0;
    for (const Bits& b : direct_) pages_in_use_ += !Empty(b);
  }
  if (pages_in_use_ == 0) {
    direct_ = {};
    hashed_pages_ = {};
    hashed_ = false;
  }
}

void KeyMap::Insert(VcKey t, const VcEntry& e) {
  assert(Find(t) == nullptr);
  if (dense_count_ == 0) dense_entry_ = e;  // the pages are empty: they take e
  if (e == dense_entry_) {
    const unsigned i = static_cast<unsigned>(t) & ((1u << kPageBits) - 1);
    PageFor(t >> kPageBits)[i / 64] |= uint64_t{1} << (i % 64);
    ++dense_count_;
    return;
  }
  other_.emplace(t, e);
}

void KeyMap::Erase(VcKey t) {
  if (dense_count_ != 0) {
    Bits* page = const_cast<Bits*>(FindPage(t >> kPageBits));
    if (page != nullptr && Test(*page, t)) {
      const unsigned i = static_cast<unsigned>(t) & ((1u << kPageBits) - 1);
      (*page)[i / 64] &= ~(uint64_t{1} << (i % 64));
      --dense_count_;
      if (Empty(*page)) {
        --pages_in_use_;
        if (hashed_) hashed_pages_.erase(t >> kPageBits);
        if (pages_in_use_ == 0) {
          direct_ = {};
          hashed_pages_ = {};
          hashed_ = false;
        }
      }
      return;
    }
  }
  [[maybe_unused]] const size_t erased = other_.erase(t);
  assert(erased == 1);
}

size_t KeyMap::Bytes() const {
  // flat_hash_map: one slot plus one control byte per unit of capacity.
  return sizeof(KeyMap) + direct_.capacity() * sizeof(Bits) +
         hashed_pages_.capacity() * (sizeof(decltype(hashed_pages_)::value_type) + 1) +
         other_.capacity() * (sizeof(decltype(other_)::value_type) + 1);
}

}  // namespace barracuda::shadow
