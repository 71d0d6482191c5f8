// Basic blocks and edges of PTX functions: hand-written bodies for each rule
// of cfg.h, and nvcc output checked by hand.
#include "ptx_rewriter/cfg.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "ptx_rewriter/reconvergence.h"
#include "ptx_rewriter/site_table.h"
#include "ptx_rewriter/tests/analysis_test_data.h"

namespace barracuda::ptx {
namespace {

using testing::KernelModule;
using testing::LoadDataFile;

// KernelSource puts three .reg declarations first: the body starts at
// statement 3, PTX line 9.
constexpr std::size_t kFirst = 3;

FunctionCfg BuildOrFail(const Function& f) {
  auto cfg = BuildCfg(f, "kernel.ptx");
  INFO(cfg.status().ToString());
  REQUIRE(cfg.ok());
  return *std::move(cfg);
}

FunctionCfg KernelCfg(const Module& m) { return BuildOrFail(*m.FindFunction("k")); }

std::vector<std::vector<int>> Successors(const FunctionCfg& cfg) {
  std::vector<std::vector<int>> r;
  for (const auto& b : cfg.blocks) r.push_back(b.successors);
  return r;
}

std::vector<BlockEnd> Ends(const FunctionCfg& cfg) {
  std::vector<BlockEnd> r;
  for (const auto& b : cfg.blocks) r.push_back(b.end);
  return r;
}

// Structural invariants every CFG must satisfy.
void CheckInvariants(const Function& f, const FunctionCfg& cfg) {
  REQUIRE(cfg.block_of_statement.size() == f.body.size());
  std::size_t next = 0;
  for (const auto& b : cfg.blocks) {
    CHECK(b.id == static_cast<int>(&b - cfg.blocks.data()));
    CHECK(b.first_statement == next);  // blocks tile the body in order
    CHECK(b.first_statement <= b.last_statement);
    next = b.last_statement + 1;
    for (std::size_t i = b.first_statement; i <= b.last_statement; ++i) {
      CHECK(cfg.block_of_statement[i] == b.id);
    }
    for (int s : b.successors) {
      const auto& preds = cfg.blocks[static_cast<std::size_t>(s)].predecessors;
      CHECK(std::count(preds.begin(), preds.end(), b.id) == 1);
    }
    // Only the last instruction of a block may transfer control.
    for (std::size_t i = b.first_statement; i < b.last_statement; ++i) {
      const auto* inst = std::get_if<Instruction>(&f.body[i]);
      if (inst == nullptr || (b.last_instruction && i == *b.last_instruction)) continue;
      CHECK_FALSE((inst->is_branch() || inst->is_indirect_branch() || inst->is_terminator()));
    }
  }
  CHECK(next == f.body.size());
}

TEST_CASE("if-then splits at the branch and at the label", "[cfg]") {
  Module m = KernelModule(
      "\tsetp.eq.u32 %p1, %r1, 0;\n"  // line 9
      "\t@%p1 bra $L_join;\n"          // 10
      "\tmov.u32 %r2, 1;\n"            // 11
      "$L_join:\n"                     // 12
      "\tmov.u32 %r3, 2;\n"            // 13
      "\tret;\n");                     // 14
  const Function& f = *m.FindFunction("k");
  FunctionCfg cfg = KernelCfg(m);
  CheckInvariants(f, cfg);
  REQUIRE(cfg.blocks.size() == 3);
  CHECK(cfg.function_name == "k");
  CHECK(Successors(cfg) == std::vector<std::vector<int>>{{2, 1}, {2}, {}});
  CHECK(Ends(cfg) == std::vector<BlockEnd>{BlockEnd::kConditionalBranch, BlockEnd::kFallThrough,
                                           BlockEnd::kExit});
  CHECK(cfg.blocks[2].predecessors == std::vector<int>{0, 1});
  CHECK(cfg.blocks[0].first_statement == 0);  // the declarations belong to the entry block
  CHECK(cfg.blocks[0].first_instruction == kFirst);
  CHECK(cfg.blocks[0].last_statement == kFirst + 1);
  CHECK(cfg.blocks[0].first_line == 6);
  CHECK(cfg.blocks[0].last_line == 10);
  CHECK(cfg.blocks[0].first_instruction_line == 9);
  CHECK(cfg.blocks[1].label().empty());
  CHECK(cfg.blocks[2].labels == std::vector<std::string>{"$L_join"});
  CHECK(cfg.blocks[2].first_line == 12);
  CHECK(cfg.blocks[2].first_instruction_line == 13);
  CHECK(cfg.blocks[2].last_line == 14);
  CHECK(cfg.blocks[2].exits);
  CHECK_FALSE(cfg.blocks[0].exits);
  CHECK(cfg.FindBlock("$L_join") == 2);
  CHECK(cfg.FindBlock("$L_nope") == -1);
}

TEST_CASE("unconditional branch, consecutive labels, call inside a block", "[cfg]") {
  Module m = KernelModule(
      "\tbra.uni $L_b;\n"
      "$L_a:\n"
      "$L_b:\n"
      "\tcall.uni foo;\n"
      "\tmov.u32 %r1, 1;\n"
      "\t@%p1 bra.uni $L_a;\n"
      "\tret;\n");
  // `foo` need not exist for the CFG: calls are not edges.
  const Function& f = *m.FindFunction("k");
  FunctionCfg cfg = KernelCfg(m);
  CheckInvariants(f, cfg);
  REQUIRE(cfg.blocks.size() == 3);
  CHECK(cfg.blocks[1].labels == std::vector<std::string>{"$L_a", "$L_b"});
  CHECK(Successors(cfg) == std::vector<std::vector<int>>{{1}, {1, 2}, {}});
  CHECK(cfg.blocks[0].end == BlockEnd::kBranch);
  CHECK(cfg.blocks[0].uniform);
  CHECK(cfg.blocks[1].end == BlockEnd::kConditionalBranch);
  CHECK(cfg.blocks[1].uniform);
  CHECK(cfg.blocks[1].predecessors == std::vector<int>{0, 1});  // self-loop
  CHECK(cfg.FindBlock("$L_b") == 1);
}

TEST_CASE("a branch to the next statement has one distinct successor", "[cfg]") {
  Module m = KernelModule("\t@%p1 bra $L_n;\n$L_n:\n\tret;\n");
  FunctionCfg cfg = KernelCfg(m);
  CHECK(Successors(cfg) == std::vector<std::vector<int>>{{1}, {}});
  CHECK(cfg.blocks[0].end == BlockEnd::kConditionalBranch);
}

TEST_CASE("ret, exit and trap end blocks, with a guard they also fall through", "[cfg]") {
  Module m = KernelModule(
      "\t@%p1 ret;\n"
      "\t@!%p2 exit;\n"
      "\tmov.u32 %r1, 1;\n"
      "\t@%p3 trap;\n"
      "\texit;\n");
  const Function& f = *m.FindFunction("k");
  FunctionCfg cfg = KernelCfg(m);
  CheckInvariants(f, cfg);
  CHECK(Ends(cfg) == std::vector<BlockEnd>{BlockEnd::kConditionalExit, BlockEnd::kConditionalExit,
                                           BlockEnd::kConditionalExit, BlockEnd::kExit});
  CHECK(Successors(cfg) == std::vector<std::vector<int>>{{1}, {2}, {3}, {}});
  for (const auto& b : cfg.blocks) CHECK(b.exits);
  CHECK(cfg.ToFlowGraph().exits == std::vector<int>{0, 1, 2, 3});
}

TEST_CASE("brx.idx: one edge per distinct table entry", "[cfg]") {
  Module m = KernelModule(
      "\t$L_tab: .branchtargets $L_0, $L_1, $L_0;\n"
      "\tbrx.idx %r1, $L_tab;\n"
      "$L_1:\n"
      "\tmov.u32 %r2, 1;\n"
      "$L_0:\n"
      "\t@%p1 brx.idx %r1, $L_tab;\n"
      "\tret;\n");
  const Function& f = *m.FindFunction("k");
  FunctionCfg cfg = KernelCfg(m);
  CheckInvariants(f, cfg);
  REQUIRE(cfg.blocks.size() == 4);
  // Block 0 holds the .branchtargets statement and the first brx.idx.
  CHECK(Successors(cfg) == std::vector<std::vector<int>>{{2, 1}, {2}, {2, 1, 3}, {}});
  CHECK(cfg.blocks[0].end == BlockEnd::kMultiwayBranch);
  CHECK(cfg.blocks[2].end == BlockEnd::kMultiwayBranch);
  CHECK(cfg.blocks[2].predecessors == std::vector<int>{0, 1, 2});
}

TEST_CASE("running off the end of the body leaves the function", "[cfg]") {
  SECTION("a label before the closing brace is an empty exiting block") {
    Module m = KernelModule("\t@%p1 bra $L_end;\n\tmov.u32 %r1, 1;\n$L_end:\n");
    FunctionCfg cfg = KernelCfg(m);
    REQUIRE(cfg.blocks.size() == 3);
    CHECK(Successors(cfg) == std::vector<std::vector<int>>{{2, 1}, {2}, {}});
    CHECK_FALSE(cfg.blocks[2].first_instruction.has_value());
    CHECK(cfg.blocks[2].first_instruction_line == 0);
    CHECK(cfg.blocks[2].exits);
    CHECK(cfg.blocks[2].end == BlockEnd::kFallThrough);
  }
  SECTION("a conditional branch in the last block") {
    Module m = KernelModule("$L_top:\n\tmov.u32 %r1, 1;\n\t@%p1 bra $L_top;\n");
    FunctionCfg cfg = KernelCfg(m);
    REQUIRE(cfg.blocks.size() == 1);
    CHECK(cfg.blocks[0].successors == std::vector<int>{0});
    CHECK(cfg.blocks[0].exits);
  }
}

TEST_CASE("statements after the last terminator join the last block", "[cfg]") {
  Module m = KernelModule("\tret;\n\t.reg .b32 %extra;\n\t.loc 1 4 2\n");
  const Function& f = *m.FindFunction("k");
  FunctionCfg cfg = KernelCfg(m);
  CheckInvariants(f, cfg);
  REQUIRE(cfg.blocks.size() == 1);
  CHECK(cfg.blocks[0].last_statement == f.body.size() - 1);
}

TEST_CASE("code after an unconditional branch is an unreachable block", "[cfg]") {
  Module m = KernelModule(
      "\tbra.uni $L_end;\n"
      "\tmov.u32 %r1, 1;\n"
      "$L_end:\n"
      "\tret;\n");
  FunctionCfg cfg = KernelCfg(m);
  REQUIRE(cfg.blocks.size() == 3);
  CHECK(cfg.blocks[1].predecessors.empty());
  CHECK(cfg.blocks[1].successors == std::vector<int>{2});
  CHECK(ReachableFromEntry(cfg.ToFlowGraph()) == std::vector<bool>{true, false, true});
}

TEST_CASE("bad control flow is an error with a position", "[cfg]") {
  SECTION("undefined label") {
    Module m = KernelModule("\t@%p1 bra $L_missing;\n\tret;\n");
    auto cfg = BuildCfg(*m.FindFunction("k"), "kernel.ptx");
    REQUIRE_FALSE(cfg.ok());
    CHECK(std::string(cfg.status().message()).rfind("kernel.ptx:9:", 0) == 0);
    CHECK_THAT(std::string(cfg.status().message()), Catch::Contains("$L_missing"));
  }
  SECTION("undefined branch table") {
    Module m = KernelModule("\tbrx.idx %r1, $L_tab;\n\tret;\n");
    auto cfg = BuildCfg(*m.FindFunction("k"), "kernel.ptx");
    REQUIRE_FALSE(cfg.ok());
    CHECK_THAT(std::string(cfg.status().message()), Catch::Contains("$L_tab"));
  }
  SECTION("a table naming an undefined label") {
    Module m = KernelModule("\t$L_tab: .branchtargets $L_x;\n\tbrx.idx %r1, $L_tab;\n\tret;\n");
    REQUIRE_FALSE(BuildCfg(*m.FindFunction("k")).ok());
  }
  SECTION("duplicate label") {
    Module m = KernelModule("$L_a:\n\tmov.u32 %r1, 1;\n$L_a:\n\tret;\n");
    auto cfg = BuildCfg(*m.FindFunction("k"), "kernel.ptx");
    REQUIRE_FALSE(cfg.ok());
    CHECK_THAT(std::string(cfg.status().message()), Catch::Contains("kernel.ptx:11:"));
  }
}

TEST_CASE("declarations and empty bodies have no blocks", "[cfg]") {
  Module m = testing::ParseOrFail(
      ".version 8.0\n.target sm_90\n.address_size 64\n"
      ".extern .func f(.param .b32 x);\n"
      ".visible .entry e()\n{\n}\n",
      "decl.ptx");
  auto decl = BuildCfg(*m.FindFunction("f"));
  REQUIRE(decl.ok());
  CHECK(decl->blocks.empty());
  auto empty = BuildCfg(*m.FindFunction("e"));
  REQUIRE(empty.ok());
  CHECK(empty->blocks.empty());
  CHECK(empty->ToFlowGraph().size() == 0);
}

// nvcc -ptx -arch=compute_90 -lineinfo branches.cu; blocks checked by hand
// against the PTX text.
TEST_CASE("nvcc output: blocks of branches.cu", "[cfg]") {
  Module m = LoadDataFile("branches.ptx");
  for (const Function* f : m.Functions()) {
    auto cfg = BuildCfg(*f);
    REQUIRE(cfg.ok());
    CheckInvariants(*f, *cfg);
  }
  SECTION("if_then") {
    FunctionCfg cfg = BuildOrFail(*m.FindFunction("_Z7if_thenPii"));
    REQUIRE(cfg.blocks.size() == 3);
    CHECK(Successors(cfg) == std::vector<std::vector<int>>{{2, 1}, {2}, {}});
    CHECK(cfg.blocks[0].last_instruction_line == 37);  // @%p1 bra $L__BB0_2
    CHECK(cfg.blocks[1].first_instruction_line == 40);
    CHECK(cfg.blocks[2].label() == "$L__BB0_2");
    CHECK(cfg.blocks[2].first_line == 43);
    CHECK(cfg.blocks[2].last_line == 48);
  }
  SECTION("if_then_else was if-converted: one block") {
    FunctionCfg cfg = BuildOrFail(*m.FindFunction("_Z12if_then_elsePii"));
    CHECK(cfg.blocks.size() == 1);
  }
  SECTION("loop with break and continue") {
    FunctionCfg cfg = BuildOrFail(*m.FindFunction("_Z19loop_break_continuePii"));
    CHECK(Successors(cfg) ==
          std::vector<std::vector<int>>{{6, 1}, {2}, {6, 3}, {5, 4}, {5}, {2, 6}, {}});
    CHECK(cfg.blocks[2].label() == "$L__BB2_2");
    CHECK(cfg.blocks[5].label() == "$L__BB2_5");
    CHECK(cfg.blocks[6].label() == "$L__BB2_6");
    CHECK(cfg.blocks[5].first_line == 125);
    CHECK(cfg.blocks[5].last_line == 130);
  }
  SECTION("infinite loop") {
    FunctionCfg cfg = BuildOrFail(*m.FindFunction("_Z7foreverPVi"));
    CHECK(Successors(cfg) == std::vector<std::vector<int>>{{2}, {2}, {4, 3}, {1}, {2}});
    for (const auto& b : cfg.blocks) CHECK_FALSE(b.exits);
  }
}

TEST_CASE("hand-written control.ptx: brx.idx, exit, trap, dead code", "[cfg]") {
  Module m = LoadDataFile("control.ptx");
  SECTION("multiway") {
    const Function& f = *m.FindFunction("multiway");
    FunctionCfg cfg = BuildOrFail(f);
    CheckInvariants(f, cfg);
    CHECK(Successors(cfg) ==
          std::vector<std::vector<int>>{{5, 1}, {2, 3, 4}, {6}, {6}, {6}, {6}, {}});
    CHECK(cfg.blocks[1].first_line == 26);  // the .branchtargets line
    CHECK(cfg.blocks[1].last_instruction_line == 27);
    CHECK(cfg.blocks[6].label() == "$L_join");
    CHECK(cfg.blocks[6].last_line == 48);  // the call sequence stays in one block
  }
  SECTION("exits") {
    const Function& f = *m.FindFunction("exits");
    FunctionCfg cfg = BuildOrFail(f);
    CheckInvariants(f, cfg);
    CHECK(Successors(cfg) == std::vector<std::vector<int>>{{1}, {4, 2}, {5}, {4}, {}, {}});
    CHECK(Ends(cfg) == std::vector<BlockEnd>{BlockEnd::kConditionalExit,
                                             BlockEnd::kConditionalBranch, BlockEnd::kBranch,
                                             BlockEnd::kFallThrough, BlockEnd::kExit,
                                             BlockEnd::kFallThrough});
    CHECK(cfg.blocks[3].predecessors.empty());  // the dead store
    CHECK(cfg.blocks[3].first_line == 65);
    CHECK(cfg.blocks[5].label() == "$L_end");
    CHECK(cfg.blocks[5].exits);
  }
}

// Shuffled, dropped and duplicated lines of real PTX: whatever still parses
// must give a CFG that satisfies the invariants, or a clean error; never a crash
// (this runs under ASan/UBSan in CI).
TEST_CASE("random line edits of real PTX never break the analyses", "[cfg]") {
  std::vector<std::vector<std::string>> files;
  for (const char* name : {"control.ptx", "branches.ptx", "switch.ptx"}) {
    std::ifstream in(std::string(BARRACUDA_ANALYSIS_TEST_DATA) + "/" + name);
    REQUIRE(in.good());
    files.emplace_back();
    for (std::string line; std::getline(in, line);) files.back().push_back(line);
  }
  std::mt19937 rng(7);
  int parsed = 0, built = 0;
  for (int round = 0; round < 300; ++round) {
    const auto& lines = files[static_cast<std::size_t>(round) % files.size()];
    std::vector<std::string> edited;
    // Keep the header (.version, .target, ...); edit the rest line by line.
    for (std::size_t i = 0; i < lines.size(); ++i) {
      const unsigned dice = static_cast<unsigned>(rng() % 40);
      if (i > 12 && dice == 0) continue;  // drop
      edited.push_back(lines[i]);
      if (i > 12 && dice == 1) edited.push_back(lines[i]);  // duplicate
      if (i > 12 && dice == 2) std::swap(edited.back(), edited[edited.size() / 2]);
    }
    std::string text;
    for (const auto& l : edited) text += l + "\n";
    auto module = ParseModule(text, "edited.ptx");
    if (!module.ok()) continue;
    ++parsed;
    for (const Function* f : module->Functions()) {
      auto cfg = BuildCfg(*f, "edited.ptx");
      if (!cfg.ok()) {
        CHECK_THAT(std::string(cfg.status().message()), Catch::StartsWith("edited.ptx:"));
        continue;
      }
      ++built;
      CheckInvariants(*f, *cfg);
      const Reconvergence r = ComputeReconvergence(*cfg);
      for (const auto& b : r.branches) {
        CHECK(r.pdom.PostDominates(b.reconvergence_block, b.block));
        CHECK(b.reconvergence_block != b.block);
      }
    }
    const SiteTable sites = BuildSiteTable(*module);
    auto back = SiteTable::FromJson(sites.ToJson());
    REQUIRE(back.ok());
    CHECK(*back == sites);
  }
  INFO("parsed " << parsed << ", CFGs built " << built);
  CHECK(parsed > 10);  // the edits must leave enough parsable inputs to mean anything
  CHECK(built > 10);
}

}  // namespace
}  // namespace barracuda::ptx
