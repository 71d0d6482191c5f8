#include "host_detector/daemon/host_symbols.h"

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <map>
#include <mutex>
#include <sstream>
#include <vector>

namespace barracuda::daemon {
namespace {

// addr2line -f -C -e MODULE OFFSET: "function\nfile:line\n" ("??" when unknown).
std::string Resolve(const std::string& module, const std::string& offset) {
  int out[2];
  if (pipe(out) != 0) return "";
  const pid_t pid = fork();
  if (pid < 0) {
    close(out[0]), close(out[1]);
    return "";
  }
  if (pid == 0) {
    dup2(out[1], 1);
    close(out[0]), close(out[1]);
    if (FILE* null = std::fopen("/dev/null", "w")) dup2(fileno(null), 2);
    execlp("addr2line", "addr2line", "-f", "-C", "-e", module.c_str(), offset.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  close(out[1]);
  std::string text;
  char buf[512];
  for (ssize_t n; (n = read(out[0], buf, sizeof buf)) > 0;) text.append(buf, static_cast<size_t>(n));
  close(out[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) return "";
  const size_t nl = text.find('\n');
  if (nl == std::string::npos) return "";
  const std::string function = text.substr(0, nl);
  std::string where = text.substr(nl + 1);
  if (const size_t end = where.find_first_of(" \n"); end != std::string::npos) where.resize(end);
  if (where.empty() || where.rfind("??", 0) == 0 || where.ends_with(":0") || where.ends_with(":?")) return "";
  // Not the program's own code: nvcc's launch stubs (<file>.cudafe1.stub.c,
  // __device_stub__*) and the CUDA headers' inline launch helpers.
  if (function.rfind("__", 0) == 0 || where.find(".stub.c:") != std::string::npos ||
      where.find("/include/crt/") != std::string::npos || where.find("/include/cuda_runtime.h:") != std::string::npos)
    return "";
  return function == "??" ? where : function + " at " + where;
}

}  // namespace

std::string HostSourceLocation(std::string_view frames, std::string_view skip_function) {
  static std::mutex mu;
  static std::map<std::string, std::string> cache;
  std::istringstream in{std::string(frames)};
  for (std::string frame; in >> frame;) {
    const size_t plus = frame.rfind("+0x");
    if (plus == std::string::npos) continue;
    std::lock_guard<std::mutex> lock(mu);
    auto it = cache.find(frame);
    if (it == cache.end()) it = cache.emplace(frame, Resolve(frame.substr(0, plus), frame.substr(plus + 1))).first;
    if (it->second.empty()) continue;
    if (!skip_function.empty() && it->second.rfind(std::string(skip_function) + " at ", 0) == 0) continue;
    return it->second;
  }
  return "";
}

}  // namespace barracuda::daemon
