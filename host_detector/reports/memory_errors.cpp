#include "host_detector/reports/memory_errors.h"

#include <algorithm>
#include <iterator>

#include "host_detector/reports/report_text.h"
#include "ptx_rewriter/text_concat.h"

namespace barracuda::reports {
namespace {

using transport::MemoryErrorKind;
using transport::MemorySpace;

// memcheck's names of the state spaces ("__global__", "__shared__", ...).
std::string SpaceText(MemorySpace s) {
  switch (s) {
    case MemorySpace::kGlobal: return "__global__";
    case MemorySpace::kShared: return "__shared__";
    case MemorySpace::kLocal: return "__local__";
    case MemorySpace::kParam: return "__param__";
    case MemorySpace::kConst: return "__constant__";
    case MemorySpace::kGeneric: break;
  }
  return "generic";
}

std::optional<ResolvedMemoryError::Nearest> NearestAllocation(const ProcessInfo& p, uint64_t address) {
  const auto& all = p.allocations;
  auto make = [&](const Allocation& a) {
    return ResolvedMemoryError::Nearest{a.base, a.size, static_cast<int64_t>(address - a.base),
                                        AllocationKindName(a.kind), a.label, a.freed};
  };
  auto after = all.upper_bound(address);
  if (after != all.begin()) {
    const Allocation& a = std::prev(after)->second;
    if (address - a.base < std::max<uint64_t>(a.size, 1)) return make(a);  // contains it
  }
  // Otherwise the live allocation with the nearest edge (freed ones only when
  // no live one is known).
  std::optional<ResolvedMemoryError::Nearest> best;
  uint64_t best_distance = UINT64_MAX;
  bool best_live = false;
  auto consider = [&](const Allocation& a, uint64_t distance) {
    const bool live = !a.freed;
    if ((live && !best_live) || (live == best_live && distance < best_distance)) {
      best = make(a);
      best_distance = distance;
      best_live = live;
    }
  };
  for (auto it = after; it != all.end(); ++it) {  // starts after the address
    consider(it->second, it->second.base - address);
    if (!it->second.freed) break;
  }
  for (auto it = after; it != all.begin();) {  // ends at or before it
    --it;
    const Allocation& a = it->second;
    consider(a, address - (a.base + std::max<uint64_t>(a.size, 1)) + 1);
    if (!a.freed) break;
  }
  return best;
}

}  // namespace

// memcheck's headline whatever the kind ("Invalid __global__ read of size 4
// bytes"); the kind is said apart.
std::string MemoryErrorHeadline(const ResolvedMemoryError& e) {
  const transport::MemoryErrorInfo& m = e.info;
  return ptx::Cat("Invalid ", SpaceText(m.space), " ", m.write ? "write" : "read", " of size ", m.size,
                  m.size == 1 ? " byte" : " bytes");
}

std::string MemoryErrorAddressText(const ResolvedMemoryError& e) {
  // Shared memory is freed only when its CTA exits: a neighbour of the cluster
  // reached it through distributed shared memory afterwards.
  if (e.info.space == MemorySpace::kShared && e.info.kind == MemoryErrorKind::kUseAfterFree)
    return "is in the shared memory of a CTA of the cluster that has exited (cluster.sync() before a CTA exits keeps "
           "it valid)";
  if (e.info.space == MemorySpace::kShared || e.info.space == MemorySpace::kLocal ||
      e.info.space == MemorySpace::kParam)
    return "";
  if (!e.nearest) return e.info.kind == MemoryErrorKind::kInvalidAddress ? "is not device memory"
                                                                        : "is not in any known allocation";
  const ResolvedMemoryError::Nearest& n = *e.nearest;
  std::string alloc = ptx::Cat(n.freed ? "freed " : "", n.kind, " allocation at ", Hex(n.base), " of size ", n.size,
                               n.size == 1 ? " byte" : " bytes");
  if (!n.label.empty()) alloc += ptx::Cat(" ('", n.label, "')");
  if (n.offset < 0) return ptx::Cat("is ", -n.offset, " bytes before the nearest ", alloc);
  const uint64_t offset = static_cast<uint64_t>(n.offset);
  // memcheck's count: the byte just past the end is "1 bytes after" it.
  if (offset >= n.size) return ptx::Cat("is ", offset - n.size + 1, " bytes after the nearest ", alloc);
  if (offset + e.info.size > n.size)
    return ptx::Cat("is at offset ", offset, " of the ", alloc, ", running ", offset + e.info.size - n.size,
                    " bytes past its end");
  return ptx::Cat("is at offset ", offset, " of the ", alloc);
}

namespace {

// Sites of two processes: each process has its own table.
bool SameInstruction(const ptx::Site* a, const ptx::Site* b) {
  if (a == nullptr || b == nullptr) return a == b;
  return a->function == b->function && a->ptx_line == b->ptx_line && a->opcode == b->opcode;
}

}  // namespace

std::vector<ResolvedMemoryError> ResolveMemoryErrors(const ReportContext& context) {
  std::vector<ResolvedMemoryError> out;
  // Process order, then arrival order (one process's errors arrive in launch order).
  for (const ProcessInfo& p : context.processes()) {
    for (const ReportContext::MemoryError& m : context.memory_errors()) {
      if (m.pid != p.pid) continue;
      ResolvedMemoryError e;
      e.ordinal = out.size() + 1;
      e.process_id = m.pid;
      e.info = m.info;
      e.kernel = Demangle(m.info.kernel);
      e.cuda_error = m.cuda_error;
      ResolvedAccess& a = e.access;
      a.op = m.info.write ? protocol::Op::kWrite : protocol::Op::kRead;
      a.thread = Dim3{m.info.thread[0], m.info.thread[1], m.info.thread[2]};
      a.block = Dim3{m.info.block[0], m.info.block[1], m.info.block[2]};
      a.access_size = static_cast<uint8_t>(std::min<uint32_t>(m.info.size, 255));
      a.site_id = m.info.site;
      a.site = context.FindSite(m.pid, m.info.site, &a.module);
      if (const LaunchInfo* launch = context.FindLaunch(m.pid, m.info.launch_id); launch != nullptr) {
        a.block_linear = static_cast<uint32_t>(Linearize(*a.block, launch->grid));
        const uint64_t in_block = Linearize(*a.thread, launch->block);
        a.thread_linear = a.block_linear * launch->block.Volume() + in_block;
        a.warp = static_cast<uint32_t>(in_block / 32);
        a.lane = static_cast<uint32_t>(in_block % 32);
      }
      // Device memory only: an invalid address (null, unmapped) is near nothing.
      const bool device = m.info.space == MemorySpace::kGlobal || m.info.space == MemorySpace::kConst ||
                          m.info.space == MemorySpace::kGeneric;
      if (device && m.info.kind != MemoryErrorKind::kInvalidAddress) e.nearest = NearestAllocation(p, m.info.address);
      if (context.explored_schedules() > 1) {
        // The same fault under another schedule is one bug seen again; which
        // thread faulted first (and so the address) is the schedule's choice.
        auto same = std::find_if(out.begin(), out.end(), [&](const ResolvedMemoryError& o) {
          return o.info.kernel == m.info.kernel && o.info.kind == m.info.kind && o.info.space == m.info.space &&
                 o.info.write == m.info.write && o.info.size == m.info.size && o.info.site == m.info.site &&
                 SameInstruction(o.access.site, e.access.site);
        });
        if (same != out.end()) {
          if (same->seen_in.back().process_id == m.pid) ++same->seen_in.back().count;
          else same->seen_in.push_back({m.pid, 1});
          continue;
        }
        e.seen_in.push_back({m.pid, 1});
      }
      out.push_back(std::move(e));
    }
  }
  return out;
}

}  // namespace barracuda::reports
