// Immediate post-dominators of a FlowGraph.
//
// A virtual exit node joins every exiting node; post-dominance is dominance on
// the reverse graph rooted at that node, computed with the Cooper-Harvey-Kennedy
// iterative algorithm ("A Simple, Fast Dominance Algorithm", 2001), which is
// correct on irreducible graphs too.
//
// Nodes that cannot reach any exit (infinite loops, blocks that lead only into
// one) have no post-dominators in the textbook sense. As in LLVM, the result is
// made total by joining one node of each such region to the virtual exit: here,
// in every sink strongly connected component (one that no edge leaves) of those
// nodes, its highest-numbered node, which makes the choice deterministic.
// Blocks are numbered in program order, so that node is the last block of the
// loop in the text, usually its latch; branches inside the loop then reconverge
// inside it rather than "at exit". These extra exits are pseudo_exits(). (With
// several back edges, e.g. an if/else whose two sides each jump back to the
// header, the last block is one side and the branch "reconverges" on that
// side: a SIMT stack then holds those lanes there while the others iterate.
// Such loops never terminate anyway; the choice is documented, not optimal.)
//
// Nodes unreachable from the entry are analysed like the others: post-dominance
// does not depend on the entry.
#ifndef BARRACUDA_PTX_REWRITER_POSTDOMINATORS_H_
#define BARRACUDA_PTX_REWRITER_POSTDOMINATORS_H_

#include <vector>

#include "ptx_rewriter/graph.h"

namespace barracuda::ptx {

class PostDominatorTree {
 public:
  // Stands for the virtual exit wherever a node id is expected.
  static constexpr int kVirtualExit = -1;

  static PostDominatorTree Compute(const FlowGraph& graph);

  int num_nodes() const { return static_cast<int>(ipdom_.size()); }

  // Immediate post-dominator of `node` (a real node or kVirtualExit). Every
  // node has one; kVirtualExit's own is kVirtualExit.
  int ipdom(int node) const;

  // Depth in the post-dominator tree; the virtual exit has depth 0.
  int depth(int node) const;

  // Reflexive: every node post-dominates itself; kVirtualExit post-dominates all.
  bool PostDominates(int a, int b) const;

  // The deepest node that post-dominates both `a` and `b`.
  int NearestCommonPostDominator(int a, int b) const;

  // False for nodes that reach no real exit (they reach a pseudo exit instead).
  bool reaches_real_exit(int node) const;

  // Nodes joined to the virtual exit because their region has no exit, in
  // increasing order.
  const std::vector<int>& pseudo_exits() const { return pseudo_exits_; }

 private:
  std::vector<int> ipdom_;  // kVirtualExit for the exit itself
  std::vector<int> depth_;
  std::vector<bool> reaches_real_exit_;
  std::vector<int> pseudo_exits_;
};

}  // namespace barracuda::ptx

#endif  // BARRACUDA_PTX_REWRITER_POSTDOMINATORS_H_
