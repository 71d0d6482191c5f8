// Loader: module variables, .shared layout, initialisers, -rdc linking, and
// the error messages of a failed load.
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

template <typename T>
T Read(const GlobalVariable& v, size_t index = 0) {
  T out;
  std::memcpy(&out, static_cast<const uint8_t*>(v.address) + index * sizeof(T), sizeof(T));
  return out;
}

TEST_CASE("module .global/.const variables live in device memory, initialised", "[decode][link]") {
  Device dev;
  auto unit = LoadForTest(dev, {PtxSource{Module(R"(
.visible .global .align 4 .u32 g[4] = {1, 2, 3, 4};
.global .align 4 .b8 bytes[3] = {1, 255, 7};
.global .align 8 .u64 zeros[3];
.visible .const .align 4 .f32 c_f = 0f3FC00000;
.const .align 8 .f64 c_d[2] = {1.5, -2};
.global .align 4 .s32 neg[2] = {-1, 0x10};
.global .align 4 .f32 fl[2] = {2.5, 3};
.global .align 8 .u64 ptr = generic(g)+4;
.global .align 8 .u64 ptrs[2] = {g, bytes};
.global .align 4 .u32 unsized[] = {9, 8, 7};
.global .align 8 .u64 fp[1] = {f};
.global .attribute(.managed) .align 4 .u32 m;
.func f()
{
  ret;
}
.visible .entry k()
{
  .reg .b32 %r<2>;
  .reg .b64 %rd<2>;
  ld.global.u32 %r1, [g+8];
  mov.u64 %rd1, g;
  ld.const.f32 %r1, [c_f];
  ret;
}
)"), "t.ptx"}});
  INFO(unit.status().message());
  REQUIRE(unit.ok());
  auto g = dev.FindVariable(*unit, "g");
  REQUIRE(g.ok());
  CHECK(g->size == 16);
  CHECK(g->space == ptx::StateSpace::kGlobal);
  CHECK(reinterpret_cast<uint64_t>(g->address) % 256 == 0);
  for (uint32_t i = 0; i < 4; ++i) CHECK(Read<uint32_t>(*g, i) == i + 1);
  auto alloc = dev.memory().Find(reinterpret_cast<uint64_t>(g->address));
  REQUIRE(alloc.has_value());
  CHECK(alloc->kind == DeviceMemory::Kind::kGlobalVariable);
  CHECK(alloc->label == "g");

  auto bytes = dev.FindVariable(*unit, "bytes");
  REQUIRE(bytes.ok());
  CHECK(Read<uint8_t>(*bytes, 1) == 255);
  auto zeros = dev.FindVariable(*unit, "zeros");
  REQUIRE(zeros.ok());
  CHECK(Read<uint64_t>(*zeros, 2) == 0);
  auto cf = dev.FindVariable(*unit, "c_f");
  REQUIRE(cf.ok());
  CHECK(cf->space == ptx::StateSpace::kConst);
  CHECK(Read<float>(*cf) == 1.5f);
  CHECK(dev.memory().Find(reinterpret_cast<uint64_t>(cf->address))->kind == DeviceMemory::Kind::kConstVariable);
  auto cd = dev.FindVariable(*unit, "c_d");
  REQUIRE(cd.ok());
  CHECK(Read<double>(*cd, 0) == 1.5);
  CHECK(Read<double>(*cd, 1) == -2.0);
  auto neg = dev.FindVariable(*unit, "neg");
  CHECK(Read<int32_t>(*neg, 0) == -1);
  CHECK(Read<int32_t>(*neg, 1) == 16);
  auto fl = dev.FindVariable(*unit, "fl");
  CHECK(Read<float>(*fl, 0) == 2.5f);
  CHECK(Read<float>(*fl, 1) == 3.0f);
  auto ptr = dev.FindVariable(*unit, "ptr");
  CHECK(Read<uint64_t>(*ptr) == reinterpret_cast<uint64_t>(g->address) + 4);
  auto ptrs = dev.FindVariable(*unit, "ptrs");
  CHECK(Read<uint64_t>(*ptrs, 0) == reinterpret_cast<uint64_t>(g->address));
  CHECK(Read<uint64_t>(*ptrs, 1) == reinterpret_cast<uint64_t>(bytes->address));
  auto unsized = dev.FindVariable(*unit, "unsized");
  CHECK(unsized->size == 12);
  CHECK(Read<uint32_t>(*unsized, 2) == 7);
  auto fp = dev.FindVariable(*unit, "fp");
  CHECK(Read<uint64_t>(*fp) == (kFunctionPointerTag | FunctionIndex(dev, "f")));
  auto m = dev.FindVariable(*unit, "m");
  REQUIRE(m.ok());
  CHECK(m->managed);
  CHECK_FALSE(g->managed);
  CHECK(dev.FindVariable(*unit, "nope").status().code() == absl::StatusCode::kNotFound);

  const Function& k = FunctionNamed(dev, "k");
  CHECK(k.code[0].ops[1].base == Opnd::AddrBase::kAbsolute);
  CHECK(k.code[0].ops[1].offset == static_cast<int64_t>(reinterpret_cast<uint64_t>(g->address) + 8));
  CHECK(ConstantValue(k, k.code[1].ops[1].ref) == reinterpret_cast<uint64_t>(g->address));
  CHECK(k.code[2].ops[1].offset == static_cast<int64_t>(reinterpret_cast<uint64_t>(cf->address)));
}

TEST_CASE(".shared variables: unit-wide offsets, dynamic shared after the static part", "[decode][link]") {
  Device dev;
  auto unit = LoadForTest(dev, {PtxSource{Module(R"(
.shared .align 4 .b8 s1[10];
.shared .align 16 .b8 s2[40];
.extern .shared .align 16 .b8 dyn[];
.visible .entry k()
{
  .reg .b32 %r<2>;
  .shared .align 8 .u64 local_s;
  mov.u32 %r1, s2;
  ld.shared.u32 %r1, [dyn+4];
  st.shared.u64 [local_s], %rd1;
  ret;
}
.visible .entry k2()
{
  ret;
}
)"), "t.ptx"}});
  // %rd1 is undeclared: the load fails; declare it and retry.
  REQUIRE_FALSE(unit.ok());
  CHECK(std::string(unit.status().message()).find("undeclared register `%rd1`") != std::string::npos);
  unit = LoadForTest(dev, {PtxSource{Module(R"(
.shared .align 4 .b8 s1[10];
.shared .align 16 .b8 s2[40];
.extern .shared .align 16 .b8 dyn[];
.visible .entry k()
{
  .reg .b32 %r<2>;
  .reg .b64 %rd<2>;
  .shared .align 8 .u64 local_s;
  mov.u32 %r1, s2;
  ld.shared.u32 %r1, [dyn+4];
  st.shared.u64 [local_s], %rd1;
  ret;
}
.visible .entry k2()
{
  ret;
}
)"), "t.ptx"}});
  INFO(unit.status().message());
  REQUIRE(unit.ok());
  const Function& k = FunctionNamed(dev, "k");
  // k reaches s2 and local_s only (s1 is nobody's: offset 0): s2 0..40,
  // local_s 40..48: static 48; dyn at 48. k2 names no .shared variable.
  CHECK(ConstantValue(k, k.code[0].ops[1].ref) == 0);
  CHECK(k.code[1].ops[1].base == Opnd::AddrBase::kAbsolute);
  CHECK(k.code[1].ops[1].offset == 52);
  CHECK(k.code[2].ops[0].offset == 40);
  CHECK(k.static_shared_bytes == 48);
  CHECK(FunctionNamed(dev, "k2").static_shared_bytes == 0);
  CHECK(dev.module(0).shared_bytes == 48);
}

// Offset of a .shared symbol as the decoder baked it: `mov.u32 %r1, sym;` is
// the function's first instruction in the kernels below.
uint64_t MovedOffset(const Function& f) { return ConstantValue(f, f.code[0].ops[1].ref); }

TEST_CASE(".shared sizes are per kernel: private variables overlap, shared ones sit below", "[decode][link]") {
  // Like CUB: each kernel has its own large TempStorage; a helper .func used by
  // two kernels names `common`.
  const std::string kernels = R"(
.shared .align 4 .b8 common[8];
.shared .align 16 .b8 big_a[40000];
.shared .align 16 .b8 big_b[30000];
.shared .align 8 .b8 only_helper2[16];
.shared .align 4 .b8 unused[100000];
.extern .shared .align 16 .b8 dyn[];
.func helper()
{
  .reg .b32 %r<2>;
  mov.u32 %r1, common;
  ret;
}
.func helper2()
{
  .reg .b32 %r<2>;
  mov.u32 %r1, only_helper2;
  call helper;
  ret;
}
.visible .entry ka()
{
  .reg .b32 %r<2>;
  mov.u32 %r1, big_a;
  call helper;
  ret;
}
.visible .entry kb()
{
  .reg .b32 %r<2>;
  mov.u32 %r1, big_b;
  call helper2;
  ret;
}
.visible .entry kc()
{
  .reg .b32 %r<2>;
  mov.u32 %r1, dyn;
  ret;
}
.visible .entry kd()
{
  .reg .b32 %r<2>;
  .shared .align 4 .b8 in_body[4];
  mov.u32 %r1, in_body;
  ret;
}
)";
  Device dev;
  auto unit = LoadForTest(dev, {PtxSource{Module(kernels), "t.ptx"}});
  INFO(unit.status().message());
  REQUIRE(unit.ok());
  const Function &a = FunctionNamed(dev, "ka"), &b = FunctionNamed(dev, "kb"), &c = FunctionNamed(dev, "kc"),
                 &d = FunctionNamed(dev, "kd");
  // common (ka and kb, through helper and helper2 -> helper) 0..8; then each
  // kernel's private variables from 8 (aligned), overlapping.
  CHECK(MovedOffset(FunctionNamed(dev, "helper")) == 0);
  CHECK(MovedOffset(a) == 16);
  CHECK(a.static_shared_bytes == 16 + 40000);
  CHECK(MovedOffset(b) == 16);
  CHECK(MovedOffset(FunctionNamed(dev, "helper2")) == 16 + 30000);
  CHECK(b.static_shared_bytes == 16 + 30000 + 16);
  CHECK(MovedOffset(d) == 8);  // in_body is kd's own
  CHECK(d.static_shared_bytes == 16);
  CHECK(c.static_shared_bytes == 0);  // dyn starts at kc's static size, 0
  CHECK(MovedOffset(c) == 0);
  CHECK(dev.module(0).shared_bytes == 16 + 40000);  // `unused` (nobody's) overlaps at 0

  // A kernel with an indirect call may reach any function: it counts as using
  // every variable, so all of them become common, and kc's dyn moves above
  // that kernel's static part.
  Device dev2;
  auto unit2 = LoadForTest(dev2, {PtxSource{Module(kernels + R"(
.visible .entry viaptr()
{
  .reg .b64 %rd<2>;
  mov.u64 %rd1, helper;
  prototype_0 : .callprototype ()_ ();
  call %rd1, prototype_0;
  ret;
}
)"), "t.ptx"}});
  INFO(unit2.status().message());
  REQUIRE(unit2.ok());
  const Function &via = FunctionNamed(dev2, "viaptr"), &c2 = FunctionNamed(dev2, "kc");
  CHECK(via.static_shared_bytes >= 8 + 40000 + 30000 + 16 + 100000 + 4);
  CHECK(c2.static_shared_bytes == via.static_shared_bytes);  // both reach dyn
  CHECK(MovedOffset(c2) == c2.static_shared_bytes);
  CHECK(FunctionNamed(dev2, "ka").static_shared_bytes < 40100);  // ka's reach is still small
}

TEST_CASE("rdc: extern .func and extern .global resolve across the unit's modules", "[decode][link]") {
  const std::string lib = Module(R"(
.visible .global .align 4 .u32 counter = 7;
.visible .func (.param .b32 twice_rv) twice(.param .b32 twice_x)
{
  .reg .b32 %r<2>;
  ld.param.b32 %r1, [twice_x];
  add.s32 %r1, %r1, %r1;
  st.param.b32 [twice_rv], %r1;
  ret;
}
)");
  const std::string app = Module(R"(
.extern .global .align 4 .u32 counter;
.extern .func (.param .b32 twice_rv) twice(.param .b32 twice_x);
.extern .func (.param .b32 vp_rv) vprintf(.param .b64 vp_a, .param .b64 vp_b);
.visible .entry k()
{
  .reg .b32 %r<2>;
  ld.global.u32 %r1, [counter];
  {
    .param .b32 p0;
    .param .b32 r0;
    call.uni (r0), twice, (p0);
  }
  {
    .param .b64 a0;
    .param .b64 a1;
    .param .b32 r1;
    call.uni (r1), vprintf, (a0, a1);
  }
  ret;
}
)");
  Device dev;
  auto unit = LoadForTest(dev, {PtxSource{app, "app.ptx"}, PtxSource{lib, "lib.ptx"}});
  INFO(unit.status().message());
  REQUIRE(unit.ok());
  CHECK(dev.module_count() == 2);
  auto counter = dev.FindVariable(*unit, "counter");
  REQUIRE(counter.ok());
  CHECK(Read<uint32_t>(*counter) == 7);
  const Function& k = FunctionNamed(dev, "k");
  CHECK(k.code[0].ops[1].offset == static_cast<int64_t>(reinterpret_cast<uint64_t>(counter->address)));
  REQUIRE(k.call_sites.size() == 2);
  CHECK(k.call_sites[0].callee == static_cast<int32_t>(FunctionIndex(dev, "twice")));
  CHECK(k.call_sites[1].callee == -1);
  CHECK(k.call_sites[1].builtin == Builtin::kVprintf);
  CHECK(k.call_sites[1].arg_sizes == std::vector<uint32_t>{8, 8});
  auto kernel = dev.FindKernel(*unit, "k");
  REQUIRE(kernel.ok());
  CHECK(*kernel == FunctionIndex(dev, "k"));
  CHECK(dev.FindKernel(*unit, "twice").status().code() == absl::StatusCode::kNotFound);
  CHECK(dev.FindKernel(*unit + 1, "k").status().code() == absl::StatusCode::kNotFound);
  CHECK(dev.function(*kernel).module == dev.module(0).id);
  CHECK(dev.module(1).link_unit == *unit);
}

TEST_CASE("a sink hears about every loaded module", "[decode][link]") {
  struct Sink : RecordSink {
    void OnModule(uint32_t id, uint32_t base, const ptx::SiteTable& sites, std::string_view name) override {
      seen.push_back({id, base, static_cast<uint32_t>(sites.sites.size()), std::string(name)});
    }
    void OnLaunchBegin(const protocol::Record&, uint32_t) override {}
    void Emit(uint32_t, const protocol::Record&) override {}
    void OnLaunchEnd(const protocol::Record&) override {}
    struct Seen {
      uint32_t id, base, count;
      std::string name;
    };
    std::vector<Seen> seen;
  } sink;
  Device dev;
  dev.SetSink(&sink);
  const std::string ptx = Module(R"(
.visible .entry k(.param .u64 k_p)
{
  .reg .b64 %rd<2>;
  .reg .b32 %r<2>;
  ld.param.u64 %rd1, [k_p];
  st.global.u32 [%rd1], %r1;
  ret;
}
)");
  REQUIRE(LoadForTest(dev, {PtxSource{ptx, "a.ptx"}}).ok());
  REQUIRE(LoadForTest(dev, {PtxSource{ptx, "b.ptx"}}).ok());
  REQUIRE(sink.seen.size() == 2);
  CHECK(sink.seen[0].name == "a.ptx");
  CHECK(sink.seen[0].base == 0);
  CHECK(sink.seen[0].count > 0);
  CHECK(sink.seen[1].id == 1);
  CHECK(sink.seen[1].base == sink.seen[0].count);
}

std::string LoadError(const std::string& body, const std::string& name = "t.ptx") {
  Device dev;
  auto unit = LoadForTest(dev, {PtxSource{Module(body), name}});
  return unit.ok() ? "" : std::string(unit.status().message());
}

TEST_CASE("load errors name the symbol, module and line", "[decode][link]") {
  SECTION("unresolved extern function") {
    const std::string e = LoadError(R"(
.extern .func missing();
.visible .entry k()
{
  call.uni missing, ();
  ret;
}
)");
    CHECK(e.find("unresolved function `missing`") != std::string::npos);
    CHECK(e.find("t.ptx:8") != std::string::npos);
    CHECK(e.find("declared at t.ptx:5") != std::string::npos);
  }
  SECTION("the device runtime: launches are builtins, other entries fault only when reached") {
    // libcudadevrt's own functions reach the driver through syscalls the
    // emulator lacks: the module loads; a call reaching one faults naming it.
    Device dev;
    auto unit = LoadForTest(dev, {PtxSource{Module(R"(
.extern .func (.param .b64 func_retval0) __cudaCDP2GetParameterBufferV2(.param .b64 p0, .param .b64 p1);
.extern .func (.param .b32 func_retval0) __cuda_syscall_cnpv2EventCreate(.param .b64 p0, .param .b32 p1);
.visible .entry parent()
{
  .reg .b64 %rd<2>;
  { .param .b64 p0; .param .b64 p1; .param .b64 retval0;
    st.param.b64 [p0], 0; st.param.b64 [p1], 0;
    call.uni (retval0), __cudaCDP2GetParameterBufferV2, (p0, p1);
    ld.param.b64 %rd1, [retval0]; }
  ret;
}
.visible .entry events()
{
  .reg .b32 %r<2>;
  { .param .b64 p0; .param .b32 p1; .param .b32 retval0;
    st.param.b64 [p0], 0; st.param.b32 [p1], 0;
    call.uni (retval0), __cuda_syscall_cnpv2EventCreate, (p0, p1);
    ld.param.b32 %r1, [retval0]; }
  ret;
}
)"), "cdp.ptx"}});
    REQUIRE(unit.ok());  // running them: exec_kernel_tests "dynamic parallelism"
    CHECK(dev.FindKernel(*unit, "events").ok());
  }
  SECTION("unresolved extern variable") {
    const std::string e = LoadError(R"(
.extern .global .align 4 .u32 gone;
.visible .entry k()
{
  .reg .b32 %r<2>;
  ld.global.u32 %r1, [gone];
  ret;
}
)");
    CHECK(e.find("unresolved symbol `gone`") != std::string::npos);
  }
  SECTION("undefined label and symbol") {
    CHECK(LoadError(".visible .entry k()\n{\n  bra.uni $L_nowhere;\n}\n").find("undefined label `$L_nowhere`") !=
          std::string::npos);
    CHECK(LoadError(".visible .entry k()\n{\n  .reg .b64 %rd<2>;\n  mov.u64 %rd1, nothing;\n  ret;\n}\n")
              .find("undefined symbol `nothing`") != std::string::npos);
  }
  SECTION("malformed PTX: the parser's file:line:col") {
    const std::string e = LoadError(".visible .entry k(\n{\n  ret;\n}\n", "bad.ptx");
    INFO(e);
    CHECK(e.rfind("bad.ptx:5:1: ", 0) == 0);
  }
  SECTION("unsupported instruction") {
    const std::string body = R"(
.global .texref tex_ref;
.visible .entry k()
{
  .reg .f32 %f<8>;
  tex.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [tex_ref, {%f5, %f6}];
  ret;
}
)";
    CHECK(LoadError(body) == "unsupported PTX instruction `tex.2d.v4.f32.f32` at t.ptx:9");
    // Through the real families too: the texture family takes texture
    // objects only and names the form it refuses.
    Device dev;
    auto unit = dev.LoadLinkUnit({PtxSource{Module(body), "t.ptx"}});
    REQUIRE_FALSE(unit.ok());
    CHECK(unit.status().code() == absl::StatusCode::kUnimplemented);
    CHECK(std::string(unit.status().message()) ==
          "tex.2d.v4.f32.f32: texture references (.texref) are not implemented, only texture objects at t.ptx:9");
  }
}

TEST_CASE("opaque instructions are unsupported, unused unresolved declarations are harmless", "[decode][link]") {
  const std::string e = LoadError(R"(
.extern .func never_called();
.visible .entry k()
{
  .reg .b32 %r<2>;
  mov.u32 %r1, (1+2);
  ret;
}
)");
  INFO(e);
  CHECK(e.rfind("unsupported PTX instruction `mov.u32", 0) == 0);
  CHECK(e.find("at t.ptx:9") != std::string::npos);
  CHECK(LoadError(".extern .func never_called();\n.visible .entry k()\n{\n  ret;\n}\n").empty());
}

TEST_CASE("%reserved_smem_offset_* name a region after the static .shared layout", "[decode][link]") {
  Device dev;
  auto unit = LoadForTest(dev, {PtxSource{Module(R"(
.shared .align 4 .b8 s1[20];
.visible .entry k()
{
  .reg .b32 %r<4>;
  mov.u32 %r1, %reserved_smem_offset_begin;
  mov.u32 %r2, %reserved_smem_offset_end;
  mov.u32 %r3, %reserved_smem_offset_1;
  mov.u32 %r3, s1;
  ret;
}
.visible .entry other()
{
  ret;
}
)"), "t.ptx"}});
  INFO(unit.status().message());
  REQUIRE(unit.ok());
  const Function& k = FunctionNamed(dev, "k");
  const uint64_t begin = ConstantValue(k, k.code[0].ops[1].ref);
  const uint64_t end = ConstantValue(k, k.code[1].ops[1].ref);
  CHECK(begin == 32);  // s1 0..20, aligned to 16
  CHECK(end == begin + 1024);
  CHECK(ConstantValue(k, k.code[2].ops[1].ref) > begin);
  CHECK(ConstantValue(k, k.code[2].ops[1].ref) < end);
  CHECK(k.static_shared_bytes == end);
  CHECK(FunctionNamed(dev, "other").static_shared_bytes == 0);  // reads neither
  // Without them nothing is reserved.
  Device plain;
  REQUIRE(LoadForTest(plain, {PtxSource{Module(".shared .align 4 .b8 s1[20];\n.visible .entry k()\n{\n  .reg .b32 "
                                               "%r<2>;\n  mov.u32 %r1, s1;\n  ret;\n}\n"),
                                        "t.ptx"}})
              .ok());
  CHECK(FunctionNamed(plain, "k").static_shared_bytes == 32);
}

TEST_CASE(".weak and .common definitions across modules bind to one object", "[decode][link]") {
  const std::string a = Module(R"(
.weak .global .align 4 .u32 shared_counter = 1;
.weak .func (.param .b32 w_rv) pick()
{
  ret;
}
.visible .entry ka()
{
  .reg .b32 %r<2>;
  ld.global.u32 %r1, [shared_counter];
  {
    .param .b32 r0;
    call.uni (r0), pick, ();
  }
  ret;
}
)");
  const std::string b = Module(R"(
.visible .global .align 4 .u32 shared_counter = 2;
.visible .func (.param .b32 w_rv) pick()
{
  ret;
}
.visible .entry kb()
{
  .reg .b32 %r<2>;
  ld.global.u32 %r1, [shared_counter];
  ret;
}
)");
  Device dev;
  auto unit = LoadForTest(dev, {PtxSource{a, "a.ptx"}, PtxSource{b, "b.ptx"}});
  INFO(unit.status().message());
  REQUIRE(unit.ok());
  // The .visible definitions win, in every module.
  auto v = dev.FindVariable(*unit, "shared_counter");
  REQUIRE(v.ok());
  CHECK(Read<uint32_t>(*v) == 2);
  const Function& ka = FunctionNamed(dev, "ka");
  const Function& kb = FunctionNamed(dev, "kb");
  CHECK(ka.code[0].ops[1].offset == static_cast<int64_t>(reinterpret_cast<uint64_t>(v->address)));
  CHECK(kb.code[0].ops[1].offset == static_cast<int64_t>(reinterpret_cast<uint64_t>(v->address)));
  REQUIRE(ka.call_sites.size() == 1);
  CHECK(dev.function(static_cast<uint32_t>(ka.call_sites[0].callee)).module == dev.module(1).id);
}

TEST_CASE(".alias names the aliasee, also from another module", "[decode][link]") {
  const std::string lib = Module(R"(
.visible .func base_impl()
{
  ret;
}
.visible .func alias_name();
.alias alias_name, base_impl;
)");
  const std::string app = Module(R"(
.extern .func alias_name();
.visible .entry k()
{
  call.uni alias_name, ();
  ret;
}
)");
  Device dev;
  auto unit = LoadForTest(dev, {PtxSource{app, "app.ptx"}, PtxSource{lib, "lib.ptx"}});
  INFO(unit.status().message());
  REQUIRE(unit.ok());
  CHECK(FunctionNamed(dev, "k").call_sites.at(0).callee == static_cast<int32_t>(FunctionIndex(dev, "base_impl")));
  CHECK(LoadError(".visible .func a();\n.alias a, nowhere;\n").find(".alias `a`: `nowhere` is not a function") !=
        std::string::npos);
}

absl::StatusOr<bool> PickyAdd(const ptx::Instruction& ir, Inst& inst) {
  if (ir.op == ptx::Opcode::kAdd && ir.info.sat) return absl::UnimplementedError("add.sat.s32: no saturation");
  return testing::AcceptAll(ir, inst);
}

TEST_CASE("a selector's error gets the module and line, a failed load commits nothing", "[decode][link]") {
  static constexpr Selector kPicky[] = {PickyAdd};
  Device dev;
  auto unit = ModuleLoader(dev, kPicky).Load({PtxSource{Module(R"(
.visible .global .align 4 .u32 g[1024];
.visible .entry k()
{
  .reg .b32 %r<2>;
  add.sat.s32 %r1, %r1, 1;
  ret;
}
)"), "t.ptx"}});
  REQUIRE_FALSE(unit.ok());
  CHECK(unit.status().code() == absl::StatusCode::kUnimplemented);
  CHECK(std::string(unit.status().message()) == "add.sat.s32: no saturation at t.ptx:9");
  CHECK(dev.module_count() == 0);
  CHECK(dev.function_count() == 0);
  CHECK(dev.memory().bytes_in_use() == 0);
  // The next load gets unit id 0 and site base 0.
  auto ok = ModuleLoader(dev, kPicky).Load({PtxSource{Module(".visible .entry k()\n{\n  ret;\n}\n"), "u.ptx"}});
  REQUIRE(ok.ok());
  CHECK(*ok == 0);
  CHECK(dev.module(0).site_base == 0);
}

}  // namespace
}  // namespace barracuda::emu
