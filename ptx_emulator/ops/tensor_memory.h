// Memory accesses of the warp-collective matrix instructions (wmma.load,
// wmma.store, ldmatrix, stmatrix) through the emulator's normal memory path:
// every lane's runs are resolved in the instruction's state space first
// (alignment, then bounds: out-of-range accesses fault exactly as ld/st do,
// before any byte moves), then global runs are redirected into the slot's
// phase store buffer (deterministic rounds), then the bytes move with relaxed
// host atomics, then (tracing) one record per run and space, one address per
// lane, access_size = the run's width (the detector's Record contract). These
// instructions are weak accesses in the memory model (ISA: "treated as a weak
// memory operation"); their records carry Inst::aux's classification (kRead
// for wmma.load / ldmatrix, kWrite for wmma.store / stmatrix, from
// ptx_rewriter/sync_inference.cpp) and their site (ptx_rewriter/site_table.cpp).
#ifndef BARRACUDA_PTX_EMULATOR_OPS_TENSOR_MEMORY_H_
#define BARRACUDA_PTX_EMULATOR_OPS_TENSOR_MEMORY_H_

#include <cstdint>

#include "ptx_emulator/core/exec_form.h"
#include "ptx_emulator/core/warp_context.h"
#include "ptx_emulator/ops/mem_access.h"
#include "ptx_emulator/ops/tensor_numerics.h"

namespace barracuda::emu::tensor {

inline constexpr uint32_t kMaxRuns = 16;       // runs per lane (one per element at worst)
inline constexpr uint32_t kMaxLaneBytes = 64;  // bytes per lane of one instruction

// One warp-collective access: each lane of `mask` moves `runs` runs of `width`
// bytes, run r at addr[r][lane] (in `space`); the lane's data is its runs in
// order, run 0 first.
struct CollectiveAccess {
  mem::Space space = mem::Space::kGeneric;
  uint32_t mask = 0;
  uint32_t runs = 0;
  uint32_t width = 0;
  uint64_t addr[kMaxRuns][kLanes];
};

// Per-lane data of a collective access.
struct LaneBytes {
  uint8_t bytes[kLanes][kMaxLaneBytes];
};

// Groups `elems` elements of `elem_bytes` per lane, element i of lane l at
// elem_addr[l][i], into the widest runs (16, 8, 4, 2 or 1 bytes, at least one
// element) that are contiguous and aligned to their width in every lane: the
// fewest host accesses and records. Never wider than the elements allow, so
// a misaligned element still faults as misaligned.
void PlanRuns(uint32_t mask, uint32_t elems, uint32_t elem_bytes, const uint64_t (*elem_addr)[kMaxPerLane],
              CollectiveAccess& access);

// The access; false after a fault (raised on ctx; nothing was read or written).
bool CollectiveLoad(const Inst& inst, WarpCtx& ctx, const CollectiveAccess& access, LaneBytes& data);
bool CollectiveStore(const Inst& inst, WarpCtx& ctx, const CollectiveAccess& access, const LaneBytes& data);

}  // namespace barracuda::emu::tensor

#endif  // BARRACUDA_PTX_EMULATOR_OPS_TENSOR_MEMORY_H_
