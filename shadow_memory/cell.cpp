#include "shadow_memory/cell.h"

#include <thread>

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

// Cells are held for a few dozen instructions, so spin briefly before giving
// the core away (the machine may have fewer cores than workers).
void Cell::LockSlow() {
  for (int spins = 0;; ++spins) {
    if (TryLock()) return;
    if (spins < 64) {
      CpuRelax();
    } else {
      std::this_thread::yield();
    }
  }
}

}  // namespace barracuda::shadow
