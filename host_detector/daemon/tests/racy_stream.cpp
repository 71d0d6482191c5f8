#include "host_detector/daemon/tests/racy_stream.h"

#include <unistd.h>

namespace barracuda::daemon::testing {

ptx::SiteTable RacySites() {
  ptx::SiteTable t;
  ptx::Site st;
  st.id = 0;
  st.function = kRacyKernel;
  st.kind = ptx::SiteKind::kStore;
  st.opcode = "st.global.u32";
  st.space = ptx::StateSpace::kGlobal;
  st.ptx_line = 20;
  st.source = ptx::SourceLocation{"racy.cu", 1, 12, 5};
  ptx::Site ld = st;
  ld.id = 1;
  ld.kind = ptx::SiteKind::kLoad;
  ld.opcode = "ld.global.u32";
  ld.ptx_line = 23;
  ld.source = ptx::SourceLocation{"racy.cu", 1, 15, 9};
  t.sites = {st, ld};
  return t;
}

void EmitModule(emu::RecordSink& sink) {
  sink.OnModule(0, 0, RacySites(), "racy.ptx");
  sink.OnKernelName(0, kRacyKernel);
}

void EmitLaunch(emu::RecordSink& sink, const RacyStream& o) {
  protocol::Record begin{};
  begin.header.op = static_cast<uint8_t>(protocol::Op::kKernelBegin);
  begin.header.site_id = protocol::kNoSite;
  begin.kernel.grid[0] = 2, begin.kernel.grid[1] = 1, begin.kernel.grid[2] = 1;
  begin.kernel.block[0] = 32, begin.kernel.block[1] = 1, begin.kernel.block[2] = 1;
  begin.kernel.launch_id = o.launch_id;
  begin.kernel.name_id = o.name_id;
  begin.kernel.process_id = static_cast<uint32_t>(getpid());
  sink.OnLaunchBegin(begin, o.workers);
  for (uint32_t block = 0; block < 2; ++block) {
    protocol::Record r{};
    r.header.op = static_cast<uint8_t>(block == 0 ? protocol::Op::kWrite : protocol::Op::kRead);
    r.header.access_size = 4;
    r.header.space_scope = protocol::PackSpaceScope(protocol::Space::kGlobal, protocol::Scope::kNone);
    r.header.active_mask = 0xffffffffu;
    r.header.warp_id = block;  // one warp per block
    r.header.site_id = block;  // site 0 = store, 1 = load
    const uint64_t base = (block == 1 && !o.racy) ? kRacyBase + 4096 : kRacyBase;
    for (uint32_t l = 0; l < protocol::kWarpSize; ++l) r.addr[l] = base + 4 * l;
    sink.Emit(block % o.workers, r);
  }
  if (!o.end_launch) return;
  protocol::Record end{};
  end.header.op = static_cast<uint8_t>(protocol::Op::kKernelEnd);
  end.header.site_id = protocol::kNoSite;
  end.kernel.launch_id = o.launch_id;
  sink.OnLaunchEnd(end);
}

}  // namespace barracuda::daemon::testing
