// The race report model: what one detected race is (RaceEvent, one per racy
// dynamic access) and the de-duplicated report (one entry per pair of static
// sites + kind, with a dynamic count and the first dynamic instance). Writers
// (text, JSON, SARIF) read this model; they live in their own files.
#ifndef BARRACUDA_HOST_DETECTOR_REPORT_MODEL_H_
#define BARRACUDA_HOST_DETECTOR_REPORT_MODEL_H_

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "device_logger/protocol.h"

namespace barracuda::detector {

enum class RaceKind : uint8_t {
  kReadAfterWrite,     // earlier plain write, later read
  kWriteAfterRead,     // earlier read, later write (plain or atomic)
  kWriteAfterWrite,    // two plain writes
  kAtomicVsPlain,      // exactly one of the two is atomic
  kBarrierDivergence,  // bar.sync executed by part of a warp (paper BAR rule)
  kNotMorallyStrong,   // two strong accesses, but a scope excludes the other thread or the
                       // sizes differ (PTX memory model: not morally strong)
  kDependencyOrdered,  // a write after a read ordered only through a relaxed publication
                       // chain (a data or address dependency): a warning, not a data race
  kSameValue,          // two unordered plain writes that stored the same value (a race by
                       // the PTX model, harmless on every GPU): a warning
  kWarpSyncMask,       // a warp-synchronous primitive (shfl/vote/match/redux.sync,
                       // bar.warp.sync) executed by a lane outside its member mask
  kSharedLifetime,     // an access to another cluster block's shared memory (distributed
                       // shared memory) not ordered before that block's exit: earlier = the
                       // access, later = the exit that ended the owner block
};
// Kinds reported at warning severity: not counted as races in the exit status.
constexpr bool IsWarningKind(RaceKind kind) {
  return kind == RaceKind::kDependencyOrdered || kind == RaceKind::kSameValue;
}
// Every kind, in the order summaries list them.
inline constexpr RaceKind kAllRaceKinds[] = {RaceKind::kReadAfterWrite,  RaceKind::kWriteAfterRead,
                                             RaceKind::kWriteAfterWrite, RaceKind::kAtomicVsPlain,
                                             RaceKind::kNotMorallyStrong, RaceKind::kBarrierDivergence,
                                             RaceKind::kWarpSyncMask,      RaceKind::kSharedLifetime,
                                             RaceKind::kDependencyOrdered, RaceKind::kSameValue};
// Kinds about one synchronisation instruction, not two accesses: the entry names
// one site (earlier == later) and no address.
constexpr bool IsSyncMisuseKind(RaceKind kind) {
  return kind == RaceKind::kBarrierDivergence || kind == RaceKind::kWarpSyncMask;
}

enum class RaceClass : uint8_t {
  kIntraWarp,   // same warp, not separated by an open branch
  kDivergence,  // same warp, the lanes were on different sides of an open if/else
  kIntraBlock,  // same block, different warps
  kInterBlock,  // different blocks
  kAsyncCopy,   // one side is an asynchronous copy (cp.async) not yet observed complete
  kProxy,       // a generic-proxy write and a later async-proxy access (bulk copy, TMA) ordered
                // by synchronisation but with no proxy fence (fence.proxy.async) between them
                // by the thread that orders the other side: the copy's issuer read or
                // wrote its destination (or overwrote its source) before waiting
};

const char* RaceKindName(RaceKind kind);
const char* RaceClassName(RaceClass cls);

// One thread-level access (or barrier arrival) as the detector saw it.
struct AccessInfo {
  uint64_t record_index = 0;  // position of the record in the analysed stream
  uint32_t lane = 0;
  uint64_t tid = 0;     // grid-linear thread id
  uint32_t block = 0;   // grid-linear block id
  uint32_t warp = 0;    // grid-unique warp id (protocol.h)
  uint32_t site = protocol::kNoSite;
  protocol::Op op = protocol::Op::kRead;
  uint64_t address = 0;  // byte address (shared: protocol::SharedAddress form)
  uint8_t access_size = 0;
  bool async = false;  // done by the thread's asynchronous copy (cp.async), not the thread
};

// One racy dynamic access. `later` is the access being processed; `earlier` the
// access it races with (for a barrier divergence both name the barrier record).
struct RaceEvent {
  RaceKind kind = RaceKind::kReadAfterWrite;
  RaceClass cls = RaceClass::kInterBlock;
  protocol::Space space = protocol::Space::kGlobal;
  uint64_t address = 0;  // the first racing byte
  uint64_t launch_id = 0;
  uint32_t kernel_name_id = 0;
  AccessInfo earlier;
  AccessInfo later;
  // A read racing with a write whose release (a fence, then a strong write)
  // the reading block observed with a strong read but never acquired (no
  // fence after that read): the missing acquire is the bug (SEMANTICS.md,
  // "Observed but not acquired").
  bool unacquired_release = false;
};

// De-duplication key: the pair of static sites, the kind and the class. The
// class is part of the identity because one site pair can race in two ways
// that need different fixes (an in-place stencil races between warps of a
// block, which a __syncthreads() fixes, and across blocks, which it does not).
struct RaceKey {
  uint32_t earlier_site = protocol::kNoSite;
  uint32_t later_site = protocol::kNoSite;
  RaceKind kind = RaceKind::kReadAfterWrite;
  RaceClass cls = RaceClass::kInterBlock;

  friend bool operator==(const RaceKey&, const RaceKey&) = default;
  template <typename H>
  friend H AbslHashValue(H h, const RaceKey& k) {
    return H::combine(std::move(h), k.earlier_site, k.later_site, static_cast<uint8_t>(k.kind),
                      static_cast<uint8_t>(k.cls));
  }
};

struct RaceEntry {
  RaceKey key;
  uint64_t count = 0;  // dynamic occurrences (racy thread-level accesses)
  RaceEvent first;     // the first dynamic instance (lowest later.record_index seen first)
};

// Entries in order of first detection. Not thread-safe; the detector serialises
// additions.
class RaceReport {
 public:
  void Add(const RaceEvent& event);
  const std::vector<RaceEntry>& entries() const { return entries_; }
  size_t size() const { return entries_.size(); }
  bool empty() const { return entries_.empty(); }
  const RaceEntry* Find(const RaceKey& key) const;
  uint64_t total_dynamic() const { return total_dynamic_; }
  void Clear();

 private:
  std::vector<RaceEntry> entries_;
  absl::flat_hash_map<RaceKey, size_t> index_;
  uint64_t total_dynamic_ = 0;
};

}  // namespace barracuda::detector

#endif  // BARRACUDA_HOST_DETECTOR_REPORT_MODEL_H_
