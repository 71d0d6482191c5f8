// Stand-in for a CUDA app under the emulator, for the supervisor tests: it
// attaches to the session exactly as the replacement libcudart does
// (ShmRecordSink::FromEnvironment) and emits a known racy stream.
//   synthetic_app race [STATUS]   racy launch, exit STATUS
//   synthetic_app clean           race-free launch, exit 0
//   synthetic_app segv | kill     racy launch, then SIGSEGV / SIGKILL
//   synthetic_app fork            parent: clean launch; child process: racy launch
//   synthetic_app fork-after      clean launch, then fork: the child traces through
//                                 the inherited sink (it re-attaches), racy launch
//   synthetic_app env DIR         exit 0 when LD_LIBRARY_PATH starts with DIR and
//                                 BARRACUDA_EMU_SEED is 7, else 42
//   synthetic_app echo            copy stdin to stdout, a line to stderr
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <memory>
#include <string>

#include "host_detector/daemon/tests/racy_stream.h"
#include "ptx_emulator/runtime/shm_sink.h"

using barracuda::daemon::testing::EmitLaunch;
using barracuda::daemon::testing::EmitModule;
using barracuda::daemon::testing::RacyStream;

static std::unique_ptr<barracuda::emu::ShmRecordSink> g_sink;

static void Run(bool racy) {
  g_sink = barracuda::emu::ShmRecordSink::FromEnvironment();
  if (!g_sink) std::exit(40);
  EmitModule(*g_sink);
  EmitLaunch(*g_sink, RacyStream{.workers = 2, .racy = racy});
}

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "race";
  if (mode == "race") {
    Run(true);
    return argc > 2 ? std::atoi(argv[2]) : 0;
  }
  if (mode == "clean") {
    Run(false);
    return 0;
  }
  if (mode == "segv" || mode == "kill") {
    Run(true);
    signal(SIGSEGV, SIG_DFL);
    raise(mode == "segv" ? SIGSEGV : SIGKILL);
    return 99;
  }
  if (mode == "fork") {
    const pid_t child = fork();
    if (child < 0) return 41;
    Run(child == 0);
    if (child == 0) return 0;
    int status = 0;
    waitpid(child, &status, 0);
    return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 43;
  }
  if (mode == "fork-after") {
    Run(false);
    const pid_t child = fork();
    if (child < 0) return 41;
    if (child == 0) {
      EmitLaunch(*g_sink, RacyStream{.workers = 2, .racy = true, .launch_id = 2});
      return 0;
    }
    int status = 0;
    waitpid(child, &status, 0);
    return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 43;
  }
  if (mode == "env") {
    const char* lib = std::getenv("LD_LIBRARY_PATH");
    const char* seed = std::getenv("BARRACUDA_EMU_SEED");
    const bool ok = argc > 2 && lib != nullptr && std::strncmp(lib, argv[2], std::strlen(argv[2])) == 0 &&
                    seed != nullptr && std::string(seed) == "7";
    return ok ? 0 : 42;
  }
  if (mode == "echo") {
    std::string line;
    while (std::getline(std::cin, line)) std::cout << "echo:" << line << "\n";
    std::cerr << "app stderr\n";
    return 0;
  }
  return 44;
}
