#include "ptx_rewriter/postdominators.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <utility>

namespace barracuda::ptx {
namespace {

using Index = std::size_t;

// The graph is built by our own code; a malformed one is a programming error.
void Check(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "barracuda: PostDominatorTree: %s\n", what);
    std::abort();
  }
}

// Nodes that can reach one of `exits` (reverse search over predecessors).
std::vector<bool> CanReach(const std::vector<std::vector<int>>& preds,
                           const std::vector<bool>& is_exit) {
  std::vector<bool> seen(preds.size(), false);
  std::vector<int> work;
  for (Index v = 0; v < preds.size(); ++v) {
    if (is_exit[v]) {
      seen[v] = true;
      work.push_back(static_cast<int>(v));
    }
  }
  while (!work.empty()) {
    int v = work.back();
    work.pop_back();
    for (int p : preds[static_cast<Index>(v)]) {
      if (!seen[static_cast<Index>(p)]) {
        seen[static_cast<Index>(p)] = true;
        work.push_back(p);
      }
    }
  }
  return seen;
}

// Among the nodes with reaches[v] == false (a set closed under successors),
// returns the highest-numbered node of every sink strongly connected
// component, in increasing order. Tarjan's algorithm, iterative so that deep
// graphs cannot overflow the stack.
std::vector<int> SinkComponentRepresentatives(const FlowGraph& graph,
                                              const std::vector<bool>& reaches) {
  const Index n = graph.successors.size();
  std::vector<int> index(n, -1), low(n, 0), component(n, -1);
  std::vector<bool> on_stack(n, false);
  std::vector<int> scc_stack;
  std::vector<std::pair<int, Index>> call_stack;  // node, next successor
  int counter = 0;
  int num_components = 0;
  for (Index root = 0; root < n; ++root) {
    if (reaches[root] || index[root] != -1) continue;
    auto enter = [&](int v) {
      index[static_cast<Index>(v)] = low[static_cast<Index>(v)] = counter++;
      scc_stack.push_back(v);
      on_stack[static_cast<Index>(v)] = true;
      call_stack.emplace_back(v, 0);
    };
    enter(static_cast<int>(root));
    while (!call_stack.empty()) {
      auto& [v, next] = call_stack.back();
      const auto& succ = graph.successors[static_cast<Index>(v)];
      if (next < succ.size()) {
        int w = succ[next++];
        if (reaches[static_cast<Index>(w)]) continue;  // cannot happen: closed set
        if (index[static_cast<Index>(w)] == -1) {
          enter(w);  // invalidates v/next; the loop re-reads the top
        } else if (on_stack[static_cast<Index>(w)]) {
          low[static_cast<Index>(v)] = std::min(low[static_cast<Index>(v)], index[static_cast<Index>(w)]);
        }
        continue;
      }
      const int done = v;
      call_stack.pop_back();
      if (low[static_cast<Index>(done)] == index[static_cast<Index>(done)]) {
        int w;
        do {
          w = scc_stack.back();
          scc_stack.pop_back();
          on_stack[static_cast<Index>(w)] = false;
          component[static_cast<Index>(w)] = num_components;
        } while (w != done);
        ++num_components;
      }
      if (!call_stack.empty()) {
        int parent = call_stack.back().first;
        low[static_cast<Index>(parent)] =
            std::min(low[static_cast<Index>(parent)], low[static_cast<Index>(done)]);
      }
    }
  }
  std::vector<bool> is_sink(static_cast<Index>(num_components), true);
  std::vector<int> representative(static_cast<Index>(num_components), -1);
  for (Index v = 0; v < n; ++v) {
    if (reaches[v]) continue;
    const int c = component[v];
    representative[static_cast<Index>(c)] = static_cast<int>(v);  // v increases: keeps the max
    for (int w : graph.successors[v]) {
      if (component[static_cast<Index>(w)] != c) is_sink[static_cast<Index>(c)] = false;
    }
  }
  std::vector<int> result;
  for (Index c = 0; c < is_sink.size(); ++c) {
    if (is_sink[c]) result.push_back(representative[c]);
  }
  std::sort(result.begin(), result.end());
  return result;
}

}  // namespace

