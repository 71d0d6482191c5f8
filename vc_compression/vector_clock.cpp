#include "vc_compression/vector_clock.h"

#include <algorithm>
#include <cassert>
#include <sstream>

namespace barracuda::vc {

std::vector<VectorClock::Piece>& VectorClock::Scratch() {
  thread_local std::vector<Piece> scratch;
  scratch.clear();
  return scratch;
}

size_t VectorClock::FindPiece(ThreadId t) const {
  // Few pieces in the common case: linear scan beats binary search below ~8.
  if (pieces_.size() <= 8) {
    size_t i = 0;
    while (i + 1 < pieces_.size() && pieces_[i + 1].first <= t) ++i;
    return i;
  }
  auto it = std::upper_bound(pieces_.begin(), pieces_.end(), t,
                             [](ThreadId v, const Piece& p) { return v < p.first; });
  return static_cast<size_t>(it - pieces_.begin()) - 1;
}

Clock VectorClock::Get(ThreadId t) const { return pieces_[FindPiece(t)].value; }

Clock VectorClock::MaxIn(ThreadId first, uint64_t end) const {
  Clock m = 0;
  for (size_t i = FindPiece(first); i < pieces_.size() && pieces_[i].first < end; ++i) {
    m = std::max(m, pieces_[i].value);
  }
  return m;
}

template <typename Visit>
bool VectorClock::WalkRuns(const Pieces& a, const Pieces& b, Visit visit) {
  size_t i = 0, j = 0;
  uint64_t pos = 0;
  while (pos < kTidEnd) {
    if (!visit(static_cast<ThreadId>(pos), a[i].value, b[j].value)) return false;
    uint64_t next_a = i + 1 < a.size() ? a[i + 1].first : kTidEnd;
    uint64_t next_b = j + 1 < b.size() ? b[j + 1].first : kTidEnd;
    uint64_t next = std::min(next_a, next_b);
    if (next == next_a) ++i;
    if (next == next_b) ++j;
    pos = next;
  }
  return true;
}

bool VectorClock::LessOrEqual(const VectorClock& other) const {
  return WalkRuns(pieces_, other.pieces_,
                  [](ThreadId, Clock mine, Clock theirs) { return mine <= theirs; });
}

void VectorClock::Join(const VectorClock& other) {
  if (other.IsBottom() || this == &other) return;
  if (IsBottom()) {
    pieces_ = other.pieces_;
    return;
  }
  std::vector<Piece>& out = Scratch();
  bool raised = false;
  WalkRuns(pieces_, other.pieces_, [&out, &raised](ThreadId first, Clock mine, Clock theirs) {
    raised |= theirs > mine;
    Append(out, first, std::max(mine, theirs));
    return true;
  });
  // Nothing raised: the pieces are already the join (a lock acquired again
  // with no new release in between); skip the copy back.
  if (raised) pieces_.assign(out.begin(), out.end());
}

void VectorClock::SetRange(ThreadId first, uint64_t end, Clock c) {
  if (end <= first) return;
  std::vector<Piece>& out = Scratch();
  size_t i = 0;
  for (; i < pieces_.size() && pieces_[i].first < first; ++i) Append(out, pieces_[i].first, pieces_[i].value);
  Append(out, first, c);
  if (end < kTidEnd) {
    Clock after = Get(static_cast<ThreadId>(end));
    Append(out, static_cast<ThreadId>(end), after);
    for (; i < pieces_.size(); ++i) {
      if (pieces_[i].first > end) Append(out, pieces_[i].first, pieces_[i].value);
    }
  }
  pieces_.assign(out.begin(), out.end());
}

void VectorClock::RaiseRange(ThreadId first, uint64_t end, Clock c) {
  if (end <= first || c == 0) return;
  std::vector<Piece>& out = Scratch();
  for (size_t i = 0; i < pieces_.size(); ++i) {
    uint64_t p_first = pieces_[i].first;
    uint64_t p_end = i + 1 < pieces_.size() ? pieces_[i + 1].first : kTidEnd;
    Clock v = pieces_[i].value;
    if (p_end <= first || p_first >= end || v >= c) {
      Append(out, static_cast<ThreadId>(p_first), v);
      continue;
    }
    // The piece overlaps [first, end) and is raised there.
    if (p_first < first) Append(out, static_cast<ThreadId>(p_first), v);
    Append(out, static_cast<ThreadId>(std::max<uint64_t>(p_first, first)), c);
    if (p_end > end) Append(out, static_cast<ThreadId>(end), v);
  }
  pieces_.assign(out.begin(), out.end());
}

size_t VectorClock::HeapBytes() const {
  return pieces_.capacity() > 3 ? pieces_.capacity() * sizeof(Piece) : 0;
}

std::string VectorClock::DebugString() const {
  std::ostringstream os;
  os << "{";
  bool first = true;
  ForEachPiece([&](uint64_t b, uint64_t e, Clock v) {
    if (v == 0) return;
    if (!first) os << ", ";
    first = false;
    os << "[" << b << "," << e << "):" << v;
  });
  os << "}";
  return os.str();
}

bool operator==(const VectorClock& a, const VectorClock& b) {
  if (a.pieces_.size() != b.pieces_.size()) return false;
  for (size_t i = 0; i < a.pieces_.size(); ++i) {
    if (a.pieces_[i].first != b.pieces_[i].first || a.pieces_[i].value != b.pieces_[i].value) {
      return false;
    }
  }
  return true;
}

}  // namespace barracuda::vc
