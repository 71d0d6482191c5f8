// cudaHostRegister / cudaHostUnregister: page-locked, mapped host memory made
// of the program's own memory (malloc, a static array, an mmap).
//
// Kernels only access the DeviceMemory arena (memcheck: InRange, then the
// addressability map), and the registered range lies outside it. So a
// registration gives the range a device alias inside the arena that shares
// its physical pages: the host pages holding the range are re-backed by a
// memfd (their contents copied in, the file then mapped MAP_SHARED|MAP_FIXED
// over them with their protection), and the same file pages are mapped at a
// page-aligned arena allocation (DeviceMemory::AllocatePageAligned). Host and
// kernels then read and write the same bytes at every moment, as with a
// GPU's mapped pinned memory; the alias is what cudaHostGetDevicePointer
// returns (cudaDevAttrCanUseHostPointerForRegisteredMem is 0, so programs
// must ask for it, as the CUDA documentation says). A page shared by two
// registrations is re-backed once (the table of re-backed pages below).
// Unregistering maps fresh zero pages over the alias before the arena frees
// it; the host pages stay memfd-backed (same contents, still private to the
// process). Refused: ranges in shared mappings (cudaErrorNotSupported: a
// MAP_SHARED file would stop being written through), unmapped pages
// (cudaErrorInvalidValue).
#include "ptx_emulator/runtime/host_register.h"

#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include "ptx_emulator/runtime/cuda_api.h"
#include "ptx_emulator/runtime/runtime_state.h"
#include "ptx_emulator/runtime/stream_order.h"

