// Reconvergence points of branches in PTX functions. The nvcc cases were
// checked by hand against the PTX text in tests/data/analysis/.
#include "ptx_rewriter/reconvergence.h"

#include <catch2/catch.hpp>

#include <string>
#include <utility>
#include <vector>

#include "ptx_rewriter/tests/analysis_test_data.h"

namespace barracuda::ptx {
namespace {

using testing::KernelModule;
using testing::LoadDataFile;

constexpr int kExit = PostDominatorTree::kVirtualExit;

Reconvergence Compute(const Function& f) {
  auto cfg = BuildCfg(f);
  INFO(cfg.status().ToString());
  REQUIRE(cfg.ok());
  return ComputeReconvergence(*cfg);
}

// (branch PTX line, reconvergence label or "exit") for every listed branch.
std::vector<std::pair<uint32_t, std::string>> Summary(const Reconvergence& r) {
  std::vector<std::pair<uint32_t, std::string>> out;
  for (const auto& b : r.branches) {
    out.emplace_back(b.ptx_line, b.at_exit() ? std::string("exit") : b.reconvergence_label);
  }
  return out;
}

using Lines = std::vector<std::pair<uint32_t, std::string>>;

TEST_CASE("reconvergence at the immediate post-dominator", "[reconvergence]") {
  SECTION("if-then-else") {
    Module m = KernelModule(
        "\t@%p1 bra $L_else;\n"  // line 9
        "\tmov.u32 %r1, 1;\n"
        "\tbra.uni $L_join;\n"
        "$L_else:\n"
        "\tmov.u32 %r1, 2;\n"
        "$L_join:\n"             // 14
        "\tst.global.u32 [%rd1], %r1;\n"
        "\tret;\n");
    const Function& f = *m.FindFunction("k");
    Reconvergence r = Compute(f);
    REQUIRE(r.branches.size() == 1);  // bra.uni never splits a warp
    const BranchReconvergence& b = r.branches[0];
    CHECK(b.block == 0);
    CHECK(b.ptx_line == 9);
    CHECK(b.statement == 3);
    CHECK_FALSE(b.multiway);
    CHECK_FALSE(b.uniform);
    CHECK(b.reconvergence_block == 3);
    CHECK(b.reconvergence_label == "$L_join");
    CHECK(b.reconvergence_line == 15);
    REQUIRE(b.reconvergence_statement.has_value());
    CHECK(std::get<Instruction>(f.body[*b.reconvergence_statement]).op == Opcode::kSt);
    CHECK(r.ForStatement(3) == &r.branches[0]);
    CHECK(r.ForStatement(4) == nullptr);
    CHECK(r.ForBlock(0) == &r.branches[0]);
    CHECK(r.ForBlock(1) == nullptr);
    CHECK(r.pdom.ipdom(1) == 3);
  }
  SECTION("an early return makes the paths meet only at exit") {
    Module m = KernelModule(
        "\t@%p1 bra $L_out;\n"
        "\t@%p2 ret;\n"
        "\tmov.u32 %r1, 1;\n"
        "$L_out:\n"
        "\tret;\n");
    Reconvergence r = Compute(*m.FindFunction("k"));
    REQUIRE(r.branches.size() == 1);  // `@%p2 ret` is a conditional exit, not a branch
    CHECK(r.branches[0].at_exit());
    CHECK(r.branches[0].reconvergence_block == kExit);
    CHECK(r.branches[0].reconvergence_label.empty());
    CHECK_FALSE(r.branches[0].reconvergence_statement.has_value());
    CHECK(r.branches[0].reconvergence_line == 0);
  }
  SECTION("uniform conditional branch is listed and marked") {
    Module m = KernelModule("\t@%p1 bra.uni $L_a;\n\tmov.u32 %r1, 1;\n$L_a:\n\tret;\n");
    Reconvergence r = Compute(*m.FindFunction("k"));
    REQUIRE(r.branches.size() == 1);
    CHECK(r.branches[0].uniform);
    CHECK(r.branches[0].reconvergence_label == "$L_a");
  }
  SECTION("a join block without instructions") {
    Module m = KernelModule("\t@%p1 bra $L_end;\n\tmov.u32 %r1, 1;\n$L_end:\n");
    Reconvergence r = Compute(*m.FindFunction("k"));
    REQUIRE(r.branches.size() == 1);
    CHECK(r.branches[0].reconvergence_label == "$L_end");
    CHECK_FALSE(r.branches[0].reconvergence_statement.has_value());
  }
}

TEST_CASE("nvcc output: branches.cu", "[reconvergence]") {
  Module m = LoadDataFile("branches.ptx");
  CHECK(Summary(Compute(*m.FindFunction("_Z7if_thenPii"))) == Lines{{37, "$L__BB0_2"}});
  CHECK(Compute(*m.FindFunction("_Z12if_then_elsePii")).branches.empty());
  // for (k < n) { if (a[k] == i) break; if (a[k] > 100) continue; ... }
  CHECK(Summary(Compute(*m.FindFunction("_Z19loop_break_continuePii"))) ==
        Lines{{103, "$L__BB2_6"}, {114, "$L__BB2_6"}, {118, "$L__BB2_5"}, {130, "$L__BB2_6"}});
  // nvcc merges the early return with the final one: everything meets at `ret`.
  CHECK(Summary(Compute(*m.FindFunction("_Z12early_returnPii"))) ==
        Lines{{161, "$L__BB3_5"}, {172, "$L__BB3_5"}, {181, "$L__BB3_5"}});
  const Reconvergence r = Compute(*m.FindFunction("_Z12early_returnPii"));
  CHECK(r.branches[1].reconvergence_line == 192);  // the ret after `.loc 1 37 1`
}

TEST_CASE("nvcc output: infinite loop gets its last block as pseudo exit", "[reconvergence]") {
  Module m = LoadDataFile("branches.ptx");
  const Reconvergence r = Compute(*m.FindFunction("_Z7foreverPVi"));
  CHECK(r.pdom.pseudo_exits() == std::vector<int>{4});
  CHECK(Summary(r) == Lines{{229, "$L__BB4_3"}});
}

TEST_CASE("nvcc output: a switch lowered to a tree of branches", "[reconvergence]") {
  Module m = LoadDataFile("switch.ptx");
  const Reconvergence r = Compute(*m.FindFunction("_Z8dispatchPii"));
  REQUIRE(r.branches.size() == 9);
  for (const auto& b : r.branches) {
    CHECK(b.reconvergence_label == "$L__BB0_17");
    CHECK(b.reconvergence_line == 132);
  }
}

TEST_CASE("hand-written control.ptx", "[reconvergence]") {
  Module m = LoadDataFile("control.ptx");
  SECTION("brx.idx reconverges at the join of its cases") {
    const Reconvergence r = Compute(*m.FindFunction("multiway"));
    CHECK(Summary(r) == Lines{{25, "$L_join"}, {27, "$L_join"}});
    CHECK_FALSE(r.branches[0].multiway);
    CHECK(r.branches[1].multiway);
    CHECK(r.branches[1].reconvergence_line == 43);  // first instruction after the `{` and decls
  }
  SECTION("one side traps: reconverges at exit") {
    CHECK(Summary(Compute(*m.FindFunction("exits"))) == Lines{{61, "exit"}});
  }
  SECTION("spin loop without exit: the branch reconverges at the latch") {
    const Reconvergence r = Compute(*m.FindFunction("spin"));
    CHECK(r.pdom.pseudo_exits() == std::vector<int>{4});
    CHECK(Summary(r) == Lines{{80, "$L_latch"}});
  }
}

}  // namespace
}  // namespace barracuda::ptx
