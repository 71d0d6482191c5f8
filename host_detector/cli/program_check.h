// Checks that run before the app: can barracuda run this program at all?
// The program must be an executable, dynamically linked ELF that uses CUDA and
// embeds PTX (a compute_XX code), because the emulator runs PTX through its own
// libcudart.so.13 found first on LD_LIBRARY_PATH. A statically linked CUDA
// runtime (-cudart static) is fine when the executable keeps its symbol table:
// its entry points are redirected at start (host_detector/static_cudart/).
#ifndef BARRACUDA_HOST_DETECTOR_CLI_PROGRAM_CHECK_H_
#define BARRACUDA_HOST_DETECTOR_CLI_PROGRAM_CHECK_H_

#include <string>
#include <vector>

namespace barracuda::cli {

struct CheckResult {
  int exit_code = 0;    // 0 = fine; else one of exit_codes.h
  std::string message;  // why, and what to do about it
  std::vector<std::string> notes;  // informational (printed with --verbose)
  bool static_runtime = false;     // -cudart static: preload the redirection library
  bool ok() const { return exit_code == 0; }
};

// Resolves `program` like execvp: a name with '/' is a path, else PATH is
// searched. Sets *resolved on success.
CheckResult ResolveProgram(const std::string& program, std::string* resolved);

// Inspects the resolved executable (ELF, dynamic, cudart import, PTX).
CheckResult CheckProgram(const std::string& path);

// A report file can be created/overwritten at `path` ("-" is stdout: fine).
CheckResult CheckWritable(const std::string& option, const std::string& path);
// A file can be read (suppressions).
CheckResult CheckReadable(const std::string& option, const std::string& path);

}  // namespace barracuda::cli

#endif  // BARRACUDA_HOST_DETECTOR_CLI_PROGRAM_CHECK_H_
