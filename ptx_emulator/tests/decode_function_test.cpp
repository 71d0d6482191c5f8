// Decoder: IR -> executable form. Checks Inst / Function fields only (the
// instruction families are not involved: see decode_test_support.h).
#include <catch2/catch.hpp>

#include <bit>
#include <cstring>

#include "ptx_emulator/tests/decode_test_support.h"

namespace barracuda::emu {
namespace {

using testing::ConstantValue;
using testing::FunctionIndex;
using testing::FunctionNamed;
using testing::LoadForTest;
using testing::Module;

const Function& LoadOne(Device& dev, const std::string& ptx, const std::string& name) {
  auto unit = LoadForTest(dev, {PtxSource{ptx, "t.ptx"}});
  INFO(unit.status().message());
  REQUIRE(unit.ok());
  return FunctionNamed(dev, name);
}

TEST_CASE("kernel parameters are laid out by alignment in the parameter buffer", "[decode]") {
  Device dev;
  const Function& k = LoadOne(dev, Module(R"(
.visible .entry k(.param .u32 k_a, .param .u64 .ptr .global .align 4 k_b, .param .align 16 .b8 k_s[24],
                  .param .u8 k_c)
{
  .reg .b64 %rd<2>;
  .reg .b32 %r<2>;
  ld.param.u64 %rd1, [k_b];
  ld.param.u32 %r1, [k_s+4];
  mov.u64 %rd1, k_c;
  ret;
}
)"), "k");
  REQUIRE(k.is_entry);
  REQUIRE(k.params.size() == 4);
  CHECK(k.params[0].offset == 0);
  CHECK(k.params[0].size == 4);
  CHECK(k.params[1].offset == 8);
  CHECK(k.params[1].size == 8);
  CHECK(k.params[2].offset == 16);
  CHECK(k.params[2].size == 24);
  CHECK(k.params[2].align == 16);
  CHECK(k.params[3].offset == 40);
  CHECK(k.params[3].size == 1);
  CHECK(k.param_buffer_bytes == 41);
  REQUIRE(k.code.size() == 4);
  CHECK(k.code[0].ops[1].kind == Opnd::Kind::kAddress);
  CHECK(k.code[0].ops[1].base == Opnd::AddrBase::kAbsolute);
  CHECK(k.code[0].ops[1].offset == 8);
  CHECK(k.code[1].ops[1].offset == 20);
  // A parameter's value is its param-space address.
  CHECK(ConstantValue(k, k.code[2].ops[1].ref) == 40);
  CHECK(k.code[0].opcode == ptx::Opcode::kLd);
  CHECK(k.code[0].ptx_line == 10);
  CHECK(k.code[0].info.space == ptx::StateSpace::kParam);
}

TEST_CASE("registers: ranges, scopes and predicates get their own slots", "[decode]") {
  Device dev;
  const Function& k = LoadOne(dev, Module(R"(
.visible .entry k()
{
  .reg .b32 %r<3>;
  .reg .pred %p<2>;
  mov.b32 %r1, 5;
  {
    .reg .b32 %r1;
    mov.b32 %r1, 6;
  }
  mov.b32 %r1, 7;
  setp.lt.s32 %p1, %r1, %r2;
  @!%p1 mov.b32 %r0, %r2;
  setp.lt.s32 %p0|%p1, %r1, %r2;
  not.pred %p0, !%p1;
  ret;
}
)"), "k");
  REQUIRE(k.code.size() == 8);
  CHECK(k.num_registers == 1 + 3 + 1);  // scratch, %r0..2, the inner %r1
  CHECK(k.num_predicates == 2);
  const ValueRef outer = k.code[0].ops[0].ref;
  CHECK(RefKind(outer) == kRefRegister);
  CHECK(RefIndex(outer) != 0);
  CHECK(k.code[1].ops[0].ref != outer);  // shadowed
  CHECK(k.code[2].ops[0].ref == outer);  // visible again after the scope
  CHECK(k.code[3].ops[0].kind == Opnd::Kind::kPred);
  const uint32_t p1 = k.code[3].ops[0].index;
  CHECK(k.code[4].guard == p1);
  CHECK(k.code[4].guard_negated);
  CHECK(k.code[0].guard == kNoPred);
  CHECK(k.code[5].ops[0].kind == Opnd::Kind::kPredPair);
  CHECK(k.code[5].ops[0].index2 == p1);
  CHECK(k.code[5].ops[0].index != p1);
  CHECK(k.code[6].ops[1].kind == Opnd::Kind::kPred);
  CHECK(k.code[6].ops[1].negated);
}

TEST_CASE("immediates and float literals become deduplicated constants", "[decode]") {
  Device dev;
  const Function& k = LoadOne(dev, Module(R"(
.visible .entry k()
{
  .reg .b32 %r<3>;
  .reg .f32 %f<3>;
  .reg .f64 %fd<2>;
  add.s32 %r1, %r2, 7;
  add.s32 %r2, %r1, 7;
  add.s32 %r2, %r1, -1;
  add.f32 %f1, %f2, 0f3F800000;
  mov.f32 %f1, 1.5;
  mov.f64 %fd1, 0f3F800000;
  mov.f64 %fd1, 0d4000000000000000;
  cvt.rn.f32.f64 %f1, 0d3FF8000000000000;
  ret;
}
)"), "k");
  CHECK(RefKind(k.code[0].ops[2].ref) == kRefConstant);
  CHECK(k.code[0].ops[2].ref == k.code[1].ops[2].ref);
  CHECK(ConstantValue(k, k.code[0].ops[2].ref) == 7);
  CHECK(k.constants[RefIndex(k.code[0].ops[2].ref) * kLanes + 31] == 7);
  CHECK(static_cast<uint32_t>(ConstantValue(k, k.code[2].ops[2].ref)) == 0xffffffffu);
  CHECK(ConstantValue(k, k.code[3].ops[2].ref) == 0x3F800000u);
  CHECK(ConstantValue(k, k.code[4].ops[1].ref) == std::bit_cast<uint32_t>(1.5f));
  CHECK(ConstantValue(k, k.code[5].ops[1].ref) == std::bit_cast<uint64_t>(1.0));
  CHECK(ConstantValue(k, k.code[6].ops[1].ref) == std::bit_cast<uint64_t>(2.0));
  CHECK(ConstantValue(k, k.code[7].ops[1].ref) == std::bit_cast<uint64_t>(1.5));  // cvt source is f64
  CHECK(k.constants.size() % kLanes == 0);
}

TEST_CASE("special registers decode to SpecialRef, clocks are dynamic", "[decode]") {
  Device dev;
  const Function& k = LoadOne(dev, Module(R"(
.visible .entry k()
{
  .reg .b32 %r<2>;
  .reg .b64 %rd<2>;
  mov.u32 %r1, %tid.y;
  mov.u32 %r1, %nctaid.z;
  mov.u32 %r1, %lanemask_lt;
  mov.u32 %r1, %envreg3;
  mov.u32 %r1, %clock;
  mov.u64 %rd1, %globaltimer;
  mov.u32 %r1, %dynamic_smem_size;
  ret;
}
)"), "k");
  CHECK(k.code[0].ops[1].ref == SpecialRef(static_cast<uint32_t>(SpecialReg::kTidY)));
  CHECK(k.code[1].ops[1].ref == SpecialRef(static_cast<uint32_t>(SpecialReg::kNctaidZ)));
  CHECK(k.code[2].ops[1].ref == SpecialRef(static_cast<uint32_t>(SpecialReg::kLanemaskLt)));
  CHECK(k.code[3].ops[1].ref == SpecialRef(static_cast<uint32_t>(SpecialReg::kEnvReg0) + 3));
  CHECK_FALSE(k.code[3].reads_dynamic_sreg);
  CHECK(k.code[4].reads_dynamic_sreg);
  CHECK(k.code[5].reads_dynamic_sreg);
  CHECK(k.code[6].ops[1].ref == SpecialRef(static_cast<uint32_t>(SpecialReg::kDynamicSmemSize)));
}

TEST_CASE("branch targets and reconvergence pcs", "[decode]") {
  Device dev;
  const Function& k = LoadOne(dev, Module(R"(
.visible .entry k()
{
  .reg .pred %p<2>;
  .reg .b32 %r<3>;
  mov.u32 %r1, %tid.x;
  setp.lt.u32 %p1, %r1, 16;
  @%p1 bra $L_else;
  mov.u32 %r2, 1;
  bra.uni $L_end;
$L_else:
  mov.u32 %r2, 2;
$L_end:
  @%p1 bra $L_out;
  ret;
$L_out:
  ret;
}
)"), "k");
  REQUIRE(k.code.size() == 9);
  CHECK(k.code[2].target == 5);
  CHECK(k.code[2].reconv == 6);
  CHECK(k.code[2].ops[0].kind == Opnd::Kind::kLabel);
  CHECK(k.code[2].ops[0].index == 5);
  CHECK(k.code[4].target == 6);
  CHECK(k.code[4].reconv == -1);  // unconditional: never splits
  CHECK(k.code[6].target == 8);
  CHECK(k.code[6].reconv == kReconvAtExit);  // the two paths meet only at exit
}

TEST_CASE("brx.idx tables hold pcs, reconvergence at the join", "[decode]") {
  Device dev;
  const Function& k = LoadOne(dev, Module(R"(
.visible .entry k()
{
  .reg .b32 %r<3>;
  mov.u32 %r1, %tid.x;
  $L_tab: .branchtargets $L_a, $L_b, $L_a;
  brx.idx %r1, $L_tab;
$L_a:
  mov.u32 %r2, 1;
  bra.uni $L_end;
$L_b:
  mov.u32 %r2, 2;
$L_end:
  ret;
}
)"), "k");
  REQUIRE(k.code.size() == 6);
  const Inst& brx = k.code[1];
  CHECK(brx.ops[0].kind == Opnd::Kind::kValue);
  REQUIRE(brx.ops[1].kind == Opnd::Kind::kLabel);
  CHECK(brx.ops[1].count == 3);
  CHECK(brx.ops[1].index2 == 3);
  REQUIRE(k.jump_tables.size() == brx.ops[1].index + 3);
  CHECK(k.jump_tables[brx.ops[1].index + 0] == 2);
  CHECK(k.jump_tables[brx.ops[1].index + 1] == 4);
  CHECK(k.jump_tables[brx.ops[1].index + 2] == 2);
  CHECK(brx.reconv == 5);
}

TEST_CASE("running off the end of a body gets an implicit ret", "[decode]") {
  Device dev;
  const Function& k = LoadOne(dev, Module(R"(
.visible .entry k()
{
  .reg .pred %p<2>;
  .reg .b32 %r<2>;
  mov.u32 %r1, 1;
  setp.eq.u32 %p1, %r1, 1;
  @%p1 bra $L_end;
  mov.u32 %r1, 2;
$L_end:
}
)"), "k");
  REQUIRE(k.code.size() == 5);
  CHECK(k.code[2].target == 4);
  CHECK(k.code[4].opcode == ptx::Opcode::kRet);
  CHECK(k.code[4].site == protocol::kNoSite);
  CHECK(k.code[2].reconv == kReconvAtExit);
}

TEST_CASE("frames: .local, body .param and signature parameters, call sites", "[decode]") {
  Device dev;
  auto unit = LoadForTest(dev, {PtxSource{Module(R"(
.func (.param .b32 add_rv) add(.param .b32 add_a, .param .b64 add_b)
{
  .reg .b32 %r<3>;
  ld.param.b32 %r1, [add_a];
  st.param.b32 [add_rv], %r1;
  ret;
}
.visible .entry k()
{
  .local .align 4 .b8 depot[12];
  .reg .b32 %r<2>;
  .reg .b64 %rd<2>;
  mov.u64 %rd1, depot;
  st.local.u32 [depot+8], %r1;
  {
    .param .b32 p0;
    st.param.b32 [p0], 1;
    .param .b64 p1;
    .param .b32 r0;
    call.uni (r0), add, (p0, p1);
    ld.param.b32 %r1, [r0];
  }
  ret;
}
)"), "t.ptx"}});
  INFO(unit.status().message());
  REQUIRE(unit.ok());
  const Function& add = FunctionNamed(dev, "add");
  CHECK_FALSE(add.is_entry);
  REQUIRE(add.params.size() == 2);
  CHECK(add.params[0].offset == 0);
  CHECK(add.params[1].offset == 8);
  REQUIRE(add.returns.size() == 1);
  CHECK(add.returns[0].offset == 16);
  CHECK(add.returns[0].size == 4);
  CHECK(add.frame_bytes == 32);
  CHECK(add.code[0].ops[1].base == Opnd::AddrBase::kFrame);
  CHECK(add.code[0].ops[1].offset == 0);
  CHECK(add.code[1].ops[0].base == Opnd::AddrBase::kFrame);
  CHECK(add.code[1].ops[0].offset == 16);

  const Function& k = FunctionNamed(dev, "k");
  CHECK(k.frame_bytes == 32);  // depot 0..12, p0 12, p1 16, r0 24
  CHECK(k.code[0].ops[1].kind == Opnd::Kind::kAddress);
  CHECK(k.code[0].ops[1].base == Opnd::AddrBase::kFrame);
  CHECK(k.code[0].ops[1].offset == 0);
  CHECK(k.code[1].ops[0].base == Opnd::AddrBase::kFrame);
  CHECK(k.code[1].ops[0].offset == 8);
  CHECK(k.code[2].ops[0].offset == 12);
  const Inst& call = k.code[3];
  CHECK(call.opcode == ptx::Opcode::kCall);
  REQUIRE(call.aux < k.call_sites.size());
  const Function::CallSite& cs = k.call_sites[call.aux];
  CHECK(cs.callee == static_cast<int32_t>(FunctionIndex(dev, "add")));
  CHECK(call.target == cs.callee);
  CHECK(call.ops[0].kind == Opnd::Kind::kFunction);
  CHECK(cs.arg_offsets == std::vector<uint32_t>{12, 16});
  CHECK(cs.arg_sizes == std::vector<uint32_t>{4, 8});
  CHECK(cs.ret_offsets == std::vector<uint32_t>{24});
  CHECK(cs.ret_sizes == std::vector<uint32_t>{4});
  CHECK(k.code[4].ops[1].offset == 24);
}

TEST_CASE("frames: variables of sibling scopes share bytes, nested ones stack", "[decode]") {
  // Instrumented code declares a { .param ... call } block per logged
  // instruction; summing them overflowed the 16 KiB local window of CUB's
  // radix-sort kernels.
  Device dev;
  auto unit = LoadForTest(dev, {PtxSource{Module(R"(
.visible .entry k()
{
  .local .align 4 .b8 depot[8];
  {
    .param .b8 a[4096];
    st.param.b32 [a], 1;
  }
  {
    .param .b8 b[4096];
    st.param.b32 [b], 2;
    {
      .param .b32 c;
      st.param.b32 [c], 3;
    }
  }
  ret;
}
)"), "t.ptx"}});
  INFO(unit.status().message());
  REQUIRE(unit.ok());
  const Function& k = FunctionNamed(dev, "k");
  CHECK(k.frame_bytes == 4112);  // depot 8, a/b 4096 at 8, c 4 at 4104: 4108 aligned to 16
  CHECK(k.code[0].ops[0].offset == 8);     // a
  CHECK(k.code[1].ops[0].offset == 8);     // b reuses a's bytes
  CHECK(k.code[2].ops[0].offset == 8 + 4096);  // c nests inside b's scope
}

TEST_CASE("indirect calls and function pointers", "[decode]") {
  Device dev;
  auto unit = LoadForTest(dev, {PtxSource{Module(R"(
.func (.param .b32 f_rv) f(.param .b32 f_a)
{
  ret;
}
.visible .entry k()
{
  .reg .b64 %rd<2>;
  mov.u64 %rd1, f;
  {
    .param .b32 p0;
    .param .b32 r0;
    prototype_0 : .callprototype (.param .b32 _) _ (.param .b32 _);
    call (r0), %rd1, (p0), prototype_0;
  }
  ret;
}
)"), "t.ptx"}});
  INFO(unit.status().message());
  REQUIRE(unit.ok());
  const Function& k = FunctionNamed(dev, "k");
  CHECK(ConstantValue(k, k.code[0].ops[1].ref) == (kFunctionPointerTag | FunctionIndex(dev, "f")));
  const Function::CallSite& cs = k.call_sites.at(k.code[1].aux);
  CHECK(cs.callee == -1);
  CHECK(cs.callee_ref == k.code[0].ops[0].ref);
  CHECK(k.code[1].target == -1);
}

TEST_CASE("vector operands and `_` sinks", "[decode]") {
  Device dev;
  const Function& k = LoadOne(dev, Module(R"(
.visible .entry k(.param .u64 k_p)
{
  .reg .b32 %r<4>;
  .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [k_p];
  ld.global.v4.u32 {%r1, %r2, _, %r3}, [%rd1+16];
  st.global.v2.u32 [%rd1], {%r1, 0};
  ret;
}
)"), "k");
  const Inst& ld = k.code[1];
  REQUIRE(ld.ops[0].kind == Opnd::Kind::kVector);
  CHECK(ld.ops[0].count == 4);
  CHECK(k.vector_refs.at(ld.ops[0].index + 2) == RegisterRef(0));
  CHECK(RefIndex(k.vector_refs.at(ld.ops[0].index + 0)) != 0);
  CHECK(ld.ops[1].base == Opnd::AddrBase::kRegister);
  CHECK(ld.ops[1].offset == 16);
  const Inst& st = k.code[2];
  CHECK(st.ops[1].count == 2);
  CHECK(ConstantValue(k, k.vector_refs.at(st.ops[1].index + 1)) == 0);
}

TEST_CASE("memory instructions carry the access classification", "[decode]") {
  Device dev;
  const Function& k = LoadOne(dev, Module(R"(
.visible .entry k(.param .u64 k_p)
{
  .reg .b32 %r<4>;
  .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [k_p];
  ld.global.u32 %r1, [%rd1];
  st.global.u32 [%rd1], %r1;
  atom.global.add.u32 %r2, [%rd1], 1;
  add.s32 %r3, %r1, 1;
  ret;
}
)"), "k");
  CHECK(AccessOp(k.code[0].aux) == kAuxNotLogged);  // param space
  CHECK(AccessOp(k.code[1].aux) == static_cast<uint8_t>(protocol::Op::kRead));
  CHECK(AccessOp(k.code[2].aux) == static_cast<uint8_t>(protocol::Op::kWrite));
  CHECK(AccessOp(k.code[3].aux) == static_cast<uint8_t>(protocol::Op::kAtomic));
  CHECK(k.code[4].aux == 0);  // not a memory instruction: left to its family
}

TEST_CASE("site ids follow the module's site table", "[decode]") {
  Device dev;
  const std::string ptx = Module(R"(
.visible .entry k(.param .u64 k_p)
{
  .reg .b32 %r<4>;
  .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [k_p];
  ld.global.u32 %r1, [%rd1];
  add.s32 %r1, %r1, 1;
  st.global.u32 [%rd1], %r1;
  ret;
}
)");
  auto u1 = LoadForTest(dev, {PtxSource{ptx, "a.ptx"}});
  auto u2 = LoadForTest(dev, {PtxSource{ptx, "b.ptx"}});
  REQUIRE(u1.ok());
  REQUIRE(u2.ok());
  const LoadedModule& m0 = dev.module(0);
  const LoadedModule& m1 = dev.module(1);
  CHECK(m0.site_base == 0);
  CHECK(m1.site_base == m0.site_base + m0.sites.sites.size());
  const Function& k2 = dev.function(1);
  for (const Inst& inst : k2.code) {
    if (inst.opcode == ptx::Opcode::kAdd) {
      CHECK(inst.site == protocol::kNoSite);
      continue;
    }
    if (inst.site == protocol::kNoSite) continue;
    const ptx::Site& s = m1.sites.sites.at(inst.site - m1.site_base);
    CHECK(s.ptx_line == inst.ptx_line);
  }
  CHECK(k2.code[1].site != protocol::kNoSite);
  CHECK(k2.code[3].site != protocol::kNoSite);
  CHECK(m0.sm_target == 75);
}

}  // namespace
}  // namespace barracuda::emu
