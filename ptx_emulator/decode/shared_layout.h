// Per-kernel static .shared layout of a link unit. Shared-space addresses are
// constants in decoded code, so every .shared variable gets ONE offset for the
// whole unit; a kernel's static size is the highest end among the variables it
// can reach (its body and every function it calls, transitively; all of them
// when it makes an indirect call). Variables reached by several kernels are
// packed first, from 0; each kernel's private variables then start at the end
// of that common part, overlapping other kernels' private ones (one block runs
// one kernel, so two kernels' windows never meet).
#ifndef BARRACUDA_PTX_EMULATOR_DECODE_SHARED_LAYOUT_H_
#define BARRACUDA_PTX_EMULATOR_DECODE_SHARED_LAYOUT_H_

#include <cstdint>
#include <vector>

namespace barracuda::emu {

struct SharedLayoutInput {
  struct Variable {
    uint64_t bytes = 0;
    uint32_t align = 1;
  };
  struct Function {
    bool is_entry = false;
    bool indirect_call = false;   // calls through a register: may reach any function
    bool uses_dynamic = false;    // names an `.extern .shared` array without size
    std::vector<uint32_t> variables;  // indices into `variables`
    std::vector<uint32_t> callees;    // indices into `functions` (calls and address-taken)
  };
  std::vector<Variable> variables;
  std::vector<Function> functions;
};

struct SharedLayout {
  std::vector<uint64_t> offsets;        // per variable; 0 for one no kernel reaches
  std::vector<uint64_t> static_bytes;   // per function: entries only (else 0), aligned to 16
  uint64_t dynamic_base = 0;            // where every `.extern .shared` array starts
  uint64_t extent = 0;                  // end of the whole layout, aligned to 16
};

// A kernel that reaches dynamic shared memory gets static_bytes = dynamic_base
// (the highest static end among such kernels, aligned to 16), so that its
// window covers the dynamic array, which sits at one unit-wide offset.
SharedLayout LayOutShared(const SharedLayoutInput& in);

}  // namespace barracuda::emu

#endif  // BARRACUDA_PTX_EMULATOR_DECODE_SHARED_LAYOUT_H_
