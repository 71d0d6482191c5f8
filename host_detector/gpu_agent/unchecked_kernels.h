// Which kernels of an instrumented module reach instructions the device logger
// does not log (ptx::InstrumentStats::unchecked: TMA tensor copies, multicast
// bulk copies, texture and surface accesses, brx.idx, ...). A launch
// of such a kernel is analysed only in part: races through those instructions
// are not checked, so the agent tells the session (transport
// kLaunchUnchecked) and the run's verdict is incomplete rather than "0 races".
#ifndef BARRACUDA_HOST_DETECTOR_GPU_AGENT_UNCHECKED_KERNELS_H_
#define BARRACUDA_HOST_DETECTOR_GPU_AGENT_UNCHECKED_KERNELS_H_

#include <cstdint>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "ptx_rewriter/instrument/instrument.h"
#include "ptx_rewriter/ir.h"
#include "ptx_rewriter/site_table.h"

namespace barracuda::gpu_agent {

// Kernel (mangled entry name) -> what it reaches that is not logged, itself or
// through the functions it calls (an indirect call: any function of the
// module): "2 instructions: cp.async.bulk.tensor.2d.shared::cluster.global...
// at tma.cu:36; ..." (at most three named, then a count). Kernels that reach
// none are absent. `sites` numbers the original module from 0; the
// instructions' site ids carry `site_base`.
absl::flat_hash_map<std::string, std::string> UncheckedByKernel(const ptx::Module& module,
                                                                const ptx::InstrumentStats& stats,
                                                                const ptx::SiteTable& sites, uint32_t site_base);

}  // namespace barracuda::gpu_agent

#endif  // BARRACUDA_HOST_DETECTOR_GPU_AGENT_UNCHECKED_KERNELS_H_
