#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "host_detector/reference/trace_generator.h"

namespace barracuda::reference {

namespace {
const char* ScopeName(protocol::Scope s) {
  switch (s) {
    case protocol::Scope::kNone: return "none";
    case protocol::Scope::kCta: return "cta";
    case protocol::Scope::kCluster: return "cluster";
    case protocol::Scope::kGpu: return "gpu";
    case protocol::Scope::kSys: return "sys";
  }
  return "?";
}
}  // namespace

std::string DumpRecord(const protocol::Record& r) {
  using protocol::Op;
  const Op op = protocol::OpOf(r.header);
  std::string s = absl::StrFormat("%-12s", protocol::OpName(op));
  if (op == Op::kKernelBegin) {
    const auto& k = r.kernel;
    absl::StrAppendFormat(&s, " grid=%ux%ux%u block=%ux%ux%u launch=%u", k.grid[0], k.grid[1], k.grid[2],
                          k.block[0], k.block[1], k.block[2], static_cast<uint32_t>(k.launch_id));
    return s;
  }
  if (op == Op::kKernelEnd) return s;
  absl::StrAppendFormat(&s, " w=%u mask=%08x", r.header.warp_id, r.header.active_mask);
  if (r.stamp != 0) absl::StrAppend(&s, " stamp=", r.stamp);
  switch (op) {
    case Op::kIf: absl::StrAppendFormat(&s, " then=%08x", r.branch.then_mask); break;
    case Op::kBarrier: case Op::kBarrierArrive:
      absl::StrAppend(&s, " id=", r.barrier.barrier_id, " count=", r.barrier.thread_count);
      break;
    case Op::kFence:
      absl::StrAppend(&s, " ", ScopeName(protocol::ScopeOf(r.header)));
      if ((r.header.flags & protocol::kFlagLoad) && !(r.header.flags & protocol::kFlagStore)) absl::StrAppend(&s, " acquire-side");
      if ((r.header.flags & protocol::kFlagStore) && !(r.header.flags & protocol::kFlagLoad)) absl::StrAppend(&s, " release-side");
      break;
    default: break;
  }
  if (!protocol::IsMemoryOp(op)) return s;
  const bool shared = protocol::SpaceOf(r.header) == protocol::Space::kShared;
  absl::StrAppend(&s, " ", shared ? "shared" : "global", " size=", r.header.access_size);
  if (op != Op::kRead && op != Op::kWrite) absl::StrAppend(&s, " ", ScopeName(protocol::ScopeOf(r.header)));
  if (r.header.flags & protocol::kFlagSameValue) absl::StrAppend(&s, " same-value");
  if (r.header.flags & protocol::kFlagVolatile) absl::StrAppend(&s, " volatile");
  if (r.header.flags & protocol::kFlagLoad) absl::StrAppend(&s, " ld");
  if (r.header.flags & protocol::kFlagStore) absl::StrAppend(&s, " st");
  absl::StrAppend(&s, " addr[lane]=");
  // Runs of lanes with the same address print once: "0-31:0x10000".
  for (uint32_t lane = 0; lane < 32;) {
    if (!(r.header.active_mask >> lane & 1)) { ++lane; continue; }
    uint32_t end = lane + 1;
    while (end < 32 && (r.header.active_mask >> end & 1) && r.addr[end] == r.addr[lane]) ++end;
    const uint64_t a = r.addr[lane];
    const std::string where = shared ? absl::StrFormat("b%u+0x%x", protocol::SharedBlock(a), protocol::SharedOffset(a))
                                     : absl::StrFormat("0x%x", a);
    if (end - lane == 1) {
      absl::StrAppend(&s, lane, ":", where, " ");
    } else {
      absl::StrAppend(&s, lane, "-", end - 1, ":", where, " ");
    }
    lane = end;
  }
  return s;
}

std::string DumpTrace(std::span<const protocol::Record> records) {
  std::string s;
  for (size_t i = 0; i < records.size(); ++i) absl::StrAppend(&s, "#", i, " ", DumpRecord(records[i]), "\n");
  return s;
}

}  // namespace barracuda::reference
