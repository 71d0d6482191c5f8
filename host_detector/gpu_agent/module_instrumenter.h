// What the GPU agent does to one registered fat binary (paper §4.1): choose its
// PTX, number its sites, instrument it, merge the device logger, and build the
// PTX-only fat binary that is registered with the real runtime instead. No
// CUDA runtime here: unit-testable on any machine.
#ifndef BARRACUDA_HOST_DETECTOR_GPU_AGENT_MODULE_INSTRUMENTER_H_
#define BARRACUDA_HOST_DETECTOR_GPU_AGENT_MODULE_INSTRUMENTER_H_

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "ptx_rewriter/fatbin/fatbin_reader.h"
#include "ptx_rewriter/instrument/instrument.h"
#include "ptx_rewriter/ir.h"
#include "ptx_rewriter/site_table.h"

namespace barracuda::gpu_agent {

struct ModuleInstrumentOptions {
  // The PTX entry is chosen as the emulator chooses (fatbin::ChoosePtxEntry):
  // the highest sm <= target_sm. The agent passes the device's compute
  // capability, so the driver can JIT what it gets.
  uint32_t target_sm = 75;
  uint32_t site_base = 0;  // first site id of this module in the process
  bool prune = true;       // the paper's pruning (ptx::InstrumentOptions::prune)
};

struct InstrumentedModule {
  std::vector<uint8_t> fatbin;  // a version-1 PTX-only fat binary (fatbin::MakeWrapper data)
  std::string ptx;              // the instrumented module, logger merged
  std::string name;             // "ident (sm_75 PTX)" for reports
  uint32_t sm = 0;              // of the chosen PTX entry
  ptx::SiteTable sites;         // of the original module, ids from 0 (add site_base)
  ptx::InstrumentStats stats;
  // `.reqnctapercluster x, y, z` of each kernel that has one (a launch without
  // a cluster attribute still runs in clusters of this shape).
  absl::flat_hash_map<std::string, std::array<uint32_t, 3>> cluster_dims;
  // The module's own .global variables (defined here, not .extern), for
  // attribution in reports where no registration names them (driver API).
  std::vector<std::string> globals;
  // Kernels that reach instructions the logger does not log, and which
  // (unchecked_kernels.h): their launches are analysed only in part.
  absl::flat_hash_map<std::string, std::string> unchecked_by_kernel;
};

// `logger` is the parsed device logger (device_logger::LoggerPtx()). Errors:
//  - FailedPrecondition: no PTX entry (only cubins), -rdc (version-2 wrapper
//    with per-object fat binaries, which would need a JIT link of several
//    instrumented modules);
//  - InvalidArgument: the PTX does not parse or cannot be instrumented
//    (file:line:col of the problem).
// One module's PTX text, as the driver API loads it (cuModuleLoadData of
// `nvcc -ptx` or NVRTC output) and as a fat binary's chosen entry holds it:
// sites numbered, instrumented, logger merged; `fatbin` stays empty. `ident`
// names the text for the parser's messages; `name` is the module's name in
// reports (empty: ident and the .target's sm). Errors as below
// (InvalidArgument).
absl::StatusOr<InstrumentedModule> InstrumentPtxText(std::string_view ptx_text, const std::string& ident,
                                                     std::string name, const ptx::Module& logger,
                                                     const ModuleInstrumentOptions& options);

absl::StatusOr<InstrumentedModule> InstrumentRegisteredFatbin(const fatbin::RegisteredFatbin& registered,
                                                              const ptx::Module& logger,
                                                              const ModuleInstrumentOptions& options);

}  // namespace barracuda::gpu_agent

#endif  // BARRACUDA_HOST_DETECTOR_GPU_AGENT_MODULE_INSTRUMENTER_H_
