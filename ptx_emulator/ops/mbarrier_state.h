// The emulator's encoding of an mbarrier object (8 bytes of shared memory,
// opaque to programs) and its read-modify-write steps, shared by the mbarrier
// instructions (mbarrier_ops.cpp) and cp.async.mbarrier.arrive
// (async_copy_ops.cpp).
//
//   bits  0..20  pending arrivals of the current phase
//   bits 21..41  expected arrivals per phase (init count, less arrive_drop)
//   bits 42..62  tx-count, 21-bit two's complement (expect_tx adds,
//                complete_tx subtracts; the PTX range is +-(2^20 - 1))
//   bit  63      the current phase's parity
//
// A phase completes when its pending arrivals and its tx-count are both zero:
// the parity flips and pending arrivals start again at the expected count.
// The state token that mbarrier.arrive returns is the object after the
// arrival with the arrival's phase parity: test_wait compares parities and
// pending_count reads the pending field.
#ifndef BARRACUDA_PTX_EMULATOR_OPS_MBARRIER_STATE_H_
#define BARRACUDA_PTX_EMULATOR_OPS_MBARRIER_STATE_H_

#include <atomic>
#include <cstdint>

namespace barracuda::emu::mbar {

inline constexpr uint64_t kCountMask = (uint64_t{1} << 21) - 1;
inline constexpr uint32_t kMaxCount = (1u << 20) - 1;  // PTX: counts in [1, 2^20 - 1]

constexpr uint32_t Pending(uint64_t s) { return static_cast<uint32_t>(s & kCountMask); }
constexpr uint32_t Expected(uint64_t s) { return static_cast<uint32_t>((s >> 21) & kCountMask); }
constexpr int32_t Tx(uint64_t s) {
  const uint32_t raw = static_cast<uint32_t>((s >> 42) & kCountMask);
  return (raw & (1u << 20)) != 0 ? static_cast<int32_t>(raw) - (1 << 21) : static_cast<int32_t>(raw);
}
constexpr uint32_t Parity(uint64_t s) { return static_cast<uint32_t>(s >> 63); }
constexpr uint64_t Make(uint32_t pending, uint32_t expected, int32_t tx, uint32_t parity) {
  return (uint64_t{pending} & kCountMask) | (uint64_t{expected} & kCountMask) << 21 |
         (static_cast<uint64_t>(static_cast<uint32_t>(tx)) & kCountMask) << 42 | uint64_t{parity & 1} << 63;
}
constexpr uint64_t Init(uint32_t count) { return Make(count, count, 0, 0); }

// One step on the object: `arrivals` arrive (pending -= arrivals; with `drop`
// the expected count shrinks too), then `tx` is added to the tx-count
// (expect_tx > 0, complete_tx < 0). Returns the new object; `*token` gets
// the state token of the arrival.
constexpr uint64_t Step(uint64_t s, uint32_t arrivals, bool drop, int32_t tx, uint64_t* token) {
  uint32_t pending = Pending(s), expected = Expected(s), parity = Parity(s);
  int32_t count = Tx(s) + tx;
  pending = arrivals > pending ? 0 : pending - arrivals;  // more arrivals than pending: undefined in PTX
  if (drop) expected = arrivals > expected ? 0 : expected - arrivals;
  if (token != nullptr) *token = Make(pending, expected, count, parity);
  if (pending == 0 && count == 0 && (arrivals != 0 || tx != 0)) {
    parity ^= 1;  // the phase completes
    pending = expected;
  }
  return Make(pending, expected, count, parity);
}

// Step as an atomic read-modify-write of the object at `p`; returns the token.
inline uint64_t AtomicStep(uint8_t* p, uint32_t arrivals, bool drop, int32_t tx) {
  std::atomic_ref<uint64_t> ref(*reinterpret_cast<uint64_t*>(p));
  uint64_t old = ref.load(std::memory_order_relaxed), token = 0;
  while (!ref.compare_exchange_weak(old, Step(old, arrivals, drop, tx, &token), std::memory_order_seq_cst,
                                    std::memory_order_relaxed)) {
  }
  return token;
}

// Has the phase that `token` (or parity `parity`) was taken in completed?
inline bool PhaseDone(uint64_t object, uint32_t parity) { return Parity(object) != (parity & 1); }

}  // namespace barracuda::emu::mbar

#endif  // BARRACUDA_PTX_EMULATOR_OPS_MBARRIER_STATE_H_
