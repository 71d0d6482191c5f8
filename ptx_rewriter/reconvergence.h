// Reconvergence points of divergent branches.
//
// A warp that splits at a branch at the end of block B runs both sides and
// joins again at the immediate post-dominator of B: the first block every path
// from B passes through. The emulator's SIMT stack pushes that point; the
// instrumentation pass logs `fi` there. When B's paths meet only at the end of
// the function (e.g. one side returns), the point is the virtual exit: the
// warp reconverges when its lanes leave. See postdominators.h for how loops
// without an exit are handled.
#ifndef BARRACUDA_PTX_REWRITER_RECONVERGENCE_H_
#define BARRACUDA_PTX_REWRITER_RECONVERGENCE_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ptx_rewriter/cfg.h"
#include "ptx_rewriter/postdominators.h"

namespace barracuda::ptx {

// The node where a branch at the end of `node` reconverges: its immediate
// post-dominator, PostDominatorTree::kVirtualExit for "at function exit".
inline int ReconvergenceNode(const PostDominatorTree& pdom, int node) { return pdom.ipdom(node); }

// One branch that can split a warp: `@p bra` (conditional) or `brx.idx`.
struct BranchReconvergence {
  int block = 0;                // block ending with the branch
  std::size_t statement = 0;    // index of the branch in Function::body
  uint32_t ptx_line = 0;        // PTX line of the branch
  bool multiway = false;        // brx.idx
  bool uniform = false;         // `.uni`: the author promises it does not diverge
  // Where the paths meet: a block id, or PostDominatorTree::kVirtualExit.
  int reconvergence_block = PostDominatorTree::kVirtualExit;
  std::string reconvergence_label;  // its first label; "" for exit or an unlabelled block
  // First instruction of that block (the reconvergence PC) and its PTX line;
  // nullopt / 0 at exit, or when the block holds no instruction.
  std::optional<std::size_t> reconvergence_statement;
  uint32_t reconvergence_line = 0;

  bool at_exit() const { return reconvergence_block == PostDominatorTree::kVirtualExit; }
};

struct Reconvergence {
  PostDominatorTree pdom;
  std::vector<BranchReconvergence> branches;  // in block order

  // The entry for the branch at Function::body[statement], or nullptr.
  const BranchReconvergence* ForStatement(std::size_t statement) const;
  // The entry for the branch ending `block`, or nullptr.
  const BranchReconvergence* ForBlock(int block) const;
};

// Lists every block ending in kConditionalBranch or kMultiwayBranch (an
// unpredicated `bra` never splits a warp; a conditional exit does not either:
// its exiting lanes simply leave).
Reconvergence ComputeReconvergence(const FunctionCfg& cfg);

}  // namespace barracuda::ptx

#endif  // BARRACUDA_PTX_REWRITER_RECONVERGENCE_H_
