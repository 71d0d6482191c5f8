#include "host_detector/cli/runtime_paths.h"

#include <dlfcn.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>

namespace barracuda::cli {
namespace {

bool IsFile(const std::string& p) {
  struct stat st{};
  return stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}
bool IsDir(const std::string& p) {
  struct stat st{};
  return stat(p.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}
std::string DirName(const std::string& p) {
  const size_t slash = p.rfind('/');
  return slash == std::string::npos ? "." : (slash == 0 ? "/" : p.substr(0, slash));
}

}  // namespace

std::string SelfDirectory() {
  char buf[4096];
  const ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) return ".";
  buf[n] = '\0';
  return DirName(buf);
}

Found FindEmulatorLibraryDir(const std::string& self_dir) {
  Found f;
  if (const char* env = std::getenv(kEmuLibEnv); env != nullptr && *env != '\0') {
    const std::string e = env;
    // An explicit choice: only that place counts.
    if (IsDir(e)) {
      f.searched.push_back(e + "/" + kEmulatorLibraryName + " ($" + kEmuLibEnv + ")");
      if (IsFile(e + "/" + kEmulatorLibraryName)) f.path = e;
    } else {
      f.searched.push_back(e + " ($" + std::string(kEmuLibEnv) + ")");
      if (IsFile(e)) f.path = DirName(e);
    }
    return f;
  }
  for (const std::string& dir : {self_dir + "/../ptx_emulator", self_dir + "/../lib/barracuda", self_dir + "/../lib"}) {
    f.searched.push_back(dir + "/" + kEmulatorLibraryName);
    if (IsFile(dir + "/" + kEmulatorLibraryName)) {
      char real[4096];
      f.path = realpath(dir.c_str(), real) != nullptr ? std::string(real) : dir;
      return f;
    }
  }
  return f;
}

Found FindDaemon(const std::string& self_dir) {
  Found f;
  if (const char* env = std::getenv(kDaemonEnv); env != nullptr && *env != '\0') {
    f.searched.push_back(std::string(env) + " ($" + kDaemonEnv + ")");
    if (IsFile(env) && access(env, X_OK) == 0) f.path = env;
    return f;
  }
  const std::string p = self_dir + "/barracudad";
  f.searched.push_back(p);
  if (IsFile(p) && access(p.c_str(), X_OK) == 0) f.path = p;
  return f;
}

namespace {

// A preload library: $env, else <bin>/../lib/<name>, else <bin>/../lib/barracuda/<name>.
Found FindPreloadLibrary(const std::string& self_dir, const char* env_name, const char* name) {
  Found f;
  if (const char* env = std::getenv(env_name); env != nullptr && *env != '\0') {
    f.searched.push_back(std::string(env) + " ($" + env_name + ")");
    if (IsFile(env)) f.path = env;
    return f;
  }
  for (const std::string& dir : {self_dir + "/../lib", self_dir + "/../lib/barracuda"}) {
    const std::string p = dir + "/" + name;
    f.searched.push_back(p);
    if (IsFile(p)) {
      char real[4096];
      f.path = realpath(p.c_str(), real) != nullptr ? std::string(real) : p;
      return f;
    }
  }
  return f;
}

}  // namespace

Found FindGpuAgent(const std::string& self_dir) { return FindPreloadLibrary(self_dir, kGpuAgentEnv, kGpuAgentName); }

Found FindStaticCudartLibrary(const std::string& self_dir) {
  return FindPreloadLibrary(self_dir, kStaticCudartEnv, kStaticCudartName);
}

bool NvidiaGpuPresent() {
  struct stat st{};
  if (stat("/dev/nvidia0", &st) != 0) return false;
  void* h = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
  if (h == nullptr) return false;
  dlclose(h);
  return true;
}

}  // namespace barracuda::cli
