// Memory family at handler level: ld/st widths, signedness, vectors, spaces,
// generic resolution, faults, records (op, flags, size, space/scope, mask,
// addresses, site, same-value flag, stamps), atomics and their edge cases,
// cvta/isspacep, fences.
#include <catch2/catch.hpp>

#include <bit>
#include <cmath>
#include <cstring>
#include <thread>
#include <vector>

#include "ptx_emulator/tests/memory_test_harness.h"

namespace barracuda::emu::testing {
namespace {

using protocol::Op;
using protocol::Scope;

uint64_t Addr(const void* p) { return reinterpret_cast<uint64_t>(p); }

TEST_CASE("st/ld shared u32 round trip over a full warp", "[memory][ld]") {
  WarpHarness h;
  for (uint32_t l = 0; l < 32; ++l) h.R(1, l) = 4 * l, h.R(2, l) = 1000 + l;
  h.Run("st.shared.u32 [%r1+16], %r2;");
  h.Run("ld.shared.u32 %r3, [%r1+16];");
  for (uint32_t l = 0; l < 32; ++l) {
    uint32_t v;
    std::memcpy(&v, h.shared + 16 + 4 * l, 4);
    CHECK(v == 1000 + l);
    CHECK(h.R(3, l) == 1000 + l);
  }
}

TEST_CASE("loads sign- or zero-extend by type", "[memory][ld]") {
  WarpHarness h;
  auto* g = h.Global<uint8_t>(64);
  const uint8_t bytes[8] = {0x80, 0xff, 0x7f, 0x01, 0xfe, 0xff, 0xff, 0x80};
  std::memcpy(g, bytes, 8);
  h.SetAll(17, Addr(g));  // %rd1
  h.Run("ld.global.s8 %r1, [%rd1];");
  h.Run("ld.global.u8 %r2, [%rd1];");
  h.Run("ld.global.s16 %rs1, [%rd1+4];");
  h.Run("ld.global.u16 %rs2, [%rd1+4];");
  h.Run("ld.global.s32 %rd2, [%rd1+4];");
  h.Run("ld.global.u32 %rd3, [%rd1+4];");
  h.Run("ld.global.b64 %rd4, [%rd1];");
  CHECK(static_cast<int32_t>(h.R(1, 5)) == -128);
  CHECK(h.R(2, 5) == 0x80);
  CHECK(static_cast<int16_t>(h.R(49, 0)) == -2);
  CHECK(h.R(50, 0) == 0xfffe);
  CHECK(static_cast<int64_t>(h.R(18, 0)) == static_cast<int32_t>(0x80fffffeu));
  CHECK(h.R(19, 0) == 0x80fffffeu);
  CHECK(h.R(20, 31) == 0x80fffffe017fff80ull);
}

TEST_CASE("stores truncate to the type", "[memory][st]") {
  WarpHarness h;
  auto* g = h.Global<uint8_t>(64);
  h.SetAll(17, Addr(g));
  h.SetAll(1, 0x11223344);
  h.SetAll(18, 0xa1a2a3a4a5a6a7a8ull);
  h.Run("st.global.u8 [%rd1], %r1;", 1);
  h.Run("st.global.b16 [%rd1+2], %r1;", 1);
  h.Run("st.global.b64 [%rd1+8], %rd2;", 1);
  h.Run("st.global.u32 [%rd1+16], 7;", 1);
  CHECK(g[0] == 0x44);
  CHECK(g[1] == 0);
  CHECK(g[2] == 0x44);
  CHECK(g[3] == 0x33);
  uint64_t v;
  std::memcpy(&v, g + 8, 8);
  CHECK(v == 0xa1a2a3a4a5a6a7a8ull);
  CHECK(g[16] == 7);
}

TEST_CASE("vector and b128 loads and stores", "[memory][vector]") {
  WarpHarness h;
  auto* g = h.Global<uint32_t>(32 * 16 * 2);
  for (uint32_t l = 0; l < 32; ++l) h.R(17, l) = Addr(g) + 16 * l;
  for (uint32_t l = 0; l < 32; ++l) h.R(1, l) = l, h.R(2, l) = 100 + l, h.R(3, l) = 200 + l, h.R(4, l) = 300 + l;
  h.Run("st.global.v4.u32 [%rd1], {%r1, %r2, %r3, %r4};");
  CHECK(g[4 * 5 + 0] == 5);
  CHECK(g[4 * 5 + 3] == 305);
  h.Run("ld.global.v4.u32 {%r5, %r6, _, %r7}, [%rd1];");
  CHECK(h.R(5, 9) == 9);
  CHECK(h.R(6, 9) == 109);
  CHECK(h.R(7, 9) == 309);
  h.Run("ld.global.v2.b64 {%rd5, %rd6}, [%rd1];");
  CHECK(h.R(21, 2) == (uint64_t{102} << 32 | 2));
  CHECK(h.R(22, 2) == (uint64_t{302} << 32 | 202));
  h.Run("ld.global.b128 %q0, [%rd1];");
  CHECK(h.R(56, 3) == (uint64_t{103} << 32 | 3));
  CHECK(h.R(57, 3) == (uint64_t{303} << 32 | 203));
  for (uint32_t l = 0; l < 32; ++l) h.R(17, l) += 32 * 16;
  h.Run("st.global.b128 [%rd1], %q0;");
  CHECK(g[32 * 4 + 4 * 7 + 2] == 207);
  // A v4 of u32 needs 16-byte alignment.
  h.SetAll(17, Addr(g) + 8);
  auto& st = h.Run("ld.global.v4.u32 {%r5, %r6, %r7, %r8}, [%rd1];");
  (void)st;
  CHECK(h.ctx.fault.kind == FaultKind::kMisalignedAddress);
}

TEST_CASE("faults: misaligned, outside shared, not device memory, null", "[memory][fault]") {
  SECTION("misaligned") {
    WarpHarness h;
    h.SetAll(1, 2);
    h.Run("ld.shared.u32 %r2, [%r1];", 0x10);
    CHECK(h.ctx.fault.kind == FaultKind::kMisalignedAddress);
    CHECK(h.ctx.fault.lane == 4);
    CHECK(h.ctx.fault.message.find("ld.shared.u32") != std::string::npos);
    CHECK(h.ctx.fault.message.find("PTX line 9") != std::string::npos);
  }
  SECTION("shared window end") {
    WarpHarness h;
    h.SetAll(1, WarpHarness::kSharedBytes - 4);
    h.Run("st.shared.u32 [%r1], 1;");
    CHECK_FALSE(h.ctx.faulted());
    h.Run("st.shared.u64 [%r1+4], 1;");
    CHECK(h.ctx.fault.kind == FaultKind::kIllegalAddress);
  }
  SECTION("global outside the arena, nothing written") {
    WarpHarness h;
    auto* g = h.Global<uint32_t>(128);
    for (uint32_t l = 0; l < 32; ++l) h.R(17, l) = Addr(g) + 4 * l;
    h.R(17, 31) = 0x1000;
    h.Run("st.global.u32 [%rd1], 5;");
    CHECK(h.ctx.fault.kind == FaultKind::kIllegalAddress);
    CHECK(h.ctx.fault.lane == 31);
    CHECK(h.ctx.fault.address == 0x1000);
    CHECK(g[0] == 0);  // faults before any lane stores
  }
  SECTION("generic null") {
    WarpHarness h;
    h.Run("ld.u32 %r1, [%rd1];", 1);
    CHECK(h.ctx.fault.kind == FaultKind::kIllegalAddress);
    CHECK(h.ctx.fault.message.find("null") != std::string::npos);
  }
  SECTION("kernel parameters are read-only") {
    WarpHarness h;
    h.Run("st.param.u32 [0], 1;", 1);
    CHECK(h.ctx.fault.kind == FaultKind::kIllegalAddress);
  }
}

TEST_CASE("partial masks touch only executing lanes", "[memory][ld]") {
  WarpHarness h;
  for (uint32_t l = 0; l < 32; ++l) h.R(1, l) = 4 * l, h.R(2, l) = l + 1, h.R(3, l) = 99;
  h.Run("st.shared.u32 [%r1], %r2;", 0x0000ff00);
  h.Run("ld.shared.u32 %r3, [%r1];", 0x00ffff00);
  CHECK(h.R(3, 0) == 99);
  CHECK(h.R(3, 8) == 9);
  CHECK(h.R(3, 16) == 0);
  CHECK(h.R(3, 24) == 99);
}

TEST_CASE("param, local and generic addressing", "[memory][spaces]") {
  WarpHarness h;
  const uint64_t value = 0x1122334455667788ull;
  std::memcpy(h.param + 8, &value, 8);
  h.Run("ld.param.u64 %rd1, [8];");
  CHECK(h.R(17, 30) == value);
  // local: the same offset in every lane's own window
  for (uint32_t l = 0; l < 32; ++l) h.R(2, l) = l;
  h.SetAll(1, 16);
  h.Run("st.local.u32 [%r1], %r2;");
  for (uint32_t l = 0; l < 32; ++l) {
    uint32_t v;
    std::memcpy(&v, h.local + l * WarpHarness::kLocalStride + 16, 4);
    CHECK(v == l);
  }
  // generic: lanes 0-9 shared, 10-19 global, 20-31 local
  auto* g = h.Global<uint32_t>(128);
  for (uint32_t l = 0; l < 32; ++l) {
    if (l < 10) h.R(18, l) = Addr(h.shared) + 4 * l;
    else if (l < 20) h.R(18, l) = Addr(g) + 4 * l;
    else h.R(18, l) = Addr(h.local + l * WarpHarness::kLocalStride) + 16;
  }
  h.Trace(true);
  h.Run("st.u32 [%rd2], %r2;", kFullMask, Aux(Op::kWrite, Scope::kNone, protocol::kFlagStore));
  h.Run("ld.u32 %r3, [%rd2];", kFullMask, Aux(Op::kRead, Scope::kNone, protocol::kFlagLoad));
  uint32_t sv;
  std::memcpy(&sv, h.shared + 4 * 3, 4);
  CHECK(sv == 3);
  CHECK(g[12] == 12);
  for (uint32_t l = 0; l < 32; ++l) CHECK(h.R(3, l) == l);
  // One record per space; local lanes are not logged.
  auto& rs = h.Records();
  REQUIRE(rs.size() == 4);
  CHECK(protocol::SpaceOf(rs[0].header) == protocol::Space::kGlobal);
  CHECK(rs[0].header.active_mask == 0x000ffc00u);
  CHECK(rs[0].addr[12] == Addr(g) + 48);
  CHECK(protocol::SpaceOf(rs[1].header) == protocol::Space::kShared);
  CHECK(rs[1].header.active_mask == 0x3ffu);
  CHECK(rs[1].addr[3] == protocol::SharedAddress(3, 12));
  CHECK(protocol::OpOf(rs[2].header) == Op::kRead);
  CHECK(rs[3].header.active_mask == 0x3ffu);
}

TEST_CASE("store records: header, addresses, same-value flag", "[memory][records]") {
  WarpHarness h;
  auto* g = h.Global<uint32_t>(256);
  h.Trace(true);
  const uint32_t aux = Aux(Op::kWrite, Scope::kNone, protocol::kFlagStore);
  SECTION("distinct addresses, distinct values: same-value holds vacuously") {
    for (uint32_t l = 0; l < 32; ++l) h.R(17, l) = Addr(g) + 4 * l, h.R(1, l) = l;
    h.Run("st.global.u32 [%rd1], %r1;", 0xf0f0f0f0u, aux);
    REQUIRE(h.Records().size() == 1);
    const protocol::Record& r = h.Records()[0];
    CHECK(protocol::OpOf(r.header) == Op::kWrite);
    CHECK(r.header.flags == (protocol::kFlagStore | protocol::kFlagSameValue));
    CHECK(r.header.access_size == 4);
    CHECK(protocol::SpaceOf(r.header) == protocol::Space::kGlobal);
    CHECK(r.header.active_mask == 0xf0f0f0f0u);
    CHECK(r.header.warp_id == 7);
    CHECK(r.header.site_id == 42);
    CHECK(r.stamp == 0);
    CHECK(r.addr[4] == Addr(g) + 16);
    CHECK(r.addr[0] == 0);
  }
  SECTION("one address, one value") {
    h.SetAll(17, Addr(g));
    h.SetAll(1, 5);
    h.Run("st.global.u32 [%rd1], %r1;", kFullMask, aux);
    CHECK((h.Records()[0].header.flags & protocol::kFlagSameValue) != 0);
  }
  SECTION("one address, two values") {
    h.SetAll(17, Addr(g));
    h.SetAll(1, 5);
    h.R(1, 17) = 6;
    h.Run("st.global.u32 [%rd1], %r1;", kFullMask, aux);
    CHECK((h.Records()[0].header.flags & protocol::kFlagSameValue) == 0);
  }
  SECTION("values differ only above the stored width") {
    h.SetAll(17, Addr(g));
    h.SetAll(1, 0x105);
    h.R(1, 3) = 0x205;
    h.Run("st.global.u8 [%rd1], %r1;", kFullMask, aux);
    CHECK((h.Records()[0].header.flags & protocol::kFlagSameValue) != 0);
  }
  SECTION("vector stores: one record per element") {
    for (uint32_t l = 0; l < 32; ++l) h.R(17, l) = Addr(g) + 8 * l;
    h.Run("st.global.v2.u32 [%rd1], {%r1, %r2};", 0x3, aux);
    REQUIRE(h.Records().size() == 2);
    CHECK(h.Records()[0].addr[1] == Addr(g) + 8);
    CHECK(h.Records()[1].addr[1] == Addr(g) + 12);
    CHECK(h.Records()[1].header.access_size == 4);
  }
  SECTION("not logged: no record") {
    h.SetAll(17, Addr(g));
    h.Run("st.global.u32 [%rd1], %r1;", kFullMask, kAuxNotLogged);
    CHECK(h.Records().empty());
  }
  SECTION("tracing off: no record") {
    h.Trace(false);
    h.SetAll(17, Addr(g));
    h.Run("st.global.u32 [%rd1], %r1;", kFullMask, aux);
    CHECK(h.Records().empty());
  }
}

TEST_CASE("acquire/release records carry increasing stamps", "[memory][records]") {
  WarpHarness h;
  auto* g = h.Global<uint32_t>(64);
  h.Trace(true);
  h.SetAll(17, Addr(g));
  h.Run("st.release.gpu.global.u32 [%rd1], 1;", 1, Aux(Op::kRelease, Scope::kGpu, protocol::kFlagStore));
  h.Run("ld.acquire.gpu.global.u32 %r1, [%rd1];", 1, Aux(Op::kAcquire, Scope::kGpu, protocol::kFlagLoad));
  h.Run("fence.sc.cta;", kFullMask, Aux(Op::kFence, Scope::kCta));
  h.Run("membar.gl;", kFullMask, kAuxNotLogged);
  h.Run("atom.acq_rel.gpu.global.add.u32 %r2, [%rd1], 1;", 1,
        Aux(Op::kAcqRel, Scope::kGpu, protocol::kFlagLoad | protocol::kFlagStore));
  auto& rs = h.Records();
  REQUIRE(rs.size() == 4);
  CHECK(protocol::OpOf(rs[0].header) == Op::kRelease);
  CHECK(protocol::ScopeOf(rs[0].header) == Scope::kGpu);
  CHECK(rs[0].header.flags == protocol::kFlagStore);  // no same-value flag on sync ops
  CHECK(rs[0].stamp == 1);
  CHECK(protocol::OpOf(rs[1].header) == Op::kAcquire);
  CHECK(rs[1].stamp == 2);
  CHECK(h.R(1, 0) == 1);
  CHECK(protocol::OpOf(rs[2].header) == Op::kFence);
  CHECK(protocol::ScopeOf(rs[2].header) == Scope::kCta);
  CHECK(rs[2].header.active_mask == kFullMask);
  CHECK(rs[2].header.access_size == 0);
  CHECK(rs[2].stamp == 3);
  CHECK(protocol::OpOf(rs[3].header) == Op::kAcqRel);
  CHECK(rs[3].stamp == 4);
  CHECK(rs[3].header.access_size == 4);
  CHECK(h.R(2, 0) == 1);
  CHECK(g[0] == 2);
}

// ---------------------------------------------------------------- atomics
TEST_CASE("atom.add from a full warp to one address", "[memory][atom]") {
  WarpHarness h;
  auto* g = h.Global<uint32_t>(64);
  h.SetAll(17, Addr(g));
  for (uint32_t l = 0; l < 32; ++l) h.R(1, l) = l + 1;
  h.Trace(true);
  h.Run("atom.global.add.u32 %r2, [%rd1], %r1;", kFullMask, Aux(Op::kAtomic, Scope::kGpu, 6));
  CHECK(g[0] == 32 * 33 / 2);
  // Lanes apply in ascending order: old values are prefix sums.
  uint32_t sum = 0;
  for (uint32_t l = 0; l < 32; ++l) {
    CHECK(h.R(2, l) == sum);
    sum += l + 1;
  }
  REQUIRE(h.Records().size() == 1);
  CHECK(protocol::OpOf(h.Records()[0].header) == Op::kAtomic);
  CHECK(h.Records()[0].header.access_size == 4);
  CHECK(h.Records()[0].stamp != 0);  // strong accesses are stamped (release/acquire patterns)
  CHECK(h.Records()[0].addr[31] == Addr(g));
}

TEST_CASE("atom integer operations and edge cases", "[memory][atom]") {
  WarpHarness h;
  auto* g = h.Global<uint32_t>(64);
  auto* g64 = reinterpret_cast<uint64_t*>(g + 8);
  h.SetAll(17, Addr(g));
  h.SetAll(18, Addr(g64));
  auto one = [&](const std::string& text, uint32_t init, uint32_t b, uint32_t c = 0) {
    g[0] = init;
    h.SetAll(1, b);
    h.SetAll(2, c);
    h.Run(text, 1);
    return std::pair<uint32_t, uint32_t>{static_cast<uint32_t>(h.R(3, 0)), g[0]};
  };
  using P = std::pair<uint32_t, uint32_t>;
  CHECK(one("atom.global.inc.u32 %r3, [%rd1], %r1;", 5, 5) == P{5, 0});
  CHECK(one("atom.global.inc.u32 %r3, [%rd1], %r1;", 4, 5) == P{4, 5});
  CHECK(one("atom.global.inc.u32 %r3, [%rd1], %r1;", 9, 5) == P{9, 0});
  CHECK(one("atom.global.dec.u32 %r3, [%rd1], %r1;", 0, 5) == P{0, 5});
  CHECK(one("atom.global.dec.u32 %r3, [%rd1], %r1;", 9, 5) == P{9, 5});
  CHECK(one("atom.global.dec.u32 %r3, [%rd1], %r1;", 3, 5) == P{3, 2});
  CHECK(one("atom.global.cas.b32 %r3, [%rd1], %r1, %r2;", 7, 7, 9) == P{7, 9});
  CHECK(one("atom.global.cas.b32 %r3, [%rd1], %r1, %r2;", 8, 7, 9) == P{8, 8});
  CHECK(one("atom.global.exch.b32 %r3, [%rd1], %r1;", 8, 3) == P{8, 3});
  CHECK(one("atom.global.min.s32 %r3, [%rd1], %r1;", 5, static_cast<uint32_t>(-3)) ==
        P{5, static_cast<uint32_t>(-3)});
  CHECK(one("atom.global.min.u32 %r3, [%rd1], %r1;", 5, static_cast<uint32_t>(-3)) == P{5, 5});
  CHECK(one("atom.global.max.s32 %r3, [%rd1], %r1;", 5, static_cast<uint32_t>(-3)) == P{5, 5});
  CHECK(one("atom.global.max.u32 %r3, [%rd1], %r1;", 5, static_cast<uint32_t>(-3)) ==
        P{5, static_cast<uint32_t>(-3)});
  CHECK(one("atom.global.and.b32 %r3, [%rd1], %r1;", 0xff, 0x0f0) == P{0xff, 0xf0});
  CHECK(one("atom.global.or.b32 %r3, [%rd1], %r1;", 0xf00, 0x0f0) == P{0xf00, 0xff0});
  CHECK(one("atom.global.xor.b32 %r3, [%rd1], %r1;", 0xff, 0x0f0) == P{0xff, 0x0f});
  CHECK(one("atom.global.add.u32 %r3, [%rd1], %r1;", 0xffffffffu, 2) == P{0xffffffffu, 1});
  // 64-bit
  *g64 = 0xffffffffull;
  h.SetAll(20, 1);
  h.Run("atom.global.add.u64 %rd3, [%rd2], %rd4;", 1);
  CHECK(*g64 == 0x100000000ull);
  CHECK(h.R(19, 0) == 0xffffffffull);
  h.SetAll(20, static_cast<uint64_t>(-5));
  h.Run("atom.global.min.s64 %rd3, [%rd2], %rd4;", 1);
  CHECK(static_cast<int64_t>(*g64) == -5);
  h.SetAll(20, 0x100000000ull);
  h.SetAll(21, 42);
  h.Run("atom.global.cas.b64 %rd3, [%rd2], %rd4, %rd5;", 1);  // old is -5: no swap
  CHECK(static_cast<int64_t>(*g64) == -5);
  // 16-bit cas: neighbouring half untouched
  g[0] = 0xbeef0001u;
  h.SetAll(49, 1);
  h.SetAll(50, 0x7777);
  h.Run("atom.global.cas.b16 %rs3, [%rd1], %rs1, %rs2;", 1);
  CHECK(g[0] == 0xbeef7777u);
  CHECK(h.R(51, 0) == 1);
}

TEST_CASE("atom floating-point adds", "[memory][atom]") {
  WarpHarness h;
  auto* g = h.Global<uint32_t>(64);
  h.SetAll(17, Addr(g));
  SECTION("f32 from every lane, flushing subnormals") {
    float zero = 0.0f;
    std::memcpy(g, &zero, 4);
    h.SetAll(33, std::bit_cast<uint32_t>(0.5f));
    h.Run("atom.global.add.f32 %f2, [%rd1], %f1;");
    CHECK(std::bit_cast<float>(g[0]) == 16.0f);
    CHECK(std::bit_cast<float>(static_cast<uint32_t>(h.R(34, 31))) == 15.5f);
    h.SetAll(33, std::bit_cast<uint32_t>(1e-40f));  // subnormal: flushed
    h.Run("red.global.add.f32 [%rd1], %f1;", 1);
    CHECK(std::bit_cast<float>(g[0]) == 16.0f);
  }
  SECTION("f64") {
    double one = 1.0;
    std::memcpy(g, &one, 8);
    h.SetAll(18, std::bit_cast<uint64_t>(0.25));
    h.Run("atom.global.add.f64 %rd3, [%rd1], %rd2;", 0xf);
    double v;
    std::memcpy(&v, g, 8);
    CHECK(v == 2.0);
  }
  SECTION("f16 and bf16, rounding to nearest even") {
    g[0] = 0x3c00;  // f16 1.0
    h.SetAll(49, 0x1400);  // f16 2^-10: 1 + 2^-10 is exact
    h.Run("atom.global.add.noftz.f16 %rs2, [%rd1], %rs1;", 1);
    CHECK((g[0] & 0xffff) == 0x3c01);
    h.SetAll(49, 0x0c00);  // 2^-12: ties/below half an ulp -> stays
    h.Run("atom.global.add.noftz.f16 %rs2, [%rd1], %rs1;", 1);
    CHECK((g[0] & 0xffff) == 0x3c01);
    CHECK(h.R(50, 0) == 0x3c01);
    g[1] = 0x3f80;  // bf16 1.0
    h.SetAll(18, Addr(g + 1));
    h.SetAll(49, 0x3f80);
    h.Run("atom.global.add.noftz.bf16 %rs2, [%rd2], %rs1;", 1);
    CHECK((g[1] & 0xffff) == 0x4000);
    g[2] = 0x3c003c00;  // f16x2 {1, 1}
    h.SetAll(18, Addr(g + 2));
    h.SetAll(1, 0x40003c00);  // {1, 2}
    h.Run("atom.global.add.noftz.f16x2 %r2, [%rd2], %r1;", 1);
    CHECK(g[2] == 0x42004000u);  // {2, 3}
  }
}

TEST_CASE("vector atomics: each element its own atomic, one record per element", "[memory][atom]") {
  WarpHarness h;
  auto* g = h.Global<float>(256);  // bytes;
  h.SetAll(17, Addr(g));
  for (uint32_t k = 0; k < 4; ++k) h.SetAll(33 + k, std::bit_cast<uint32_t>(0.5f * static_cast<float>(k + 1)));
  h.Trace(true);
  // atomicAdd(float4*, float4) from a full warp to one address.
  h.Run("atom.global.add.v4.f32 {%f5, %f6, %f7, %f8}, [%rd1], {%f1, %f2, %f3, %f4};", kFullMask,
        Aux(Op::kAtomic, Scope::kGpu, 6));
  for (uint32_t k = 0; k < 4; ++k) {
    CHECK(g[k] == 32 * 0.5f * static_cast<float>(k + 1));
    CHECK(std::bit_cast<float>(static_cast<uint32_t>(h.R(37 + k, 0))) == 0.0f);  // lane 0 first
    CHECK(std::bit_cast<float>(static_cast<uint32_t>(h.R(37 + k, 31))) == 31 * 0.5f * static_cast<float>(k + 1));
  }
  REQUIRE(h.Records().size() == 4);
  for (uint32_t k = 0; k < 4; ++k) {
    CHECK(protocol::OpOf(h.Records()[k].header) == Op::kAtomic);
    CHECK(h.Records()[k].header.access_size == 4);
    CHECK(h.Records()[k].addr[5] == Addr(g) + 4 * k);
  }
  // red with the b operand read by every element; v2.f32 at an 8-byte boundary.
  h.SetAll(18, Addr(g + 8));
  h.Run("red.global.add.v2.f32 [%rd2], {%f1, %f2};", 0x3);
  CHECK(g[8] == 1.0f);
  CHECK(g[9] == 2.0f);
  // f16 and bf16 min/max per element, the chosen operand's bits unchanged.
  auto* hw = reinterpret_cast<uint16_t*>(g + 16);
  const uint16_t init[8] = {0x3c00, 0xbc00, 0x0000, 0x7e00, 0x4000, 0x8000, 0x3800, 0x4400};  // 1 -1 +0 NaN 2 -0 .5 4
  std::memcpy(hw, init, sizeof init);
  const uint16_t b[8] = {0x4000, 0x3c00, 0x8000, 0x3c00, 0x3c00, 0x0000, 0x7e00, 0x4200};  // 2 1 -0 1 1 +0 NaN 3
  for (uint32_t k = 0; k < 8; ++k) h.SetAll(49 + k, b[k]);
  h.SetAll(19, Addr(hw));
  h.Run("atom.global.max.noftz.v8.f16 {%r9, %r10, %r11, %r12, %r13, %r14, %r15, %r16}, [%rd3], "
        "{%rs1, %rs2, %rs3, %rs4, %rs5, %rs6, %rs7, %rs8};",
        1);
  const uint16_t want_max[8] = {0x4000, 0x3c00, 0x0000, 0x3c00, 0x4000, 0x0000, 0x3800, 0x4400};
  for (uint32_t k = 0; k < 8; ++k) {
    CHECK(hw[k] == want_max[k]);
    CHECK(h.R(9 + k, 0) == init[k]);
  }
  std::memcpy(hw, init, sizeof init);
  h.Run("red.global.min.noftz.v4.f16x2 [%rd3], {%r1, %r2, %r3, %r4};", 1);  // %r1..4 are zero: +0 pairs
  const uint16_t want_min[8] = {0x0000, 0xbc00, 0x0000, 0x0000, 0x0000, 0x8000, 0x0000, 0x0000};
  for (uint32_t k = 0; k < 8; ++k) CHECK(hw[k] == want_min[k]);
  // bf16 add in a .v2 vector: 1 + 1 = 2 in each element.
  hw[0] = hw[1] = 0x3f80;
  h.SetAll(49, 0x3f80);
  h.SetAll(50, 0x3f80);
  h.Run("red.global.add.noftz.v2.bf16 [%rd3], {%rs1, %rs2};", 1);
  CHECK(hw[0] == 0x4000);
  CHECK(hw[1] == 0x4000);
  // A vector is aligned to its whole size.
  h.SetAll(18, Addr(g + 2));
  h.Run("red.global.add.v4.f32 [%rd2], {%f1, %f2, %f3, %f4};", 1);
  CHECK(h.ctx.fault.kind == FaultKind::kMisalignedAddress);
}

TEST_CASE("vector atomics that PTX does not have are refused", "[memory][select]") {
  WarpHarness h;
  CHECK(absl::IsUnimplemented(h.Build("atom.global.add.v2.u32 {%r1, %r2}, [%rd2], {%r3, %r4};").status()));
  CHECK(absl::IsUnimplemented(h.Build("atom.global.max.v2.f32 {%f1, %f2}, [%rd2], {%f3, %f4};").status()));
  CHECK(absl::IsUnimplemented(h.Build("atom.global.add.v8.f32 {%f1, %f2, %f3, %f4, %f5, %f6, %f7, %f8}, [%rd2], "
                                      "{%f1, %f2, %f3, %f4, %f5, %f6, %f7, %f8};")
                                  .status()));
  CHECK(absl::IsUnimplemented(h.Build("atom.shared.add.v2.f32 {%f1, %f2}, [%r2], {%f3, %f4};").status()));
  CHECK(absl::IsUnimplemented(h.Build("atom.global.add.v4.f32 {%f1, %f2}, [%rd2], {%f3, %f4, %f5, %f6};").status()));
  CHECK(h.Build("red.global.add.noftz.v4.bf16x2 [%rd2], {%r1, %r2, %r3, %r4};").ok());
}

TEST_CASE("atomics on shared and generic addresses, and red", "[memory][atom]") {
  WarpHarness h;
  h.Trace(true);
  h.SetAll(1, 8);
  h.Run("red.shared.add.u32 [%r1], 2;", kFullMask, Aux(Op::kAtomic, Scope::kGpu, 6));
  uint32_t v;
  std::memcpy(&v, h.shared + 8, 4);
  CHECK(v == 64);
  REQUIRE(h.Records().size() == 1);
  CHECK(protocol::SpaceOf(h.Records()[0].header) == protocol::Space::kShared);
  CHECK(h.Records()[0].addr[0] == protocol::SharedAddress(3, 8));
  h.SetAll(17, Addr(h.shared) + 8);
  h.Run("atom.add.u32 %r2, [%rd1], 1;", 1, Aux(Op::kAtomic, Scope::kGpu, 6));
  std::memcpy(&v, h.shared + 8, 4);
  CHECK(v == 65);
  CHECK(h.R(2, 0) == 64);
  // misaligned atomics fault
  h.SetAll(1, 6);
  h.Run("atom.shared.exch.b32 %r2, [%r1], 1;", 1);
  CHECK(h.ctx.fault.kind == FaultKind::kMisalignedAddress);
}

TEST_CASE("atomics are real host atomics across threads", "[memory][atom]") {
  // Four host threads, each a warp adding 1 from every lane 1000 times.
  WarpHarness main;
  auto* counter = main.Global<uint64_t>(8);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      WarpHarness h;
      h.ctx.memory = &main.memory;
      h.SetAll(17, Addr(counter));
      Inst& inst = h.Run("red.global.add.u64 [%rd1], 1;");
      for (int i = 1; i < 1000; ++i) inst.fn(inst, h.ctx, kFullMask);
    });
  }
  for (auto& t : threads) t.join();
  CHECK(*counter == 4u * 1000 * 32);
}

