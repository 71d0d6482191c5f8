// Parser: one test per construct of the PTX grammar the front end models.
#include <catch2/catch.hpp>

#include <string>

#include "ptx_rewriter/parser.h"
#include "ptx_rewriter/printer.h"

namespace barracuda::ptx {
namespace {

constexpr std::string_view kHeader = ".version 9.0\n.target sm_90\n.address_size 64\n";

Module MustParse(std::string_view body) {
  std::string text = std::string(kHeader) + std::string(body);
  auto m = ParseModule(text, "test.ptx");
  INFO(text);
  if (!m.ok()) FAIL(m.status().message());
  return *std::move(m);
}

// Parses `stmts` as the body of a kernel and returns it.
Function MustParseBody(std::string_view stmts) {
  Module m = MustParse(std::string(".entry k()\n{\n") + std::string(stmts) + "\n}\n");
  REQUIRE(m.Functions().size() == 1);
  return *m.Functions()[0];
}

std::vector<Instruction> Instructions(const Function& f) {
  std::vector<Instruction> out;
  for (const Statement& s : f.body)
    if (auto* i = std::get_if<Instruction>(&s)) out.push_back(*i);
  return out;
}

Instruction MustParseInstruction(std::string_view text) {
  auto i = ParseInstruction(text);
  INFO(text);
  if (!i.ok()) FAIL(i.status().message());
  return *std::move(i);
}

std::string ParseError(std::string_view text) {
  auto m = ParseModule(text, "bad.ptx");
  if (m.ok()) return "<parsed>";
  return std::string(m.status().message());
}

TEST_CASE("parser: module header", "[parser]") {
  auto m = ParseModule(".version 7.8\n.target sm_75, texmode_independent, debug\n.address_size 64\n", "h.ptx");
  REQUIRE(m.ok());
  CHECK(m->version_major == 7);
  CHECK(m->version_minor == 8);
  CHECK(m->targets == std::vector<std::string>{"sm_75", "texmode_independent", "debug"});
  CHECK(m->address_size == 64);
  CHECK(m->items.empty());
}

TEST_CASE("parser: global declarations", "[parser]") {
  Module m = MustParse(
      ".global .align 4 .b8 g[16] = {1, 0, 0, 0, 2};\n"
      ".global .align 8 .u64 gp = generic(g)+4;\n"
      ".global .align 8 .u64 tab[2] = {f1, f2-8};\n"
      ".const .align 4 .u32 m2[2][3] = {{1, 2, 3}, {4, 5, 6}};\n"
      ".extern .shared .align 16 .b8 smem[];\n"
      ".visible .global .f32 fv = 0f3F800000, fw = -1.5;\n"
      ".weak .global .s32 w = -7;\n"
      ".common .global .b32 c;\n"
      ".global .attribute(.managed) .align 4 .b32 mv = 5;\n"
      ".global .v4 .f32 v;\n");
  REQUIRE(m.items.size() == 10);
  const auto& g = std::get<VarDecl>(m.items[0]);
  CHECK(g.space == StateSpace::kGlobal);
  CHECK(g.align == 4);
  CHECK(g.type == Type::kB8);
  CHECK(g.name() == "g");
  CHECK(g.declarators[0].dims == std::vector<uint64_t>{16});
  REQUIRE(g.declarators[0].init.has_value());
  CHECK(g.declarators[0].init->kind == Initializer::Kind::kList);
  CHECK(g.declarators[0].init->elements.size() == 5);

  const auto& gp = std::get<VarDecl>(m.items[1]).declarators[0].init.value();
  CHECK(gp.kind == Initializer::Kind::kSymbol);
  CHECK(gp.generic);
  CHECK(gp.text == "g");
  CHECK(gp.offset == 4);

  const auto& tab = std::get<VarDecl>(m.items[2]).declarators[0].init.value();
  REQUIRE(tab.elements.size() == 2);
  CHECK(tab.elements[0].text == "f1");
  CHECK(tab.elements[1].offset == -8);

  const auto& m2 = std::get<VarDecl>(m.items[3]);
  CHECK(m2.space == StateSpace::kConst);
  CHECK(m2.declarators[0].dims == std::vector<uint64_t>{2, 3});
  CHECK(m2.declarators[0].init->elements[1].elements[2].text == "6");

  const auto& smem = std::get<VarDecl>(m.items[4]);
  CHECK(smem.linkage == Linkage::kExtern);
  CHECK(smem.space == StateSpace::kShared);
  CHECK(smem.declarators[0].dims == std::vector<uint64_t>{Declarator::kUnsizedDim});

  const auto& fv = std::get<VarDecl>(m.items[5]);
  CHECK(fv.linkage == Linkage::kVisible);
  REQUIRE(fv.declarators.size() == 2);
  CHECK(fv.declarators[0].init->kind == Initializer::Kind::kFloat);
  CHECK(fv.declarators[1].init->text == "-1.5");

  CHECK(std::get<VarDecl>(m.items[6]).linkage == Linkage::kWeak);
  CHECK(std::get<VarDecl>(m.items[6]).declarators[0].init->text == "-7");
  CHECK(std::get<VarDecl>(m.items[7]).linkage == Linkage::kCommon);
  CHECK(std::get<VarDecl>(m.items[8]).attributes == std::vector<std::string>{".managed"});
  CHECK(std::get<VarDecl>(m.items[9]).vector_width == 4);
  CHECK(m.FindGlobal("fw") == &std::get<VarDecl>(m.items[5]));
  CHECK(m.FindGlobal("nope") == nullptr);
}

TEST_CASE("parser: entry and func signatures", "[parser]") {
  Module m = MustParse(
      ".extern .func (.param .b32 func_retval0) vprintf(.param .b64 a, .param .b64 b);\n"
      ".visible .entry k(\n"
      "  .param .u64 .ptr .global .align 8 k_p0,\n"
      "  .param .align 8 .b8 k_p1[24],\n"
      "  .param .u32 k_p2)\n"
      ".maxntid 256, 1, 1\n.minnctapersm 2\n.maxnreg 64\n.reqnctapercluster 2, 1, 1\n.explicitcluster\n"
      ".maxclusterrank 8\n"
      "{\n ret;\n}\n"
      ".func (.param .align 16 .b8 rv[16]) f(.reg .u32 x) .noreturn\n{\n trap;\n}\n"
      ".func g\n{\n ret;\n}\n");
  auto fs = m.Functions();
  REQUIRE(fs.size() == 4);
  const Function& vp = *fs[0];
  CHECK(vp.linkage == Linkage::kExtern);
  CHECK_FALSE(vp.has_body);
  CHECK(vp.has_return_list);
  REQUIRE(vp.returns.size() == 1);
  CHECK(vp.returns[0].name() == "func_retval0");
  CHECK(vp.params.size() == 2);

  const Function& k = *fs[1];
  CHECK(k.is_entry);
  CHECK(k.linkage == Linkage::kVisible);
  REQUIRE(k.params.size() == 3);
  CHECK(k.params[0].is_ptr);
  CHECK(k.params[0].type == Type::kU64);
  CHECK(k.params[0].ptr_space == StateSpace::kGlobal);
  CHECK(k.params[0].ptr_align == 8);
  CHECK(k.params[0].align == 0);
  CHECK(k.params[1].align == 8);
  CHECK(k.params[1].declarators[0].dims == std::vector<uint64_t>{24});
  REQUIRE(k.directives.size() == 6);
  CHECK(k.directives[0].name == ".maxntid");
  CHECK(k.directives[0].values == std::vector<uint64_t>{256, 1, 1});
  CHECK(k.directives[4].name == ".explicitcluster");
  CHECK(k.directives[4].values.empty());

  const Function& f = *fs[2];
  CHECK_FALSE(f.is_entry);
  CHECK(f.returns[0].align == 16);
  CHECK(f.params[0].space == StateSpace::kReg);
  REQUIRE(f.directives.size() == 1);
  CHECK(f.directives[0].name == ".noreturn");

  CHECK_FALSE(fs[3]->has_param_list);
  CHECK(m.FindFunction("g") == fs[3]);
}

TEST_CASE("parser: FindFunction prefers the definition", "[parser]") {
  Module m = MustParse(".func f();\n.func f()\n{\n ret;\n}\n");
  REQUIRE(m.FindFunction("f") != nullptr);
  CHECK(m.FindFunction("f")->has_body);
}

TEST_CASE("parser: register and local declarations", "[parser]") {
  Function f = MustParseBody(
      ".reg .b32 %r<12>;\n.reg .pred %p, %q;\n.reg .v2 .f32 %v;\n"
      ".local .align 8 .b8 __local_depot0[16];\n.shared .align 4 .b32 tile[32][33];\n"
      ".param .b64 param0;\n");
  REQUIRE(f.body.size() == 6);
  const auto& r = std::get<VarDecl>(f.body[0]);
  CHECK(r.space == StateSpace::kReg);
  CHECK(r.type == Type::kB32);
  CHECK(r.declarators[0].name == "%r");
  CHECK(r.declarators[0].range == 12);
  CHECK(std::get<VarDecl>(f.body[1]).declarators.size() == 2);
  CHECK(std::get<VarDecl>(f.body[2]).vector_width == 2);
  CHECK(std::get<VarDecl>(f.body[3]).space == StateSpace::kLocal);
  CHECK(std::get<VarDecl>(f.body[4]).declarators[0].dims == std::vector<uint64_t>{32, 33});
  CHECK(std::get<VarDecl>(f.body[5]).space == StateSpace::kParam);
}

TEST_CASE("parser: labels, guards, scopes", "[parser]") {
  Function f = MustParseBody(
      "$L__BB0_1:\n@%p1 bra.uni $L__BB0_1;\n@!%p2 bra $L__BB0_2;\n{\n.reg .b32 t;\n}\n$L__BB0_2:\nret;");
  REQUIRE(f.body.size() == 8);
  CHECK(std::get<Label>(f.body[0]).name == "$L__BB0_1");
  const auto& b1 = std::get<Instruction>(f.body[1]);
  CHECK(b1.guard.present());
  CHECK(b1.guard.reg == "%p1");
  CHECK_FALSE(b1.guard.negated);
  CHECK(b1.is_branch());
  CHECK(b1.is_uni());
  REQUIRE(b1.branch_target() != nullptr);
  CHECK(b1.branch_target()->kind == Operand::Kind::kSymbol);
  CHECK(b1.branch_target()->text == "$L__BB0_1");
  const auto& b2 = std::get<Instruction>(f.body[2]);
  CHECK(b2.guard.negated);
  CHECK_FALSE(b2.is_uni());
  CHECK(std::holds_alternative<ScopeBegin>(f.body[3]));
  CHECK(std::holds_alternative<VarDecl>(f.body[4]));
  CHECK(std::holds_alternative<ScopeEnd>(f.body[5]));
  const auto& ret = std::get<Instruction>(f.body[7]);
  CHECK(ret.is_return());
  CHECK(ret.is_terminator());
  CHECK(ret.operands.empty());
  CHECK(ret.pos.line == 13);
}

TEST_CASE("parser: operands", "[parser]") {
  SECTION("vector with sinks and an address with negative offset") {
    Instruction i = MustParseInstruction("ld.global.v4.u32 {%r1, _, %r3, _}, [%rd2+-8]");
    REQUIRE(i.operands.size() == 2);
    const Operand& v = i.operands[0];
    CHECK(v.kind == Operand::Kind::kVector);
    REQUIRE(v.elements.size() == 4);
    CHECK(v.elements[1].kind == Operand::Kind::kSink);
    CHECK(v.elements[2].text == "%r3");
    const Operand& a = i.operands[1];
    CHECK(a.is_address());
    CHECK(a.offset == -8);
    REQUIRE(a.address_base() != nullptr);
    CHECK(a.address_base()->text == "%rd2");
    CHECK(a.address_base()->is_register());
  }
  SECTION("special registers keep their component") {
    Instruction i = MustParseInstruction("mov.u32 %r1, %ctaid.y;");
    CHECK(i.operands[1].text == "%ctaid.y");
    CHECK(i.operands[1].is_register());
  }
  SECTION("immediates") {
    Instruction i = MustParseInstruction("add.s32 %r1, -5, 0x10");
    CHECK(i.operands[1].kind == Operand::Kind::kImmediate);
    CHECK(i.operands[1].value == -5);
    CHECK(i.operands[1].text == "-5");
    CHECK(i.operands[2].value == 16);
    Instruction f = MustParseInstruction("mul.f32 %f1, 0f3F800000, 0d3FF0000000000000");
    CHECK(f.operands[1].kind == Operand::Kind::kFloat);
    CHECK(f.operands[1].value == 0x3F800000);
    CHECK(f.operands[2].value == 0x3FF0000000000000);
    Instruction n = MustParseInstruction("mov.f32 %f1, -0f3F800000");
    CHECK(n.operands[1].value == 0xBF800000);
    Instruction o = MustParseInstruction("mov.u32 %r1, 017");
    CHECK(o.operands[1].value == 15);
  }
  SECTION("symbols with offsets, absolute addresses") {
    Instruction i = MustParseInstruction("mov.u64 %rd1, fvals+4");
    CHECK(i.operands[1].is_symbol());
    CHECK(i.operands[1].offset == 4);
    Instruction a = MustParseInstruction("ld.shared.u32 %r1, [smem+8]");
    CHECK(a.operands[1].address_base()->is_symbol());
    CHECK(a.operands[1].offset == 8);
    Instruction b = MustParseInstruction("ld.global.u32 %r1, [256]");
    CHECK(b.operands[1].address_base()->kind == Operand::Kind::kImmediate);
  }
  SECTION("predicate pair and negated source") {
    Instruction i = MustParseInstruction("setp.lt.and.s32 %p1|%p2, %r1, %r2, !%p3");
    CHECK(i.operands[0].kind == Operand::Kind::kPredPair);
    CHECK(i.operands[0].elements[1].text == "%p2");
    CHECK(i.operands[3].negated);
    CHECK(i.info.cmp == CmpOp::kLt);
    CHECK(i.info.bool_op == BoolOp::kAnd);
    // A sink as the first half (nvcc emits it for elect.sync on sm_90).
    Instruction e = MustParseInstruction("elect.sync _|%p2, -1");
    REQUIRE(e.operands[0].kind == Operand::Kind::kPredPair);
    CHECK(e.operands[0].elements[0].kind == Operand::Kind::kSink);
    CHECK(e.operands[0].elements[1].text == "%p2");
  }
  SECTION("texture address") {
    Instruction i = MustParseInstruction("tex.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [tex0, {%f5, %f6}]");
    REQUIRE(i.operands[1].elements.size() == 2);
    CHECK(i.operands[1].elements[1].kind == Operand::Kind::kVector);
  }
  SECTION("TMA tensor address [tensorMap, {coords}]") {
    Instruction i = MustParseInstruction(
        "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.L2::cache_hint "
        "[%r1], [%rd2, {%r3, -4}], [%r5], %rd6");
    REQUIRE(i.operands.size() == 4);
    const Operand& t = i.operands[1];
    CHECK(t.kind == Operand::Kind::kAddress);
    REQUIRE(t.elements.size() == 2);
    CHECK(t.elements[0].text == "%rd2");
    REQUIRE(t.elements[1].kind == Operand::Kind::kVector);
    REQUIRE(t.elements[1].elements.size() == 2);
    CHECK(t.elements[1].elements[0].text == "%r3");
    CHECK(t.elements[1].elements[1].value == -4);
    CHECK(i.HasModifier(".tensor"));
    CHECK(i.HasModifier(".2d"));
    CHECK(i.HasModifier(".mbarrier::complete_tx::bytes"));
    CHECK(i.HasModifier(".L2::cache_hint"));
    Instruction st =
        MustParseInstruction("cp.async.bulk.tensor.1d.global.shared::cta.tile.bulk_group [%rd1, {%r2}], [%r3]");
    REQUIRE(st.operands.size() == 2);
    REQUIRE(st.operands[0].elements.size() == 2);
    CHECK(st.operands[0].elements[1].elements.size() == 1);
  }
}

TEST_CASE("parser: plain (non-%) register names resolve via declarations", "[parser]") {
  Function f = MustParseBody(".reg .b32 r<4>;\n.reg .pred p;\nmov.u32 r3, sym;\n@p bra L;\nL:\nret;");
  auto insts = Instructions(f);
  CHECK(insts[0].operands[0].is_register());
  CHECK(insts[0].operands[1].is_symbol());
  CHECK(insts[1].guard.reg == "p");
}

TEST_CASE("parser: memory-model modifiers", "[parser][modifiers]") {
  Instruction ld = MustParseInstruction("ld.acquire.gpu.global.L1::evict_last.v2.u64 {%rd1, %rd2}, [%rd3]");
  CHECK(ld.op == Opcode::kLd);
  CHECK(ld.info.sem == MemSemantics::kAcquire);
  CHECK(ld.info.scope == Scope::kGpu);
  CHECK(ld.info.space == StateSpace::kGlobal);
  CHECK(ld.info.l1_eviction == Eviction::kEvictLast);
  CHECK(ld.info.vector_width == 2);
  CHECK(ld.info.type() == Type::kU64);
  CHECK(ld.info.unclassified == 0);
  CHECK(ld.modifiers == std::vector<std::string>{".acquire", ".gpu", ".global", ".L1::evict_last", ".v2", ".u64"});

  Instruction nc = MustParseInstruction("ld.global.nc.L2::128B.f32 %f1, [%rd1]");
  CHECK(nc.info.nc);
  CHECK(nc.info.l2_prefetch_size == 128);

  Instruction st = MustParseInstruction("st.release.cta.shared::cta.b32 [%r1], %r2");
  CHECK(st.info.sem == MemSemantics::kRelease);
  CHECK(st.info.scope == Scope::kCta);
  CHECK(st.info.space == StateSpace::kShared);

  Instruction vol = MustParseInstruction("st.volatile.global.wt.u8 [%rd1], %rs1");
  CHECK(vol.info.sem == MemSemantics::kVolatile);
  CHECK(vol.info.cache_op == CacheOp::kWt);

  Instruction mmio = MustParseInstruction("ld.mmio.relaxed.sys.global.u32 %r1, [%rd1]");
  CHECK(mmio.info.sem == MemSemantics::kRelaxed);  // the last semantics word wins; .mmio is kept in text
  CHECK(mmio.HasModifier(".mmio"));

  Instruction atom = MustParseInstruction("atom.acq_rel.sys.global.cas.b64 %rd1, [%rd2], %rd3, %rd4");
  CHECK(atom.info.sem == MemSemantics::kAcqRel);
  CHECK(atom.info.scope == Scope::kSys);
  CHECK(atom.info.atom_op == AtomOp::kCas);
  CHECK(atom.info.type() == Type::kB64);

  for (auto [text, op] : std::vector<std::pair<std::string, AtomOp>>{
           {"atom.global.add.f32 %f1, [%rd1], %f2", AtomOp::kAdd},
           {"atom.shared.min.s32 %r1, [%r2], %r3", AtomOp::kMin},
           {"atom.max.u64 %rd1, [%rd2], %rd3", AtomOp::kMax},
           {"atom.global.inc.u32 %r1, [%rd2], %r3", AtomOp::kInc},
           {"atom.global.dec.u32 %r1, [%rd2], %r3", AtomOp::kDec},
           {"atom.global.exch.b32 %r1, [%rd2], %r3", AtomOp::kExch},
           {"atom.global.and.b32 %r1, [%rd2], %r3", AtomOp::kAnd},
           {"atom.global.or.b32 %r1, [%rd2], %r3", AtomOp::kOr},
           {"red.global.xor.b32 [%rd2], %r3", AtomOp::kXor},
       }) {
    INFO(text);
    CHECK(MustParseInstruction(text).info.atom_op == op);
  }
  CHECK(MustParseInstruction("atom.max.u64 %rd1, [%rd2], %rd3").info.space == StateSpace::kNone);
}

TEST_CASE("parser: fences and barriers", "[parser][modifiers]") {
  Instruction f1 = MustParseInstruction("fence.sc.cta");
  CHECK(f1.op == Opcode::kFence);
  CHECK(f1.info.sem == MemSemantics::kSc);
  CHECK(f1.info.scope == Scope::kCta);
  Instruction f2 = MustParseInstruction("fence.acq_rel.gpu");
  CHECK(f2.info.sem == MemSemantics::kAcqRel);
  CHECK(f2.info.scope == Scope::kGpu);
  Instruction f3 = MustParseInstruction("fence.proxy.async.shared::cta");
  CHECK(f3.info.proxy);
  CHECK(f3.info.async);
  CHECK(f3.is_async_proxy_fence());
  CHECK(MustParseInstruction("fence.proxy.async::generic.release.sync_restrict::shared::cta.cluster")
            .is_async_proxy_fence());
  CHECK_FALSE(MustParseInstruction("fence.proxy.alias").is_async_proxy_fence());
  CHECK_FALSE(f2.is_async_proxy_fence());
  CHECK(MustParseInstruction("membar.gl").info.scope == Scope::kGpu);
  CHECK(MustParseInstruction("membar.cta").info.scope == Scope::kCta);
  CHECK(MustParseInstruction("membar.sys").info.scope == Scope::kSys);

  Instruction bs = MustParseInstruction("bar.sync 0");
  CHECK(bs.info.barrier == BarrierMode::kSync);
  CHECK(bs.info.sync);
  CHECK(bs.operands[0].value == 0);
  CHECK(MustParseInstruction("bar.arrive 1, 64").info.barrier == BarrierMode::kArrive);
  Instruction red = MustParseInstruction("bar.red.popc.u32 %r1, 0, %p1");
  CHECK(red.info.barrier == BarrierMode::kRed);
  CHECK(red.info.bool_op == BoolOp::kPopc);
  CHECK(MustParseInstruction("bar.red.or.pred %p1, 0, !%p2").info.bool_op == BoolOp::kOr);
  Instruction ba = MustParseInstruction("barrier.sync.aligned 0");
  CHECK(ba.op == Opcode::kBarrier);
  CHECK(ba.info.aligned);
  CHECK(ba.info.barrier == BarrierMode::kSync);
  CHECK(MustParseInstruction("bar.warp.sync -1").info.barrier == BarrierMode::kWarpSync);
}

TEST_CASE("parser: arithmetic and conversion modifiers", "[parser][modifiers]") {
  Instruction cvt = MustParseInstruction("cvt.rn.f32.s32 %f1, %r1");
  CHECK(cvt.info.rounding == Rounding::kRn);
  CHECK(cvt.info.type() == Type::kF32);
  CHECK(cvt.info.type2() == Type::kS32);
  Instruction cvti = MustParseInstruction("cvt.rzi.ftz.sat.s32.f32 %r1, %f1");
  CHECK(cvti.info.rounding == Rounding::kRzi);
  CHECK(cvti.info.ftz);
  CHECK(cvti.info.sat);
  Instruction cvta = MustParseInstruction("cvta.to.global.u64 %rd1, %rd2");
  CHECK(cvta.info.to);
  CHECK(cvta.info.space == StateSpace::kGlobal);
  CHECK(MustParseInstruction("div.approx.ftz.f32 %f1, %f2, %f3").info.approx);
  CHECK(MustParseInstruction("div.full.f32 %f1, %f2, %f3").info.full);
  CHECK(MustParseInstruction("mul.wide.s32 %rd1, %r1, 4").info.mul == MulMode::kWide);
  CHECK(MustParseInstruction("mul.hi.u32 %r1, %r2, %r3").info.mul == MulMode::kHi);
  CHECK(MustParseInstruction("mad.lo.s32 %r1, %r2, %r3, %r4").info.mul == MulMode::kLo);
  // .lo/.hi on setp are comparisons, not halves.
  CHECK(MustParseInstruction("setp.lo.u32 %p1, %r1, %r2").info.cmp == CmpOp::kLo);
  CHECK(MustParseInstruction("setp.hs.u32 %p1, %r1, %r2").info.cmp == CmpOp::kHs);
  CHECK(MustParseInstruction("setp.nan.f32 %p1, %f1, %f2").info.cmp == CmpOp::kNan);
  CHECK(MustParseInstruction("setp.gtu.f64 %p1, %fd1, %fd2").info.cmp == CmpOp::kGtu);
  CHECK(MustParseInstruction("set.eq.u32.f32 %r1, %f1, %f2").info.num_types == 2);
  CHECK(MustParseInstruction("add.cc.u32 %r1, %r2, %r3").info.cc);
}

TEST_CASE("parser: warp primitives", "[parser][modifiers]") {
  Instruction s = MustParseInstruction("shfl.sync.bfly.b32 %r1|%p1, %r2, 16, 31, -1");
  CHECK(s.info.shfl == ShflMode::kBfly);
  CHECK(s.info.sync);
  CHECK(MustParseInstruction("shfl.sync.up.b32 %r1, %r2, 1, 0, -1").info.shfl == ShflMode::kUp);
  CHECK(MustParseInstruction("shfl.sync.down.b32 %r1, %r2, 1, 31, -1").info.shfl == ShflMode::kDown);
  CHECK(MustParseInstruction("shfl.sync.idx.b32 %r1, %r2, 0, 31, -1").info.shfl == ShflMode::kIdx);
  Instruction v = MustParseInstruction("vote.sync.uni.pred %p1, %p2, -1");
  CHECK(v.info.vote == VoteMode::kUni);
  CHECK_FALSE(v.is_uni());  // .uni here is the vote mode, not a non-divergence hint
  CHECK(MustParseInstruction("vote.sync.ballot.b32 %r1, %p2, -1").info.vote == VoteMode::kBallot);
  CHECK(MustParseInstruction("vote.all.pred %p1, %p2").info.vote == VoteMode::kAll);
  CHECK(MustParseInstruction("vote.any.pred %p1, %p2").info.vote == VoteMode::kAny);
}

TEST_CASE("parser: generic-but-structured instructions", "[parser][modifiers]") {
  Instruction mma = MustParseInstruction(
      "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f1,%f2,%f3,%f4}, {%r1,%r2,%r3,%r4}, {%r5,%r6}, "
      "{%f5,%f6,%f7,%f8}");
  CHECK(mma.op == Opcode::kMma);
  CHECK(mma.info.num_types == 4);
  CHECK(mma.operands.size() == 4);
  Instruction cp = MustParseInstruction("cp.async.cg.shared.global.L2::128B [%r1], [%rd1], 16");
  CHECK(cp.info.async);
  CHECK(cp.info.cache_op == CacheOp::kCg);
  CHECK(cp.info.space == StateSpace::kShared);
  Instruction ldm = MustParseInstruction("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%r1,%r2,%r3,%r4}, [%r5]");
  CHECK(ldm.op == Opcode::kLdmatrix);
  Instruction mb = MustParseInstruction("mbarrier.try_wait.parity.shared::cta.b64 %p1, [%r1], %r2");
  CHECK(mb.op == Opcode::kMbarrier);
  CHECK(MustParseInstruction("prefetch.global.L2::evict_last [%rd1]").info.l2_eviction == Eviction::kEvictLast);
}

TEST_CASE("parser: calls", "[parser]") {
  Function f = MustParseBody(
      "{\n.param .b32 param0;\n.param .b32 retval0;\n"
      "call.uni (retval0),\n _Z3fooi,\n (\n param0\n );\n}\n"
      "{\n.param .b32 param0;\n.param .b32 retval0;\n"
      "prototype_1 : .callprototype (.param .b32 _) _ (.param .b32 _, .param .align 8 .b8 _[16]);\n"
      "call (retval0), %rd9, (param0), prototype_1;\n}\n"
      "call.uni bar, ();\ncall baz;\n"
      "$Lt: .calltargets f1, f2;\n");
  auto insts = Instructions(f);
  REQUIRE(insts.size() == 4);
  const Instruction& direct = insts[0];
  CHECK(direct.is_call());
  CHECK(direct.is_uni());
  REQUIRE(direct.call_target() != nullptr);
  CHECK(direct.call_target()->text == "_Z3fooi");
  CHECK(direct.call_target()->is_symbol());
  REQUIRE(direct.call_returns() != nullptr);
  CHECK(direct.call_returns()->elements[0].text == "retval0");
  REQUIRE(direct.call_arguments() != nullptr);
  CHECK(direct.call_arguments()->elements.size() == 1);
  CHECK(direct.call_prototype() == nullptr);

  const Instruction& indirect = insts[1];
  CHECK(indirect.call_target()->is_register());
  REQUIRE(indirect.call_prototype() != nullptr);
  CHECK(indirect.call_prototype()->text == "prototype_1");
  const CallPrototype* proto = f.FindCallPrototype("prototype_1");
  REQUIRE(proto != nullptr);
  CHECK(proto->has_return_list);
  REQUIRE(proto->params.size() == 2);
  CHECK(proto->params[1].declarators[0].dims == std::vector<uint64_t>{16});

  CHECK(insts[2].call_target()->text == "bar");
  CHECK(insts[2].call_returns() == nullptr);
  CHECK(insts[2].call_arguments()->elements.empty());
  CHECK(insts[3].call_target()->text == "baz");
  CHECK(insts[3].call_arguments() == nullptr);
  bool found = false;
  for (const Statement& s : f.body)
    if (auto* ct = std::get_if<CallTargets>(&s)) found = ct->functions == std::vector<std::string>{"f1", "f2"};
  CHECK(found);
}

TEST_CASE("parser: brx.idx with a label table", "[parser]") {
  Function f = MustParseBody(
      "$L_tab: .branchtargets $L_a, $L_b, $L_c;\nbrx.idx.uni %r1, $L_tab;\n$L_a:\nret;\n$L_b:\nexit;\n$L_c:\ntrap;");
  const auto& bt = std::get<BranchTargets>(f.body[0]);
  CHECK(bt.name == "$L_tab");
  CHECK(bt.labels == std::vector<std::string>{"$L_a", "$L_b", "$L_c"});
  const auto& brx = std::get<Instruction>(f.body[1]);
  CHECK(brx.is_indirect_branch());
  CHECK(brx.is_uni());
  REQUIRE(brx.branch_target() != nullptr);
  CHECK(f.FindBranchTargets(brx.branch_target()->text) == &bt);
  auto insts = Instructions(f);
  CHECK(insts[2].is_exit());
  CHECK(insts[3].is_trap());
}

TEST_CASE("parser: debug info (.loc, .file, .section)", "[parser]") {
  Module m = MustParse(
      ".entry k()\n{\n"
      ".loc 1 23 4\nadd.s32 %r1, %r1, 1;\n"
      ".loc 2 107 3, function_name $L__info_string0, inlined_at 1 17 3\natom.global.add.u32 %r2, [%rd1], 1;\n"
      "ret;\n}\n"
      ".file 1 \"/tmp/a.cu\"\n.file 2 \"b.h\", 1700000000, 4096\n"
      ".section .debug_str\n{\n$L__info_string0:\n.b8 95,90,0 // }\n}\n"
      ".section .debug_info { .b32 .debug_abbrev }\n");
  const Function& k = *m.Functions()[0];
  auto insts = Instructions(k);
  REQUIRE(insts.size() == 3);
  CHECK(insts[0].loc.file == 1);
  CHECK(insts[0].loc.line == 23);
  CHECK(insts[0].loc.column == 4);
  CHECK(insts[1].loc.file == 2);
  CHECK(insts[1].loc.function_name == "$L__info_string0");
  CHECK(insts[1].loc.has_inlined_at);
  CHECK(insts[1].loc.inlined_line == 17);
  CHECK(insts[2].loc == insts[1].loc);  // stays in effect until the next .loc
  CHECK(insts[0].pos.line == 7);
  const FileDirective* f1 = m.FindFile(1);
  REQUIRE(f1 != nullptr);
  CHECK(f1->name == "/tmp/a.cu");
  const FileDirective* f2 = m.FindFile(2);
  REQUIRE(f2 != nullptr);
  CHECK(f2->timestamp == 1700000000u);
  CHECK(f2->size == 4096u);
  CHECK(FormatDebugLoc(m, insts[0].loc) == "/tmp/a.cu:23:4");
  const auto& sec = std::get<SectionDirective>(m.items[3]);
  CHECK(sec.name == ".debug_str");
  CHECK(sec.body == "\n$L__info_string0:\n.b8 95,90,0 // }\n");
  CHECK(std::get<SectionDirective>(m.items[4]).body == " .b32 .debug_abbrev ");
}

TEST_CASE("parser: .loc is reset at each function", "[parser]") {
  Module m = MustParse(".func a()\n{\n.loc 1 2 3\nret;\n}\n.func b()\n{\nret;\n}\n");
  CHECK(Instructions(*m.Functions()[0])[0].loc.valid());
  CHECK_FALSE(Instructions(*m.Functions()[1])[0].loc.valid());
}

TEST_CASE("parser: pragmas and aliases", "[parser]") {
  Module m = MustParse(
      ".pragma \"nounroll\";\n.func f()\n{\n.pragma \"nounroll\";\nret;\n}\n.func g();\n.alias g, f;\n");
  CHECK(std::get<PragmaDirective>(m.items[0]).strings == std::vector<std::string>{"nounroll"});
  CHECK(std::holds_alternative<PragmaDirective>(m.Functions()[0]->body[0]));
  const auto& a = std::get<AliasDirective>(m.items[3]);
  CHECK(a.alias == "g");
  CHECK(a.aliasee == "f");
}

TEST_CASE("parser: unknown instructions and syntax are kept", "[parser]") {
  Function f = MustParseBody(
      "frobnicate.x.y %r1, %r2;\n"
      "madeup.op %r1, (%r2 << 3) * 2, [a // comment\n + b];\n"
      "ret;");
  auto insts = Instructions(f);
  REQUIRE(insts.size() == 3);
  CHECK(insts[0].op == Opcode::kUnknown);
  CHECK(insts[0].opcode_name() == "frobnicate");
  CHECK_FALSE(insts[0].opaque);
  CHECK(insts[0].modifiers == std::vector<std::string>{".x", ".y"});
  CHECK(insts[0].info.unclassified == 2);
  CHECK(insts[1].opaque);
  CHECK(insts[1].verbatim == "madeup.op %r1, (%r2 << 3) * 2, [a + b]");
  CHECK(insts[2].is_return());
}

TEST_CASE("parser: known opcodes with constant expressions become opaque", "[parser]") {
  Function f = MustParseBody("ld.param.u32 %r1, [p + 4*2];\nmov.u32 %r2, (1 << 4);\nret;");
  auto insts = Instructions(f);
  REQUIRE(insts.size() == 3);
  CHECK(insts[0].opaque);
  CHECK(insts[0].op == Opcode::kLd);
  CHECK(insts[0].modifiers == std::vector<std::string>{".param", ".u32"});
  CHECK(insts[0].verbatim == "ld.param.u32 %r1, [p + 4*2]");
  CHECK(insts[1].opaque);
  CHECK(insts[1].verbatim == "mov.u32 %r2, (1 << 4)");
}

TEST_CASE("parser: known opcodes with malformed operands are errors", "[parser][errors]") {
  CHECK(ParseError(".version 9.0\n.entry k()\n{\n  ld.global.u32 %r1 [%rd1];\n}\n") ==
        "bad.ptx:4:21: expected ',' or ';', found '['");
  CHECK(ParseError(".version 9.0\n.entry k()\n{\n  add.s32 %r1, , %r2;\n}\n") ==
        "bad.ptx:4:16: expected operand, found ','");
}

TEST_CASE("parser: ParseInstruction for passes", "[parser]") {
  Instruction i = MustParseInstruction("@!%p1 st.global.u32 [%rd1+4], %r2;");
  CHECK(i.guard.negated);
  CHECK(i.op == Opcode::kSt);
  CHECK(i.pos.line == 0);
  CHECK_FALSE(ParseInstruction("st.global.u32 [%rd1+4], %r2; extra").ok());
  CHECK_FALSE(ParseInstruction("").ok());
}

TEST_CASE("parser: video operand selectors and vmad negation", "[parser]") {
  const Instruction v = MustParseInstruction("vadd.s32.u32.s32.sat %r1.h1, %r2.b0, %r3.h0, %r4");
  REQUIRE(v.operands.size() == 4);
  CHECK(v.operands[0].text == "%r1");
  CHECK(v.operands[0].select == ".h1");
  CHECK(v.operands[1].select == ".b0");
  CHECK(v.operands[2].select == ".h0");
  CHECK(v.operands[3].select.empty());
  const Instruction s4 = MustParseInstruction("vmax4.u32.u32.u32 \t%r1.b320, %r2.b7654, %r3.b0123, %r4");
  CHECK(s4.operands[0].select == ".b320");
  CHECK(s4.operands[1].select == ".b7654");
  CHECK(s4.operands[2].text == "%r3");
  const Instruction m = MustParseInstruction("vmad.s32.s32.u32.shr7 \t%r1, -%r2.h1, %r3, -%r4");
  CHECK(m.operands[1].minus);
  CHECK(m.operands[1].text == "%r2");
  CHECK(m.operands[1].select == ".h1");
  CHECK(!m.operands[2].minus);
  CHECK(m.operands[3].minus);
  // Special registers keep their component; a selector follows it.
  const Instruction t = MustParseInstruction("vadd.u32.u32.u32 %r1, %tid.x.b1, %r2, %r3");
  CHECK(t.operands[1].text == "%tid.x");
  CHECK(t.operands[1].select == ".b1");
  // Printed back as written.
  CHECK(PrintInstruction(m) == "vmad.s32.s32.u32.shr7 \t%r1, -%r2.h1, %r3, -%r4");
  CHECK(PrintInstruction(s4) == "vmax4.u32.u32.u32 \t%r1.b320, %r2.b7654, %r3.b0123, %r4");
  // Negative immediates are unchanged.
  CHECK(MustParseInstruction("add.s32 %r1, %r2, -5").operands[2].value == -5);
}

TEST_CASE("parser: errors name file, line and column", "[parser][errors]") {
  CHECK(ParseError(".version 9.0\n.target sm_90\n.bogus 3;\n") == "bad.ptx:3:1: unknown directive '.bogus'");
  CHECK(ParseError(".version 9.0\n.entry k()\n{\n  ret;\n") ==
        "bad.ptx:5:1: expected '}' closing the function body, found end of input");
  CHECK(ParseError(".version 9.0\n.entry k()\n{\n  ld.global.u32 %r1, [%rd1;\n}\n") ==
        "bad.ptx:4:27: unbalanced brackets in instruction");
  CHECK(ParseError(".version 9.0\n.global .u32 x = ;\n") == "bad.ptx:2:18: expected initializer, found ';'");
  CHECK(ParseError(".version x\n") == "bad.ptx:1:10: expected version number MAJOR.MINOR, found 'x'");
  CHECK(ParseError(".version 9.0\n.global .u32 a[99999999999999999999];\n") ==
        "bad.ptx:2:16: integer constant out of range: 99999999999999999999");
  CHECK(ParseError(".version 9.0\n.entry k()\n{\n  mov.u32 %r1, \"s\n}\n") ==
        "bad.ptx:4:16: newline in string constant");
  CHECK(ParseError(".version 9.0\n.global x;\n") == "bad.ptx:2:9: expected type, found 'x'");
  CHECK(ParseError(".version 9.0\n.section .debug_str\n{\n.b8 1\n") ==
        "bad.ptx:5:1: unbalanced '{': end of input inside braces");
  CHECK(ParseError(".version 9.0\n.entry k()\n{\n @%p1 ;\n}\n") ==
        "bad.ptx:4:7: expected an instruction after the guard");
  CHECK(ParseError("\x01\x02") == "bad.ptx:1:1: unexpected character");
}

TEST_CASE("parser: deep nesting is an error, not a stack overflow", "[parser][errors]") {
  std::string deep = ".version 9.0\n.global .u32 a[1] = " + std::string(100000, '{') + "1;\n";
  CHECK(ParseError(deep).find("nested too deeply") != std::string::npos);
  std::string ops = ".version 9.0\n.entry k()\n{\nmov.u32 %r1, " + std::string(100000, '{') + ";\n}\n";
  CHECK(ParseError(ops) != "<parsed>");
}

}  // namespace
}  // namespace barracuda::ptx
