// Round trip over the PTX in tests/data/: parse -> print -> parse gives the same
// IR, printing is idempotent, and (when ptxas is on PATH) the printed PTX is
// accepted by ptxas for the file's target.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "ptx_rewriter/parser.h"
#include "ptx_rewriter/printer.h"

namespace barracuda::ptx {
namespace {

namespace fs = std::filesystem;

fs::path DataDir() { return fs::path(__FILE__).parent_path() / "data"; }

std::string ReadFile(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

std::vector<fs::path> DataPtxFiles() {
  std::vector<fs::path> out;
  for (const auto& e : fs::directory_iterator(DataDir()))
    if (e.is_regular_file() && e.path().extension() == ".ptx") out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

bool HavePtxas() { return std::system("ptxas --version > /dev/null 2>&1") == 0; }

TEST_CASE("roundtrip: every PTX file in tests/data", "[roundtrip]") {
  auto files = DataPtxFiles();
  REQUIRE(files.size() >= 6);
  const bool ptxas = HavePtxas();
  const fs::path tmp = fs::temp_directory_path() / ("barracuda_roundtrip_" + std::to_string(::getpid()));
  fs::create_directories(tmp);
  for (const fs::path& file : files) {
    INFO(file.string());
    std::string text = ReadFile(file);
    auto m = ParseModule(text, file.filename().string());
    REQUIRE(m.ok());
    // No nvcc-emitted instruction should need the opaque fallback.
    for (const Function* f : m->Functions())
      for (const Statement& s : f->body)
        if (auto* i = std::get_if<Instruction>(&s)) {
          INFO(PrintInstruction(*i));
          CHECK_FALSE(i->opaque);
          CHECK(i->op != Opcode::kUnknown);
        }
    std::string printed = PrintModule(*m);
    auto again = ParseModule(printed, "printed.ptx");
    REQUIRE(again.ok());
    INFO(DescribeDifference(*m, *again));
    CHECK(SameMeaning(*m, *again));
    CHECK(PrintModule(*again) == printed);
    if (ptxas) {
      const std::string arch = m->targets.empty() ? "sm_75" : m->targets[0];
      fs::path out = tmp / file.filename();
      std::ofstream(out, std::ios::binary) << printed;
      std::string cmd = "ptxas -arch=" + arch + " '" + out.string() + "' -o /dev/null 2>'" + out.string() + ".log'";
      INFO(cmd << "\n" << ReadFile(out.string() + ".log"));
      CHECK(std::system(cmd.c_str()) == 0);
    }
  }
  fs::remove_all(tmp);
}

TEST_CASE("roundtrip: the structured IR of an nvcc kernel", "[roundtrip]") {
  // nvcc_tiny_lineinfo_sm75.ptx is tiny.cu compiled with -lineinfo: spot-check
  // what the CFG and the site table rely on.
  std::string text = ReadFile(DataDir() / "nvcc_tiny_lineinfo_sm75.ptx");
  auto m = ParseModule(text, "tiny.ptx");
  REQUIRE(m.ok());
  CHECK(m->version_major == 9);
  CHECK(m->targets == std::vector<std::string>{"sm_75"});
  const Function* k = m->FindFunction("_Z4tinyPii");
  REQUIRE(k != nullptr);
  CHECK(k->is_entry);
  int barriers = 0, atomics = 0, calls = 0, with_loc = 0, insts = 0;
  for (const Statement& s : k->body) {
    auto* i = std::get_if<Instruction>(&s);
    if (!i) continue;
    ++insts;
    if (i->loc.valid()) ++with_loc;
    if (i->op == Opcode::kBar) {
      ++barriers;
      CHECK(i->info.barrier == BarrierMode::kSync);
    }
    if (i->op == Opcode::kAtom || i->op == Opcode::kRed) {
      ++atomics;
      CHECK(i->info.atom_op == AtomOp::kAdd);
      CHECK(i->info.space == StateSpace::kGlobal);
    }
    if (i->is_call()) ++calls;
  }
  CHECK(barriers == 1);
  CHECK(atomics == 1);
  CHECK(calls >= 1);
  CHECK(with_loc == insts);
  REQUIRE(m->FindFile(1) != nullptr);
  CHECK(m->FindFile(1)->name.ends_with("tiny.cu"));
}

}  // namespace
}  // namespace barracuda::ptx
