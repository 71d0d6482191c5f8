// DriverHandles: module and function handles of driver-loaded modules, their
// aliases, and what an unload forgets.
#include <catch2/catch.hpp>

#include "host_detector/gpu_agent/driver_handles.h"

namespace barracuda::gpu_agent {
namespace {

const void* H(uintptr_t v) { return reinterpret_cast<const void*>(v); }

TEST_CASE("gpu agent driver handles: functions resolve to their module and name", "[gpu_agent]") {
  DriverHandles h;
  h.AddModule(H(0x100), 3);
  REQUIRE(h.ModuleOf(H(0x100)) != nullptr);
  CHECK(*h.ModuleOf(H(0x100)) == 3);
  CHECK(h.ModuleOf(H(0x200)) == nullptr);
  CHECK(h.AddFunction(H(0x1000), H(0x100), "kern"));
  const DriverHandles::Function* f = h.FunctionOf(H(0x1000));
  REQUIRE(f != nullptr);
  CHECK(f->module == 3);
  CHECK(f->name == "kern");
  // A module the agent did not load: nothing recorded.
  CHECK_FALSE(h.AddFunction(H(0x2000), H(0x200), "other"));
  CHECK(h.FunctionOf(H(0x2000)) == nullptr);
}

TEST_CASE("gpu agent driver handles: library module and kernel function aliases", "[gpu_agent]") {
  DriverHandles h;
  h.AddModule(H(0x100), 1);           // a CUlibrary
  CHECK(h.AliasModule(H(0x180), H(0x100)));  // cuLibraryGetModule
  CHECK_FALSE(h.AliasModule(H(0x190), H(0x999)));
  CHECK(h.AddFunction(H(0x1000), H(0x180), "via_module"));  // cuModuleGetFunction on the alias
  CHECK(h.FunctionOf(H(0x1000))->module == 1);
  CHECK(h.AddFunction(H(0x1100), H(0x100), "kernel"));  // cuLibraryGetKernel
  CHECK(h.AliasFunction(H(0x1200), H(0x1100)));         // cuKernelGetFunction
  REQUIRE(h.FunctionOf(H(0x1200)) != nullptr);
  CHECK(h.FunctionOf(H(0x1200))->name == "kernel");
  CHECK_FALSE(h.AliasFunction(H(0x1300), H(0x4444)));
}

TEST_CASE("gpu agent driver handles: an unload forgets the module's handles and functions", "[gpu_agent]") {
  DriverHandles h;
  h.AddModule(H(0x100), 1);
  h.AliasModule(H(0x180), H(0x100));
  h.AddFunction(H(0x1000), H(0x100), "a");
  h.AliasFunction(H(0x1001), H(0x1000));
  h.AddModule(H(0x200), 2);
  h.AddFunction(H(0x2000), H(0x200), "b");
  h.RemoveModule(H(0x180));  // through the alias
  CHECK(h.ModuleOf(H(0x100)) == nullptr);
  CHECK(h.ModuleOf(H(0x180)) == nullptr);
  CHECK(h.FunctionOf(H(0x1000)) == nullptr);
  CHECK(h.FunctionOf(H(0x1001)) == nullptr);
  CHECK(h.FunctionOf(H(0x2000)) != nullptr);
  CHECK(h.module_handles() == 1);
  CHECK(h.function_handles() == 1);
  // The driver hands the address out again: a new module, none of the old functions.
  h.AddFunction(H(0x2100), H(0x200), "c");
  h.AddModule(H(0x200), 5);
  CHECK(*h.ModuleOf(H(0x200)) == 5);
  CHECK(h.FunctionOf(H(0x2000)) == nullptr);
  CHECK(h.FunctionOf(H(0x2100)) == nullptr);
}

}  // namespace
}  // namespace barracuda::gpu_agent
