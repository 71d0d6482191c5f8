// Memory errors in reports: a kernel's access that faulted on the emulator
// (out of bounds, use after free, misaligned, invalid address, a write to
// read-only memory), reported as compute-sanitizer's memcheck reports them:
// the access (kind, size, space, address), the thread and block, the source
// line, and the nearest allocation with the address's offset from it. The
// launch stopped at the fault (a GPU aborts it too), so a process has at most
// one per failed launch. Resolved from the context's side tables, like races;
// the writers format them (REPORTS.md, "Memory errors").
#ifndef BARRACUDA_HOST_DETECTOR_REPORTS_MEMORY_ERRORS_H_
#define BARRACUDA_HOST_DETECTOR_REPORTS_MEMORY_ERRORS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "device_logger/memory_error_message.h"
#include "host_detector/reports/report_context.h"

namespace barracuda::reports {

struct ResolvedMemoryError {
  uint64_t ordinal = 0;  // 1-based, in report order
  uint32_t process_id = 0;
  transport::MemoryErrorInfo info;
  std::string kernel;      // demangled
  std::string cuda_error;  // "cudaErrorIllegalAddress"
  // The faulting thread's access: operation, coordinates, site (into the context).
  ResolvedAccess access;
  // The allocation that contains the address (a freed one for a use after
  // free), else the one whose edge is nearest; `offset` is address - base
  // (negative: before it). nullopt: no allocation known (shared, local, an
  // invalid address, or none made).
  struct Nearest {
    uint64_t base = 0;
    uint64_t size = 0;
    int64_t offset = 0;
    std::string kind;  // AllocationKindName
    std::string label;
    bool freed = false;
  };
  std::optional<Nearest> nearest;
  // Schedule exploration: the runs that showed this error (the same kernel,
  // kind, operation, size and instruction), in run order; the entry's details
  // are the first run's. One entry per run otherwise.
  std::vector<ScheduleSighting> seen_in;
};

// memcheck's headline: "Invalid __global__ read of size 4 bytes", "Invalid __shared__ write of size 8 bytes".
std::string MemoryErrorHeadline(const ResolvedMemoryError& e);
// As memcheck says it: "is 128 bytes before the nearest device allocation at
// 0x.. of size 4096 bytes", "is 1 bytes after the nearest ..." (the byte just
// past the end), "is at offset 16 of the freed device allocation ...", "is not
// in any known allocation"; for shared memory only a cluster neighbour's
// window after its CTA exited ("is in the shared memory of a CTA of the
// cluster that has exited ..."), else "" for shared/local/param accesses.
std::string MemoryErrorAddressText(const ResolvedMemoryError& e);

// Every memory error of the context, in process order, then arrival order;
// under schedule exploration one entry per distinct error, with its sightings.
std::vector<ResolvedMemoryError> ResolveMemoryErrors(const ReportContext& context);

}  // namespace barracuda::reports

#endif  // BARRACUDA_HOST_DETECTOR_REPORTS_MEMORY_ERRORS_H_
