// The reference detector: a deliberately naive implementation of
// host_detector/detector/SEMANTICS.md (paper §3.2 synchronisation order, extended with
// the PTX memory consistency model: strong vs weak accesses, morally strong
// pairs, fences and release/acquire patterns), written independently of the
// optimised detector so that the two can be compared on random traces
// (tests/differential_test.cpp).
//
// Synchronisation: one full vector clock per thread of the launch, updated by
// the rules of paper Figures 2-3 applied literally (ENDINSN, IF, ELSEENDIF,
// BAR), plus warp-sync, named barriers, bar.arrive, exits, and release /
// acquire patterns kept as literal lists: per synchronisation location the
// release entries (releaser, scope, clock) of its current release sequence,
// per thread a pending release (clock and scope of its latest release fence)
// and a pending acquire (every release entry its strong reads observed since,
// with the read's scope, joined at the next acquire fence that covers it).
//
// Memory: NOT FastTrack. Every byte keeps the full history of its accesses
// since the launch began, each with the accessing thread's own clock entry at
// the time, whether it was strong, its size, address and scope. An access
// races with a conflicting earlier access e when e does not happen-before it
// (e.clock > C_now(e.thread)) and the two are not morally strong: the race
// definition of SEMANTICS.md checked pair by pair, with no summary. Cost grows
// with the trace; it is meant for small test traces only.
#ifndef BARRACUDA_HOST_DETECTOR_REFERENCE_REFERENCE_DETECTOR_H_
#define BARRACUDA_HOST_DETECTOR_REFERENCE_REFERENCE_DETECTOR_H_

#include <compare>
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "device_logger/protocol.h"
#include "host_detector/reference/vector_clock.h"

namespace barracuda::reference {

enum class WarpModel : uint8_t {
  kLockstep,  // paper: ENDINSN after every warp instruction, if/else/fi order lanes
  kIts,       // Volta+: lanes of a warp are ordered only by explicit synchronisation
};
const char* WarpModelName(WarpModel model);

// kRead / kWrite: weak (plain) accesses. kAtomic: a strong access that writes
// (kAtomic / kAcquire / kRelease / kAcqRel with kFlagStore, or with neither
// flag: an old producer's read-modify-write). kAtomicLoad: a strong access
// that only reads (kFlagLoad without kFlagStore).
enum class AccessKind : uint8_t { kRead, kWrite, kAtomic, kAtomicLoad };
const char* AccessKindName(AccessKind kind);

// SEMANTICS.md "Classification of a race", as far as the reference needs it:
// kNotMorallyStrong = both accesses strong (a scope excludes the other thread,
// or the sizes differ); kAtomicVsPlain = exactly one strong.
enum class RaceKind : uint8_t { kRaw, kWar, kWaw, kAtomicVsPlain, kNotMorallyStrong };
const char* RaceKindName(RaceKind kind);

// One byte of memory in one launch. Shared addresses carry their block
// (protocol::SharedAddress), so (space, address) names the byte uniquely.
struct ByteLocation {
  uint64_t launch = 0;  // ordinal of the kKernelBegin in the stream, from 0
  protocol::Space space = protocol::Space::kGlobal;
  uint64_t address = 0;
  auto operator<=>(const ByteLocation&) const = default;
};

// A dynamic access: the record's index in the processed stream (from 0,
// counting every record, kKernelBegin included) and the lane.
struct AccessRef {
  uint64_t record_index = 0;
  uint32_t lane = 0;
  auto operator<=>(const AccessRef&) const = default;
};

struct RacyAccess {
  ByteLocation location;
  AccessRef access;  // the later access: where the race is detected
  AccessKind kind = AccessKind::kRead;
  AccessRef earlier;  // the oldest conflicting access that is not ordered before it
  AccessKind earlier_kind = AccessKind::kRead;
  RaceKind race_kind = RaceKind::kRaw;
};

struct BarrierDivergence {
  uint64_t record_index = 0;
  uint32_t site_id = 0;
  uint32_t warp_id = 0;
  uint32_t active_mask = 0;
  uint32_t live_mask = 0;
};

// When a bar.arrive thread's clock enters the barrier's join. The semantics
// note says "at completion: vc = join of C_t of every arrived thread; arrive
// threads get inc_t(C_t)". Read literally, accesses an arrive thread makes
// after its bar.arrive but before the generation completes would carry the
// pre-arrival clock and look ordered before the waiters: a missed race whose
// presence depends on scheduling. kSnapshotAtArrival (default) takes the
// arriving thread's clock at its arrival and increments it then, which is the
// release the instruction performs. kJoinAtCompletion is the literal reading,
// kept to tell the two apart when a differential test disagrees.
enum class ArriveSemantics : uint8_t { kSnapshotAtArrival, kJoinAtCompletion };

struct Options {
  WarpModel warp_model = WarpModel::kIts;
  ArriveSemantics arrive = ArriveSemantics::kSnapshotAtArrival;
  // PTX causality order, clause 2: a strong write is ordered before what a
  // strong read that observed it happens before. Off: synchronizes-with only
  // (the differential test uses it to tell what only this clause orders).
  bool observation_order = true;
};

class ReferenceDetector {
 public:
  explicit ReferenceDetector(Options options = {});

