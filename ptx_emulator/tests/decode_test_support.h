// Shared by the decode tests: load PTX with a selector that accepts every
// instruction (so decoding is tested without the instruction families).
#ifndef BARRACUDA_PTX_EMULATOR_TESTS_DECODE_TEST_SUPPORT_H_
#define BARRACUDA_PTX_EMULATOR_TESTS_DECODE_TEST_SUPPORT_H_

#include <stdexcept>
#include <string>
#include <vector>

#include "ptx_emulator/core/device.h"
#include "ptx_emulator/core/handlers.h"
#include "ptx_emulator/decode/module_loader.h"

namespace barracuda::emu::testing {

inline void NopHandler(const Inst&, WarpCtx&, uint32_t) {}

// Every instruction but texture fetches.
inline absl::StatusOr<bool> AcceptAll(const ptx::Instruction& ir, Inst& inst) {
  if (ir.op == ptx::Opcode::kTex) return false;
  inst.fn = NopHandler;
  return true;
}
inline constexpr Selector kAcceptAll[] = {AcceptAll};

inline absl::StatusOr<uint32_t> LoadForTest(Device& device, std::vector<PtxSource> sources) {
  return ModuleLoader(device, kAcceptAll).Load(std::move(sources));
}

inline std::string Module(const std::string& body, const std::string& target = "sm_75") {
  return ".version 8.0\n.target " + target + "\n.address_size 64\n" + body;
}

// The decoded function called `name` (throws when absent).
inline const Function& FunctionNamed(const Device& device, const std::string& name) {
  for (uint32_t i = 0; i < device.function_count(); ++i)
    if (device.function(i).name == name) return device.function(i);
  throw std::runtime_error("no function " + name);
}
inline uint32_t FunctionIndex(const Device& device, const std::string& name) {
  for (uint32_t i = 0; i < device.function_count(); ++i)
    if (device.function(i).name == name) return i;
  throw std::runtime_error("no function " + name);
}
inline uint64_t ConstantValue(const Function& f, ValueRef r) { return f.constants[RefIndex(r) * kLanes]; }

}  // namespace barracuda::emu::testing

#endif  // BARRACUDA_PTX_EMULATOR_TESTS_DECODE_TEST_SUPPORT_H_
