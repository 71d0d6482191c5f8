// Post-dominators on hand-built graphs, and against a brute-force definition
// on random graphs (irreducible ones included).
#include "ptx_rewriter/postdominators.h"

#include <catch2/catch.hpp>

#include <random>
#include <utility>
#include <vector>

#include "ptx_rewriter/graph.h"

namespace barracuda::ptx {
namespace {

constexpr int X = PostDominatorTree::kVirtualExit;

FlowGraph Make(int n, std::vector<std::pair<int, int>> edges, std::vector<int> exits) {
  FlowGraph g;
  for (int i = 0; i < n; ++i) g.AddNode();
  for (auto [a, b] : edges) g.AddEdge(a, b);
  for (int e : exits) g.AddExit(e);
  return g;
}

std::vector<int> Ipdoms(const PostDominatorTree& t) {
  std::vector<int> r;
  for (int v = 0; v < t.num_nodes(); ++v) r.push_back(t.ipdom(v));
  return r;
}

TEST_CASE("post-dominators: if-then", "[postdom]") {
  // 0: @p bra 2;  1: then;  2: ret
  auto t = PostDominatorTree::Compute(Make(3, {{0, 2}, {0, 1}, {1, 2}}, {2}));
  CHECK(Ipdoms(t) == std::vector<int>{2, 2, X});
  CHECK(t.pseudo_exits().empty());
  CHECK(t.PostDominates(2, 0));
  CHECK_FALSE(t.PostDominates(1, 0));
  CHECK(t.PostDominates(X, 1));
  CHECK(t.PostDominates(1, 1));
  CHECK(t.depth(X) == 0);
  CHECK(t.depth(2) == 1);
  CHECK(t.depth(0) == 2);
}

TEST_CASE("post-dominators: if-then-else", "[postdom]") {
  auto t = PostDominatorTree::Compute(Make(4, {{0, 1}, {0, 2}, {1, 3}, {2, 3}}, {3}));
  CHECK(Ipdoms(t) == std::vector<int>{3, 3, 3, X});
  CHECK(t.NearestCommonPostDominator(1, 2) == 3);
}

TEST_CASE("post-dominators: nested branches", "[postdom]") {
  // if (a) { if (b) {2} else {3} 4 } 5
  auto t = PostDominatorTree::Compute(
      Make(6, {{0, 1}, {0, 5}, {1, 2}, {1, 3}, {2, 4}, {3, 4}, {4, 5}}, {5}));
  CHECK(Ipdoms(t) == std::vector<int>{5, 4, 4, 4, 5, X});
  CHECK(t.NearestCommonPostDominator(2, 3) == 4);
  CHECK(t.NearestCommonPostDominator(2, 0) == 5);
  CHECK(t.PostDominates(5, 2));
}

TEST_CASE("post-dominators: loop with break and continue", "[postdom]") {
  // 0 -> 1 (header: cond) -> 2 body | 6 after
  // 2: if (a) break -> 6 | 3;  3: if (b) continue -> 5 | 4;  4 -> 5;  5 latch -> 1
  auto t = PostDominatorTree::Compute(Make(
      7, {{0, 1}, {1, 2}, {1, 6}, {2, 6}, {2, 3}, {3, 5}, {3, 4}, {4, 5}, {5, 1}}, {6}));
  CHECK(Ipdoms(t) == std::vector<int>{1, 6, 6, 5, 5, 1, X});
}

TEST_CASE("post-dominators: early return inside a loop", "[postdom]") {
  SECTION("predicated ret: the block both exits and falls through") {
    // 0 -> 1 header -> 2 | 4;  2: @p ret, falls to 3;  3 latch -> 1;  4: ret
    auto t = PostDominatorTree::Compute(
        Make(5, {{0, 1}, {1, 2}, {1, 4}, {2, 3}, {3, 1}}, {2, 4}));
    CHECK(Ipdoms(t) == std::vector<int>{1, X, X, 1, X});
  }
  SECTION("return in its own block") {
    // 2: @p bra 5 -> 5 | 3;  5: ret
    auto t = PostDominatorTree::Compute(
        Make(6, {{0, 1}, {1, 2}, {1, 4}, {2, 5}, {2, 3}, {3, 1}, {4, 5}}, {5}));
    CHECK(Ipdoms(t) == std::vector<int>{1, 5, 5, 1, 5, X});
    // A second return block makes the function's end the only common point.
    auto u = PostDominatorTree::Compute(
        Make(7, {{0, 1}, {1, 2}, {1, 4}, {2, 5}, {2, 3}, {3, 1}, {4, 6}}, {5, 6}));
    CHECK(Ipdoms(u) == std::vector<int>{1, X, X, 1, 6, X, X});
  }
}

TEST_CASE("post-dominators: unstructured goto", "[postdom]") {
  // 0 -> 1 | 2;  1 -> 3 | 4;  2 jumps into the middle of 1's else part (4).
  auto t = PostDominatorTree::Compute(
      Make(6, {{0, 1}, {0, 2}, {1, 3}, {1, 4}, {2, 4}, {3, 5}, {4, 5}}, {5}));
  CHECK(Ipdoms(t) == std::vector<int>{5, 5, 4, 5, 5, X});
  // Goto out of a nested branch straight to the end of the outer one.
  auto u = PostDominatorTree::Compute(
      Make(6, {{0, 1}, {0, 4}, {1, 2}, {1, 5}, {2, 3}, {3, 4}, {4, 5}}, {5}));
  CHECK(Ipdoms(u) == std::vector<int>{5, 5, 3, 4, 5, X});
}

TEST_CASE("post-dominators: irreducible loop", "[postdom]") {
  // Two entries (1 and 2) into the cycle 1 <-> 2; the cycle leaves from 1.
  auto t = PostDominatorTree::Compute(
      Make(4, {{0, 1}, {0, 2}, {1, 2}, {2, 1}, {1, 3}}, {3}));
  CHECK(Ipdoms(t) == std::vector<int>{1, 3, 1, X});
  // Both nodes of the cycle leave it, to different places that meet again.
  auto u = PostDominatorTree::Compute(
      Make(6, {{0, 1}, {0, 2}, {1, 2}, {2, 1}, {1, 3}, {2, 4}, {3, 5}, {4, 5}}, {5}));
  CHECK(Ipdoms(u) == std::vector<int>{5, 5, 5, 5, 5, X});
}

TEST_CASE("post-dominators: self-loop", "[postdom]") {
  auto t = PostDominatorTree::Compute(Make(3, {{0, 1}, {1, 1}, {1, 2}}, {2}));
  CHECK(Ipdoms(t) == std::vector<int>{1, 2, X});
}

TEST_CASE("post-dominators: infinite loops get a deterministic pseudo exit", "[postdom]") {
  SECTION("the whole function loops: its last block joins the exit") {
    // 0 -> 1 header -> 2 | 3 -> 4 latch -> 1, no ret anywhere.
    auto t = PostDominatorTree::Compute(
        Make(5, {{0, 1}, {1, 2}, {1, 3}, {2, 4}, {3, 4}, {4, 1}}, {}));
    CHECK(t.pseudo_exits() == std::vector<int>{4});
    // The branch inside the loop still reconverges inside it.
    CHECK(Ipdoms(t) == std::vector<int>{1, 4, 4, 4, X});
    for (int v = 0; v < 5; ++v) CHECK_FALSE(t.reaches_real_exit(v));
  }
  SECTION("one path loops forever, the other returns") {
    auto t = PostDominatorTree::Compute(Make(4, {{0, 1}, {0, 3}, {1, 2}, {2, 1}}, {3}));
    CHECK(t.pseudo_exits() == std::vector<int>{2});
    CHECK(Ipdoms(t) == std::vector<int>{X, 2, X, X});
    CHECK(t.reaches_real_exit(0));
    CHECK_FALSE(t.reaches_real_exit(1));
    CHECK(t.reaches_real_exit(3));
  }
  SECTION("spin on a self-loop") {
    auto t = PostDominatorTree::Compute(Make(3, {{0, 1}, {0, 2}, {1, 1}}, {2}));
    CHECK(t.pseudo_exits() == std::vector<int>{1});
    CHECK(Ipdoms(t) == std::vector<int>{X, X, X});
  }
  SECTION("only sink components get a pseudo exit") {
    // {1} loops but can leave into {2,3}, which never leaves.
    auto t = PostDominatorTree::Compute(
        Make(4, {{0, 1}, {1, 1}, {1, 2}, {2, 3}, {3, 2}}, {}));
    CHECK(t.pseudo_exits() == std::vector<int>{3});
    CHECK(Ipdoms(t) == std::vector<int>{1, 2, 3, X});
  }
  SECTION("two separate infinite loops") {
    auto t = PostDominatorTree::Compute(
        Make(5, {{0, 1}, {0, 3}, {1, 2}, {2, 1}, {3, 4}, {4, 3}}, {}));
    CHECK(t.pseudo_exits() == std::vector<int>{2, 4});
    CHECK(Ipdoms(t) == std::vector<int>{X, 2, X, 4, X});
  }
}

TEST_CASE("post-dominators: unreachable blocks", "[postdom]") {
  // 1 is dead code that jumps to the join; 3 is dead code without a successor.
  FlowGraph g = Make(4, {{0, 2}, {1, 2}}, {2});
  auto t = PostDominatorTree::Compute(g);
  CHECK(ReachableFromEntry(g) == std::vector<bool>{true, false, true, false});
  CHECK(t.ipdom(1) == 2);
  CHECK(t.ipdom(0) == 2);
  CHECK(t.pseudo_exits() == std::vector<int>{3});
  CHECK(t.ipdom(3) == X);
}

TEST_CASE("post-dominators: multiway branch", "[postdom]") {
  // brx.idx with four targets, two of them the same block; 4 returns early.
  auto t = PostDominatorTree::Compute(Make(
      7, {{0, 1}, {0, 2}, {0, 2}, {0, 3}, {0, 4}, {1, 5}, {2, 5}, {3, 5}, {4, 6}, {5, 6}}, {6}));
  CHECK(t.ipdom(0) == 6);
  CHECK(t.ipdom(1) == 5);
  auto u = PostDominatorTree::Compute(
      Make(6, {{0, 1}, {0, 2}, {0, 3}, {1, 4}, {2, 4}, {3, 4}, {4, 5}}, {5}));
  CHECK(u.ipdom(0) == 4);
}

TEST_CASE("post-dominators: degenerate graphs", "[postdom]") {
  CHECK(PostDominatorTree::Compute(FlowGraph{}).num_nodes() == 0);
  auto one = PostDominatorTree::Compute(Make(1, {}, {0}));
  CHECK(one.ipdom(0) == X);
  CHECK(one.pseudo_exits().empty());
  // A branch whose two targets coincide (`@p bra L` right before L).
  auto dup = PostDominatorTree::Compute(Make(2, {{0, 1}, {0, 1}}, {1}));
  CHECK(dup.ipdom(0) == 1);
  CHECK(Predecessors(Make(2, {{0, 1}, {0, 1}}, {1}))[1] == std::vector<int>{0});
}

// --- Brute force on random graphs ------------------------------------------

// reach[a][b]: b reachable from a in zero or more steps, avoiding `removed`.
std::vector<bool> ReachFrom(const std::vector<std::vector<int>>& succ, int from, int removed) {
  std::vector<bool> seen(succ.size(), false);
  if (from == removed) return seen;
  std::vector<int> work{from};
  seen[static_cast<std::size_t>(from)] = true;
  while (!work.empty()) {
    int v = work.back();
    work.pop_back();
    for (int s : succ[static_cast<std::size_t>(v)]) {
      if (s != removed && !seen[static_cast<std::size_t>(s)]) {
        seen[static_cast<std::size_t>(s)] = true;
        work.push_back(s);
      }
    }
  }
  return seen;
}

TEST_CASE("post-dominators: random graphs agree with the definition", "[postdom]") {
  std::mt19937 rng(20261121);
  for (int round = 0; round < 400; ++round) {
    const int n = 1 + static_cast<int>(rng() % 12);
    FlowGraph g;
    for (int i = 0; i < n; ++i) g.AddNode();
    for (int v = 0; v < n; ++v) {
      const int degree = static_cast<int>(rng() % 4);  // 0..3, duplicates allowed
      for (int k = 0; k < degree; ++k) g.AddEdge(v, static_cast<int>(rng() % n));
      if (rng() % 4 == 0) g.AddExit(v);
    }
    const auto t = PostDominatorTree::Compute(g);
    INFO("round " << round << " n " << n);

    // Independent pseudo exits: nodes that reach no exit and whose reachable
    // set is exactly their own strongly connected component; keep the max.
    const int x = n;
    std::vector<std::vector<int>> succ = g.successors;
    succ.emplace_back();
    std::vector<bool> is_exit(static_cast<std::size_t>(n), false);
    for (int e : g.exits) is_exit[static_cast<std::size_t>(e)] = true;
    std::vector<std::vector<bool>> reach;
    for (int v = 0; v < n; ++v) reach.push_back(ReachFrom(g.successors, v, -1));
    std::vector<int> expected_pseudo;
    for (int v = 0; v < n; ++v) {
      bool reaches_exit = false, in_sink = true, is_max = true;
      for (int w = 0; w < n; ++w) {
        if (!reach[static_cast<std::size_t>(v)][static_cast<std::size_t>(w)]) continue;
        if (is_exit[static_cast<std::size_t>(w)]) reaches_exit = true;
        const bool mutual = reach[static_cast<std::size_t>(w)][static_cast<std::size_t>(v)];
        if (!mutual) in_sink = false;
        if (mutual && w > v) is_max = false;
      }
      CHECK(t.reaches_real_exit(v) == reaches_exit);
      if (!reaches_exit && in_sink && is_max) expected_pseudo.push_back(v);
    }
    CHECK(t.pseudo_exits() == expected_pseudo);
    for (int e : g.exits) succ[static_cast<std::size_t>(e)].push_back(x);
    for (int e : expected_pseudo) succ[static_cast<std::size_t>(e)].push_back(x);

    // a post-dominates b  <=>  every path from b to X meets a.
    auto pdom = [&](int a, int b) {
      if (a == b) return true;
      return !ReachFrom(succ, b, a)[static_cast<std::size_t>(x)];
    };
    for (int b = 0; b < n; ++b) {
      const int ip = t.ipdom(b);
      const int ip_node = ip == X ? x : ip;
      CHECK(ip_node != b);
      CHECK(pdom(ip_node, b));
      // Every strict post-dominator of b post-dominates the immediate one.
      for (int a = 0; a < n; ++a) {
        if (a != b && pdom(a, b)) {
          CHECK(pdom(a, ip_node));
          CHECK(t.PostDominates(a, b));
        } else if (a != b) {
          CHECK_FALSE(t.PostDominates(a, b));
        }
      }
    }
  }
}

}  // namespace
}  // namespace barracuda::ptx
