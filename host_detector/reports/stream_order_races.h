// Stream-order races in reports (host_detector/daemon/stream_order_check.h
// finds them): two operations of different streams that CUDA does not order,
// touching the same device bytes. Each side is a kernel's access (kernel,
// launch, stream, source line) or an API call (cudaMemcpyAsync, ... with the
// host source location of the call). Resolved from the context's side tables;
// the writers format them (REPORTS.md, "Stream-order races").
#ifndef BARRACUDA_HOST_DETECTOR_REPORTS_STREAM_ORDER_RACES_H_
#define BARRACUDA_HOST_DETECTOR_REPORTS_STREAM_ORDER_RACES_H_

#include <optional>
#include <string>
#include <vector>

#include "host_detector/reports/report_context.h"

namespace barracuda::reports {

struct ResolvedStreamOrderRace {
  uint64_t ordinal = 0;
  uint32_t process_id = 0;
  uint64_t address = 0;
  uint64_t occurrences = 1;
  std::optional<ResolvedAllocation> allocation;
  struct Side {
    ReportContext::StreamOpSide op;
    std::string kernel;      // demangled; kernels only
    ResolvedAccess access;   // kernels: the access's site (into the context)
  };
  Side earlier, later;
};

// The work of a CUDA graph's node: a timeline of its own (the runtime numbers
// them from 2^48, ptx_emulator/runtime/stream_order.h), not a stream.
inline bool IsGraphNode(const ReportContext::StreamOpSide& op) { return op.stream_id >= (uint64_t{1} << 48); }
// "stream 16", "the legacy default stream", "the per-thread default stream of
// host thread 2" (the runtime's ids: Runtime::StreamId), "a node of a graph".
std::string StreamName(uint64_t stream_id);
// "write by kernel Producer(int*) (launch 2, stream 16)" / "read by cudaMemcpyAsync (stream 17)" /
// "... (launch 3, a node of a graph)" / "read by the host (not synchronised with the first)" (the
// first side: a kernel, copy or set the host had not waited for).
std::string StreamSideHeadline(const ResolvedStreamOrderRace::Side& side);
// In process order, then detection order.
std::vector<ResolvedStreamOrderRace> ResolveStreamOrderRaces(const ReportContext& context);

}  // namespace barracuda::reports

#endif  // BARRACUDA_HOST_DETECTOR_REPORTS_STREAM_ORDER_RACES_H_
