#include "host_detector/reports/stream_order_races.h"

#include "device_logger/stream_op_message.h"
#include "ptx_rewriter/text_concat.h"

namespace barracuda::reports {

std::string StreamName(uint64_t stream_id) {
  if (stream_id >= (uint64_t{1} << 48)) return "a node of a graph";
  if (stream_id == 0) return "the legacy default stream";
  if (stream_id > (uint64_t{1} << 32))
    return ptx::Cat("the per-thread default stream of host thread ", stream_id - (uint64_t{1} << 32));
  return ptx::Cat("stream ", stream_id);
}

std::string StreamSideHeadline(const ResolvedStreamOrderRace::Side& side) {
  const ReportContext::StreamOpSide& op = side.op;
  std::string what = ptx::Cat(op.strong ? "strong " : "", op.write ? "write" : "read", " by ");
  const std::string stream = StreamName(op.stream_id);
  if (op.kernel) {
    // A programmatic dependent launch's part before griddepcontrol.wait
    // (cudaGridDependencySynchronize): it may overlap the kernel before it.
    const bool before_wait = op.api == transport::StreamOpInfo::kBeforeGridDependencyWait;
    return what + ptx::Cat("kernel ", side.kernel, " (launch ", op.launch_id, ", ", stream, ")",
                           before_wait ? ", before its cudaGridDependencySynchronize (griddepcontrol.wait)" : "");
  }
  if (op.host) return what + "the host (not synchronised with the first)";
  if (op.host_function) return what + ptx::Cat("a host function (", stream, ")");
  return what + ptx::Cat(op.api, " (", stream, ")");
}

std::vector<ResolvedStreamOrderRace> ResolveStreamOrderRaces(const ReportContext& context) {
  std::vector<ResolvedStreamOrderRace> out;
  for (const ProcessInfo& p : context.processes()) {
    for (const ReportContext::StreamOrderRace& r : context.stream_order_races()) {
      if (r.pid != p.pid) continue;
      ResolvedStreamOrderRace e;
      e.ordinal = out.size() + 1;
      e.process_id = r.pid;
      e.address = r.address;
      e.occurrences = r.occurrences;
      if (const Allocation* a = context.FindAllocation(r.pid, r.address); a != nullptr)
        e.allocation = ResolvedAllocation{a->base, r.address - a->base, a->size, AllocationKindName(a->kind), a->label,
                                          a->freed};
      auto side = [&](const ReportContext::StreamOpSide& op) {
        ResolvedStreamOrderRace::Side s;
        s.op = op;
        if (op.kernel) {
          const LaunchInfo* launch = context.FindLaunch(r.pid, op.launch_id);
          const std::string* name = launch != nullptr ? context.KernelName(r.pid, launch->kernel_name_id) : nullptr;
          s.kernel = name != nullptr ? Demangle(*name) : ptx::Cat("kernel of launch ", op.launch_id);
          s.access.op = op.write ? protocol::Op::kWrite : protocol::Op::kRead;
          s.access.site_id = op.site;
          s.access.site = context.FindSite(r.pid, op.site, &s.access.module);
        }
        return s;
      };
      e.earlier = side(r.earlier);
      e.later = side(r.later);
      out.push_back(std::move(e));
    }
  }
  return out;
}

}  // namespace barracuda::reports
