#include "ptx_emulator/runtime/host_access_watch.h"

#include <dlfcn.h>
#include <execinfo.h>
#include <link.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <mutex>

namespace barracuda::cudart::host_access {
namespace {

constexpr uint64_t kOsPage = 4096;
uint64_t PageDown(uint64_t a) { return a & ~(kOsPage - 1); }
uint64_t PageUp(uint64_t a) { return (a + kOsPage - 1) & ~(kOsPage - 1); }
// The whole pages holding [host, host + size).
void ProtectPages(uint64_t host, uint64_t size, int prot) {
  const uint64_t lo = PageDown(host);
  mprotect(reinterpret_cast<void*>(lo), PageUp(host + size) - lo, prot);
}

// The handler reads these without a lock: a slot is published by its size
// (stored last) and retired by zeroing it; protection is removed before.
struct Region {
  std::atomic<uint64_t> host{0}, size{0}, device{0};
  // Protected while kernels are outstanding only if armed: a kernel since the
  // last synchronisation was passed a pointer into it, or it is a __managed__
  // variable (kernels name those directly). g_mu guards both.
  bool armed = false, always = false;
};
Region g_regions[kMaxRegions];

// Accesses: a spin lock, since the handler may not block on a mutex; the
// holder never faults on watched memory while holding it.
std::atomic_flag g_access_lock = ATOMIC_FLAG_INIT;
Access g_accesses[kMaxAccesses];
int g_access_count = 0;
uint64_t g_dropped = 0;

// This library's text: a fault with one of its frames on the stack is the
// runtime's own access (a copy, the emulator's workers), except on the
// thread running a host function.
uint64_t g_self_lo = 0, g_self_hi = 0;
// The thread (kernel id: gettid is async-signal-safe) running a host
// function, 0 when none does.
std::atomic<long> g_host_function_thread{0};
// Threads running a host function while another one is checked (an inactive
// HostFunctionScope): their faults only open the page, as the runtime's do,
// rather than count as the host's own accesses.
constexpr int kMaxUncheckedFunctions = 8;
std::atomic<long> g_unchecked_function_threads[kMaxUncheckedFunctions];
bool Unchecked(long thread) {
  for (const std::atomic<long>& t : g_unchecked_function_threads)
    if (t.load(std::memory_order_relaxed) == thread) return true;
  return false;
}

// What is protected: nothing, the armed regions (kernels or asynchronous
// copies are outstanding), or every region (a host function runs).
enum class Mode { kOpen, kArmed, kAll };

std::mutex g_mu;  // protection state (not used by the handler)
Mode g_mode = Mode::kOpen;
bool g_outstanding = false, g_installed = false;
int g_pause_depth = 0;
struct sigaction g_previous {};

bool InSelf(uint64_t pc) { return pc >= g_self_lo && pc < g_self_hi; }
long ThisThread() { return syscall(SYS_gettid); }
bool Protects(const Region& r) { return g_mode == Mode::kAll || (g_mode == Mode::kArmed && r.armed); }  // g_mu held

// Chains to the handler that was there before (or the default action, which
// re-executing the access then takes).
void Chain(int sig, siginfo_t* info, void* context) {
  if (g_previous.sa_flags & SA_SIGINFO) {
    if (g_previous.sa_sigaction != nullptr) return g_previous.sa_sigaction(sig, info, context);
  } else if (g_previous.sa_handler != SIG_DFL && g_previous.sa_handler != SIG_IGN) {
    return g_previous.sa_handler(sig);
  }
  signal(sig, SIG_DFL);  // the access faults again and the process dies as it would have
}

void Record(uint64_t lo, uint64_t hi, uint64_t device, uint64_t exact, bool write, bool host_function,
            const uint64_t* pcs, int n) {
  while (g_access_lock.test_and_set(std::memory_order_acquire)) {
  }
  // A loop over an array faults page after page at the same code: one entry.
  if (g_access_count > 0) {
    Access& last = g_accesses[g_access_count - 1];
    if (last.write == write && last.host_function == host_function && last.frames == n && std::memcmp(last.pc, pcs, sizeof(uint64_t) * n) == 0 &&
        last.device + last.size == device) {
      last.size += hi - lo;
      g_access_lock.clear(std::memory_order_release);
      return;
    }
  }
  if (g_access_count == kMaxAccesses) {
    ++g_dropped;
  } else {
    Access& a = g_accesses[g_access_count++];
    a.device = device;
    a.size = hi - lo;
    a.exact = exact;
    a.write = write;
    a.host_function = host_function;
    a.frames = n;
    std::memcpy(a.pc, pcs, sizeof(uint64_t) * n);
  }
  g_access_lock.clear(std::memory_order_release);
}

void OnSegv(int sig, siginfo_t* info, void* context) {
  const int saved_errno = errno;
  const uint64_t address = reinterpret_cast<uint64_t>(info->si_addr);
  const uint64_t page = PageDown(address);
  bool on_page = false;
  uint64_t lo = 0, hi = 0, device = 0, exact = 0;
  for (Region& r : g_regions) {
    const uint64_t size = r.size.load(std::memory_order_acquire);
    if (size == 0) continue;
    const uint64_t host = r.host.load(std::memory_order_relaxed);
    if (page < PageDown(host) || page >= PageUp(host + size)) continue;
    on_page = true;
    if (address >= host && address < host + size) {
      lo = std::max(host, page);
      hi = std::min(host + size, page + kOsPage);
      device = r.device.load(std::memory_order_relaxed) + (lo - host);
      exact = device + (address - lo);
      break;
    }
  }
  if (!on_page) return Chain(sig, info, context);
  bool write = true;  // unknown: counted as a write (a race with any kernel access)
  uint64_t pcs[kMaxFrames];
  int n = 0;
#if defined(__x86_64__)
  const auto* uc = static_cast<const ucontext_t*>(context);
  write = (uc->uc_mcontext.gregs[REG_ERR] & 2) != 0;  // page-fault error code: W/R
  pcs[n++] = static_cast<uint64_t>(uc->uc_mcontext.gregs[REG_RIP]);
#elif defined(__aarch64__)
  pcs[n++] = static_cast<const ucontext_t*>(context)->uc_mcontext.pc;
#endif
  // backtrace is safe here once warmed up (Install): it takes no lock the
  // faulting code can hold (the program's own code touches watched memory).
  void* frames[32];
  const int got = backtrace(frames, 32);
  int from = 0;  // frames after the faulting instruction's (the handler's own come first)
  for (int i = 0; i < got; ++i)
    if (n > 0 && reinterpret_cast<uint64_t>(frames[i]) == pcs[0]) from = i + 1;
  // A host function's frames are the program's, with the runtime's that
  // called it below them (they are left out when the frames are printed).
  const long fn_thread = g_host_function_thread.load(std::memory_order_relaxed);
  const long thread = fn_thread != 0 ? ThisThread() : 0;
  const bool host_function = fn_thread != 0 && fn_thread == thread;
  bool runtime = (n > 0 && InSelf(pcs[0])) || (fn_thread != 0 && !host_function && Unchecked(thread));
  for (int i = from; i < got; ++i) {
    const uint64_t pc = reinterpret_cast<uint64_t>(frames[i]);
    if (from == 0 && InSelf(pc)) continue;  // the handler's frames (faulting PC not found)
    if (!host_function) runtime |= InSelf(pc);
    if (n < kMaxFrames) pcs[n++] = pc;
  }
  mprotect(reinterpret_cast<void*>(page), kOsPage, write || runtime ? PROT_READ | PROT_WRITE : PROT_READ);
  if (!runtime && hi > lo) Record(lo, hi, device, exact, write, host_function, pcs, n);
  errno = saved_errno;
}

int FindSelf(dl_phdr_info* info, size_t, void*) {
  uint64_t lo = UINT64_MAX, hi = 0;
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& ph = info->dlpi_phdr[i];
    if (ph.p_type != PT_LOAD) continue;
    lo = std::min<uint64_t>(lo, info->dlpi_addr + ph.p_vaddr);
    hi = std::max<uint64_t>(hi, info->dlpi_addr + ph.p_vaddr + ph.p_memsz);
  }
  const uint64_t me = reinterpret_cast<uint64_t>(&FindSelf);
  if (me >= lo && me < hi) {
    g_self_lo = lo;
    g_self_hi = hi;
    return 1;
  }
  return 0;
}

// Before each protection: the program (or a library: crash reporters, test
// frameworks) may have installed its own SIGSEGV handler since; ours goes
// first again and chains to it for faults elsewhere.
void Install() {  // g_mu held
  if (!g_installed) {
    g_installed = true;
    if (g_self_hi == 0) dl_iterate_phdr(FindSelf, nullptr);
    void* warm[4];
    backtrace(warm, 4);  // loads the unwinder now, not in the handler
  }
  struct sigaction current {};
  sigaction(SIGSEGV, nullptr, &current);
  if ((current.sa_flags & SA_SIGINFO) && current.sa_sigaction == OnSegv) return;
  struct sigaction sa {};
  sa.sa_sigaction = OnSegv;
  sa.sa_flags = SA_SIGINFO | SA_RESTART;  // no SA_NODEFER: a fault in the handler kills
  sigemptyset(&sa.sa_mask);
  sigaction(SIGSEGV, &sa, &g_previous);
}

// The regions the mode protects get `prot` (pages shared with a region the
// mode does not protect included: open before protecting).
void Protect(int prot) {  // g_mu held
  for (Region& r : g_regions) {
    const uint64_t size = r.size.load(std::memory_order_relaxed);
    if (size == 0 || !Protects(r)) continue;
    ProtectPages(r.host.load(std::memory_order_relaxed), size, prot);
  }
}

void Update() {  // g_mu held: protect or open to match the state
  const Mode want = g_host_function_thread.load(std::memory_order_relaxed) != 0 ? Mode::kAll
                    : g_outstanding && g_pause_depth == 0                        ? Mode::kArmed
                                                                                 : Mode::kOpen;
  if (want == g_mode) return;
  if (want != Mode::kOpen) Install();
  Protect(PROT_READ | PROT_WRITE);
  g_mode = want;
  Protect(PROT_NONE);
}

}  // namespace

