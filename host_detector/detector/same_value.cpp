#include "host_detector/detector/same_value.h"

namespace barracuda::detector {

SiteValue SiteValueTable::Note(uint32_t site, bool has_value, uint64_t value, uint8_t size) {
  std::lock_guard<std::mutex> lock(mu_);
  auto [it, inserted] = sites_.try_emplace(site);
  SiteValue& s = it->second;
  if (inserted) {
    s = SiteValue{value, size, !has_value};
  } else if (!s.Same(value, size) || !has_value) {
    s.varies = true;
  }
  return s;
}

bool SiteValueTable::ConstantWith(uint32_t site, uint64_t value, uint8_t size) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = sites_.find(site);
  return it != sites_.end() && it->second.Same(value, size);
}

void SiteValueTable::Clear() {
  std::lock_guard<std::mutex> lock(mu_);
  sites_.clear();
}

void SiteValueCache::Note(SiteValueTable& table, uint64_t launch_id, const protocol::Record& r) {
  if (launch_id != launch_id_) {
    seen_.clear();
    launch_id_ = launch_id;
  }
  const uint32_t site = r.header.site_id;
  if (site == protocol::kNoSite) return;  // no site: never classified as same-value
  const bool has_value = protocol::HasStoredValue(r) && r.header.access_size <= 8;
  const uint8_t size = r.header.access_size;
  const uint64_t value = has_value ? MaskedValue(protocol::StoredValue(r), size) : 0;
  auto it = seen_.find(site);
  if (it != seen_.end() && (it->second.varies || (has_value && it->second.Same(value, size)))) return;
  seen_[site] = table.Note(site, has_value, value, size);
}

}  // namespace barracuda::detector
