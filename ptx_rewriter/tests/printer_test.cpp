// Printer: exact text of statements and modules, and printing IR built or
// edited by code (as the instrumentation passes do).
#include <catch2/catch.hpp>

#include <string>

#include "ptx_rewriter/parser.h"
#include "ptx_rewriter/printer.h"

namespace barracuda::ptx {
namespace {

Instruction Parse(std::string_view text) {
  auto i = ParseInstruction(text);
  INFO(text);
  if (!i.ok()) FAIL(i.status().message());
  return *std::move(i);
}

TEST_CASE("printer: instructions", "[printer]") {
  CHECK(PrintInstruction(Parse("ld.global.nc.v4.u32 {%r1,%r2 , _,%r4},[%rd2+16]")) ==
        "ld.global.nc.v4.u32 \t{%r1, %r2, _, %r4}, [%rd2+16]");
  CHECK(PrintInstruction(Parse("@!%p1 bra.uni $L__BB0_3")) == "@!%p1 bra.uni \t$L__BB0_3");
  CHECK(PrintInstruction(Parse("st.global.u32 [%rd1 - 4], %r1")) == "st.global.u32 \t[%rd1+-4], %r1");
  CHECK(PrintInstruction(Parse("st.param.b32 [param0+0], %r1")) == "st.param.b32 \t[param0], %r1");
  CHECK(PrintInstruction(Parse("setp.ne.and.b32 %p1|%p2, %r1, 0, !%p3")) == "setp.ne.and.b32 \t%p1|%p2, %r1, 0, !%p3");
  CHECK(PrintInstruction(Parse("call.uni (retval0), f, (param0, param1)")) ==
        "call.uni \t(retval0), f, (param0, param1)");
  CHECK(PrintInstruction(Parse("call.uni f, ()")) == "call.uni \tf, ()");
  CHECK(PrintInstruction(Parse("ret")) == "ret");
  CHECK(PrintInstruction(Parse("mov.f32 %f1, 0f3F800000")) == "mov.f32 \t%f1, 0f3F800000");
  CHECK(PrintInstruction(Parse("mov.u32 %r1, 0xFFu")) == "mov.u32 \t%r1, 0xFFu");
  CHECK(PrintInstruction(Parse("mov.u64 %rd1, sym + 8")) == "mov.u64 \t%rd1, sym+8");
  CHECK(PrintInstruction(Parse("mov.u32 %r1, %tid.x")) == "mov.u32 \t%r1, %tid.x");
  CHECK(PrintInstruction(Parse("weird.op %r1, (%r2 + 1)*3")) == "weird.op %r1, (%r2 + 1)*3");
}

TEST_CASE("printer: statements", "[printer]") {
  auto m = ParseModule(
      ".version 9.0\n.target sm_90\n.address_size 64\n"
      ".func (.param .b32 rv) f(.param .b32 x)\n{\n"
      ".reg .b32 %r<3>;\n.local .align 8 .b8 depot[16];\n"
      "$L_t: .branchtargets $L_a, $L_b;\n"
      "p0 : .callprototype (.param .b32 _) _ (.param .b64 _) .noreturn;\n"
      ".loc 1 2 3, function_name $L__s0, inlined_at 1 9 8\n"
      ".pragma \"nounroll\";\n{\n}\n$L_a:\n$L_b:\nret;\n}\n",
      "p.ptx");
  REQUIRE(m.ok());
  const Function& f = *m->Functions()[0];
  std::vector<std::string> lines;
  for (const Statement& s : f.body) lines.push_back(PrintStatement(s));
  CHECK(lines == std::vector<std::string>{
                     ".reg .b32\t%r<3>;",
                     ".local .align 8 .b8\tdepot[16];",
                     "$L_t: .branchtargets $L_a, $L_b;",
                     "p0 : .callprototype (.param .b32 _) _ (.param .b64 _) .noreturn;",
                     ".loc\t1 2 3, function_name $L__s0, inlined_at 1 9 8",
                     ".pragma \"nounroll\";",
                     "{",
                     "}",
                     "$L_a:",
                     "$L_b:",
                     "ret;",
                 });
}

TEST_CASE("printer: whole module", "[printer]") {
  auto m = ParseModule(
      ".version 8.0\n.target sm_75\n.address_size 64\n"
      ".extern .shared .align 16 .b8 smem[];\n"
      ".global .align 8 .u64 gp[2] = {generic(smem)+4, 0};\n"
      ".visible .entry k(.param .u64 .ptr .global .align 8 p, .param .align 8 .b8 s[24])\n.maxntid 64, 1, 1\n"
      "{\nret;\n}\n"
      ".file 1 \"a.cu\"\n"
      ".section .debug_str { .b8 0 }\n",
      "m.ptx");
  REQUIRE(m.ok());
  CHECK(PrintModule(*m) ==
        "//\n// Printed by barracuda-ptx\n//\n\n"
        ".version 8.0\n.target sm_75\n.address_size 64\n\n"
        ".extern .shared .align 16 .b8 smem[];\n"
        ".global .align 8 .u64 gp[2] = {generic(smem)+4, 0};\n"
        "\n.visible .entry k(\n"
        "\t.param .u64 .ptr .global .align 8 p,\n"
        "\t.param .align 8 .b8 s[24]\n"
        ")\n.maxntid 64, 1, 1\n{\n\tret;\n}\n"
        "\t.file\t1 \"a.cu\"\n"
        "\t.section\t.debug_str\n\t{ .b8 0 }\n");
}

TEST_CASE("printer: IR built and edited by code", "[printer]") {
  auto m = ParseModule(".version 9.0\n.target sm_90\n.address_size 64\n.entry k()\n{\n.loc 1 5 2\nret;\n}\n", "e.ptx");
  REQUIRE(m.ok());
  Function* k = m->FindFunction("k");
  REQUIRE(k != nullptr);

  // A pass adds a register declaration, a global and an instruction built field by field.
  VarDecl regs;
  regs.space = StateSpace::kReg;
  regs.type = Type::kB64;
  regs.declarators.push_back(Declarator{"%bar_rd", 2, {}, std::nullopt});
  k->body.insert(k->body.begin(), regs);

  Instruction st = Instruction::Make(Opcode::kSt, {".global", ".u64"},
                                     {Operand::Address(Operand::Register("%bar_rd0"), 8), Operand::Immediate(-3)});
  CHECK(st.info.space == StateSpace::kGlobal);
  CHECK(st.info.type() == Type::kU64);
  // After the .loc, with no loc of its own: re-parsing gives it the .loc in
  // effect, which must not make the modules differ.
  k->body.insert(k->body.begin() + 2, st);

  VarDecl g;
  g.space = StateSpace::kGlobal;
  g.align = 8;
  g.type = Type::kU64;
  g.declarators.push_back(Declarator{"bar_queue", 0, {4}, std::nullopt});
  m->items.insert(m->items.begin(), g);

  std::string text = PrintModule(*m);
  CHECK(text.find(".global .align 8 .u64 bar_queue[4];\n") != std::string::npos);
  CHECK(text.find("\t.reg .b64\t%bar_rd<2>;\n\t.loc\t1 5 2\n\tst.global.u64 \t[%bar_rd0+8], -3;\n\tret;\n") !=
        std::string::npos);

  auto again = ParseModule(text, "printed");
  REQUIRE(again.ok());
  CHECK(SameMeaning(*m, *again));
  const auto& reparsed = std::get<Instruction>(again->FindFunction("k")->body[2]);
  CHECK(reparsed.loc.line == 5);
}

TEST_CASE("printer: SameMeaning ignores positions but not content", "[printer]") {
  const char* a = ".version 9.0\n.target sm_90\n.entry k()\n{\nadd.s32 %r1, %r2, 1;\nret;\n}\n";
  const char* b = ".version 9.0\n\n\n.target sm_90\n.entry k()   {   add.s32 %r1,%r2,1; ret; }\n";
  const char* c = ".version 9.0\n.target sm_90\n.entry k()\n{\nadd.s32 %r1, %r2, 2;\nret;\n}\n";
  auto ma = ParseModule(a, "a");
  auto mb = ParseModule(b, "b");
  auto mc = ParseModule(c, "c");
  REQUIRE(ma.ok());
  REQUIRE(mb.ok());
  REQUIRE(mc.ok());
  CHECK(SameMeaning(*ma, *mb));
  CHECK(DescribeDifference(*ma, *mb).empty());
  CHECK_FALSE(SameMeaning(*ma, *mc));
  CHECK(DescribeDifference(*ma, *mc) == "function k, statement 0: 'add.s32 \t%r1, %r2, 1;' vs 'add.s32 \t%r1, %r2, 2;'");
}

}  // namespace
}  // namespace barracuda::ptx
