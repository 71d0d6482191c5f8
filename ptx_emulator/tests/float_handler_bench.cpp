// Per-handler cost of the float/conversion families: one warp instruction
// over 32 lanes (full mask, and a divergent mask), called through Inst::fn as
// the interpreter does. items_per_second = thread-instructions per second.
// The matrix-multiply target is 300 M thread-instructions/s per core for the
// whole interpreter (~100 ns per warp instruction including dispatch).
#include <benchmark/benchmark.h>

#include <bit>
#include <string>

#include "ptx_emulator/tests/float_test_harness.h"

namespace {

using barracuda::emu::kFullMask;
using barracuda::emu::testing::OneInst;

void Run(benchmark::State& state, const std::string& ptx, uint32_t exec) {
  OneInst x(ptx);
  if (!x.ok()) {
    state.SkipWithError("not selected");
    return;
  }
  x.Prepare({std::bit_cast<uint32_t>(1.25f), std::bit_cast<uint32_t>(-0.75f), std::bit_cast<uint32_t>(3.5f)});
  for (auto _ : state) {
    x.RunOnce(exec);
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()) * std::popcount(exec));
}

#define BARRACUDA_FLOAT_BENCH(name, ptx)                                                           \
  void BM_##name(benchmark::State& s) { Run(s, ptx, kFullMask); }                                  \
  void BM_##name##_divergent(benchmark::State& s) { Run(s, ptx, 0x5f5f5f5fu); }                   \
  BENCHMARK(BM_##name);                                                                            \
  BENCHMARK(BM_##name##_divergent);

BARRACUDA_FLOAT_BENCH(fma_rn_f32, "fma.rn.f32 %d, %a, %b, %c")
BARRACUDA_FLOAT_BENCH(add_f32, "add.f32 %d, %a, %b")
BARRACUDA_FLOAT_BENCH(mul_ftz_f32, "mul.ftz.f32 %d, %a, %b")
BARRACUDA_FLOAT_BENCH(add_rz_f32, "add.rz.f32 %d, %a, %b")
BARRACUDA_FLOAT_BENCH(div_rn_f32, "div.rn.f32 %d, %a, %b")
BARRACUDA_FLOAT_BENCH(ex2_approx_f32, "ex2.approx.ftz.f32 %d, %a")
BARRACUDA_FLOAT_BENCH(fma_rn_f16x2, "fma.rn.f16x2 %d, %a, %b, %c")
BARRACUDA_FLOAT_BENCH(cvt_rn_f32_s32, "cvt.rn.f32.s32 %d, %a")
BARRACUDA_FLOAT_BENCH(cvt_rzi_s32_f32, "cvt.rzi.s32.f32 %d, %a")
BARRACUDA_FLOAT_BENCH(cvt_u64_u32, "cvt.u64.u32 %d, %a")
BARRACUDA_FLOAT_BENCH(cvt_rn_f16_f32, "cvt.rn.f16.f32 %d, %a")

}  // namespace

BENCHMARK_MAIN();
