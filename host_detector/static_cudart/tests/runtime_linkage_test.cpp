// InspectRuntimeLinkage on this test binary (no CUDA runtime inside). The
// nvcc-built cases (static, stripped static, shared) are in the CLI's
// program_check_test and the end-to-end runs (README.md).
#include <catch2/catch.hpp>
#include <fstream>
#include <iterator>
#include <vector>

#include "host_detector/static_cudart/runtime_linkage.h"

namespace barracuda::static_cudart {
namespace {

TEST_CASE("runtime linkage: entry names are the runtime's", "[static_cudart]") {
  CHECK(IsRuntimeEntryName("cudaMalloc"));
  CHECK(IsRuntimeEntryName("__cudaRegisterFatBinary"));
  CHECK_FALSE(IsRuntimeEntryName("cuInit"));
  CHECK_FALSE(IsRuntimeEntryName("main"));
  CHECK_FALSE(IsRuntimeEntryName("_ZN4cuda3stdE"));
}

TEST_CASE("runtime linkage: a program without the CUDA runtime is not static-runtime", "[static_cudart]") {
  std::ifstream in("/proc/self/exe", std::ios::binary);
  const std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  absl::StatusOr<fatbin::ElfFile> elf = fatbin::ElfFile::Parse(bytes);
  REQUIRE(elf.ok());
  CHECK(elf->has_symbol_table());
  absl::StatusOr<std::vector<fatbin::ElfFunction>> functions = elf->DefinedFunctions();
  REQUIRE(functions.ok());
  bool found_self = false;
  for (const fatbin::ElfFunction& f : *functions) found_self |= f.name == "main" && f.size > 0 && f.global;
  CHECK(found_self);
  absl::StatusOr<RuntimeLinkage> linkage = InspectRuntimeLinkage(*elf);
  REQUIRE(linkage.ok());
  CHECK_FALSE(linkage->static_runtime);
  CHECK_FALSE(linkage->stripped);
  CHECK(linkage->entry_points.empty());
}

}  // namespace
}  // namespace barracuda::static_cudart
