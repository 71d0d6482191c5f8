#include "host_detector/daemon/stream_order_check.h"

#include <bit>

#include "ptx_rewriter/text_concat.h"

namespace barracuda::daemon {
namespace {

constexpr uint64_t kLine = 128, kWord = 4;
using RecordOp = protocol::Op;

// Mask of the words [first, last) of a line (last - first <= 32).
uint32_t WordRange(uint64_t first, uint64_t last) {
  if (last <= first) return 0;
  const uint64_t bits = last - first;
  return static_cast<uint32_t>((bits >= 32 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1) << first);
}

// The bytes of the word at `word_base` inside [lo, hi).
uint8_t ByteMask(uint64_t word_base, uint64_t lo, uint64_t hi) {
  uint8_t m = 0;
  for (uint64_t b = std::max(lo, word_base); b < std::min(hi, word_base + kWord); ++b)
    m = static_cast<uint8_t>(m | 1u << (b - word_base));
  return m;
}

constexpr uint8_t kWholeWord = 0xf;

// A plain write against anything; a strong write against a plain access
// (strong on both sides: morally strong at device scope). Word or byte masks.
template <typename T, typename Side>
T Conflicts(const Side& a, const Side& b) {
  const T a_write = a.write & (b.read | b.write | b.strong_read | b.strong_write);
  const T b_write = b.write & (a.read | a.strong_read | a.strong_write);
  const T strong = (a.strong_write & (b.read | b.write)) | (b.strong_write & a.read);
  return static_cast<T>(a_write | b_write | strong);
}

}  // namespace

StreamOrderCheck::WordBytes StreamOrderCheck::BytesOf(const Op& op, const Line& l, uint64_t line, uint32_t word) {
  WordBytes w;
  const uint32_t bit = 1u << word;
  if (l.partial & bit) w = op.partial_words.at(line * (kLine / kWord) + word);
  auto whole = [&](uint32_t mask, uint8_t& bytes) {
    if (mask & bit) bytes = kWholeWord;
  };
  whole(l.read, w.read);
  whole(l.write, w.write);
  whole(l.strong_read, w.strong_read);
  whole(l.strong_write, w.strong_write);
  return w;
}

void StreamOrderCheck::Touch(Op& op, uint64_t address, uint64_t size, bool write, bool strong, uint32_t site) {
  const uint64_t end = address + size;
  for (uint64_t line = address / kLine * kLine; line < end; line += kLine) {
    if (op.lines.size() >= kMaxLines && !op.lines.contains(line / kLine)) {
      op.truncated = true;
      return;
    }
    Line& l = op.lines[line / kLine];
    const uint64_t lo = std::max(address, line), hi = std::min(end, line + kLine);
    uint32_t& bits = strong ? (write ? l.strong_write : l.strong_read) : (write ? l.write : l.read);
    bits |= WordRange((lo - line + kWord - 1) / kWord, (hi - line) / kWord);  // whole words
    uint32_t& first_site = write ? l.write_site : l.read_site;
    if (first_site == protocol::kNoSite) first_site = site;
    // The words at either end that the access covers only in part.
    if (lo % kWord == 0 && hi % kWord == 0) continue;  // none (most accesses)
    for (const uint64_t w : {lo / kWord, (hi - 1) / kWord}) {
      const uint8_t bytes = ByteMask(w * kWord, lo, hi);
      const uint32_t bit = 1u << (w % (kLine / kWord));
      if (bytes == kWholeWord || (bits & bit)) continue;
      if (!(l.partial & bit) && op.partial_words.size() >= kMaxLines) {
        bits |= bit;  // bounded: the word counts as whole
        continue;
      }
      WordBytes& wb = op.partial_words[w];
      l.partial |= bit;
      uint8_t& kind = strong ? (write ? wb.strong_write : wb.strong_read) : (write ? wb.write : wb.read);
      kind = static_cast<uint8_t>(kind | bytes);
      if (kind == kWholeWord) {
        kind = 0;
        bits |= bit;
        if ((wb.read | wb.write | wb.strong_read | wb.strong_write) == 0) {
          op.partial_words.erase(w);
          l.partial &= ~bit;
        }
      }
    }
  }
}

void StreamOrderCheck::OnOp(transport::StreamOpInfo info) {
  if (info.after_barrier) retained_.clear();
  Op op;
  op.info = std::move(info);
  if (op.info.kind == transport::StreamOpKind::kKernel) {
    if (open_) EndLaunch(open_->info.launch_id);  // its launch never ended (should not happen)
    if (op.info.programmatic_after != 0) {
      // Not emplace(): clang takes Op (default member initializers, nested
      // in this class) as not default-constructible in std::optional's check.
      Op before_wait;
      before_wait.info = op.info;
      before_wait.info.api = std::string(transport::StreamOpInfo::kBeforeGridDependencyWait);
      open_before_wait_ = std::move(before_wait);
      waited_lanes_.clear();
    }
    open_ = std::move(op);
    return;
  }
  for (const transport::StreamOpInfo::Range& r : op.info.ranges)
    Touch(op, r.base, r.size, r.write, /*strong=*/false, protocol::kNoSite);
  if (op.info.kind == transport::StreamOpKind::kHostAccess && op.info.stream_id == transport::kHostTimeline) {
    // Everything the host issues later is ordered after its own accesses:
    // only earlier operations can race with one, so it is not retained (a
    // host function's, on its stream's timeline, is: Complete).
    if (op.truncated) ++truncated_;
    for (const Op& earlier : retained_)
      if (!op.info.After(earlier.info)) Compare(earlier, op);
    return;
  }
  Complete(std::move(op));
}

void StreamOrderCheck::Collect(std::span<const protocol::Record> records) {
  if (!open_) return;
  for (const protocol::Record& r : records) {
    const RecordOp op = protocol::OpOf(r.header);
    if (op == RecordOp::kGridDepWait) {
      waited_lanes_[r.header.warp_id] |= r.header.active_mask;
      continue;
    }
    if (op > RecordOp::kAcqRel || r.header.access_size == 0 ||
        protocol::SpaceOf(r.header) != protocol::Space::kGlobal)
      continue;
    bool write = op == RecordOp::kWrite;
    const bool strong = op != RecordOp::kRead && op != RecordOp::kWrite;
    if (strong) write = (r.header.flags & protocol::kFlagStore) != 0 || op == RecordOp::kRelease ||
                        (r.header.flags & (protocol::kFlagLoad | protocol::kFlagStore)) == 0;
    uint32_t before_wait = 0;
    if (open_before_wait_) {
      auto w = waited_lanes_.find(r.header.warp_id);
      before_wait = r.header.active_mask & ~(w != waited_lanes_.end() ? w->second : 0);
    }
    for (uint32_t m = r.header.active_mask; m != 0; m &= m - 1) {
      const uint32_t lane = static_cast<uint32_t>(std::countr_zero(m));
      for (Op* into : {&*open_, (before_wait >> lane & 1) ? &*open_before_wait_ : nullptr}) {
        if (into == nullptr) continue;
        Touch(*into, r.addr[lane], r.header.access_size, write, strong, r.header.site_id);
        // A read-modify-write reads too.
        if (strong && write && (r.header.flags & protocol::kFlagLoad) != 0)
          Touch(*into, r.addr[lane], r.header.access_size, false, true, r.header.site_id);
      }
    }
  }
}

void StreamOrderCheck::EndLaunch(uint64_t launch_id) {
  if (!Collecting(launch_id)) return;
  Op op = std::move(*open_);
  open_.reset();
  std::optional<Op> before_wait = std::move(open_before_wait_);
  open_before_wait_.reset();
  waited_lanes_.clear();
  if (before_wait && !before_wait->lines.empty()) {
    // The kernel it may overlap, while still retained.
    for (const Op& earlier : retained_)
      if (earlier.info.kind == transport::StreamOpKind::kKernel &&
          earlier.info.launch_id == before_wait->info.programmatic_after) {
        if (before_wait->truncated) ++truncated_;
        Compare(earlier, *before_wait);
        break;
      }
  }
  Complete(std::move(op));
}

void StreamOrderCheck::Complete(Op op) {
  if (op.truncated) ++truncated_;
  for (const Op& earlier : retained_)
    if (!op.info.After(earlier.info)) Compare(earlier, op);
  retained_.push_back(std::move(op));
  if (retained_.size() > kMaxRetained) retained_.pop_front();
}

void StreamOrderCheck::Compare(const Op& earlier, const Op& later) {
  const bool earlier_smaller = earlier.lines.size() <= later.lines.size();
  const auto& small = earlier_smaller ? earlier.lines : later.lines;
  const auto& big = earlier_smaller ? later.lines : earlier.lines;
  // The conflicting word named: the one holding a byte a host access was
  // caught at (its fault: known accessed, the rest of its page assumed),
  // else the lowest; never the hash map's order (the same report every run).
  const uint64_t exact = later.info.exact != 0 ? later.info.exact : earlier.info.exact;
  uint64_t best_line = 0;
  uint32_t best_word = 0;
  bool found = false, exact_found = false;
  for (const auto& [line, s] : small) {
    auto it = big.find(line);
    if (it == big.end()) continue;
    const Line& a = earlier_smaller ? s : it->second;  // earlier's
    const Line& b = earlier_smaller ? it->second : s;  // later's
    uint32_t words = Conflicts<uint32_t>(a, b);
    // Words one side touched only in part: compared byte by byte.
    for (uint32_t m = (a.partial | b.partial) & ~words; m != 0; m &= m - 1) {
      const auto word = static_cast<uint32_t>(std::countr_zero(m));
      if (Conflicts<uint8_t>(BytesOf(earlier, a, line, word), BytesOf(later, b, line, word)) != 0)
        words |= 1u << word;
    }
    if (words == 0) continue;
    if (exact != 0 && exact / kLine == line && (words >> (exact % kLine / kWord) & 1) != 0) {
      best_line = line;
      best_word = static_cast<uint32_t>(exact % kLine / kWord);
      found = exact_found = true;
      break;
    }
    const uint32_t word = static_cast<uint32_t>(std::countr_zero(words));
    if (!found || line * kLine + word * kWord < best_line * kLine + best_word * kWord) {
      best_line = line;
      best_word = word;
      found = true;
    }
  }
  if (!found) return;  // one race per pair of operations
  const Line& a = earlier.lines.at(best_line);
  const Line& b = later.lines.at(best_line);
  const WordBytes wa = BytesOf(earlier, a, best_line, best_word), wb = BytesOf(later, b, best_line, best_word);
  const uint8_t conflict = Conflicts<uint8_t>(wa, wb);
  StreamOrderRace race;
  race.address = exact_found ? exact : best_line * kLine + best_word * kWord + std::countr_zero(conflict);
  auto side = [&](const Op& op, const Line& l, bool write, bool strong) {
    StreamOrderRace::Side s;
    s.kind = op.info.kind;
    s.api = op.info.api;
    s.stream_id = op.info.stream_id;
    s.launch_id = op.info.launch_id;
    s.site = write ? l.write_site : l.read_site;
    s.write = write;
    s.strong = strong;
    s.host_location = op.info.host_location;
    s.node_location = op.info.node_location;
    return s;
  };
  // Each side as it touched the conflicting bytes: writing if it wrote one,
  // strong if it touched them only with strong accesses of that kind.
  auto writes = [&](const WordBytes& w) { return ((w.write | w.strong_write) & conflict) != 0; };
  auto strong = [&](const WordBytes& w, bool write) {
    return ((write ? w.strong_write : w.strong_read) & conflict) != 0 && ((write ? w.write : w.read) & conflict) == 0;
  };
  const bool a_writes = writes(wa), b_writes = writes(wb);
  race.earlier = side(earlier, a, a_writes, strong(wa, a_writes));
  race.later = side(later, b, b_writes, strong(wb, b_writes));
  // One entry per pair of code locations (kernel site or API call site).
  auto where = [](const StreamOrderRace::Side& s) {
    return s.kind == transport::StreamOpKind::kKernel ? ptx::Cat("site", s.site) : s.api + "@" + s.host_location;
  };
  const std::string key = ptx::Cat(where(race.earlier), race.earlier.write ? "w" : "r", "|", where(race.later),
                                   race.later.write ? "w" : "r");
  if (auto known = race_index_.find(key); known != race_index_.end()) {
    races_[known->second].occurrences++;
  } else if (races_.size() < kMaxRaces) {
    race_index_[key] = races_.size();
    races_.push_back(std::move(race));
  }
}

}  // namespace barracuda::daemon
