// Merging the device logger's PTX (device_logger/logger.cu, compiled at build
// time) into an instrumented module, so the module is self-contained: ptxas /
// the driver JIT / the emulator see one module with no unresolved calls.
#ifndef BARRACUDA_PTX_REWRITER_INSTRUMENT_MERGE_LOGGER_H_
#define BARRACUDA_PTX_REWRITER_INSTRUMENT_MERGE_LOGGER_H_

#include "absl/status/status.h"
#include "ptx_rewriter/ir.h"

namespace barracuda::ptx {

// Replaces the `.extern .func` logger declarations InstrumentModule added with
// the logger's definitions, placed before the module's own items. The logger's
// functions become internal (no .visible: two merged modules linked with -rdc
// do not clash); its variables (the queue-set pointer the host sets) stay as
// declared. Only the logger functions the module calls, directly or through
// other logger functions, are merged. The module's .version is raised to the
// logger's when lower.
// Fails when the module itself defines a name the logger defines.
absl::Status MergeLogger(Module& module, const Module& logger);

}  // namespace barracuda::ptx

#endif  // BARRACUDA_PTX_REWRITER_INSTRUMENT_MERGE_LOGGER_H_