  // Applies one record. Errors (record outside a launch, warp or lane out of
  // range, unknown op) leave the state as it was before the record, except
  // that the record index still advances.
  absl::Status Process(const protocol::Record& record);
  absl::Status ProcessAll(std::span<const protocol::Record> records);

  // Every racy (access, byte), in detection order.
  const std::vector<RacyAccess>& racy_accesses() const { return racy_; }
  // Per byte location, the first access at which a race on it was detected.
  const std::map<ByteLocation, AccessRef>& first_racy() const { return first_racy_; }
  bool has_race() const { return !racy_.empty(); }
  // Every kBarrier (thread_count 0) whose active mask differs from the live
  // mask; not de-duplicated.
  const std::vector<BarrierDivergence>& barrier_divergences() const { return divergences_; }
  // Barrier generations still incomplete at kKernelEnd (dropped).
  uint64_t dropped_barrier_generations() const { return dropped_generations_; }
  uint64_t records_processed() const { return next_index_; }

  // Introspection for tests, valid inside a launch.
  bool in_launch() const { return launch_.has_value(); }
  uint32_t ThreadCount() const;
  const VectorClock& ClockOf(uint32_t thread) const { return clocks_.at(thread); }
  uint32_t LiveMask(uint32_t warp_id) const { return warps_.at(warp_id).live; }
  size_t StackDepth(uint32_t warp_id) const { return warps_.at(warp_id).stack.size(); }
  bool HasPendingRelease(uint32_t thread) const { return pending_release_.at(thread).has_value(); }
  size_t PendingAcquireCount(uint32_t thread) const { return pending_acquire_.at(thread).size(); }
  // Release entries of a synchronisation location (space, start address).
  size_t ReleaseEntryCount(protocol::Space space, uint64_t address) const;

 private:
  struct Launch {
    uint64_t ordinal = 0;
    uint32_t blocks = 0;
    uint32_t threads_per_block = 0;
    uint32_t warps_per_block = 0;
  };
  struct WarpState {
    uint32_t live = 0;             // lanes that exist and have not exited
    std::vector<uint32_t> stack;   // paper K_w: active masks, bottom = initial mask
  };
  struct HistoryEntry {
    uint32_t thread = 0;
    uint32_t clock = 0;  // C_thread(thread) at the access
    AccessKind kind = AccessKind::kRead;
    AccessRef ref;
    bool same_value = false;  // the record carried kFlagSameValue
    bool strong = false;      // kAtomic/kAcquire/kRelease/kAcqRel
    bool writes = false;      // weak: kWrite; strong: kFlagStore (or neither flag)
    bool reads = false;       // strong: kFlagLoad (a read-modify-write when it also writes)
    // A strong write: (thread, clock) of every strong read that observed it
    // (PTX observation order, SEMANTICS.md "Observation order").
    std::vector<std::pair<uint32_t, uint32_t>> observers;
    uint8_t size = 0;         // access size of the whole access (not this byte)
    uint64_t address = 0;     // start address of the whole access
    protocol::Scope scope = protocol::Scope::kNone;  // effective scope (strong only)
  };
  // One release of a synchronisation location's current release sequence.
  struct ReleaseEntry {
    uint32_t releaser = 0;
    protocol::Scope scope = protocol::Scope::kCta;  // the release's effective scope
    VectorClock clock;
  };
  // A release entry a strong read observed, waiting for an acquire fence.
  struct Observed {
    ReleaseEntry entry;
    protocol::Scope read_scope = protocol::Scope::kCta;
  };
  struct PendingRelease {
    VectorClock clock;  // C_t at the release fence
    protocol::Scope scope = protocol::Scope::kCta;
  };
  struct Arrival {
    uint32_t thread = 0;
    bool waits = false;       // kBarrier (waits, acquires) vs kBarrierArrive
    VectorClock snapshot;     // C_t at arrival (kSnapshotAtArrival, arrive threads only)
  };
  struct Generation {
    std::vector<Arrival> arrivals;
    uint32_t thread_count = 0;  // of the latest arrival: 0 = the block's live threads
  };
  using SyncKey = std::pair<uint8_t, uint64_t>;  // (space, address)

