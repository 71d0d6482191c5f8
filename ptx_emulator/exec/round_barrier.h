// The barrier that ends each phase of a deterministic round
// (deterministic_rounds.cpp): rounds are short (a quantum per warp), so
// waiters spin briefly, then yield, then sleep on the generation word.
#ifndef BARRACUDA_PTX_EMULATOR_EXEC_ROUND_BARRIER_H_
#define BARRACUDA_PTX_EMULATOR_EXEC_ROUND_BARRIER_H_

#include <sched.h>

#include <atomic>
#include <cstdint>

namespace barracuda::emu {

class RoundBarrier {
 public:
  explicit RoundBarrier(uint32_t threads) : threads_(threads) {}
  // Returns once all `threads` called Wait for this generation. Everything a
  // thread wrote before Wait is visible to every thread after it.
  void Wait() {
    if (threads_ <= 1) return;
    const uint32_t gen = generation_.load(std::memory_order_acquire);
    if (arrived_.fetch_add(1, std::memory_order_acq_rel) + 1 == threads_) {
      arrived_.store(0, std::memory_order_relaxed);
      generation_.store(gen + 1, std::memory_order_release);
      generation_.notify_all();
      return;
    }
    for (uint32_t i = 0; generation_.load(std::memory_order_acquire) == gen; ++i) {
      if (i < kSpins) {
#if defined(__x86_64__) || defined(__i386__)
        __builtin_ia32_pause();
#endif
      } else if (i < kSpins + kYields) {
        sched_yield();
      } else {
        generation_.wait(gen, std::memory_order_acquire);
      }
    }
  }

 private:
  static constexpr uint32_t kSpins = 4096;
  static constexpr uint32_t kYields = 256;
  const uint32_t threads_;
  std::atomic<uint32_t> arrived_{0};
  std::atomic<uint32_t> generation_{0};
};

}  // namespace barracuda::emu

#endif  // BARRACUDA_PTX_EMULATOR_EXEC_ROUND_BARRIER_H_
