// A control-flow graph reduced to what dominance analyses need: nodes 0..n-1,
// an entry, ordered successor lists and the nodes that leave the function.
// The PTX CFG (cfg.h) lowers to this; the algorithms in postdominators.h are
// written against it so that they can be tested on hand-built graphs.
#ifndef BARRACUDA_PTX_REWRITER_GRAPH_H_
#define BARRACUDA_PTX_REWRITER_GRAPH_H_

#include <cstddef>
#include <vector>

namespace barracuda::ptx {

struct FlowGraph {
  int entry = 0;
  // successors[v] lists v's targets in branch order. Duplicates are allowed
  // (a `@p bra L` that falls through to L); algorithms treat them as one edge.
  std::vector<std::vector<int>> successors;
  // Nodes with an edge out of the function (ret, exit, trap, or falling off
  // the end). A node may be exiting and still have successors (`@p ret`).
  std::vector<int> exits;

  int size() const { return static_cast<int>(successors.size()); }

  // Appends a node and returns its id: convenient for building graphs by hand.
  int AddNode() {
    successors.emplace_back();
    return size() - 1;
  }
  void AddEdge(int from, int to) { successors[static_cast<std::size_t>(from)].push_back(to); }
  void AddExit(int node) { exits.push_back(node); }
};

// predecessors[v], in increasing order of the predecessor id, without duplicates.
std::vector<std::vector<int>> Predecessors(const FlowGraph& graph);

// reachable[v]: v can be reached from graph.entry.
std::vector<bool> ReachableFromEntry(const FlowGraph& graph);

}  // namespace barracuda::ptx

#endif  // BARRACUDA_PTX_REWRITER_GRAPH_H_
