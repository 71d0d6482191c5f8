// Throughput of the PTX front end: parse, print, and parse+print, in bytes of
// input PTX per second. The PTX file comes from $BARRACUDA_BENCH_PTX or the
// first non-flag argument.
//
//   BARRACUDA_BENCH_PTX=cub.G.ptx build/bin/ptx_parse_print_bench
#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>

#include "ptx_rewriter/parser.h"
#include "ptx_rewriter/printer.h"

namespace {

using namespace barracuda::ptx;

std::string g_path;
std::string g_text;

void BM_Parse(benchmark::State& state) {
  for (auto _ : state) {
    auto m = ParseModule(g_text, g_path);
    if (!m.ok()) {
      state.SkipWithError(std::string(m.status().message()).c_str());
      return;
    }
    benchmark::DoNotOptimize(m->items.data());
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(g_text.size()));
}

void BM_Print(benchmark::State& state) {
  auto m = ParseModule(g_text, g_path);
  if (!m.ok()) {
    state.SkipWithError(std::string(m.status().message()).c_str());
    return;
  }
  for (auto _ : state) {
    std::string s = PrintModule(*m);
    benchmark::DoNotOptimize(s.data());
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(g_text.size()));
}

void BM_ParsePrint(benchmark::State& state) {
  for (auto _ : state) {
    auto m = ParseModule(g_text, g_path);
    if (!m.ok()) {
      state.SkipWithError(std::string(m.status().message()).c_str());
      return;
    }
    std::string s = PrintModule(*m);
    benchmark::DoNotOptimize(s.data());
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(g_text.size()));
}

BENCHMARK(BM_Parse)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Print)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ParsePrint)->Unit(benchmark::kMillisecond);

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);  // removes the --benchmark_* flags it knows
  if (const char* env = std::getenv("BARRACUDA_BENCH_PTX"); env && *env) g_path = env;
  else if (argc > 1) g_path = argv[1];
  if (g_path.empty()) {
    std::fprintf(stderr, "usage: BARRACUDA_BENCH_PTX=file.ptx %s [benchmark flags]  (or: %s file.ptx)\n", argv[0],
                 argv[0]);
    return 2;
  }
  std::ifstream in(g_path, std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "cannot open '%s'\n", g_path.c_str());
    return 1;
  }
  g_text.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  std::fprintf(stderr, "input: %s (%zu bytes)\n", g_path.c_str(), g_text.size());
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