namespace barracuda::cudart {
namespace {

using Kind = emu::DeviceMemory::Kind;
constexpr uint64_t kPage = emu::DeviceMemory::kPageBytes;
constexpr unsigned kAllFlags = cudaHostRegisterPortable | cudaHostRegisterMapped | cudaHostRegisterIoMemory |
                               cudaHostRegisterReadOnly;

struct File {
  int fd = -1;
  ~File() {
    if (fd >= 0) close(fd);
  }
};
struct Page {
  std::shared_ptr<File> file;  // the memfd now backing this host page
  uint64_t offset = 0;         // its offset in the file
  int refs = 0;                // registrations using it
};

struct Registrations {
  std::mutex mu;
  std::map<uint64_t, HostRegistration> by_host;  // host base -> registration
  std::map<uint64_t, uint64_t> by_device;        // device base -> host base
  std::map<uint64_t, Page> pages;                // re-backed host pages
};
Registrations& Registered() {
  static Registrations* s = new Registrations;  // never destroyed: used from atexit paths
  return *s;
}

// One mapping of /proc/self/maps.
struct Segment {
  uint64_t lo = 0, hi = 0;
  int prot = 0;
  bool shared = false;
};
std::vector<Segment> Segments(uint64_t lo, uint64_t hi) {
  std::vector<Segment> out;
  FILE* f = std::fopen("/proc/self/maps", "r");
  if (!f) return out;
  char line[512];
  while (std::fgets(line, sizeof line, f)) {
    unsigned long long a = 0, b = 0;
    char perms[8] = {};
    if (std::sscanf(line, "%llx-%llx %7s", &a, &b, perms) != 3) continue;
    if (b <= lo || a >= hi) continue;
    Segment s{a, b, 0, perms[3] == 's'};
    if (perms[0] == 'r') s.prot |= PROT_READ;
    if (perms[1] == 'w') s.prot |= PROT_WRITE;
    if (perms[2] == 'x') s.prot |= PROT_EXEC;
    out.push_back(s);
  }
  std::fclose(f);
  return out;
}

template <typename T>
std::optional<HostRegistration> Containing(const std::map<uint64_t, T>& m, uint64_t p,
                                           const std::map<uint64_t, HostRegistration>& regs) {
  auto it = m.upper_bound(p);
  if (it == m.begin()) return std::nullopt;
  --it;
  const HostRegistration* r = nullptr;
  if constexpr (std::is_same_v<T, HostRegistration>) {
    r = &it->second;
    if (p - r->host >= r->size) return std::nullopt;
  } else {
    r = &regs.at(it->second);
    if (p - r->device >= r->size) return std::nullopt;
  }
  return *r;
}

// Re-backs the host pages of [lo, hi) not yet re-backed; mu held.
cudaError_t Reback(Registrations& s, uint64_t lo, uint64_t hi, const std::vector<Segment>& segments) {
  uint64_t page = lo;
  while (page < hi) {
    if (s.pages.count(page)) {
      page += kPage;
      continue;
    }
    uint64_t end = page;
    while (end < hi && !s.pages.count(end)) end += kPage;
    // [page, end): one new file.
    auto file = std::make_shared<File>();
    file->fd = memfd_create("barracuda-host-register", MFD_CLOEXEC);
    if (file->fd < 0 || ftruncate(file->fd, static_cast<off_t>(end - page)) != 0) return cudaErrorMemoryAllocation;
    for (const Segment& seg : segments) {
      const uint64_t a = std::max(seg.lo, page), b = std::min(seg.hi, end);
      if (a >= b) continue;
      const off_t off = static_cast<off_t>(a - page);
      // Unreadable pages cannot be copied: refused before (cudaErrorInvalidValue).
      // The raw system call: whole pages hold the neighbours of the range too
      // (heap chunk headers; AddressSanitizer's redzones, which its pwrite
      // interceptor would report as an overflow).
      if (syscall(SYS_pwrite64, file->fd, reinterpret_cast<const void*>(a), b - a, off) !=
          static_cast<long>(b - a))
        return cudaErrorMemoryAllocation;
      if (mmap(reinterpret_cast<void*>(a), b - a, seg.prot, MAP_SHARED | MAP_FIXED, file->fd, off) == MAP_FAILED)
        return cudaErrorMemoryAllocation;
    }
    for (uint64_t p = page; p < end; p += kPage) s.pages[p] = Page{file, p - page, 0};
    page = end;
  }
  return cudaSuccess;
}

// Maps the file pages behind host pages [lo, hi) at `alias`; mu held.
bool MapAlias(Registrations& s, uint64_t lo, uint64_t hi, uint64_t alias) {
  uint64_t page = lo;
  while (page < hi) {
    const Page& first = s.pages.at(page);
    uint64_t end = page + kPage;
    while (end < hi) {
      const Page& next = s.pages.at(end);
      if (next.file != first.file || next.offset != first.offset + (end - page)) break;
      end += kPage;
    }
    if (mmap(reinterpret_cast<void*>(alias + (page - lo)), end - page, PROT_READ | PROT_WRITE,
             MAP_SHARED | MAP_FIXED, first.file->fd, static_cast<off_t>(first.offset)) == MAP_FAILED)
      return false;
    page = end;
  }
  return true;
}

// Fresh zero pages over an alias (the arena's own kind of mapping).
void UnmapAlias(uint64_t alias, uint64_t bytes) {
  mmap(reinterpret_cast<void*>(alias), bytes, PROT_READ | PROT_WRITE,
       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1, 0);
}

void DropPages(Registrations& s, uint64_t lo, uint64_t hi) {
  for (uint64_t p = lo; p < hi; p += kPage) {
    auto it = s.pages.find(p);
    if (it != s.pages.end() && --it->second.refs <= 0) s.pages.erase(it);
  }
}

cudaError_t Register(void* ptr, size_t size, unsigned flags) {
  Runtime& rt = Runtime::Get();
  if (cudaError_t e = rt.sticky()) return rt.Fail(e);
  if (!ptr || size == 0 || (flags & ~kAllFlags) != 0) return rt.Fail(cudaErrorInvalidValue);
  const uint64_t host = reinterpret_cast<uint64_t>(ptr);
  if (host + size < host) return rt.Fail(cudaErrorInvalidValue);
  emu::DeviceMemory& memory = rt.device().memory();
  // Memory of the arena: cudaHostAlloc'd memory is registered already.
  if (memory.InRange(host, 1)) {
    auto a = memory.Find(host);
    return rt.Fail(a && a->kind == Kind::kHost ? cudaErrorHostMemoryAlreadyRegistered : cudaErrorInvalidValue);
  }
  const uint64_t lo = host & ~(kPage - 1), hi = (host + size + kPage - 1) & ~(kPage - 1);
  Registrations& s = Registered();
  std::lock_guard<std::mutex> lock(s.mu);
  // Overlapping a registration: the first one starting before the end.
  if (auto it = s.by_host.lower_bound(host + size); it != s.by_host.begin()) {
    const HostRegistration& r = std::prev(it)->second;
    if (r.host + r.size > host) return rt.Fail(cudaErrorHostMemoryAlreadyRegistered);
  }
  const std::vector<Segment> segments = Segments(lo, hi);
  uint64_t covered = lo;
  for (const Segment& seg : segments) {
    if (seg.lo > covered || !(seg.prot & PROT_READ)) return rt.Fail(cudaErrorInvalidValue);  // a hole
    // Shared: refused unless it is pages this file re-backed already.
    bool ours = seg.shared;
    for (uint64_t p = std::max(seg.lo, lo); ours && p < std::min(seg.hi, hi); p += kPage) ours = s.pages.count(p) > 0;
    if (seg.shared && !ours) {
      PrintDiagnostic("cudaHostRegister of memory in a shared mapping is not supported by the emulator backend");
      return rt.Fail(cudaErrorNotSupported);
    }
    covered = std::max(covered, seg.hi);
  }
  if (covered < hi) return rt.Fail(cudaErrorInvalidValue);
  if (cudaError_t e = Reback(s, lo, hi, segments)) return rt.Fail(e);
  auto alias = memory.AllocatePageAligned(size, host - lo, Kind::kHost);
  if (!alias.ok()) return rt.Fail(cudaErrorMemoryAllocation);
  const uint64_t device = reinterpret_cast<uint64_t>(*alias);
  const uint64_t alias_lo = device - (host - lo);
  if (!MapAlias(s, lo, hi, alias_lo)) {
    UnmapAlias(alias_lo, hi - lo);
    (void)memory.Free(*alias);
    return rt.Fail(cudaErrorMemoryAllocation);
  }
  for (uint64_t p = lo; p < hi; p += kPage) ++s.pages.at(p).refs;
  s.by_host[host] = HostRegistration{host, size, device, flags};
  s.by_device[device] = host;
  if (emu::ShmRecordSink* sink = rt.session_sink())
    sink->OnAllocation(device, size, transport::AllocationKind::kHostMapped, "cudaHostRegister");
  // The host accesses the range itself, kernels the alias (host_access_watch.h);
  // read-only pages are left alone (protecting and reopening them would make
  // them writable).
  bool writable = true;
  for (const Segment& seg : segments) writable &= (seg.prot & PROT_WRITE) != 0;
  if (writable) NoteHostAccessibleMemory(host, size, device);
  return cudaSuccess;
}

cudaError_t Unregister(void* ptr) {
  Runtime& rt = Runtime::Get();
  if (cudaError_t e = rt.sticky()) return rt.Fail(e);
  Registrations& s = Registered();
  std::lock_guard<std::mutex> lock(s.mu);
  auto it = s.by_host.find(reinterpret_cast<uint64_t>(ptr));
  if (!ptr || it == s.by_host.end()) return rt.Fail(cudaErrorHostMemoryNotRegistered);
  const HostRegistration r = it->second;
  ForgetHostAccessibleMemory(r.host);
  const uint64_t lo = r.host & ~(kPage - 1), hi = (r.host + r.size + kPage - 1) & ~(kPage - 1);
  UnmapAlias(r.device - (r.host - lo), hi - lo);
  (void)rt.device().memory().Free(reinterpret_cast<void*>(r.device));
  if (emu::ShmRecordSink* sink = rt.session_sink()) sink->OnFree(r.device);
  DropPages(s, lo, hi);
  s.by_device.erase(r.device);
  s.by_host.erase(it);
  return cudaSuccess;
}

}  // namespace

std::optional<HostRegistration> FindHostRegistration(const void* p) {
  Registrations& s = Registered();
  std::lock_guard<std::mutex> lock(s.mu);
  return Containing(s.by_host, reinterpret_cast<uint64_t>(p), s.by_host);
}

std::optional<HostRegistration> FindHostRegistrationByDevice(const void* p) {
  Registrations& s = Registered();
  std::lock_guard<std::mutex> lock(s.mu);
  return Containing(s.by_device, reinterpret_cast<uint64_t>(p), s.by_host);
}

void ForgetHostRegistrations() {
  Registrations& s = Registered();
  std::lock_guard<std::mutex> lock(s.mu);
  for (const auto& [host, r] : s.by_host) {
    const uint64_t lo = r.host & ~(kPage - 1), hi = (r.host + r.size + kPage - 1) & ~(kPage - 1);
    DropPages(s, lo, hi);
  }
  s.by_host.clear();
  s.by_device.clear();
}

}  // namespace barracuda::cudart

CUDART_EXPORT cudaError_t cudaHostRegister(void* ptr, size_t size, unsigned int flags) {
  return barracuda::cudart::Register(ptr, size, flags);
}
CUDART_EXPORT cudaError_t cudaHostUnregister(void* ptr) { return barracuda::cudart::Unregister(ptr); }
