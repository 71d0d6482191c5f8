// Video instructions (ops/video_ops.cpp) against a reference model written
// from the PTX ISA pseudo-code, over random operands and every type,
// selector, mask and modifier the emulator implements; then the same forms
// through the decoder in a kernel, and the forms it refuses.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "ptx_emulator/tests/integer_harness.h"
#include "ptx_emulator/tests/kernel_runner.h"

namespace barracuda::emu::testing {
namespace {

using i128 = __int128;

// ------------------------------------------------------------------ reference

// partSelectSignExtend: a byte/half-word (".b2", ".h1") or the word (""), sign-
// or zero-extended.
i128 RefPart(uint32_t v, const std::string& sel, bool sgn) {
  if (sel.empty()) return sgn ? i128{static_cast<int32_t>(v)} : i128{v};
  const int idx = sel[2] - '0';
  if (sel[1] == 'b') {
    const uint8_t x = static_cast<uint8_t>(v >> (8 * idx));
    return sgn ? i128{static_cast<int8_t>(x)} : i128{x};
  }
  const uint16_t x = static_cast<uint16_t>(v >> (16 * idx));
  return sgn ? i128{static_cast<int16_t>(x)} : i128{x};
}

i128 RefClamp(i128 v, i128 lo, i128 hi) { return v < lo ? lo : v > hi ? hi : v; }
i128 RefSat(i128 v, int bits, bool sgn) {
  if (sgn) return RefClamp(v, -(i128{1} << (bits - 1)), (i128{1} << (bits - 1)) - 1);
  return RefClamp(v, 0, (i128{1} << bits) - 1);
}

bool RefCompare(const std::string& cmp, i128 a, i128 b) {
  if (cmp == "eq") return a == b;
  if (cmp == "ne") return a != b;
  if (cmp == "lt") return a < b;
  if (cmp == "le") return a <= b;
  if (cmp == "gt") return a > b;
  return a >= b;
}

// Primary operation of the scalar and SIMD forms ("set.lt" for the compares).
i128 RefPrimary(const std::string& op, i128 a, i128 b, const std::string& mode) {
  if (op == "add") return a + b;
  if (op == "sub") return a - b;
  if (op == "absdiff") return a > b ? a - b : b - a;
  if (op == "min") return std::min(a, b);
  if (op == "max") return std::max(a, b);
  if (op == "avrg") return (a + b) >= 0 ? (a + b + 1) / 2 : -((-(a + b) + 1) / 2);  // floor((a+b)/2) below 0
  if (op == "shl" || op == "shr") {
    i128 n = b;
    if (mode == "clamp" && n > 32) n = 32;
    if (mode == "wrap") n = n & 0x1f;
    if (op == "shl") return a * (i128{1} << n);
    // Arithmetic shift = floor division by 2^n.
    const i128 p = i128{1} << n;
    return a >= 0 ? a / p : -((-a + p - 1) / p);
  }
  return RefCompare(op.substr(4), a, b) ? 1 : 0;
}

struct ScalarCase {
  std::string op;     // add sub absdiff min max shl shr set.<cmp>
  bool dsgn = false, asgn = false, bsgn = false;
  std::string asel, bsel, dsel;  // "", ".b0".., ".h0", ".h1"
  bool sat = false;
  std::string op2;    // "", "add", "min", "max"
  std::string mode;   // shifts: "clamp" / "wrap"