void Watch(uint64_t host, uint64_t size, uint64_t device, bool always) {
  if (size == 0) return;
  std::lock_guard<std::mutex> lock(g_mu);
  for (Region& r : g_regions) {
    if (r.size.load(std::memory_order_relaxed) != 0) continue;
    r.host.store(host, std::memory_order_relaxed);
    r.device.store(device, std::memory_order_relaxed);
    r.armed = r.always = always;
    r.size.store(size, std::memory_order_release);
    if (Protects(r)) ProtectPages(host, size, PROT_NONE);
    return;
  }
}

void ArmReferenced(const uint64_t* words, size_t n) {
  if (n == 0) return;
  std::lock_guard<std::mutex> lock(g_mu);
  for (Region& r : g_regions) {
    const uint64_t size = r.size.load(std::memory_order_relaxed);
    if (size == 0 || r.armed) continue;
    const uint64_t device = r.device.load(std::memory_order_relaxed);
    for (size_t i = 0; i < n && !r.armed; ++i) r.armed = words[i] - device < size;
    if (r.armed && g_mode == Mode::kArmed) ProtectPages(r.host.load(std::memory_order_relaxed), size, PROT_NONE);
  }
}

bool ArmRange(uint64_t device, uint64_t size) {
  if (size == 0) return false;
  std::lock_guard<std::mutex> lock(g_mu);
  bool any = false;
  for (Region& r : g_regions) {
    const uint64_t r_size = r.size.load(std::memory_order_relaxed);
    if (r_size == 0) continue;
    const uint64_t r_device = r.device.load(std::memory_order_relaxed);
    if (device >= r_device + r_size || r_device >= device + size) continue;
    any = true;
    if (r.armed) continue;
    r.armed = true;
    if (g_mode == Mode::kArmed) ProtectPages(r.host.load(std::memory_order_relaxed), r_size, PROT_NONE);
  }
  return any;
}