  absl::Status Validate(const protocol::Record& record) const;
  void BeginLaunch(const protocol::Record& record);
  void EndLaunch();
  uint32_t ThreadOf(uint32_t warp_id, uint32_t lane) const;
  uint32_t BlockOfWarp(uint32_t warp_id) const { return warp_id / launch_->warps_per_block; }
  uint32_t LiveThreadsOfBlock(uint32_t block) const;

  // Join of C_t over `mask` lanes of the warp, then inc_t each (ENDINSN/IF/ELSEENDIF/warp-sync).
  void JoinAndFork(uint32_t warp_id, uint32_t mask);
  // Race-checks one lane's access against the byte histories, then records it.
  void CheckAndRecord(const protocol::Record& record, uint32_t lane, const HistoryEntry& access);
  // The same, checked against `now` (an asynchronous copy: its issuer's clock).
  void CheckAndRecord(const protocol::Record& r, uint32_t lane, const HistoryEntry& access, const VectorClock& now);
  // PTX "morally strong": both strong, complete overlap (same start and size:
  // strong accesses are naturally aligned), each thread in the other's scope.
  bool MorallyStrong(const HistoryEntry& x, const HistoryEntry& y) const;
  // A strong read `access` of a byte whose history is `past`: the writes it
  // observes (the latest, then back through morally strong read-modify-writes)
  // note it as an observer.
  void Observe(std::vector<HistoryEntry>& past, const HistoryEntry& access) const;
  void WeakAccess(const protocol::Record& record);
  void StrongAccess(const protocol::Record& record);
  void Fence(const protocol::Record& record);
  // u in scope(t, s): the threads of t's block for cta/cluster, every thread for gpu/sys.
  bool InScope(uint32_t u, uint32_t t, protocol::Scope s) const;
  // Both the release's and the acquire's scope include the other thread.
  bool Covers(uint32_t acquirer, protocol::Scope acquire_scope, const ReleaseEntry& e) const;
  void Publish(uint32_t t, const SyncKey& key, protocol::Scope scope, const VectorClock& clock, bool store);
  void Arrive(const protocol::Record& record);
  void MaybeCompleteGeneration(uint32_t block, uint32_t barrier_id);

  Options options_;
  uint64_t next_index_ = 0;
  uint64_t launches_seen_ = 0;
  std::optional<Launch> launch_;
  std::vector<VectorClock> clocks_;  // C_t, grid-linear thread id; entries for threads and their copies
  std::vector<uint32_t> async_records_;  // per thread: its kFlagAsync records so far
  uint32_t CopiesOf(uint32_t t) const { return launch_->blocks * launch_->threads_per_block + t; }
  std::vector<WarpState> warps_;
  std::map<std::pair<uint32_t, uint32_t>, Generation> generations_;  // (block, barrier id)
  std::map<SyncKey, std::vector<ReleaseEntry>> sync_;                // per location x: its releases
  std::vector<std::optional<PendingRelease>> pending_release_;        // P_t
  std::vector<std::vector<Observed>> pending_acquire_;                // A_t, literally
  std::unordered_map<uint64_t, std::vector<HistoryEntry>> history_[2];  // per space, per byte

  std::vector<RacyAccess> racy_;
  std::map<ByteLocation, AccessRef> first_racy_;
  std::vector<BarrierDivergence> divergences_;
  uint64_t dropped_generations_ = 0;
};

}  // namespace barracuda::reference

#endif  // BARRACUDA_HOST_DETECTOR_REFERENCE_REFERENCE_DETECTOR_H_
