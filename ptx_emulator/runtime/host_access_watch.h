// Host (CPU) reads and writes of host-accessible device memory while a kernel
// may still run (issue 18 item 2): managed memory (cudaMallocManaged,
// __managed__), page-locked mapped memory (cudaMallocHost / cudaHostAlloc)
// and cudaHostRegister'd ranges. The emulator runs a kernel inside its launch
// call, so the host never overlaps it here; on a GPU it does until the host
// synchronises (stream_order.h says when).
//
// Mechanism: while a kernel launched in a barracuda session is not ordered
// before the host ("outstanding"), the pages of every armed watched region
// are mprotect'ed PROT_NONE. A region is armed by a launch whose parameters
// hold a pointer into it (ArmReferenced), by an asynchronous copy or set whose
// bytes lie in it (ArmRange: the copy is outstanding like a kernel), and
// __managed__ variables always are: protecting every region would make a system call that fills another
// buffer (read(2) into the next pinned buffer while a kernel works on this
// one, a legitimate pipeline) fail with EFAULT. A kernel that reaches a
// region only through pointers stored in memory is not watched for. The SIGSEGV handler records the access (the bytes of
// the region on the faulting page, read or write, the faulting PC and the
// calling frames), opens the page (PROT_READ after a read, so that a later
// write faults again; read-write after a write) and lets the program go on.
// The runtime turns the records into host-access stream operations
// (stream_order.cpp) that the daemon compares with the kernels' footprints.
//
// Approximations (documented in runtime/README.md):
// - a page is watched once per protection period: the host side is the whole
//   part of the region on that page (a kernel touching other bytes of the
//   same page of the same allocation is reported; another allocation on the
//   page is not); the faulting byte is known exactly (Access::exact) and a
//   report names it when the other side touched it;
// - accesses from the runtime itself (its frames are on the stack: copies,
//   the emulator's workers) open the page without a record; a host
//   function's are recorded (HostFunctionScope);
//   while the runtime works (Pause) nothing is protected, so another host
//   thread's accesses in that time are not seen;
// - system calls that read or write a protected page (read(2) into managed
//   memory) fail with EFAULT instead of faulting: only into a buffer that an
//   unsynchronised kernel was passed, where such an access races anyway;
// - read versus write is exact on x86-64 (the page-fault error code);
//   elsewhere every access counts as a write.
#ifndef BARRACUDA_PTX_EMULATOR_RUNTIME_HOST_ACCESS_WATCH_H_
#define BARRACUDA_PTX_EMULATOR_RUNTIME_HOST_ACCESS_WATCH_H_

#include <cstddef>
#include <cstdint>
#include <vector>

namespace barracuda::cudart::host_access {

// At most this many regions are watched at once (more are not: their host
// accesses go unseen) and this many accesses wait between two flushes.
inline constexpr int kMaxRegions = 1024;
inline constexpr int kMaxAccesses = 512;
inline constexpr int kMaxFrames = 12;

struct Access {
  uint64_t device = 0, size = 0;  // the bytes, as kernels address them
  uint64_t exact = 0;             // the byte whose fault caught the access (the rest: its page)
  bool write = false;
  bool host_function = false;     // by the thread running a host function (HostFunctionScope)
  int frames = 0;
  uint64_t pc[kMaxFrames] = {};   // pc[0] the faulting instruction, then return addresses
};

// `host`: the bytes the host touches; `device`: the same bytes for kernels
// (equal except for cudaHostRegister'd ranges). Regions are whole pages of
// host memory that is readable and writable.
// `always`: armed whatever the launches' parameters (__managed__ variables).
void Watch(uint64_t host, uint64_t size, uint64_t device, bool always = false);
// Arms the regions whose device bytes hold one of `words` (a launch's
// parameter words): protected from now until the host synchronises.
void ArmReferenced(const uint64_t* words, size_t n);
// Arms the regions overlapping the device bytes [device, device + size): the
// host side of an asynchronous copy or set (the DMA reads or writes them until
// the host is ordered after it). Returns whether one overlaps.
bool ArmRange(uint64_t device, uint64_t size);
void Unwatch(uint64_t host);
void UnwatchAll();  // cudaDeviceReset

// Whether some kernel is not ordered before the host: pages are protected
// when it is and no Pause is alive.
void SetOutstanding(bool outstanding);

// While alive, nothing is protected: the runtime and the emulator's workers
// touch the memory (a launch, a copy, a set).
class Pause {
 public:
  Pause();
  ~Pause();
  Pause(const Pause&) = delete;
  Pause& operator=(const Pause&) = delete;
};

// While alive, this thread runs a host function (cudaLaunchHostFunc, a stream
// callback, a graph host node): every watched region is protected, armed or
// not (on a GPU the function runs whenever its stream gets to it, possibly
// beside work issued later on other streams), even inside a Pause (a graph
// launch), and this thread's faults are recorded (Access::host_function)
// although the runtime's frames are below them. One at a time: a scope made
// while another is alive is inactive, and its thread's faults only open the
// page (its function's accesses go unseen; up to 8 such threads, beyond
// which they would count as the host's own).
class HostFunctionScope {
 public:
  HostFunctionScope();
  ~HostFunctionScope();
  HostFunctionScope(const HostFunctionScope&) = delete;
  HostFunctionScope& operator=(const HostFunctionScope&) = delete;
  bool active() const { return active_; }

 private:
  bool active_ = false;
  int unchecked_slot_ = -1;  // inactive: its thread's slot among the unchecked ones
};

// The accesses recorded since the last call, in order; `dropped` counts those
// lost to a full buffer.
std::vector<Access> Take(uint64_t* dropped = nullptr);

// Tests: the code whose faults are the runtime's own (by default this
// library's text, found when the handler is installed).
void SetRuntimeTextForTesting(uint64_t lo, uint64_t hi);

}  // namespace barracuda::cudart::host_access

#endif  // BARRACUDA_PTX_EMULATOR_RUNTIME_HOST_ACCESS_WATCH_H_