void Unwatch(uint64_t host) {
  std::lock_guard<std::mutex> lock(g_mu);
  for (Region& r : g_regions) {
    const uint64_t size = r.size.load(std::memory_order_relaxed);
    if (size == 0 || r.host.load(std::memory_order_relaxed) != host) continue;
    const bool protected_now = Protects(r);
    if (protected_now) ProtectPages(host, size, PROT_READ | PROT_WRITE);
    r.size.store(0, std::memory_order_release);
    // Pages shared with another region stay as the protection state says.
    if (protected_now) Protect(PROT_NONE);
    return;
  }
}

void UnwatchAll() {
  std::lock_guard<std::mutex> lock(g_mu);
  Protect(PROT_READ | PROT_WRITE);
  g_mode = Mode::kOpen;
  g_outstanding = false;
  for (Region& r : g_regions) r.size.store(0, std::memory_order_release);
}

void SetOutstanding(bool outstanding) {
  std::lock_guard<std::mutex> lock(g_mu);
  g_outstanding = outstanding;
  Update();
  if (!outstanding) {  // every kernel is ordered before the host: the next ones arm afresh
    for (Region& r : g_regions) r.armed = r.always;
  }
}

Pause::Pause() {
  std::lock_guard<std::mutex> lock(g_mu);
  ++g_pause_depth;
  Update();
}

