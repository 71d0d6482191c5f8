// ProcAddressTable: the hook that replaces what cuGetProcAddress or
// cudaGetDriverEntryPoint returned, by the real pointer or by the name.
#include <catch2/catch.hpp>

#include <map>
#include <string>

#include "host_detector/gpu_agent/proc_address_table.h"

namespace barracuda::gpu_agent {
namespace {

void* P(uintptr_t v) { return reinterpret_cast<void*>(v); }

ProcAddressTable MakeTable() {
  ProcAddressTable t;
  t.Add("cuLaunchKernel", P(0xA1));
  t.Add("cuLaunchKernel_ptsz", P(0xA2), 7000);
  t.Add("cuMemAlloc_v2", P(0xB2), 3020);
  t.Add("cuModuleLoadData", P(0xC1));
  const std::map<std::string, void*> real = {
      {"cuLaunchKernel", P(0x11)}, {"cuLaunchKernel_ptsz", P(0x12)}, {"cuMemAlloc_v2", P(0x22)}};
  t.Resolve([&](const char* name) -> void* {
    auto it = real.find(name);
    return it == real.end() ? nullptr : it->second;
  });
  return t;
}

TEST_CASE("gpu agent proc address: variants get their base name and flag", "[gpu_agent]") {
  const ProcAddressTable t = MakeTable();
  REQUIRE(t.entries().size() == 4);
  CHECK(t.entries()[1].base == "cuLaunchKernel");
  CHECK(t.entries()[1].per_thread);
  CHECK(t.entries()[2].base == "cuMemAlloc");
  CHECK_FALSE(t.entries()[2].per_thread);
  CHECK(t.entries()[3].real == nullptr);  // the driver lacks it
}

TEST_CASE("gpu agent proc address: the driver's pointer picks the hook of its variant", "[gpu_agent]") {
  const ProcAddressTable t = MakeTable();
  CHECK(t.HookFor(P(0x11), "cuLaunchKernel", 13000, false) == P(0xA1));
  CHECK(t.HookFor(P(0x12), "cuLaunchKernel", 13000, true) == P(0xA2));
  CHECK(t.HookFor(P(0x22), "cuMemAlloc", 13000, false) == P(0xB2));
  // A function not hooked: keep the driver's.
  CHECK(t.HookFor(P(0x99), "cuCtxSynchronize", 13000, false) == nullptr);
  CHECK(t.HookFor(nullptr, "cuLaunchKernel", 13000, false) == nullptr);
}

TEST_CASE("gpu agent proc address: an unknown pointer is matched by name and version", "[gpu_agent]") {
  const ProcAddressTable t = MakeTable();
  // A driver handing out internal entry points: the name decides.
  CHECK(t.HookFor(P(0x77), "cuModuleLoadData", 12000, false) == P(0xC1));
  CHECK(t.HookFor(P(0x77), "cuLaunchKernel", 12000, true) == P(0xA2));
  CHECK(t.HookFor(P(0x77), "cuLaunchKernel", 6000, true) == P(0xA1));  // no per-thread variant before 7.0
  CHECK(t.HookFor(P(0x77), "cuModuleLoadData", 12000, true) == P(0xC1));  // no per-thread variant at all
  // cuMemAlloc before 3.2 is the 32-bit ABI, which the agent does not hook.
  CHECK(t.HookFor(P(0x77), "cuMemAlloc", 3000, false) == nullptr);
  CHECK(t.HookFor(P(0x77), "cuMemAlloc", 12000, false) == P(0xB2));
  // The variant's own name is not a base name a program asks for.
  CHECK(t.HookFor(P(0x77), "cuMemAlloc_v2", 12000, false) == nullptr);
}

}  // namespace
}  // namespace barracuda::gpu_agent
