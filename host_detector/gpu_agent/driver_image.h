// What the GPU agent does to a module image the program hands the driver
// (cuModuleLoadData/DataEx/FatBinary, cuLibraryLoadData): PTX text (nvcc
// -ptx, NVRTC), a fat binary (raw or in its registration wrapper) or an ELF
// cubin. PTX is instrumented exactly as a registered fat binary's chosen entry
// is (module_instrumenter.h); the result is PTX text the real driver
// JIT-compiles. No CUDA here: unit-testable on any machine.
#ifndef BARRACUDA_HOST_DETECTOR_GPU_AGENT_DRIVER_IMAGE_H_
#define BARRACUDA_HOST_DETECTOR_GPU_AGENT_DRIVER_IMAGE_H_

#include <string>

#include "absl/status/statusor.h"
#include "host_detector/gpu_agent/module_instrumenter.h"
#include "ptx_rewriter/ir.h"

namespace barracuda::gpu_agent {

enum class DriverImageKind { kPtxText, kFatbin, kWrapper, kElf, kUnknown };

// From the first bytes: the ELF and fat binary magics; else text that starts
// like PTX (comments, .version, .target) — what the driver accepts as PTX.
DriverImageKind ClassifyDriverImage(const void* image);
const char* DriverImageKindName(DriverImageKind kind);

// `label` names the module in reports and messages ("cuModuleLoadData #3").
// The instrumented module's `ptx` is what to load instead of `image`.
// Errors: FailedPrecondition for images without PTX (ELF cubins, fat binaries
// of cubins only, -rdc links) and unknown formats; InvalidArgument for PTX
// that does not parse or cannot be instrumented (an already instrumented
// module among them).
absl::StatusOr<InstrumentedModule> InstrumentDriverImage(const void* image, const std::string& label,
                                                         const ptx::Module& logger,
                                                         const ModuleInstrumentOptions& options);

}  // namespace barracuda::gpu_agent

#endif  // BARRACUDA_HOST_DETECTOR_GPU_AGENT_DRIVER_IMAGE_H_
