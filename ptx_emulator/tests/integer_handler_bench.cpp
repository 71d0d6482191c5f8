// Per-handler cost of the integer/bit families: one warp instruction over 32
// lanes (full mask, and a divergent mask), called through Inst::fn as the
// interpreter does. items_per_second = thread-instructions per second.
// The matrix-multiply target is 300 M thread-instructions/s per core for the
// whole interpreter, i.e. ~100 ns per warp instruction including dispatch;
// the handlers here should stay well below that.
#include <benchmark/benchmark.h>

#include <bit>
#include <string>

#include "ptx_emulator/tests/integer_harness.h"

namespace {

using barracuda::emu::kFullMask;
using barracuda::emu::kLanes;
using barracuda::emu::testing::OneInst;

void Run(benchmark::State& state, const std::string& ptx, uint32_t exec) {
  OneInst x(ptx);
  if (!x.ok()) {
    state.SkipWithError(std::string(x.status().message()).c_str());
    return;
  }
  for (const char* r : {"%a", "%b", "%c"})
    if (x.HasReg(r))
      for (uint32_t l = 0; l < kLanes; ++l) x.Reg(r, l) = 0x9e3779b97f4a7c15ull * (l + 1) >> (l % 7);
  for (auto _ : state) {
    x.Run(exec);
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()) * std::popcount(exec));
}

#define BARRACUDA_INT_BENCH(name, ptx)                                                                 \
  void BM_##name(benchmark::State& s) { Run(s, ptx, kFullMask); }                                      \
  void BM_##name##_divergent(benchmark::State& s) { Run(s, ptx, 0x5f5f5f5fu); }                       \
  BENCHMARK(BM_##name);                                                                                \
  BENCHMARK(BM_##name##_divergent);

BARRACUDA_INT_BENCH(add_s32, "add.s32 %d, %a, %b;")
BARRACUDA_INT_BENCH(add_s64, "add.s64 %d, %a, %b;")
BARRACUDA_INT_BENCH(mad_lo_s32, "mad.lo.s32 %d, %a, %b, %c;")
BARRACUDA_INT_BENCH(mul_wide_s32, "mul.wide.s32 %d, %a, %b;")
BARRACUDA_INT_BENCH(shl_b32, "shl.b32 %d, %a, 2;")
BARRACUDA_INT_BENCH(mov_u32, "mov.u32 %d, %a;")
BARRACUDA_INT_BENCH(setp_lt_s32, "setp.lt.s32 %p1, %a, %b;")
BARRACUDA_INT_BENCH(setp_lt_f32, "setp.lt.f32 %p1, %a, %b;")
BARRACUDA_INT_BENCH(selp_b32, "selp.b32 %d, %a, %b, %p1;")
BARRACUDA_INT_BENCH(lop3, "lop3.b32 %d, %a, %b, %c, 0x96;")
BARRACUDA_INT_BENCH(prmt, "prmt.b32 %d, %a, %b, 0x5140;")
BARRACUDA_INT_BENCH(bfe_u32, "bfe.u32 %d, %a, 3, 9;")
BARRACUDA_INT_BENCH(div_u32, "div.u32 %d, %a, %b;")

}  // namespace

BENCHMARK_MAIN();
