// Control-flow graph of one PTX function.
//
// Blocks partition Function::body into contiguous statement ranges. A block
// starts at the first statement of the body, at a label that follows an
// instruction of the current block, and after every bra, brx.idx, ret, exit and
// trap (consecutive labels name the same block; declarations and .loc lines
// belong to the block they sit in). `call` does not end a block.
//
// Edges: `bra L` has one successor; `@p bra L` two (L, then the fall-through);
// `brx.idx` one per distinct entry of its .branchtargets table, plus the
// fall-through when it is predicated. ret/exit/trap leave the function; with a
// guard they leave it conditionally and also fall through. Running off the end
// of the body (no terminator in the last block) counts as leaving the function,
// as ptxas treats it as an implicit return.
#ifndef BARRACUDA_PTX_REWRITER_CFG_H_
#define BARRACUDA_PTX_REWRITER_CFG_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "ptx_rewriter/graph.h"
#include "ptx_rewriter/ir.h"

namespace barracuda::ptx {

// How control leaves a block.
enum class BlockEnd : uint8_t {
  kFallThrough,        // no control instruction at the end: goes on to the next block
  kBranch,             // unpredicated bra
  kConditionalBranch,  // @p bra: target or fall-through
  kMultiwayBranch,     // brx.idx (predicated: one more edge, the fall-through)
  kExit,               // unpredicated ret / exit / trap
  kConditionalExit,    // @p ret / exit / trap: leaves the function or falls through
};
std::string_view ToString(BlockEnd end);

struct BasicBlock {
  int id = 0;
  std::vector<std::string> labels;  // labels naming the block, in source order
  std::size_t first_statement = 0;  // indices into Function::body, inclusive
  std::size_t last_statement = 0;
  // First and last instruction of the block; nullopt for a block of labels
  // and declarations only (e.g. a label right before the closing brace).
  std::optional<std::size_t> first_instruction;
  std::optional<std::size_t> last_instruction;
  uint32_t first_line = 0;  // PTX lines of the first and last statement
  uint32_t last_line = 0;
  uint32_t first_instruction_line = 0;  // 0 without instructions
  uint32_t last_instruction_line = 0;
  BlockEnd end = BlockEnd::kFallThrough;
  bool uniform = false;  // the ending branch is `.uni` (promised not to diverge)
  // Distinct successors: the branch target(s) in source order, then the
  // fall-through. Predecessors in increasing block order.
  std::vector<int> successors;
  std::vector<int> predecessors;
  bool exits = false;  // has an edge out of the function (see BlockEnd and the header)

  // The first label, or "" when the block has none.
  std::string_view label() const {
    return labels.empty() ? std::string_view() : std::string_view(labels.front());
  }
};

struct FunctionCfg {
  std::string function_name;
  std::vector<BasicBlock> blocks;  // in source order; blocks[0] is the entry
  // block_of_statement[i]: the block holding Function::body[i].
  std::vector<int> block_of_statement;

  // The block a label names, or -1.
  int FindBlock(std::string_view label) const;
  // Nodes = blocks, entry 0, exits = blocks with `exits` set.
  FlowGraph ToFlowGraph() const;
};

// Fails (InvalidArgument, "file:line:col: ..." when the position is known) on a
// branch whose target label or .branchtargets table is not in the function, on
// duplicate labels, and on control instructions the parser kept opaque.
// A function without a body yields a CFG with no blocks.
absl::StatusOr<FunctionCfg> BuildCfg(const Function& function, std::string_view filename = "");

}  // namespace barracuda::ptx

#endif  // BARRACUDA_PTX_REWRITER_CFG_H_
