// Test inputs for the analyses' unit tests: PTX files under
// tests/data/analysis/ (nvcc output and hand-written PTX), and a wrapper that
// turns a kernel body into a module.
#ifndef BARRACUDA_PTX_REWRITER_TESTS_ANALYSIS_TEST_DATA_H_
#define BARRACUDA_PTX_REWRITER_TESTS_ANALYSIS_TEST_DATA_H_

#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>
#include <string>
#include <string_view>

#include "ptx_rewriter/ir.h"
#include "ptx_rewriter/parser.h"

#ifndef BARRACUDA_ANALYSIS_TEST_DATA
#error "analysis.cmake defines BARRACUDA_ANALYSIS_TEST_DATA for the analysis tests"
#endif

namespace barracuda::ptx::testing {

inline Module ParseOrFail(std::string_view text, std::string_view name) {
  auto module = ParseModule(text, name);
  INFO(name << ": " << module.status().ToString());
  REQUIRE(module.ok());
  return *std::move(module);
}

// Parses tests/data/analysis/<name>.
inline Module LoadDataFile(const std::string& name) {
  const std::string path = std::string(BARRACUDA_ANALYSIS_TEST_DATA) + "/" + name;
  std::ifstream in(path);
  INFO("reading " << path);
  REQUIRE(in.good());
  std::ostringstream text;
  text << in.rdbuf();
  return ParseOrFail(text.str(), name);
}

// A module holding one kernel `k` with the given body (and parameter p).
inline std::string KernelSource(std::string_view body) {
  return std::string(".version 8.0\n.target sm_90\n.address_size 64\n"
                     ".visible .entry k(.param .u64 p)\n{\n"
                     "\t.reg .pred %p<8>;\n\t.reg .b32 %r<16>;\n\t.reg .b64 %rd<8>;\n") +
         std::string(body) + "}\n";
}

inline Module KernelModule(std::string_view body) {
  return ParseOrFail(KernelSource(body), "kernel.ptx");
}

}  // namespace barracuda::ptx::testing

#endif  // BARRACUDA_PTX_REWRITER_TESTS_ANALYSIS_TEST_DATA_H_
