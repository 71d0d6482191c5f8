#include "ptx_rewriter/reconvergence.h"

#include <algorithm>

namespace barracuda::ptx {

Reconvergence ComputeReconvergence(const FunctionCfg& cfg) {
  Reconvergence result{PostDominatorTree::Compute(cfg.ToFlowGraph()), {}};
  for (const BasicBlock& block : cfg.blocks) {
    if (block.end != BlockEnd::kConditionalBranch && block.end != BlockEnd::kMultiwayBranch) {
      continue;
    }
    BranchReconvergence branch;
    branch.block = block.id;
    branch.statement = *block.last_instruction;  // a branch ends the block
    branch.ptx_line = block.last_instruction_line;
    branch.multiway = block.end == BlockEnd::kMultiwayBranch;
    branch.uniform = block.uniform;
    branch.reconvergence_block = ReconvergenceNode(result.pdom, block.id);
    if (!branch.at_exit()) {
      const BasicBlock& join = cfg.blocks[static_cast<std::size_t>(branch.reconvergence_block)];
      branch.reconvergence_label = std::string(join.label());
      branch.reconvergence_statement = join.first_instruction;
      branch.reconvergence_line = join.first_instruction_line;
    }
    result.branches.push_back(std::move(branch));
  }
  return result;
}

// `branches` is sorted by block and so by statement: blocks follow the text.
const BranchReconvergence* Reconvergence::ForStatement(std::size_t statement) const {
  auto it = std::lower_bound(
      branches.begin(), branches.end(), statement,
      [](const BranchReconvergence& b, std::size_t s) { return b.statement < s; });
  return it != branches.end() && it->statement == statement ? &*it : nullptr;
}

const BranchReconvergence* Reconvergence::ForBlock(int block) const {
  auto it = std::lower_bound(branches.begin(), branches.end(), block,
                             [](const BranchReconvergence& b, int v) { return b.block < v; });
  return it != branches.end() && it->block == block ? &*it : nullptr;
}

}  // namespace barracuda::ptx
