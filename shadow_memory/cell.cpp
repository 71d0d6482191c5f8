#include "shadow_memory/cell.h"

#include <sys/mman.h>

#include <new>
#include <thread>

#include "shadow_memory/lazy_mapping.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace barracuda::shadow {

namespace {
inline void CpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
  _mm_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}
}  // namespace

// Stripes are held for a few dozen instructions, so spin briefly before
// giving the core away (the machine may have fewer cores than workers).
void LockStripe(StripeLock& lock) {
  for (int spins = 0;; ++spins) {
    if (TryLockStripe(lock)) return;
    if (spins < 64) {
      CpuRelax();
    } else {
      std::this_thread::yield();
    }
  }
}

OwnedCells::OwnedCells(size_t n) : n_(n) {
  assert(n <= kMaxCellsPerArray / 2);
  // [write halves][stripe locks] ... [read halves at kReadHalfOffset]
  const size_t locks = (n + kCellsPerLock - 1) / kCellsPerLock;
  bytes_ = kReadHalfOffset + n * kCellHalfSize;
  mapping_ = MapZeroed(bytes_);
  if (mapping_ == nullptr) throw std::bad_alloc();
  locks_ = reinterpret_cast<StripeLock*>(static_cast<char*>(mapping_) + n * kCellHalfSize);
  assert(n * kCellHalfSize + locks <= kReadHalfOffset);
  (void)locks;
}

OwnedCells::~OwnedCells() { munmap(mapping_, bytes_); }

}  // namespace barracuda::shadow
