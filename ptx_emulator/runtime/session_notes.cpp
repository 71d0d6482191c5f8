// Private entry points of barracuda's replacement libcuda.so.1 into the
// runtime it runs on (exported under the runtime's version node, listed in
// generate_runtime_tables.py's PRIVATE_EXPORTS): what only the driver sees,
// told to the barracuda session.
#include <string>

#include "ptx_emulator/runtime/runtime_state.h"
#include "ptx_emulator/runtime/shm_sink.h"

// Kernels that cannot run, found outside a launch: a library that carries
// its own copy of NVIDIA's CUDA runtime asked the driver for its private
// tables (cuGetExportTable), so nothing it launches reaches the emulator.
// `what` names them ("(the kernels of libcublas.so.13)"); the session's
// analysis is then incomplete, as for a launch that did not run.
extern "C" __attribute__((visibility("default"))) void __barracudaEmuNoteNotRun(int cuda_error, const char* what,
                                                                                  const char* reason) {
  using barracuda::cudart::Runtime;
  if (barracuda::emu::ShmRecordSink* sink = Runtime::Get().session_sink())
    sink->OnLaunchNotRun(cuda_error, what != nullptr ? what : "(unknown kernels)", reason != nullptr ? reason : "");
}
