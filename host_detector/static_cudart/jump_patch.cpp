#include "host_detector/static_cudart/jump_patch.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace barracuda::static_cudart {
namespace {

constexpr int64_t kRel32Reach = (int64_t{1} << 31) - 4096;

void EncodeAbsoluteJump(uint8_t* at, uintptr_t target) {
  at[0] = 0xff;  // jmp *0(%rip): the 8-byte address follows the instruction
  at[1] = 0x25;
  std::memset(at + 2, 0, 4);
  std::memcpy(at + 6, &target, sizeof target);
}

void EncodeRelativeJump(uint8_t* at, uintptr_t target) {
  const int32_t rel = static_cast<int32_t>(static_cast<int64_t>(target) - static_cast<int64_t>(reinterpret_cast<uintptr_t>(at) + 5));
  at[0] = 0xe9;  // jmp rel32
  std::memcpy(at + 1, &rel, sizeof rel);
}

bool InReach(uintptr_t from, uintptr_t to) {
  const int64_t d = static_cast<int64_t>(to) - static_cast<int64_t>(from);
  return d > -kRel32Reach && d < kRel32Reach;
}

// A fresh page within rel32 reach of [lo, hi): the kernel is asked for fixed
// addresses below and above the range until one is free.
absl::StatusOr<uint8_t*> MapNear(uintptr_t lo, uintptr_t hi, size_t bytes) {
  const uintptr_t step = uintptr_t{1} << 24;  // 16 MiB
  for (uintptr_t k = 1; k < 120; ++k) {
    for (const uintptr_t hint : {(hi + k * step) & ~(step - 1), lo > k * step ? (lo - k * step) & ~(step - 1) : 0}) {
      if (hint == 0 || !InReach(lo, hint) || !InReach(hi, hint + bytes)) continue;
      void* p = mmap(reinterpret_cast<void*>(hint), bytes, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
      if (p == MAP_FAILED) continue;
      if (reinterpret_cast<uintptr_t>(p) != hint) {  // an old kernel ignored the flag
        munmap(p, bytes);
        continue;
      }
      return static_cast<uint8_t*>(p);
    }
  }
  return absl::ResourceExhaustedError("no free page within 2 GiB of the code to patch (for trampolines)");
}

}  // namespace

absl::StatusOr<PatchOutcome> WriteJumps(std::span<const JumpSite> sites) {
#if !defined(__x86_64__)
  (void)sites;
  return absl::UnimplementedError("redirecting a statically linked CUDA runtime is implemented for x86-64 only");
#else
  PatchOutcome out;
  std::vector<const JumpSite*> absolute, relative;
  for (const JumpSite& s : sites) {
    if (s.size >= kAbsoluteJumpBytes) absolute.push_back(&s);
    else if (s.size >= kRelativeJumpBytes) relative.push_back(&s);
    else out.too_small.push_back(s.name);
  }
  if (absolute.empty() && relative.empty()) return out;

  // Trampolines for the short functions: one 16-byte slot each.
  uint8_t* trampolines = nullptr;
  size_t trampoline_bytes = 0;
  const long page = sysconf(_SC_PAGESIZE);
  if (!relative.empty()) {
    uintptr_t lo = UINTPTR_MAX, hi = 0;
    for (const JumpSite* s : relative) {
      lo = std::min(lo, s->address);
      hi = std::max(hi, s->address + s->size);
    }
    trampoline_bytes = (relative.size() * 16 + page - 1) / page * page;
    absl::StatusOr<uint8_t*> mapped = MapNear(lo, hi, trampoline_bytes);
    if (!mapped.ok()) return mapped.status();
    trampolines = *mapped;
    for (size_t i = 0; i < relative.size(); ++i) EncodeAbsoluteJump(trampolines + 16 * i, relative[i]->target);
    if (mprotect(trampolines, trampoline_bytes, PROT_READ | PROT_EXEC) != 0)
      return absl::PermissionDeniedError(absl::StrCat("mprotect(trampolines): ", std::strerror(errno)));
  }

  // Make every page that holds a site writable, write, restore.
  std::vector<uintptr_t> pages;
  auto add_pages = [&](const JumpSite* s, uint64_t bytes) {
    for (uintptr_t p = s->address & ~uintptr_t(page - 1); p < s->address + bytes; p += page) pages.push_back(p);
  };
  for (const JumpSite* s : absolute) add_pages(s, kAbsoluteJumpBytes);
  for (const JumpSite* s : relative) add_pages(s, kRelativeJumpBytes);
  std::sort(pages.begin(), pages.end());
  pages.erase(std::unique(pages.begin(), pages.end()), pages.end());
  for (uintptr_t p : pages) {
    if (mprotect(reinterpret_cast<void*>(p), page, PROT_READ | PROT_WRITE | PROT_EXEC) != 0)
      return absl::PermissionDeniedError(
          absl::StrCat("mprotect(RWX) on the program's code at 0x", absl::Hex(p), ": ", std::strerror(errno)));
  }
  for (const JumpSite* s : absolute) EncodeAbsoluteJump(reinterpret_cast<uint8_t*>(s->address), s->target);
  for (size_t i = 0; i < relative.size(); ++i) {
    if (!InReach(relative[i]->address, reinterpret_cast<uintptr_t>(trampolines + 16 * i)))
      return absl::InternalError(absl::StrCat("trampoline out of reach of ", relative[i]->name));
    EncodeRelativeJump(reinterpret_cast<uint8_t*>(relative[i]->address),
                       reinterpret_cast<uintptr_t>(trampolines + 16 * i));
  }
  for (uintptr_t p : pages) {
    if (mprotect(reinterpret_cast<void*>(p), page, PROT_READ | PROT_EXEC) != 0)
      return absl::PermissionDeniedError(absl::StrCat("mprotect(RX): ", std::strerror(errno)));
  }
  out.patched = absolute.size() + relative.size();
  return out;
#endif
}

}  // namespace barracuda::static_cudart
