// libFuzzer target: the detector on adversarial record streams (issue 16
// item 7: the daemon never dies on a program's behaviour). The input's first
// 8 bytes seed a feasible trace (reference/trace_generator.h: valid headers,
// barriers, branches, strong accesses, several launches); every further 4
// bytes mutate it: swap or duplicate or drop records, change a barrier's id or
// thread count, a record's op, mask, warp, access size, scope or stamp, or an
// address. Both warp models. Invariants: no crash, no sanitizer report, and
// every record is either analysed or counted as malformed (Stats), with the
// first malformed one kept in status().
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <utility>
#include <vector>

#include "host_detector/detector/detector.h"
#include "host_detector/reference/trace_generator.h"

using namespace barracuda;

namespace {

uint32_t Word(const uint8_t* p) {
  uint32_t v = 0;
  std::memcpy(&v, p, sizeof v);
  return v;
}

void Mutate(std::vector<protocol::Record>& records, uint32_t m) {
  if (records.empty()) return;
  const size_t n = records.size();
  const size_t i = (m >> 8) % n, j = (m >> 20) % n;
  protocol::Record& r = records[i];
  switch (m & 0x0f) {
    case 0: std::swap(records[i], records[j]); break;
    case 1: records.insert(records.begin() + static_cast<std::ptrdiff_t>(j), r); break;
    case 2: records.erase(records.begin() + static_cast<std::ptrdiff_t>(i)); break;
    case 3: r.barrier.barrier_id = (m >> 4) & 0x1f; break;                 // ids up to 31: some invalid
    case 4: r.barrier.thread_count = (m >> 4) & 0x7ff; break;             // counts, some not multiples of 32
    case 5: r.header.op = static_cast<uint8_t>((m >> 4) % (static_cast<uint32_t>(protocol::Op::kCount) + 2)); break;
    case 6: r.header.active_mask ^= 1u << ((m >> 4) & 31); break;
    case 7: r.header.active_mask = m; break;
    case 8: r.header.warp_id = (m >> 4) & 0xff; break;                   // other warps, some outside the grid
    case 9: r.header.access_size = static_cast<uint8_t>(1u << ((m >> 4) % 6)); break;
    case 10: r.header.space_scope = static_cast<uint8_t>(m >> 4); break;  // any space and scope nibbles
    case 11: r.stamp = (m >> 4) & 0xfff; break;                           // stamps out of order, repeated
    case 12: r.addr[(m >> 4) & 31] ^= uint64_t{1} << ((m >> 9) & 63); break;
    case 13: r.header.flags = static_cast<uint8_t>(m >> 4); break;
    case 14: r.header.site_id = (m >> 4) & 0xffff; break;
    default: std::swap(records[i], records[n - 1]); break;
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 8) return 0;
  uint64_t seed = 0;
  std::memcpy(&seed, data, sizeof seed);
  reference::GeneratorOptions options;
  options.max_steps = 20;
  options.stamp_barriers = (seed & 1) != 0;
  std::vector<protocol::Record> records = reference::GenerateTrace(seed, options).records;
  for (size_t at = 8; at + 4 <= size && at < 8 + 4 * 64; at += 4) Mutate(records, Word(data + at));
  detector::DetectorOptions dopts;
  dopts.warp_model = (seed & 2) != 0 ? detector::WarpModel::kLockstep : detector::WarpModel::kIts;
  dopts.barrier_arrivals_in_groups = (seed & 4) != 0;
  detector::Detector d(dopts);
  uint64_t racy = 0;
  d.SetRaceListener([&](const detector::RaceEvent&) { ++racy; });
  for (const protocol::Record& r : records) d.Process(r);
  const detector::Statistics stats = d.Stats();
  if (stats.malformed_records != 0 && d.status().ok()) abort();  // a rejection must say why
  (void)d.Report().size();
  (void)racy;
  return 0;
}
