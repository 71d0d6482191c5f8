#include "host_detector/daemon/host_symbols.h"

#include <sys/wait.h>
#include <unistd.h>

#include <cctype>
#include <cstdio>
#include <map>
#include <mutex>
#include <sstream>
#include <vector>

namespace barracuda::daemon {
namespace {

// What addr2line says of a frame (one level of inlining): "main at
// /src/app.cu:42" (`line`), or without line information (no -g) the function
// alone.
struct Resolved {
  std::string line, function;
};

// addr2line -f -C -i -e MODULE OFFSET: "function\nfile:line\n" per level of
// inlining, innermost first ("??" when unknown): the program's own levels.
std::vector<Resolved> Resolve(const std::string& module, const std::string& offset) {
  int out[2];
  if (pipe(out) != 0) return {};
  const pid_t pid = fork();
  if (pid < 0) {
    close(out[0]), close(out[1]);
    return {};
  }
  if (pid == 0) {
    dup2(out[1], 1);
    close(out[0]), close(out[1]);
    if (FILE* null = std::fopen("/dev/null", "w")) dup2(fileno(null), 2);
    execlp("addr2line", "addr2line", "-f", "-C", "-i", "-e", module.c_str(), offset.c_str(),
           static_cast<char*>(nullptr));
    _exit(127);
  }
  close(out[1]);
  std::string text;
  char buf[512];
  for (ssize_t n; (n = read(out[0], buf, sizeof buf)) > 0;) text.append(buf, static_cast<size_t>(n));
  close(out[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) return {};
  std::vector<Resolved> levels;
  std::istringstream in(text);
  for (std::string function, where; std::getline(in, function) && std::getline(in, where);) {
    if (const size_t end = where.find(' '); end != std::string::npos) where.resize(end);
    // Not the program's own code: nvcc's launch stubs (<file>.cudafe1.stub.c,
    // __device_stub__*) and the CUDA headers' inline launch helpers.
    if (function.rfind("__", 0) == 0 || where.find(".stub.c:") != std::string::npos ||
        where.find("/include/crt/") != std::string::npos || where.find("/include/cuda_runtime.h:") != std::string::npos)
      continue;
    Resolved r;
    if (function != "??") r.function = function;
    if (!where.empty() && where.rfind("??", 0) != 0 && !where.ends_with(":0") && !where.ends_with(":?"))
      r.line = function == "??" ? where : function + " at " + where;
    levels.push_back(std::move(r));
  }
  return levels;
}

}  // namespace

std::string HostSourceLocation(std::string_view frames, std::string_view skip_function) {
  static std::mutex mu;
  static std::map<std::string, std::vector<Resolved>> cache;
  std::istringstream in{std::string(frames)};
  std::string fallback;  // the first frame with a function but no line
  for (std::string frame; in >> frame;) {
    const size_t plus = frame.rfind("+0x");
    if (plus == std::string::npos) continue;
    std::lock_guard<std::mutex> lock(mu);
    auto it = cache.find(frame);
    if (it == cache.end()) it = cache.emplace(frame, Resolve(frame.substr(0, plus), frame.substr(plus + 1))).first;
    for (const Resolved& r : it->second) {
      if (!skip_function.empty() && r.function == skip_function) continue;
      if (!r.line.empty()) return r.line;
      // A function of the program's own code: not the C library's start-up,
      // not the static CUDA runtime linked into it (cudart::*, the cuda* API).
      const bool runtime = r.function.starts_with("cudart::") ||
                           (r.function.starts_with("cuda") && r.function.size() > 4 && std::isupper(r.function[4]));
      if (fallback.empty() && !r.function.empty() && !runtime && !r.function.starts_with("__libc_") &&
          r.function != "_start")
        fallback = r.function + " (" + frame + "; no line information: build with -g for the host line)";
    }
  }
  return fallback;
}

}  // namespace barracuda::daemon
