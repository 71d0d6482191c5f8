#include "host_detector/reports/race_grouping.h"

#include <algorithm>
#include <map>
#include <tuple>
#include <utility>

#include "host_detector/reports/race_fingerprint.h"

namespace barracuda::reports {

namespace {

void AddVariant(ResolvedRace& entry, detector::RaceKind kind, detector::RaceClass cls, uint64_t count) {
  auto less = [](const ResolvedRace::Variant& v, std::pair<int, int> k) {
    return std::pair(static_cast<int>(v.kind), static_cast<int>(v.cls)) < k;
  };
  const std::pair<int, int> k{static_cast<int>(kind), static_cast<int>(cls)};
  auto it = std::lower_bound(entry.variants.begin(), entry.variants.end(), k, less);
  if (it != entry.variants.end() && it->kind == kind && it->cls == cls) {
    it->count += count;
  } else {
    entry.variants.insert(it, {kind, cls, count});
  }
}

}  // namespace

std::vector<ResolvedRace> GroupBySource(std::vector<ResolvedRace> races, bool across_processes) {
  // (process, kernel, kind family, space, the two statements unordered).
  using Key = std::tuple<uint32_t, std::string, std::string_view, int, std::string, std::string>;
  std::map<Key, size_t> index;
  std::vector<ResolvedRace> out;
  SourceLines lines;
  for (ResolvedRace& r : races) {
    std::string a = StatementKey(r.earlier), b = StatementKey(r.later);
    if (b < a) std::swap(a, b);
    const Key key{across_processes ? 0 : r.process_id, r.kernel_mangled.empty() ? r.kernel : r.kernel_mangled, KindFamilyName(r.kind),
                  static_cast<int>(r.space), std::move(a), std::move(b)};
    const ResolvedRace::SitePair pair{r.earlier, r.later, r.count};
    auto [it, fresh] = index.emplace(key, out.size());
    if (fresh) {
      r.site_pairs = {pair};
      r.variants.clear();
      AddVariant(r, r.kind, r.cls, r.count);
      r.fingerprint = RaceFingerprint(r, lines);
      out.push_back(std::move(r));
      continue;
    }
    ResolvedRace& entry = out[it->second];
    entry.count += r.count;
    entry.unacquired_release |= r.unacquired_release;
    // One pair of instructions met in both orders (RAW and WAR) is one site pair.
    auto same = std::find_if(entry.site_pairs.begin(), entry.site_pairs.end(), [&](const ResolvedRace::SitePair& p) {
      return (p.earlier.site_id == pair.earlier.site_id && p.later.site_id == pair.later.site_id) ||
             (p.earlier.site_id == pair.later.site_id && p.later.site_id == pair.earlier.site_id);
    });
    if (same != entry.site_pairs.end()) {
      same->count += pair.count;
    } else {
      entry.site_pairs.push_back(pair);
    }
    AddVariant(entry, r.kind, r.cls, r.count);
    for (const ResolvedRace::Sighting& s : r.seen_in) {
      auto seen = std::find_if(entry.seen_in.begin(), entry.seen_in.end(),
                               [&](const ResolvedRace::Sighting& x) { return x.process_id == s.process_id; });
      if (seen != entry.seen_in.end()) {
        seen->count += s.count;
      } else {
        entry.seen_in.push_back(s);
      }
    }
  }
  for (size_t i = 0; i < out.size(); ++i) out[i].ordinal = i + 1;
  return out;
}

}  // namespace barracuda::reports
