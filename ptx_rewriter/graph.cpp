#include "ptx_rewriter/graph.h"

#include <algorithm>

namespace barracuda::ptx {

std::vector<std::vector<int>> Predecessors(const FlowGraph& graph) {
  std::vector<std::vector<int>> preds(graph.successors.size());
  for (int v = 0; v < graph.size(); ++v) {
    for (int s : graph.successors[static_cast<std::size_t>(v)]) {
      auto& p = preds[static_cast<std::size_t>(s)];
      // v increases monotonically, so a duplicate can only be the last entry.
      if (p.empty() || p.back() != v) p.push_back(v);
    }
  }
  return preds;
}

std::vector<bool> ReachableFromEntry(const FlowGraph& graph) {
  std::vector<bool> seen(graph.successors.size(), false);
  if (graph.size() == 0) return seen;
  std::vector<int> work{graph.entry};
  seen[static_cast<std::size_t>(graph.entry)] = true;
  while (!work.empty()) {
    int v = work.back();
    work.pop_back();
    for (int s : graph.successors[static_cast<std::size_t>(v)]) {
      if (!seen[static_cast<std::size_t>(s)]) {
        seen[static_cast<std::size_t>(s)] = true;
        work.push_back(s);
      }
    }
  }
  return seen;
}

}  // namespace barracuda::ptx
