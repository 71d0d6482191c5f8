#include "host_detector/static_cudart/redirect.h"

#include <fcntl.h>
#include <link.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstring>
#include <span>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "host_detector/static_cudart/jump_patch.h"
#include "host_detector/static_cudart/runtime_linkage.h"
#include "ptx_rewriter/fatbin/elf_reader.h"

namespace barracuda::static_cudart {
namespace {

struct MainProgram {
  uintptr_t base = 0;  // load bias (0 for a non-PIE executable)
  AddressRange range;
};

// dl_iterate_phdr lists the main program first.
MainProgram FindMainProgram() {
  MainProgram out;
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t, void* data) -> int {
        auto* m = static_cast<MainProgram*>(data);
        m->base = info->dlpi_addr;
        m->range.begin = UINTPTR_MAX;
        for (int i = 0; i < info->dlpi_phnum; ++i) {
          const ElfW(Phdr)& ph = info->dlpi_phdr[i];
          if (ph.p_type != PT_LOAD) continue;
          m->range.begin = std::min<uintptr_t>(m->range.begin, info->dlpi_addr + ph.p_vaddr);
          m->range.end = std::max<uintptr_t>(m->range.end, info->dlpi_addr + ph.p_vaddr + ph.p_memsz);
        }
        return 1;
      },
      &out);
  return out;
}

// The executable's bytes, mapped read-only for the time of the inspection.
class MappedFile {
 public:
  ~MappedFile() {
    if (data_ != nullptr) munmap(data_, size_);
  }
  absl::Status Open(const char* path) {
    const int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return absl::NotFoundError(absl::StrCat(path, ": ", std::strerror(errno)));
    struct stat st{};
    if (fstat(fd, &st) != 0 || st.st_size <= 0) {
      close(fd);
      return absl::NotFoundError(absl::StrCat(path, ": cannot stat"));
    }
    void* p = mmap(nullptr, static_cast<size_t>(st.st_size), PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (p == MAP_FAILED) return absl::InternalError(absl::StrCat(path, ": mmap: ", std::strerror(errno)));
    data_ = p;
    size_ = static_cast<size_t>(st.st_size);
    return absl::OkStatus();
  }
  std::span<const uint8_t> bytes() const { return {static_cast<const uint8_t*>(data_), size_}; }

 private:
  void* data_ = nullptr;
  size_t size_ = 0;
};

std::string ExecutablePath() {
  char buf[PATH_MAX];
  const ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) return "/proc/self/exe";
  return std::string(buf, static_cast<size_t>(n));
}

}  // namespace

AddressRange MainExecutableRange() { return FindMainProgram().range; }

absl::StatusOr<RedirectSummary> RedirectMainExecutable(const Resolver& resolve) {
  RedirectSummary summary;
  summary.executable = ExecutablePath();
  MappedFile file;
  if (absl::Status s = file.Open("/proc/self/exe"); !s.ok()) return s;
  absl::StatusOr<fatbin::ElfFile> elf = fatbin::ElfFile::Parse(file.bytes());
  if (!elf.ok()) return elf.status();
  absl::StatusOr<RuntimeLinkage> linkage = InspectRuntimeLinkage(*elf);
  if (!linkage.ok()) return linkage.status();
  if (!linkage->static_runtime) return summary;
  summary.static_runtime = true;
  if (linkage->stripped)
    return absl::FailedPreconditionError(absl::StrCat(
        summary.executable, ": the CUDA runtime is linked statically and the executable is stripped "
                            "(no symbol table): its runtime functions cannot be found"));
  const MainProgram main = FindMainProgram();
  std::vector<JumpSite> sites;
  for (const fatbin::ElfFunction& f : linkage->entry_points) {
    void* target = resolve(f.name);
    if (target == nullptr || main.range.Contains(reinterpret_cast<uintptr_t>(target))) {
      summary.left_alone.push_back(f.name);
      continue;
    }
    sites.push_back(JumpSite{f.name, main.base + f.value, f.size, reinterpret_cast<uintptr_t>(target)});
  }
  absl::StatusOr<PatchOutcome> patched = WriteJumps(sites);
  if (!patched.ok()) return patched.status();
  summary.redirected = patched->patched;
  summary.too_small = std::move(patched->too_small);
  return summary;
}

}  // namespace barracuda::static_cudart
