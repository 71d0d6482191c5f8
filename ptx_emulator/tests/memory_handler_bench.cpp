// Cost of one warp instruction of the memory and warp families, called
// directly (no interpreter loop): the budget is ~100 ns per warp instruction
// (300 M thread-instructions/s per core).
#include <benchmark/benchmark.h>

#include <string>

#include "ptx_emulator/tests/memory_test_harness.h"

namespace barracuda::emu::testing {
namespace {

// Discards records: measures building them, not storing them.
class NullSink : public RecordSink {
 public:
  void OnLaunchBegin(const protocol::Record&, uint32_t) override {}
  void Emit(uint32_t, const protocol::Record& r) override { benchmark::DoNotOptimize(r.header.op); }
  void OnLaunchEnd(const protocol::Record&) override {}
};

void RunWarp(benchmark::State& state, const std::string& text, bool trace, uint32_t aux) {
  WarpHarness h;
  auto* g = h.Global<uint32_t>(32 * 16);
  for (uint32_t l = 0; l < 32; ++l) {
    h.R(1, l) = 4 * l;                      // shared offsets
    h.R(17, l) = reinterpret_cast<uint64_t>(g) + 16 * l;  // %rd1: global, 16-byte strided
    h.R(18, l) = reinterpret_cast<uint64_t>(h.shared) + 4 * l;  // %rd2: generic -> shared
    h.R(2, l) = l;
  }
  h.SetAll(19, reinterpret_cast<uint64_t>(g));  // %rd3: one global word
  NullSink null;
  std::atomic<uint64_t> stamps{0};
  Tracer tracer(&null, 0, &stamps);
  h.ctx.tracer = trace ? &tracer : nullptr;
  auto inst = h.Build(text, aux);
  if (!inst.ok()) {
    state.SkipWithError(std::string(inst.status().message()).c_str());
    return;
  }
  Inst& i = **inst;
  for (auto _ : state) {
    i.fn(i, h.ctx, kFullMask);
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()) * 32);
}

const uint32_t kRead = PackAccessClass(0, 0, protocol::kFlagLoad);
const uint32_t kWrite = PackAccessClass(1, 0, protocol::kFlagStore);
const uint32_t kAtomic = PackAccessClass(2, 3, protocol::kFlagLoad | protocol::kFlagStore);

void BM_LdShared(benchmark::State& s) { RunWarp(s, "ld.shared.u32 %r3, [%r1];", false, kRead); }
void BM_StShared(benchmark::State& s) { RunWarp(s, "st.shared.u32 [%r1], %r2;", false, kWrite); }
void BM_LdGlobal(benchmark::State& s) { RunWarp(s, "ld.global.u32 %r3, [%rd1];", false, kRead); }
void BM_LdGlobalV4(benchmark::State& s) {
  RunWarp(s, "ld.global.v4.u32 {%r3, %r4, %r5, %r6}, [%rd1];", false, kRead);
}
void BM_LdGeneric(benchmark::State& s) { RunWarp(s, "ld.u32 %r3, [%rd2];", false, kRead); }
void BM_StGlobalTraced(benchmark::State& s) { RunWarp(s, "st.global.u32 [%rd1], %r2;", true, kWrite); }
void BM_LdSharedTraced(benchmark::State& s) { RunWarp(s, "ld.shared.u32 %r3, [%r1];", true, kRead); }
void BM_AtomAddOneWord(benchmark::State& s) { RunWarp(s, "atom.global.add.u32 %r3, [%rd3], 1;", false, kAtomic); }
void BM_AtomAddF32Spread(benchmark::State& s) { RunWarp(s, "atom.global.add.f32 %r3, [%rd1], %r2;", false, kAtomic); }
void BM_ShflDown(benchmark::State& s) { RunWarp(s, "shfl.sync.down.b32 %r3, %r2, 1, 31, -1;", false, kAuxNotLogged); }
void BM_Ballot(benchmark::State& s) { RunWarp(s, "vote.sync.ballot.b32 %r3, %p1, -1;", false, kAuxNotLogged); }

BENCHMARK(BM_LdShared);
BENCHMARK(BM_StShared);
BENCHMARK(BM_LdGlobal);
BENCHMARK(BM_LdGlobalV4);
BENCHMARK(BM_LdGeneric);
BENCHMARK(BM_StGlobalTraced);
BENCHMARK(BM_LdSharedTraced);
BENCHMARK(BM_AtomAddOneWord);
BENCHMARK(BM_AtomAddF32Spread);
BENCHMARK(BM_ShflDown);
BENCHMARK(BM_Ballot);

}  // namespace
}  // namespace barracuda::emu::testing

BENCHMARK_MAIN();