Pause::~Pause() {
  std::lock_guard<std::mutex> lock(g_mu);
  --g_pause_depth;
  Update();
}

HostFunctionScope::HostFunctionScope() {
  std::lock_guard<std::mutex> lock(g_mu);
  if (g_host_function_thread.load(std::memory_order_relaxed) != 0) {  // another runs: this one is not checked
    for (std::atomic<long>& t : g_unchecked_function_threads) {
      if (t.load(std::memory_order_relaxed) != 0) continue;
      t.store(ThisThread(), std::memory_order_relaxed);
      unchecked_slot_ = static_cast<int>(&t - g_unchecked_function_threads);
      break;
    }
    return;
  }
  g_host_function_thread.store(ThisThread(), std::memory_order_relaxed);
  active_ = true;
  Update();
}

HostFunctionScope::~HostFunctionScope() {
  std::lock_guard<std::mutex> lock(g_mu);
  if (unchecked_slot_ >= 0) g_unchecked_function_threads[unchecked_slot_].store(0, std::memory_order_relaxed);
  if (!active_) return;
  g_host_function_thread.store(0, std::memory_order_relaxed);
  Update();
}

std::vector<Access> Take(uint64_t* dropped) {
  std::vector<Access> out;
  out.reserve(16);
  while (g_access_lock.test_and_set(std::memory_order_acquire)) {
  }
  const int n = g_access_count;
  if (static_cast<int>(out.capacity()) >= n) {
    out.assign(g_accesses, g_accesses + n);
    g_access_count = 0;
  }
  const uint64_t d = g_dropped;
  g_dropped = 0;
  g_access_lock.clear(std::memory_order_release);
  if (static_cast<int>(out.size()) < n) {  // more than reserved: allocate outside the lock, then copy
    std::vector<Access> big(kMaxAccesses);
    while (g_access_lock.test_and_set(std::memory_order_acquire)) {
    }
    big.assign(g_accesses, g_accesses + g_access_count);
    g_access_count = 0;
    g_access_lock.clear(std::memory_order_release);
    out = std::move(big);
  }
  if (dropped != nullptr) *dropped = d;
  return out;
}

void SetRuntimeTextForTesting(uint64_t lo, uint64_t hi) {
  std::lock_guard<std::mutex> lock(g_mu);
  g_self_lo = lo;
  g_self_hi = hi;
}

}  // namespace barracuda::cudart::host_access
