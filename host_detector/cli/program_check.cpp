#include "host_detector/cli/program_check.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cctype>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <sstream>

#include "host_detector/cli/exit_codes.h"
#include "host_detector/static_cudart/runtime_linkage.h"
#include "ptx_rewriter/fatbin/elf_fatbins.h"
#include "ptx_rewriter/fatbin/elf_reader.h"

namespace barracuda::cli {
namespace {

template <typename... A>
std::string Cat(const A&... parts) {
  std::ostringstream os;
  (os << ... << parts);
  return os.str();
}

CheckResult Fail(int code, std::string message) { return CheckResult{code, std::move(message), {}}; }

constexpr const char* kNvccAdvice =
    "build it so that it embeds PTX: nvcc -gencode arch=compute_XX,code=[sm_XX,compute_XX] "
    "(e.g. arch=compute_75,code=[sm_75,compute_75]; CMake's CUDA_ARCHITECTURES embed PTX by default; "
    "add -lineinfo for source lines in reports)";

// The shared libraries the dynamic loader would map for `path` (`ldd`, the
// loader in trace mode: the program's code does not run), as
// "libk.so => /path/libk.so" lines; the CUDA one that makes the program a
// CUDA program through a library of its own (kernels in libk.so, a plain C
// main), or "" when none is or ldd is not available.
std::string CudaLibraryDependency(const std::string& path) {
  int out[2];
  if (pipe(out) != 0) return "";
  const pid_t pid = fork();
  if (pid < 0) {
    close(out[0]);
    close(out[1]);
    return "";
  }
  if (pid == 0) {
    dup2(out[1], STDOUT_FILENO);
    const int null = open("/dev/null", O_WRONLY);
    if (null >= 0) dup2(null, STDERR_FILENO);
    close(out[0]);
    close(out[1]);
    execlp("ldd", "ldd", path.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  close(out[1]);
  std::string text;
  char buf[4096];
  for (ssize_t n; (n = read(out[0], buf, sizeof buf)) > 0;) text.append(buf, static_cast<size_t>(n));
  close(out[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    std::istringstream words(line);
    std::string name;
    words >> name;
    const std::string leaf = name.substr(name.rfind('/') + 1);
    for (const char* cuda : {"libcudart.so", "libcuda.so", "libnvrtc.so"})
      if (leaf.rfind(cuda, 0) == 0) return leaf;
  }
  return "";
}

bool IsExecutableFile(const std::string& path) {
  struct stat st{};
  return stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && access(path.c_str(), X_OK) == 0;
}

}  // namespace

CheckResult ResolveProgram(const std::string& program, std::string* resolved) {
  if (program.empty()) return Fail(kExitUsage, "no program given");
  auto check_path = [&](const std::string& path) -> CheckResult {
    struct stat st{};
    if (stat(path.c_str(), &st) != 0) return Fail(kExitNotFound, Cat(path, ": no such file"));
    if (S_ISDIR(st.st_mode)) return Fail(kExitNotExecutable, Cat(path, ": is a directory"));
    if (!S_ISREG(st.st_mode)) return Fail(kExitNotExecutable, Cat(path, ": not a regular file"));
    if (access(path.c_str(), X_OK) != 0)
      return Fail(kExitNotExecutable, Cat(path, ": not executable (chmod +x?)"));
    if (access(path.c_str(), R_OK) != 0)
      return Fail(kExitNotExecutable, Cat(path, ": not readable: barracuda must inspect the program"));
    *resolved = path;
    return {};
  };
  if (program.find('/') != std::string::npos) return check_path(program);
  const char* path_env = std::getenv("PATH");
  std::string path = path_env != nullptr ? path_env : "/usr/local/bin:/usr/bin:/bin";
  size_t start = 0;
  for (;;) {
    const size_t colon = path.find(':', start);
    std::string dir = path.substr(start, colon == std::string::npos ? std::string::npos : colon - start);
    if (dir.empty()) dir = ".";
    const std::string candidate = dir + "/" + program;
    if (IsExecutableFile(candidate)) return check_path(candidate);
    if (colon == std::string::npos) break;
    start = colon + 1;
  }
  return Fail(kExitNotFound, Cat(program, ": command not found (not a path, and not on PATH)"));
}

CheckResult CheckProgram(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Fail(kExitNotExecutable, Cat(path, ": cannot be read"));
  const std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (bytes.size() >= 2 && bytes[0] == '#' && bytes[1] == '!') {
    return Fail(kExitNotCudaProgram,
                Cat(path, ": is a script, not a CUDA executable; barracuda must start the CUDA program "
                          "itself: run `barracuda [options] ./the_cuda_program args...`"));
  }
  if (bytes.size() < 4 || bytes[0] != 0x7f || bytes[1] != 'E' || bytes[2] != 'L' || bytes[3] != 'F')
    return Fail(kExitNotCudaProgram, Cat(path, ": not an ELF executable"));
  absl::StatusOr<fatbin::ElfFile> elf = fatbin::ElfFile::Parse(bytes);
  if (!elf.ok())
    return Fail(kExitNotCudaProgram, Cat(path, ": unreadable ELF file: ", elf.status().message()));
  // ElfFile keeps only PT_LOAD segments: the dynamic section (or any dynamic
  // import) tells a dynamically linked program.
  const bool dynamic = elf->FindSection(".dynamic") != nullptr || elf->FindSection(".interp") != nullptr ||
                       !elf->dynamic_imports().empty();
  if (!dynamic)
    return Fail(kExitNotCudaProgram,
                Cat(path, ": statically linked executable; barracuda needs a dynamically linked CUDA "
                          "program (", kNvccAdvice, ")"));
  absl::StatusOr<fatbin::ElfFatbins> fatbins = fatbin::FindFatbins(*elf);
  if (!fatbins.ok())
    return Fail(kExitNotCudaProgram, Cat(path, ": malformed CUDA fat binary: ", fatbins.status().message()));
  const bool registers = elf->ImportsSymbol("__cudaRegisterFatBinary");
  bool imports_cuda_api = false;
  for (const std::string& name : elf->dynamic_imports()) {
    // The runtime (cuda*, __cuda*), the driver (cuInit, cuModuleLoadData, ...) or NVRTC.
    const bool driver = name.size() > 2 && name.rfind("cu", 0) == 0 && std::isupper(static_cast<unsigned char>(name[2]));
    if (name.rfind("cuda", 0) == 0 || name.rfind("__cuda", 0) == 0 || driver || name.rfind("nvrtc", 0) == 0)
      imports_cuda_api = true;
  }
  CheckResult ok;
  if (fatbins->fatbins.empty()) {
    if (imports_cuda_api) {
      // Kernels may live in a shared library the program loads, or come as PTX
      // at run time (driver API, NVRTC); their PTX is checked when loaded.
      ok.notes.push_back(Cat(path, " embeds no CUDA kernels but calls CUDA: kernels in its shared libraries "
                                   "or loaded at run time must be PTX"));
      return ok;
    }
    // CUDA code in a shared library of the program's own (a plain C or C++
    // main calling into libk.so, which imports the runtime): accepted, as the
    // README says; the library's kernels are checked when it registers them.
    if (const std::string lib = CudaLibraryDependency(path); !lib.empty()) {
      ok.notes.push_back(Cat(path, " makes no CUDA call itself but loads ", lib,
                             " through its shared libraries: their kernels must embed PTX"));
      return ok;
    }
    return Fail(kExitNotCudaProgram,
                Cat(path, ": not a CUDA program (no CUDA fat binary, no CUDA runtime or driver import, in it or "
                          "in the shared libraries it loads)"));
  }
  if (!registers) {
    // -cudart static (nvcc's and CMake's default): the runtime is inside the
    // executable; barracuda redirects its entry points by name (static_cudart/).
    absl::StatusOr<static_cudart::RuntimeLinkage> linkage = static_cudart::InspectRuntimeLinkage(*elf);
    if (!linkage.ok())
      return Fail(kExitNotCudaProgram, Cat(path, ": unreadable symbol table: ", linkage.status().message()));
    if (linkage->static_runtime && linkage->stripped)
      return Fail(kExitStaticCudart,
                  Cat(path, ": the CUDA runtime is linked statically and the executable is stripped (no symbol "
                            "table), so barracuda cannot find the runtime's functions to take them over; build "
                            "without stripping (or with -cudart shared)"));
    if (linkage->static_runtime) {
      ok.static_runtime = true;
      ok.notes.push_back(Cat(path, ": CUDA runtime linked statically (", linkage->entry_points.size(),
                             " entry points): redirected to the shared runtime at start"));
    }
  }
  if (fatbins->ptx_count() == 0)
    return Fail(kExitNoPtx, Cat(path, ": embeds no PTX (only GPU machine code, e.g. from code=sm_XX "
                                      "alone); the emulator runs PTX: ", kNvccAdvice));
  ok.notes.push_back(Cat(path, ": ", fatbins->fatbins.size(), " fat binar", fatbins->fatbins.size() == 1 ? "y" : "ies",
                         ", ", fatbins->ptx_count(), " PTX entr", fatbins->ptx_count() == 1 ? "y" : "ies"));
  return ok;
}

CheckResult CheckWritable(const std::string& option, const std::string& path) {
  if (path == "-") return {};
  if (path.empty()) return Fail(kExitReportNotWritable, Cat(option, ": empty path"));
  struct stat st{};
  if (stat(path.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) return Fail(kExitReportNotWritable, Cat(option, " ", path, ": is a directory"));
    if (access(path.c_str(), W_OK) != 0)
      return Fail(kExitReportNotWritable, Cat(option, " ", path, ": not writable"));
    return {};
  }
  const size_t slash = path.rfind('/');
  const std::string dir = slash == std::string::npos ? "." : (slash == 0 ? "/" : path.substr(0, slash));
  if (stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
    return Fail(kExitReportNotWritable, Cat(option, " ", path, ": directory ", dir, " does not exist"));
  if (access(dir.c_str(), W_OK | X_OK) != 0)
    return Fail(kExitReportNotWritable, Cat(option, " ", path, ": directory ", dir, " is not writable"));
  return {};
}

CheckResult CheckReadable(const std::string& option, const std::string& path) {
  // A directory opens as a stream on Linux and reads as empty: not a file.
  struct stat st {};
  if (stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode))
    return Fail(kExitReportNotWritable, Cat(option, " ", path, ": is a directory, not a file"));
  std::ifstream in(path);
  if (!in) return Fail(kExitReportNotWritable, Cat(option, " ", path, ": cannot be read"));
  return {};
}

}  // namespace barracuda::cli
