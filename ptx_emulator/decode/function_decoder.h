// ptx::Function (IR) -> emu::Function (exec_form.h), once, at load time.
//
// Resolves every name to a slot, constant, frame offset or address; lays out
// the frame (.local variables, body .param variables, then the signature's
// parameters and returns); maps labels to pcs and conditional branches to
// their reconvergence pcs; numbers sites; classifies memory accesses; and asks
// the instruction families (handlers.h) for a handler.
#ifndef BARRACUDA_PTX_EMULATOR_DECODE_FUNCTION_DECODER_H_
#define BARRACUDA_PTX_EMULATOR_DECODE_FUNCTION_DECODER_H_

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "ptx_emulator/core/exec_form.h"
#include "ptx_emulator/core/handlers.h"
#include "ptx_emulator/decode/symbols.h"
#include "ptx_rewriter/ir.h"
#include "ptx_rewriter/site_table.h"

namespace barracuda::emu {

// What the decoder needs to know about the module a function sits in.
struct ModuleContext {
  const ptx::Module* ir = nullptr;
  std::string_view name;      // for diagnostics
  uint32_t module_id = 0;
  const SymbolTable* symbols = nullptr;  // module-level names after linking
  // Offsets of .shared variables declared in function bodies (unit-wide layout).
  const absl::flat_hash_map<const ptx::Declarator*, uint32_t>* body_shared = nullptr;
  uint32_t static_shared_bytes = 0;  // whole unit's layout; the loader sets each .entry's own after
  // The system-reserved .shared region (%reserved_smem_offset_*), inside the
  // static layout; 0 bytes when no module of the unit reads those registers.
  uint32_t reserved_shared_base = 0;
  uint32_t reserved_shared_bytes = 0;
  uint32_t site_base = 0;
  // Per function name: (statement index, local site id), from BuildSiteTable.
  const absl::flat_hash_map<std::string, std::vector<std::pair<size_t, uint32_t>>>* sites = nullptr;
  // An instruction the emulator does not implement: false, the load fails
  // (kUnimplemented, naming it); true, it is decoded as a fault when reached,
  // so the unit's kernels that never run it run (the runtime's choice).
  bool fault_unsupported_when_reached = false;
};

// Fills `out` (name, module and is_entry already may be set by the caller).
// Errors name the module and PTX line.
absl::Status DecodeFunction(const ModuleContext& module, const ptx::Function& function,
                            std::span<const Selector> selectors, Function& out);

}  // namespace barracuda::emu

#endif  // BARRACUDA_PTX_EMULATOR_DECODE_FUNCTION_DECODER_H_
