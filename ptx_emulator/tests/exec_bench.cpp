// emu_exec_bench: interpreter throughput on a tight ALU loop (warp
// instructions per second), tracing off and on, one worker.
//
//   loop: add.s32 / xor.b32 / add.s32 / setp.lt.u32 / @p bra  (5 warp instructions)
#include <benchmark/benchmark.h>

#include "ptx_emulator/core/record_sink.h"
#include "ptx_emulator/tests/kernel_runner.h"

namespace barracuda::emu {
namespace {

// Counts records without keeping them.
class CountingSink : public RecordSink {
 public:
  void OnLaunchBegin(const protocol::Record&, uint32_t) override {}
  void Emit(uint32_t, const protocol::Record&) override { ++count; }
  void OnLaunchEnd(const protocol::Record&) override {}
  uint64_t count = 0;
};

const char* kLoop = R"(
  .reg .pred %p<2>;
  .reg .b32 %r<8>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  ld.param.u32 %r4, [iters];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, 0;
  mov.u32 %r3, 0;
LOOP:
  add.s32 %r2, %r2, %r1;
  xor.b32 %r2, %r2, %r3;
  add.s32 %r3, %r3, 1;
  setp.lt.u32 %p1, %r3, %r4;
  @%p1 bra LOOP;
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r2;
  ret;
)";

void BM_AluLoop(benchmark::State& state) {
  const bool trace = state.range(0) != 0;
  CountingSink sink;
  auto device = std::make_unique<Device>();
  device->schedule().workers = 1;
  if (trace) device->SetSink(&sink);
  testing::KernelRunner r(testing::WrapKernel("loop", ".param .u64 out, .param .u32 iters", kLoop),
                          std::move(device));
  const uint32_t threads = 256, blocks = 8, iters = 2000;
  auto out = r.Alloc<uint32_t>(threads * blocks);
  for (auto _ : state) {
    if (!r.Launch("loop", {blocks, 1, 1}, {threads, 1, 1}, out.device, iters).ok()) {
      state.SkipWithError("launch failed");
      break;
    }
  }
  const double warp_insts = double{blocks} * (threads / 32) * (iters * 5.0 + 9);
  state.counters["warp_inst/s"] =
      benchmark::Counter(warp_insts, benchmark::Counter::kIsIterationInvariantRate);
  state.counters["thread_inst/s"] =
      benchmark::Counter(warp_insts * 32, benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_AluLoop)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace barracuda::emu

BENCHMARK_MAIN();
