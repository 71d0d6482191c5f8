// Thread ids, clocks, site ids and epochs as stored in shadow cells.
//
// Widths (and why):
//  - Tid: 32 bits. The detector API passes 64-bit thread ids, but a shadow cell
//    stores 32: a launch is limited to 2^32 grid-linear threads (the detector
//    rejects larger launches at kKernelBegin; FitsTid() is the check). 2^32
//    threads would need 2^32 per-thread clocks, far beyond any host anyway.
//  - Clock: 48 bits. In the lockstep model a thread's clock grows by one per
//    warp instruction it executes (ENDINSN); 32 bits would be 4G instructions
//    per thread per launch, reachable by persistent-thread kernels. 48 bits
//    cannot overflow in practice (2.8e14 increments) and still packs into a
//    32-byte cell together with both site ids (see cell.h).
//  - SiteId: 32 bits, the static site table index (protocol::kNoSite = none).
// Clock 0 is the bottom epoch: every thread starts at clock 1 (inc_t(bottom)),
// so a zero-filled cell means "never written, never read".
#ifndef BARRACUDA_SHADOW_MEMORY_EPOCH_H_
#define BARRACUDA_SHADOW_MEMORY_EPOCH_H_

#include <cstdint>

namespace barracuda::shadow {

using Tid = uint32_t;
using Clock = uint64_t;  // only the low kClockBits are stored
using SiteId = uint32_t;

inline constexpr int kClockBits = 48;
inline constexpr Clock kMaxClock = (Clock{1} << kClockBits) - 1;
inline constexpr SiteId kNoSite = 0xffffffffu;  // == protocol::kNoSite

constexpr bool FitsTid(uint64_t tid) { return tid <= 0xffffffffull; }
constexpr bool FitsClock(uint64_t clock) { return clock <= kMaxClock; }

// c@t. Comparisons with a vector clock (c <= V(t)) are the detector's: the
// shadow only stores and returns epochs.
struct Epoch {
  Tid tid = 0;
  Clock clock = 0;  // 0: bottom (no access)

  constexpr bool IsBottom() const { return clock == 0; }
  friend constexpr bool operator==(const Epoch&, const Epoch&) = default;
};

// Which memory a cell shadows. Values match protocol::Space so a record's
// space converts with a static_cast.
enum class Space : uint8_t { kGlobal = 0, kShared = 1 };

// What a recorded reader stands for. Ordered by what it conflicts with, each
// kind a superset of the one before: an atomic load conflicts only with plain
// writes, a plain read with every write, a plain write kept in the read half
// (because a concurrent non-racing write took the write half: an atomic, or a
// lane of a same-value store) with every access.
enum class ReadKind : uint8_t { kAtomicRead = 0, kRead = 1, kKeptWrite = 2 };

// How far a strong access, release or acquire reaches (PTX scopes; .sys is
// .gpu within one launch). Ordered: a wider level includes the narrower.
enum class ScopeLevel : uint8_t { kBlock = 0, kCluster = 1, kGpu = 2 };

// What the PTX model's "morally strong" test needs of a recorded strong
// access besides its thread: its size (complete overlap: strong accesses are
// naturally aligned, so two that overlap completely have the same size) and
// its scope. 0 = a weak (plain) access. Packed: bits 0-4 size (1..16), bits
// 5-6 ScopeLevel, bit 7 set.
using Strength = uint8_t;
inline constexpr Strength kWeak = 0;
constexpr Strength MakeStrength(uint32_t size, ScopeLevel level) {
  return static_cast<Strength>(0x80u | (static_cast<unsigned>(level) << 5) | (size & 0x1fu));
}
constexpr uint32_t StrengthSize(Strength s) { return s & 0x1fu; }
constexpr ScopeLevel StrengthLevel(Strength s) { return static_cast<ScopeLevel>((s >> 5) & 3u); }

// FastTrack keeps one access per thread and drops one that happens-before a
// newer one, which is exact only if every access racing with the older one
// also races with the newer. The morally-strong exemption breaks that when the
// newer access is excused more often: a .gpu atomic after a .cta one, an 8-byte
// one after a 4-byte one, or one of another block (a .cta access of the newer
// one's block is morally strong with it, not with the older).
// Subsumes(newer, older, same_block): every access morally strong with `newer`
// is morally strong with `older` too: newer weak, or both strong with the
// same size, by threads of one block, and older's scope at least as wide.
constexpr bool Subsumes(Strength newer, Strength older, bool same_block) {
  if (newer == kWeak) return true;
  if (older == kWeak || !same_block || StrengthSize(newer) != StrengthSize(older)) return false;
  return StrengthLevel(older) >= StrengthLevel(newer);
}
// Does a newer reader (kind, strength) of a thread stand for an older one:
// does every access racing with the older also race with the newer? Atomic
// reads race with writes not morally strong with them; plain reads with every
// write; kept writes with every access not morally strong with them.
constexpr bool ReaderSubsumes(ReadKind newer, Strength sn, ReadKind older, Strength so, bool same_block) {
  switch (older) {
    case ReadKind::kAtomicRead: return newer == ReadKind::kRead || Subsumes(sn, so, same_block);
    case ReadKind::kRead: return newer == ReadKind::kRead || (newer == ReadKind::kKeptWrite && sn == kWeak);
    case ReadKind::kKeptWrite: return newer == ReadKind::kKeptWrite && Subsumes(sn, so, same_block);
  }
  return false;
}

}  // namespace barracuda::shadow

#endif  // BARRACUDA_SHADOW_MEMORY_EPOCH_H_
