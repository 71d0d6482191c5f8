// A known racy record stream for the daemon tests, emitted through the
// emulator's RecordSink interface (so ShmRecordSink carries it into a segment).
//
// Module: two sites, 0 = st.global at racy.cu:12, 1 = ld.global at racy.cu:15.
// Launch: 2 blocks of 32 threads; block 0 writes 32 ints at `base` (site 0),
// then block 1 reads them (site 1): an inter-block RAW race on every int.
// With racy = false block 1 reads a disjoint range instead.
#ifndef BARRACUDA_HOST_DETECTOR_DAEMON_TESTS_RACY_STREAM_H_
#define BARRACUDA_HOST_DETECTOR_DAEMON_TESTS_RACY_STREAM_H_

#include <cstdint>
#include <string>

#include "ptx_emulator/core/record_sink.h"
#include "ptx_rewriter/site_table.h"

namespace barracuda::daemon::testing {

inline constexpr uint64_t kRacyBase = 0x7f0000100000ull;
inline constexpr const char* kRacyKernel = "_Z4racyPi";  // racy(int*)

ptx::SiteTable RacySites();

struct RacyStream {
  uint32_t workers = 1;      // block b goes to worker b % workers
  bool racy = true;
  bool end_launch = true;    // false: stop before OnLaunchEnd (a crash mid-launch)
  uint64_t launch_id = 1;
  uint32_t name_id = 0;
};

// OnModule + OnKernelName (once per sink: call EmitModule first), then launches.
void EmitModule(emu::RecordSink& sink);
void EmitLaunch(emu::RecordSink& sink, const RacyStream& options);

}  // namespace barracuda::daemon::testing

#endif  // BARRACUDA_HOST_DETECTOR_DAEMON_TESTS_RACY_STREAM_H_
