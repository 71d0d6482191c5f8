// A full vector clock over the whole thread-id space of a launch, stored
// run-length encoded: a sorted list of pieces (first_tid, value), each value
// holding from first_tid up to the next piece. Thread clocks of a GPU kernel are
// piecewise constant in tid order (a block's threads share a barrier time, a
// warp's lanes share a warp time), so a clock of a million-thread launch is a
// handful of pieces. Semantically this is exactly a full vector clock: Get,
// Join, LessOrEqual behave as on a dense array (tested against one).
//
// Used for: synchronisation locations (S_x[b]), the SPARSEVC part of a warp's
// compressed clocks, read/write vector clocks after inflation, and as the
// "expanded" form of any thread's clock in tests.
#ifndef BARRACUDA_VC_COMPRESSION_VECTOR_CLOCK_H_
#define BARRACUDA_VC_COMPRESSION_VECTOR_CLOCK_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "vc_compression/epoch.h"

namespace barracuda::vc {

class VectorClock {
 public:
  // One past the last thread id; pieces cover [0, kTidEnd).
  static constexpr uint64_t kTidEnd = uint64_t{1} << 32;

  struct Piece {
    ThreadId first;
    Clock value;
  };

  VectorClock() { pieces_.push_back({0, 0}); }  // bottom
  // From ascending pieces (first of the first piece must be 0); equal
  // neighbours are merged.
  template <typename Range>
  static VectorClock FromPieces(const Range& pieces) {
    VectorClock v;
    v.pieces_.clear();
    for (const Piece& p : pieces) Append(v.pieces_, p.first, p.value);
    return v;
  }

  Clock Get(ThreadId t) const;
  // e ⪯ this (FastTrack epoch comparison).
  bool Covers(Epoch e) const { return e.clock() <= Get(e.tid()); }
  // this ⊑ other.
  bool LessOrEqual(const VectorClock& other) const;
  // this := this ⊔ other.
  void Join(const VectorClock& other);
  // this(t) := c.
  void Set(ThreadId t, Clock c) { SetRange(t, uint64_t{t} + 1, c); }
  // this(u) := c for u in [first, end).
  void SetRange(ThreadId first, uint64_t end, Clock c);
  // this(u) := max(this(u), c) for u in [first, end).
  void RaiseRange(ThreadId first, uint64_t end, Clock c);
  // this(t) := this(t) + 1.
  void Increment(ThreadId t) { Set(t, Get(t) + 1); }

  bool IsBottom() const { return pieces_.size() == 1 && pieces_[0].value == 0; }
  void Clear() {
    pieces_.clear();
    pieces_.push_back({0, 0});
  }
  // Largest value in [first, end).
  Clock MaxIn(ThreadId first, uint64_t end) const;

  size_t piece_count() const { return pieces_.size(); }
  // Heap bytes beyond sizeof(VectorClock) (statistics).
  size_t HeapBytes() const;
  // f(first, end, value) for every piece, ascending.
  template <typename F>
  void ForEachPiece(F&& f) const {
    for (size_t i = 0; i < pieces_.size(); ++i) {
      uint64_t end = i + 1 < pieces_.size() ? pieces_[i + 1].first : kTidEnd;
      f(pieces_[i].first, end, pieces_[i].value);
    }
  }
  std::string DebugString() const;

  friend bool operator==(const VectorClock& a, const VectorClock& b);

 private:
  using Pieces = absl::InlinedVector<Piece, 3>;
  // Appends (first, value) keeping pieces sorted and adjacent values distinct.
  // Inline: every rebuild (Join, SetRange, RaiseRange) calls it per piece, and
  // lock-heavy kernels make clocks of hundreds of pieces. Rebuilds write into
  // a per-thread scratch vector and copy the result back, so a clock's
  // storage is its size, not the sum of its inputs', and is rarely
  // reallocated. Measured (detector_bench RunSerial/d_locks, quiet 2-core
  // machine): 0.47 -> 0.64 M accesses/s with inline Append and reserved output.
  template <typename Out>
  static void Append(Out& out, ThreadId first, Clock value) {
    if (!out.empty()) {
      Piece& last = out.back();
      if (last.first == first) {
        last.value = value;
        if (out.size() >= 2 && out[out.size() - 2].value == value) out.pop_back();
        return;
      }
      if (last.value == value) return;
    }
    out.push_back({first, value});
  }
  // Walks the common refinement of a's and b's runs in ascending thread order,
  // calling visit(first_tid, a_value, b_value) per run; stops early when visit
  // returns false. Returns whether the walk reached the end.
  template <typename Visit>
  static bool WalkRuns(const Pieces& a, const Pieces& b, Visit visit);
  size_t FindPiece(ThreadId t) const;  // index of the piece holding t
  static std::vector<Piece>& Scratch();  // empty, per thread

  Pieces pieces_;  // invariant: pieces_[0].first == 0, firsts strictly ascending,
                   // adjacent values differ
};

}  // namespace barracuda::vc

#endif  // BARRACUDA_VC_COMPRESSION_VECTOR_CLOCK_H_