  std::string Text() const {
    const bool set = op.rfind("set", 0) == 0;
    std::string s = "v" + (set ? std::string("set") : op);
    auto ty = [](bool sg) { return sg ? ".s32" : ".u32"; };
    if (!set) s += ty(dsgn);
    s += ty(asgn);
    s += op == "shl" || op == "shr" ? ".u32" : ty(bsgn);
    if (set) s += "." + op.substr(4);
    if (sat) s += ".sat";
    if (!mode.empty()) s += "." + mode;
    if (!op2.empty()) s += "." + op2;
    s += " %r1" + dsel + ", %r2" + asel + ", %r3" + bsel;
    if (!op2.empty() || !dsel.empty()) s += ", %r4";
    return s;
  }
  uint32_t Ref(uint32_t a, uint32_t b, uint32_t c) const {
    const bool shift = op == "shl" || op == "shr";
    const bool set = op.rfind("set", 0) == 0;
    const i128 ta = RefPart(a, asel, asgn);
    const i128 tb = RefPart(b, bsel, shift ? false : bsgn);
    i128 t = RefPrimary(op, ta, tb, mode);
    const bool ds = set ? false : dsgn;
    if (sat) t = RefSat(t, dsel.empty() ? 32 : dsel[1] == 'b' ? 8 : 16, ds);
    if (!op2.empty()) {
      const i128 cv = ds ? i128{static_cast<int32_t>(c)} : i128{c};
      t = op2 == "add" ? t + cv : op2 == "min" ? std::min(t, cv) : std::max(t, cv);
      return static_cast<uint32_t>(t);
    }
    if (dsel.empty()) return static_cast<uint32_t>(t);
    const int idx = dsel[2] - '0';
    const int w = dsel[1] == 'b' ? 8 : 16;
    const uint32_t field = (w == 8 ? 0xffu : 0xffffu) << (idx * w);
    return ((static_cast<uint32_t>(t) << (idx * w)) & field) | (c & ~field);
  }
};

struct MadCase {
  bool dsgn = false, asgn = false, bsgn = false;
  std::string asel, bsel;
  bool sat = false, po = false, nega = false, negb = false, negc = false;
  int scale = 0;
  std::string Text() const {
    auto ty = [](bool sg) { return sg ? ".s32" : ".u32"; };
    std::string s = std::string("vmad") + ty(dsgn) + ty(asgn) + ty(bsgn);
    if (po) s += ".po";
    if (sat) s += ".sat";
    if (scale) s += ".shr" + std::to_string(scale);
    s += " %r1, " + std::string(nega ? "-" : "") + "%r2" + asel + ", " + (negb ? "-" : "") + "%r3" + bsel + ", " +
         (negc ? "-" : "") + "%r4";
    return s;
  }
  // (+-(a*b)) + (+-c) (+1 with .po), exactly; then the scale, saturation and
  // truncation. The ISA's ~x + 1 is -x.
  uint32_t Ref(uint32_t a, uint32_t b, uint32_t c) const {
    const bool neg_prod = nega != negb;
    const bool signed_final = asgn || bsgn || neg_prod || negc;
    const i128 prod = RefPart(a, asel, asgn) * RefPart(b, bsel, bsgn);
    const i128 cv = signed_final ? i128{static_cast<int32_t>(c)} : i128{c};
    i128 r = (neg_prod ? -prod : prod) + (negc ? -cv : cv) + (po ? 1 : 0);
    r = r >> scale;  // arithmetic; only the low 64 bits are kept
    uint64_t low = static_cast<uint64_t>(r);
    if (sat) {
      if (signed_final) low = static_cast<uint64_t>(std::clamp<int64_t>(static_cast<int64_t>(low), INT32_MIN, INT32_MAX));
      else low = std::min<uint64_t>(low, UINT32_MAX);
    }
    return static_cast<uint32_t>(low);
  }
};

struct SimdCase {
  std::string op;  // add sub avrg absdiff min max set.<cmp>
  int n = 4;
  bool dsgn = false, asgn = false, bsgn = false;
  std::string asel, bsel, mask;  // "" = the defaults
  bool sat = false, add = false;
  std::string Text() const {
    const bool set = op.rfind("set", 0) == 0;
    std::string s = "v" + (set ? std::string("set") : op) + std::to_string(n);
    auto ty = [](bool sg) { return sg ? ".s32" : ".u32"; };
    if (!set) s += ty(dsgn);
    s += ty(asgn);
    s += ty(bsgn);
    if (set) s += "." + op.substr(4);
    if (sat) s += ".sat";
    if (add) s += ".add";
    return s + " %r1" + mask + ", %r2" + asel + ", %r3" + bsel + ", %r4";
  }
  uint32_t Ref(uint32_t a, uint32_t b, uint32_t c) const {
    const int w = 32 / n;
    const uint64_t pool = uint64_t{a} | uint64_t{b} << 32;
    auto elem = [&](int k, bool sg) -> i128 {
      const uint32_t x = static_cast<uint32_t>(pool >> (k * w)) & ((1u << w) - 1);
      if (!sg) return x;
      return x >= (1u << (w - 1)) ? i128{x} - (i128{1} << w) : i128{x};
    };
    const std::string as = asel.empty() ? (n == 2 ? ".h10" : ".b3210") : asel;
    const std::string bs = bsel.empty() ? (n == 2 ? ".h32" : ".b7654") : bsel;
    const std::string ms = mask.empty() ? (n == 2 ? ".h10" : ".b3210") : mask;
    const bool set = op.rfind("set", 0) == 0;
    uint32_t d = add ? c : 0;
    for (int i = 0; i < n; ++i) {
      // Selector digits are written from the highest element down.
      const i128 va = elem(as[as.size() - 1 - i] - '0', asgn);
      const i128 vb = elem(bs[bs.size() - 1 - i] - '0', bsgn);
      i128 t = RefPrimary(op, va, vb, "");
      if (sat) t = RefSat(t, w, set ? false : dsgn);
      const bool on = ms.find(static_cast<char>('0' + i), 2) != std::string::npos;
      const uint32_t field = ((1u << w) - 1) << (i * w);
      if (add) {
        if (on) d += static_cast<uint32_t>(t);
      } else {
        d |= on ? (static_cast<uint32_t>(t) << (i * w)) & field : c & field;
      }
    }
    return d;
  }
};

// ------------------------------------------------------------------ driving

// Operand words biased to the edges of every byte/half-word lane.
uint32_t Word(std::mt19937_64& rng) {
  static constexpr uint8_t kBytes[] = {0x00, 0x01, 0x7f, 0x80, 0xff, 0xfe};
  uint32_t w = 0;
  for (int i = 0; i < 4; ++i) {
    const uint32_t pick = rng() % 8;
    const uint8_t byte = pick < 6 ? kBytes[pick] : static_cast<uint8_t>(rng());
    w |= uint32_t{byte} << (8 * i);
  }
  if (rng() % 4 == 0) w = static_cast<uint32_t>(rng() % 48);  // small (shift amounts)
  return w;
}

template <class Case>
void Check(const Case& c, std::mt19937_64& rng) {
  const std::string text = c.Text();
  INFO(text);
  OneInst inst(text);
  if (!inst.ok()) FAIL(inst.status().message());
  uint32_t a[kLanes], b[kLanes], cc[kLanes];
  for (uint32_t l = 0; l < kLanes; ++l) {
    a[l] = Word(rng), b[l] = Word(rng), cc[l] = Word(rng);
    // Upper register bits are ignored (32-bit operands).
    inst.Reg("%r2", l) = a[l] | uint64_t{0xdead} << 32;
    inst.Reg("%r3", l) = b[l];
    if (inst.HasReg("%r4")) inst.Reg("%r4", l) = cc[l];
    inst.Reg("%r1", l) = 0x5555555555555555ull;
  }
  inst.Run(0x7fffffffu);  // lane 31 inactive: left alone
  for (uint32_t l = 0; l < kLanes - 1; ++l) {
    INFO("lane " << l << " a=" << std::hex << a[l] << " b=" << b[l] << " c=" << cc[l]);
    REQUIRE(inst.Reg("%r1", l) == c.Ref(a[l], b[l], cc[l]));
  }
  REQUIRE(inst.Reg("%r1", kLanes - 1) == 0x5555555555555555ull);
}

const std::vector<std::string> kScalarSel = {"", ".b0", ".b1", ".b2", ".b3", ".h0", ".h1"};
const std::vector<std::string> kCmps = {"eq", "ne", "lt", "le", "gt", "ge"};
std::string Pick(const std::vector<std::string>& v, std::mt19937_64& rng) { return v[rng() % v.size()]; }

// The secondary-operation / merge variants of a scalar form.
std::vector<std::pair<std::string, std::string>> ScalarModes() {
  std::vector<std::pair<std::string, std::string>> m = {{"", ""}, {"add", ""}, {"min", ""}, {"max", ""}};
  for (size_t i = 1; i < kScalarSel.size(); ++i) m.push_back({"", kScalarSel[i]});
  return m;
}

TEST_CASE("video scalar vadd vsub vabsdiff vmin vmax against the ISA pseudo-code", "[integer][video]") {
  std::mt19937_64 rng(11);
  for (const char* op : {"add", "sub", "absdiff", "min", "max"})
    for (int types = 0; types < 8; ++types)
      for (bool sat : {false, true})
        for (const auto& [op2, dsel] : ScalarModes()) {
          ScalarCase c{op, bool(types & 4), bool(types & 2), bool(types & 1), Pick(kScalarSel, rng),
                       Pick(kScalarSel, rng), dsel, sat, op2, ""};
          Check(c, rng);
        }
}

TEST_CASE("video scalar vshl vshr clamp and wrap", "[integer][video]") {
  std::mt19937_64 rng(12);
  for (const char* op : {"shl", "shr"})
    for (int types = 0; types < 4; ++types)
      for (const char* mode : {"clamp", "wrap"})
        for (bool sat : {false, true})
          for (const auto& [op2, dsel] : ScalarModes()) {
            ScalarCase c{op, bool(types & 2), bool(types & 1), false, Pick(kScalarSel, rng), Pick(kScalarSel, rng),
                         dsel, sat, op2, mode};
            Check(c, rng);
          }
}

TEST_CASE("video scalar vset with compare and secondary operation", "[integer][video]") {
  std::mt19937_64 rng(13);
  for (const std::string& cmp : kCmps)
    for (int types = 0; types < 4; ++types)
      for (const auto& [op2, dsel] : ScalarModes()) {
        ScalarCase c{"set." + cmp, false, bool(types & 2), bool(types & 1), Pick(kScalarSel, rng),
                     Pick(kScalarSel, rng), dsel, false, op2, ""};
        Check(c, rng);
      }
}

TEST_CASE("video vmad with negation po scale and sat", "[integer][video]") {
  std::mt19937_64 rng(14);
  // {nega, negb, negc, po}: every combination the ISA allows.
  const int kNeg[][4] = {{0, 0, 0, 0}, {1, 0, 0, 0}, {0, 1, 0, 0}, {1, 1, 0, 0}, {0, 0, 1, 0}, {1, 1, 1, 0}, {0, 0, 0, 1}};
  for (int types = 0; types < 8; ++types)
    for (bool sat : {false, true})
      for (int scale : {0, 7, 15})
        for (const auto& n : kNeg)
          for (int rep = 0; rep < 2; ++rep) {
            MadCase c{bool(types & 4), bool(types & 2), bool(types & 1), Pick(kScalarSel, rng), Pick(kScalarSel, rng),
                      sat, bool(n[3]), bool(n[0]), bool(n[1]), bool(n[2]), scale};
            Check(c, rng);
          }
}

std::string RandomSimdSel(int n, std::mt19937_64& rng) {
  if (rng() % 4 == 0) return "";
  std::string s = n == 2 ? ".h" : ".b";
  for (int i = 0; i < n; ++i) s += static_cast<char>('0' + rng() % (2 * n));
  return s;
}
std::string RandomMask(int n, std::mt19937_64& rng) {
  const uint32_t bits = rng() % (1u << n);
  if (bits == 0) return "";  // the default: every element
  std::string s = n == 2 ? ".h" : ".b";
  for (int i = n - 1; i >= 0; --i)
    if (bits >> i & 1) s += static_cast<char>('0' + i);
  return s;
}

TEST_CASE("video SIMD vop2 vop4 with selectors masks sat and add", "[integer][video]") {
  std::mt19937_64 rng(15);
  for (const char* op : {"add", "sub", "avrg", "absdiff", "min", "max"})
    for (int n : {2, 4})
      for (int types = 0; types < 8; ++types)
        for (int form = 0; form < 3; ++form)  // merge, merge .sat, .add
          for (int rep = 0; rep < 3; ++rep) {
            SimdCase c{op, n, bool(types & 4), bool(types & 2), bool(types & 1), RandomSimdSel(n, rng),
                       RandomSimdSel(n, rng), RandomMask(n, rng), form == 1, form == 2};
            Check(c, rng);
          }
}

TEST_CASE("video SIMD vset2 vset4 with compare masks and add", "[integer][video]") {
  std::mt19937_64 rng(16);
  for (const std::string& cmp : kCmps)
    for (int n : {2, 4})
      for (int types = 0; types < 4; ++types)
        for (bool add : {false, true})
          for (int rep = 0; rep < 3; ++rep) {
            SimdCase c{"set." + cmp, n, false, bool(types & 2), bool(types & 1), RandomSimdSel(n, rng),
                       RandomSimdSel(n, rng), RandomMask(n, rng), false, add};
            Check(c, rng);
          }
}

TEST_CASE("video forms the ISA does not define are refused", "[integer][video]") {
  for (const char* text : {
           "vadd2.u32.u32.u32.sat.add %r1, %r2, %r3, %r4",   // .sat with the accumulate
           "vadd4.u32.u32.u32.min %r1, %r2, %r3, %r4",       // SIMD accumulates with .add only
           "vadd.u32.u32.u32.add %r1.b0, %r2, %r3, %r4",     // merge and secondary op
           "vadd.u32.u32.u32 %r1, %r2.h10, %r3",             // SIMD selector on a scalar form
           "vadd4.u32.u32.u32 %r1.b0123, %r2, %r3, %r4",     // mask digits not descending
           "vadd2.u32.u32.u32 %r1, %r2.b3210, %r3, %r4",     // byte selector on a 2-way form
           "vshl.u32.u32.u32 %r1, %r2, %r3",                 // no .clamp/.wrap
           "vshl.u32.u32.s32.wrap %r1, %r2, %r3",            // signed shift amount
           "vset.u32.u32 %r1, %r2, %r3",                     // no compare
           "vset.u32.u32.lt.sat %r1, %r2, %r3",              // .sat
           "vmad.u32.u32.u32.po %r1, -%r2, %r3, %r4",        // negation with .po
           "vmad.u32.u32.u32 %r1, -%r2, %r3, -%r4",          // both product and c negated
           "vadd.u32.u32.u32 %r1, -%r2, %r3",                // negation outside vmad
           "vadd.u32.u32 %r1, %r2, %r3",                     // missing type
           "vmin.u32.u32.u32.rn %r1, %r2, %r3",              // unknown modifier
       }) {
    INFO(text);
    OneInst inst(text);
    CHECK_FALSE(inst.ok());
    CHECK(inst.status().code() == absl::StatusCode::kUnimplemented);
  }
}

// ------------------------------------------------------------------ kernels

TEST_CASE("video instructions through the decoder in a kernel", "[integer][video]") {
  // nvcc's forms for __vabsdiffu4 / __vsadu4 / __vsadu2, selectors, a merge
  // destination and vmad negation.
  KernelRunner r(WrapKernel("k", ".param .u64 out, .param .u64 in", R"(
    .reg .b32 %r<16>;
    .reg .b64 %rd<6>;
    ld.param.u64 %rd1, [out];
    ld.param.u64 %rd2, [in];
    mov.u32 %r1, %tid.x;
    mul.wide.u32 %rd3, %r1, 8;
    add.s64 %rd4, %rd2, %rd3;
    ld.global.u32 %r2, [%rd4];
    ld.global.u32 %r3, [%rd4+4];
    mov.u32 %r4, 0;
    vabsdiff4.u32.u32.u32 %r5, %r2, %r3, %r4;
    vabsdiff4.u32.u32.u32.add %r6, %r2, %r3, %r4;
    vabsdiff2.u32.u32.u32.add %r7, %r2, %r3, %r4;
    mov.u32 %r8, -1;
    vadd.s32.s32.s32.sat %r8.h1, %r2.b1, %r3.h0, %r8;
    vmad.s32.s32.u32 %r9, -%r2.h0, %r3.b2, %r4;
    vset4.s32.s32.lt %r10.b31, %r2, %r3, %r8;
    mul.wide.u32 %rd3, %r1, 24;
    add.s64 %rd5, %rd1, %rd3;
    st.global.v2.u32 [%rd5], {%r5, %r6};
    st.global.v2.u32 [%rd5+8], {%r7, %r8};
    st.global.v2.u32 [%rd5+16], {%r9, %r10};
  )"));
  std::mt19937_64 rng(21);
  std::vector<uint32_t> in(64);
  for (auto& v : in) v = Word(rng);
  auto out = r.Alloc<uint32_t>(32 * 6);
  auto inb = r.Alloc<uint32_t>(64, in);
  REQUIRE(r.Launch("k", {1, 1, 1}, {32, 1, 1}, out.device, inb.device).ok());
  const auto got = r.Read(out);
  for (uint32_t t = 0; t < 32; ++t) {
    const uint32_t a = in[2 * t], b = in[2 * t + 1];
    INFO("thread " << t << std::hex << " a=" << a << " b=" << b);
    uint32_t absd = 0, sad4 = 0, sad2 = 0;
    for (int i = 0; i < 4; ++i) {
      const int x = (a >> (8 * i)) & 0xff, y = (b >> (8 * i)) & 0xff;
      absd |= static_cast<uint32_t>(std::abs(x - y)) << (8 * i);
      sad4 += static_cast<uint32_t>(std::abs(x - y));
    }
    for (int i = 0; i < 2; ++i) sad2 += static_cast<uint32_t>(std::abs(int((a >> (16 * i)) & 0xffff) - int((b >> (16 * i)) & 0xffff)));
    CHECK(got[6 * t + 0] == absd);
    CHECK(got[6 * t + 1] == sad4);
    CHECK(got[6 * t + 2] == sad2);
    const ScalarCase vadd{"add", true, true, true, ".b1", ".h0", ".h1", true, "", ""};
    CHECK(got[6 * t + 3] == vadd.Ref(a, b, 0xffffffffu));
    const MadCase vmad{true, true, false, ".h0", ".b2", false, false, true, false, false, 0};
    CHECK(got[6 * t + 4] == vmad.Ref(a, b, 0));
    const SimdCase vset{"set.lt", 4, false, true, true, "", "", ".b31", false, false};
    CHECK(got[6 * t + 5] == vset.Ref(a, b, vadd.Ref(a, b, 0xffffffffu)));
  }
}

TEST_CASE("an unimplemented video form fails to load with the instruction named", "[integer][video]") {
  try {
    KernelRunner r(WrapKernel("k", "", R"(
      .reg .b32 %r<4>;
      vadd2.u32.u32.u32.sat.add %r1, %r2, %r3, %r1;
      ret;
    )"));
    FAIL("loaded");
  } catch (const std::runtime_error& e) {
    const std::string what = e.what();
    INFO(what);
    CHECK(what.find("vadd2.u32.u32.u32.sat.add") != std::string::npos);
    CHECK(what.find(".sat with the .add accumulate") != std::string::npos);
  }
}

}  // namespace
}  // namespace barracuda::emu::testing