PostDominatorTree PostDominatorTree::Compute(const FlowGraph& graph) {
  const int n = graph.size();
  const Index un = static_cast<Index>(n);
  Check(n == 0 || (graph.entry >= 0 && graph.entry < n), "entry out of range");
  for (const auto& succ : graph.successors) {
    for (int s : succ) Check(s >= 0 && s < n, "successor out of range");
  }
  std::vector<bool> is_exit(un, false);
  for (int e : graph.exits) {
    Check(e >= 0 && e < n, "exit node out of range");
    is_exit[static_cast<Index>(e)] = true;
  }

  PostDominatorTree tree;
  const auto preds = Predecessors(graph);
  tree.reaches_real_exit_ = CanReach(preds, is_exit);
  tree.pseudo_exits_ = SinkComponentRepresentatives(graph, tree.reaches_real_exit_);
  for (int v : tree.pseudo_exits_) is_exit[static_cast<Index>(v)] = true;

  // Post-order of the reverse graph from the virtual exit X (= node n). X's
  // reverse successors are the exits, a node's are its predecessors.
  const int x = n;
  std::vector<int> exit_nodes;
  for (int v = 0; v < n; ++v) {
    if (is_exit[static_cast<Index>(v)]) exit_nodes.push_back(v);
  }
  auto reverse_successors = [&](int v) -> const std::vector<int>& {
    return v == x ? exit_nodes : preds[static_cast<Index>(v)];
  };
  std::vector<int> postorder_number(un + 1, -1);
  std::vector<int> postorder;
  postorder.reserve(un + 1);
  {
    std::vector<bool> visited(un + 1, false);
    std::vector<std::pair<int, Index>> stack{{x, 0}};
    visited[un] = true;
    while (!stack.empty()) {
      auto& [v, next] = stack.back();
      const auto& rs = reverse_successors(v);
      if (next < rs.size()) {
        int w = rs[next++];
        if (!visited[static_cast<Index>(w)]) {
          visited[static_cast<Index>(w)] = true;
          stack.emplace_back(w, 0);
        }
        continue;
      }
      postorder_number[static_cast<Index>(v)] = static_cast<int>(postorder.size());
      postorder.push_back(v);
      stack.pop_back();
    }
  }
  // Every node reaches a real or pseudo exit, so the search saw all of them.
  Check(postorder.size() == un + 1, "node not reached from the virtual exit");

  // Cooper-Harvey-Kennedy on the reverse graph: a node's predecessors there
  // are its forward successors, plus X when it exits.
  constexpr int kUndefined = -2;
  std::vector<int> idom(un + 1, kUndefined);
  idom[un] = x;
  auto intersect = [&](int a, int b) {
    while (a != b) {
      while (postorder_number[static_cast<Index>(a)] < postorder_number[static_cast<Index>(b)]) {
        a = idom[static_cast<Index>(a)];
      }
      while (postorder_number[static_cast<Index>(b)] < postorder_number[static_cast<Index>(a)]) {
        b = idom[static_cast<Index>(b)];
      }
    }
    return a;
  };
  bool changed = true;
  while (changed) {
    changed = false;
    for (auto it = postorder.rbegin(); it != postorder.rend(); ++it) {
      const int b = *it;
      if (b == x) continue;
      int candidate = is_exit[static_cast<Index>(b)] ? x : kUndefined;
      for (int s : graph.successors[static_cast<Index>(b)]) {
        if (idom[static_cast<Index>(s)] == kUndefined) continue;
        candidate = candidate == kUndefined ? s : intersect(s, candidate);
      }
      if (idom[static_cast<Index>(b)] != candidate) {
        idom[static_cast<Index>(b)] = candidate;
        changed = true;
      }
    }
  }

  tree.ipdom_.assign(un, kVirtualExit);
  tree.depth_.assign(un, 0);
  // Reverse post-order visits a node's ipdom before the node itself.
  for (auto it = postorder.rbegin(); it != postorder.rend(); ++it) {
    const int b = *it;
    if (b == x) continue;
    const int d = idom[static_cast<Index>(b)];
    Check(d != kUndefined, "node without a post-dominator");
    tree.ipdom_[static_cast<Index>(b)] = d == x ? kVirtualExit : d;
    tree.depth_[static_cast<Index>(b)] = d == x ? 1 : tree.depth_[static_cast<Index>(d)] + 1;
  }
  return tree;
}

int PostDominatorTree::ipdom(int node) const {
  if (node == kVirtualExit) return kVirtualExit;
  return ipdom_.at(static_cast<Index>(node));
}

int PostDominatorTree::depth(int node) const {
  if (node == kVirtualExit) return 0;
  return depth_.at(static_cast<Index>(node));
}

bool PostDominatorTree::PostDominates(int a, int b) const {
  if (a == kVirtualExit) return true;
  const int target_depth = depth(a);
  while (depth(b) > target_depth) b = ipdom(b);
  return a == b;
}

int PostDominatorTree::NearestCommonPostDominator(int a, int b) const {
  while (depth(a) > depth(b)) a = ipdom(a);
  while (depth(b) > depth(a)) b = ipdom(b);
  while (a != b) {
    a = ipdom(a);
    b = ipdom(b);
  }
  return a;
}

bool PostDominatorTree::reaches_real_exit(int node) const {
  return reaches_real_exit_.at(static_cast<Index>(node));
}

}  // namespace barracuda::ptx
