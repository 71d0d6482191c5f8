// The program's source location of a host call, for reports: the runtime
// sends the calling frames as "module+0xoffset" (stream_order.h HostCallSite);
// addr2line (binutils), when installed, names the function and file:line.
#ifndef BARRACUDA_HOST_DETECTOR_DAEMON_HOST_SYMBOLS_H_
#define BARRACUDA_HOST_DETECTOR_DAEMON_HOST_SYMBOLS_H_

#include <string>
#include <string_view>

namespace barracuda::daemon {

// "main at /src/app.cu:42" for the first frame with a known source line in
// the program's own code (not nvcc's launch stubs or the CUDA headers);
// else "main (app+0x16a3; no line information: ...)" for the first frame
// whose function is known (no -g); "" when none resolves (no addr2line,
// stripped).
// Results are cached per frame.
// `skip_function`: a kernel's demangled name, whose host stub (nvcc defines it
// at the kernel's own line) is not where the program launched it.
std::string HostSourceLocation(std::string_view frames, std::string_view skip_function = "");

}  // namespace barracuda::daemon

#endif  // BARRACUDA_HOST_DETECTOR_DAEMON_HOST_SYMBOLS_H_
