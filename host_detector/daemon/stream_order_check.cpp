#include "host_detector/daemon/stream_order_check.h"

#include <bit>

#include "ptx_rewriter/text_concat.h"

namespace barracuda::daemon {
namespace {

constexpr uint64_t kLine = 128, kWord = 4;
using RecordOp = protocol::Op;

// Word mask of [address, address + size) within the line at `line_base`.
uint32_t WordMask(uint64_t line_base, uint64_t lo, uint64_t hi) {
  const uint64_t first = (lo - line_base) / kWord, last = (hi - 1 - line_base) / kWord;
  const uint64_t bits = last - first + 1;
  return static_cast<uint32_t>((bits >= 32 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1) << first);
}

}  // namespace

void StreamOrderCheck::Touch(Op& op, uint64_t address, uint64_t size, bool write, bool strong, uint32_t site) {
  const uint64_t end = address + size;
  for (uint64_t line = address / kLine * kLine; line < end; line += kLine) {
    if (op.lines.size() >= kMaxLines && !op.lines.contains(line / kLine)) {
      op.truncated = true;
      return;
    }
    Line& l = op.lines[line / kLine];
    const uint32_t mask = WordMask(line, std::max(address, line), std::min(end, line + kLine));
    uint32_t& bits = strong ? (write ? l.strong_write : l.strong_read) : (write ? l.write : l.read);
    bits |= mask;
    uint32_t& first_site = write ? l.write_site : l.read_site;
    if (first_site == protocol::kNoSite) first_site = site;
  }
}

void StreamOrderCheck::OnOp(transport::StreamOpInfo info) {
  if (info.after_barrier) retained_.clear();
  Op op;
  op.info = std::move(info);
  if (op.info.kind == transport::StreamOpKind::kKernel) {
    if (open_) Complete(std::move(*open_));  // its launch never ended (should not happen)
    open_ = std::move(op);
    return;
  }
  for (const transport::StreamOpInfo::Range& r : op.info.ranges)
    Touch(op, r.base, r.size, r.write, /*strong=*/false, protocol::kNoSite);
  if (op.info.kind == transport::StreamOpKind::kHostAccess) {
    // Everything the host issues later is ordered after its own accesses:
    // only earlier operations can race with one, so it is not retained.
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
    if (op > RecordOp::kAcqRel || r.header.access_size == 0 ||
        protocol::SpaceOf(r.header) != protocol::Space::kGlobal)
      continue;
    bool write = op == RecordOp::kWrite;
    const bool strong = op != RecordOp::kRead && op != RecordOp::kWrite;
    if (strong) write = (r.header.flags & protocol::kFlagStore) != 0 || op == RecordOp::kRelease ||
                        (r.header.flags & (protocol::kFlagLoad | protocol::kFlagStore)) == 0;
    for (uint32_t m = r.header.active_mask; m != 0; m &= m - 1) {
      const uint32_t lane = static_cast<uint32_t>(std::countr_zero(m));
      Touch(*open_, r.addr[lane], r.header.access_size, write, strong, r.header.site_id);
      // A read-modify-write reads too.
      if (strong && write && (r.header.flags & protocol::kFlagLoad) != 0)
        Touch(*open_, r.addr[lane], r.header.access_size, false, true, r.header.site_id);
    }
  }
}

void StreamOrderCheck::EndLaunch(uint64_t launch_id) {
  if (!Collecting(launch_id)) return;
  Op op = std::move(*open_);
  open_.reset();
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
    // A plain write against anything; a strong write against a plain access.
    const uint32_t a_write_conflict = a.write & (b.read | b.write | b.strong_read | b.strong_write);
    const uint32_t b_write_conflict = b.write & (a.read | a.strong_read | a.strong_write);
    const uint32_t strong_conflict = (a.strong_write & (b.read | b.write)) | (b.strong_write & a.read);
    const uint32_t words = a_write_conflict | b_write_conflict | strong_conflict;
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
  const uint32_t bit = 1u << best_word;
  StreamOrderRace race;
  race.address = exact_found ? exact : best_line * kLine + best_word * kWord;
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
    return s;
  };
  const bool a_writes = ((a.write | a.strong_write) & bit) != 0, b_writes = ((b.write | b.strong_write) & bit) != 0;
  race.earlier = side(earlier, a, a_writes, ((a_writes ? a.strong_write : a.strong_read) & bit) != 0 &&
                                                ((a_writes ? a.write : a.read) & bit) == 0);
  race.later = side(later, b, b_writes, ((b_writes ? b.strong_write : b.strong_read) & bit) != 0 &&
                                            ((b_writes ? b.write : b.read) & bit) == 0);
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