TEST_CASE("selection rejects forms that do not exist", "[memory][select]") {
  WarpHarness h;
  CHECK(absl::IsUnimplemented(h.Build("atom.local.add.u32 %r1, [%r2], 1;").status()));
  CHECK(absl::IsUnimplemented(h.Build("atom.global.inc.s32 %r1, [%rd2], 1;").status()));
  CHECK(absl::IsUnimplemented(h.Build("atom.global.and.f32 %f1, [%rd2], %f2;").status()));
  CHECK(absl::IsUnimplemented(h.Build("ld.global.v4.u32 {%r1, %r2}, [%rd2];").status()));
  auto ok = h.Build("prefetch.global.L2 [%rd1];");
  CHECK(ok.ok());
}

// ---------------------------------------------------------------- cvta, isspacep
TEST_CASE("cvta and isspacep", "[memory][address]") {
  WarpHarness h;
  h.SetAll(1, 16);
  h.Run("cvta.shared.u64 %rd1, %r1;");
  CHECK(h.R(17, 5) == Addr(h.shared) + 16);
  h.Run("cvta.to.shared.u64 %rd2, %rd1;");
  CHECK(h.R(18, 5) == 16);
  h.Run("cvta.local.u64 %rd3, %r1;");
  CHECK(h.R(19, 5) == Addr(h.local + 5 * WarpHarness::kLocalStride) + 16);
  h.Run("cvta.to.local.u32 %r4, %rd3;");
  CHECK(h.R(4, 5) == 16);
  h.Run("cvta.param.u64 %rd4, 8;");
  CHECK(h.R(20, 0) == Addr(h.param) + 8);
  auto* g = h.Global<uint32_t>(16);
  h.SetAll(21, Addr(g));
  h.Run("cvta.global.u64 %rd6, %rd5;");
  CHECK(h.R(22, 0) == Addr(g));
  // generic shared store through the converted pointer
  h.SetAll(2, 77);
  h.Run("st.u32 [%rd1], %r2;", 1);
  uint32_t v;
  std::memcpy(&v, h.shared + 16, 4);
  CHECK(v == 77);

  h.Run("isspacep.shared %p1, %rd1;");
  h.Run("isspacep.global %p2, %rd1;");
  h.Run("isspacep.global %p3, %rd5;");
  h.Run("isspacep.local %p4, %rd3;");
  h.Run("isspacep.param %p5, %rd4;");
  h.preds[6] = 0x80000000u;
  h.Run("isspacep.local %p6, %rd1;", 0xff);
  CHECK(h.preds[1] == kFullMask);
  CHECK(h.preds[2] == 0);
  CHECK(h.preds[3] == kFullMask);
  CHECK(h.preds[4] == kFullMask);
  CHECK(h.preds[5] == kFullMask);
  CHECK(h.preds[6] == 0x80000000u);  // lanes outside exec keep their bit
}

}  // namespace
}  // namespace barracuda::emu::testing
