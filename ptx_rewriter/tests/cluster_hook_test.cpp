// MergeLogger's definition of the logger's external callee
// __barracuda_cluster_shared (instrument/cluster_hook.h): chosen by the
// module's target, replacing the logger's .extern declaration, accepted by
// ptxas for that target (when ptxas is on PATH).
#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>

#include "ptx_rewriter/instrument/cluster_hook.h"
#include "ptx_rewriter/instrument/merge_logger.h"
#include "ptx_rewriter/parser.h"
#include "ptx_rewriter/printer.h"

namespace barracuda::ptx {
namespace {

namespace fs = std::filesystem;

// A logger in the shape nvcc gives logger.cu: the hook declared .extern and
// called by a logging function.
constexpr const char* kLogger = R"(.version 8.0
.target sm_75
.address_size 64
.extern .func (.param .b64 func_retval0) __barracuda_cluster_shared(.param .b64 p0, .param .b32 p1);
.visible .func __barracuda_log_access(.param .b64 a)
{
  .reg .b64 %rd<3>;
  ld.param.b64 %rd1, [a];
  {
  .param .b64 x;
  .param .b32 y;
  .param .b64 r;
  st.param.b64 [x], %rd1;
  st.param.b32 [y], 0;
  call.uni (r), __barracuda_cluster_shared, (x, y);
  ld.param.b64 %rd2, [r];
  }
  st.global.u64 [%rd1], %rd2;
  ret;
}
.visible .func __barracuda_log_fence(.param .b32 f)
{
  ret;
}
)";

// An instrumented module in InstrumentModule's shape: every logger function
// declared .extern, one of them called.
std::string ModuleText(const std::string& target) {
  return ".version 8.0\n.target " + target + "\n.address_size 64\n"
         ".extern .func __barracuda_log_access(.param .b64 a);\n"
         ".extern .func __barracuda_log_fence(.param .b32 f);\n"
         ".visible .entry k()\n{\n.reg .b64 %rd<2>;\nmov.u64 %rd1, 0;\n{\n.param .b64 a;\n"
         "st.param.b64 [a], %rd1;\ncall.uni __barracuda_log_access, (a);\n}\nret;\n}\n";
}

bool Ptxas(const std::string& ptx, const std::string& arch) {
  if (std::system("ptxas --version > /dev/null 2>&1") != 0) return true;
  const fs::path file = fs::temp_directory_path() / ("barracuda_cluster_hook_" + std::to_string(::getpid()) + ".ptx");
  std::ofstream(file) << ptx;
  const int rc = std::system(("ptxas -arch=" + arch + " -c '" + file.string() + "' -o /dev/null").c_str());
  fs::remove(file);
  return rc == 0;
}

TEST_CASE("cluster hook: targets with clusters", "[instrument][cluster]") {
  for (const char* t : {"sm_90", "sm_90a", "sm_100", "sm_120a"}) {
    INFO(t);
    CHECK(TargetHasClusters(*ParseModule(ModuleText(t), "m.ptx")));
  }
  for (const char* t : {"sm_75", "sm_80", "sm_89"}) {
    INFO(t);
    CHECK_FALSE(TargetHasClusters(*ParseModule(ModuleText(t), "m.ptx")));
  }
}

TEST_CASE("cluster hook: MergeLogger defines it for the module's target", "[instrument][cluster]") {
  const auto logger = ParseModule(kLogger, "logger.ptx");
  REQUIRE(logger.ok());
  for (const auto& [target, clusters] : {std::pair{"sm_90", true}, std::pair{"sm_75", false}}) {
    INFO(target);
    auto module = ParseModule(ModuleText(target), "m.ptx");
    REQUIRE(module.ok());
    REQUIRE(MergeLogger(*module, *logger).ok());
    const Function* hook = module->FindFunction("__barracuda_cluster_shared");
    REQUIRE(hook != nullptr);
    CHECK(hook->has_body);
    const std::string printed = PrintModule(*module);
    CHECK(printed.find(".extern .func") == std::string::npos);
    CHECK((printed.find("getctarank") != std::string::npos) == clusters);
    CHECK((printed.find("isspacep.shared::cluster") != std::string::npos) == clusters);
    CHECK(Ptxas(printed, target));
  }
}

TEST_CASE("merge logger: only the logger functions the module calls are merged", "[instrument]") {
  const auto logger = ParseModule(kLogger, "logger.ptx");
  REQUIRE(logger.ok());
  auto module = ParseModule(ModuleText("sm_75"), "m.ptx");
  REQUIRE(module.ok());
  REQUIRE(MergeLogger(*module, *logger).ok());
  // Called by the kernel, and called by what it calls.
  CHECK(module->FindFunction("__barracuda_log_access") != nullptr);
  CHECK(module->FindFunction("__barracuda_cluster_shared") != nullptr);
  // Declared but never called: neither its definition nor the declaration stays.
  CHECK(module->FindFunction("__barracuda_log_fence") == nullptr);
  CHECK(Ptxas(PrintModule(*module), "sm_75"));
}

}  // namespace
}  // namespace barracuda::ptx
