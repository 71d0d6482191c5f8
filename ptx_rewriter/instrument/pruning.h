// The paper's intra-block pruning (§4.1): "we do not log an access to the
// address in a register if the value of the register has not been changed
// since the last logged access".
//
// Within one basic block, an access is pruned when an earlier logged access
// of the same block
//   - went through the same address operand (same base register, symbol or
//     immediate, same offset), in the same state space, with the same element
//     size and vector shape,
//   - covers it: a write covers a later read or write, a read only a read,
//   - and nothing in between redefined the base register, synchronised
//     (fence, barrier, warp primitive, atomic, acquire/release, volatile
//     access) or called a function.
// Both accesses must be unguarded plain reads/writes: inside one block without
// guards the same lanes run both, at the same point of the detector's clocks,
// so the second access adds nothing to the detector's state.
#ifndef BARRACUDA_PTX_REWRITER_INSTRUMENT_PRUNING_H_
#define BARRACUDA_PTX_REWRITER_INSTRUMENT_PRUNING_H_

#include <vector>

#include "ptx_rewriter/cfg.h"
#include "ptx_rewriter/ir.h"
#include "ptx_rewriter/sync_inference.h"

namespace barracuda::ptx {

// pruned[i] for every statement of function.body; `logged[i]` says which
// statements are logged accesses at all (candidates).
std::vector<bool> ComputePruned(const Function& function, const FunctionCfg& cfg,
                                const std::vector<AccessClass>& classes, const std::vector<bool>& logged);

}  // namespace barracuda::ptx

#endif  // BARRACUDA_PTX_REWRITER_INSTRUMENT_PRUNING_H_
