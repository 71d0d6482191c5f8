// wgmma (sm_90a warpgroup MMA) end to end: hand-written kernels of one
// warpgroup copy a shared-memory image built here (the PTX ISA's canonical
// layouts, "Shared Memory Matrix Layout", transcribed here independently of
// ops/tensor_wgmma.cpp, with garbage in the gaps), run one
// wgmma.mma_async, and every element of D (the ISA's m64nNk accumulator
// fragment) is compared with a CPU reference (fp32 fma chain in k order, the
// emulator's documented rounding; exact integers). Also: records (async-proxy
// reads, the wait's kAsyncWait) and refused forms.
#include <catch2/catch.hpp>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "ptx_emulator/core/record_sink.h"
#include "ptx_emulator/ops/fp_format.h"
#include "ptx_emulator/ops/fp_narrow.h"
#include "ptx_emulator/tests/fp8_codes.h"
#include "ptx_emulator/tests/kernel_runner.h"

namespace barracuda::emu::testing {
namespace {

enum class Ty { kF16, kBf16, kTf32, kS8, kU8, kE4m3, kE5m2 };

struct Config {
  Ty type = Ty::kF16;
  Ty btype = Ty::kF16;  // integer forms may mix .s8 / .u8
  uint32_t n = 8;
  bool a_regs = false;
  uint32_t swizzle_a = 0, swizzle_b = 0;  // bytes: 0, 32, 64, 128
  bool trans_a = false, trans_b = false;  // MN-major
  int scale_a = 1, scale_b = 1;
  bool scale_d = true;
  bool satfinite = false;
  bool d_f16 = false;  // .f16 accumulators (f16 and fp8 multiplicands)
};

uint32_t Bytes(Ty t) { return t == Ty::kF16 || t == Ty::kBf16 ? 2 : t == Ty::kTf32 ? 4 : 1; }
uint32_t K(Ty t) { return t == Ty::kTf32 ? 8 : Bytes(t) == 1 ? 32 : 16; }
bool IsInt(Ty t) { return t == Ty::kS8 || t == Ty::kU8; }
const char* Name(Ty t) {
  switch (t) {
    case Ty::kF16: return "f16";
    case Ty::kBf16: return "bf16";
    case Ty::kTf32: return "tf32";
    case Ty::kS8: return "s8";
    case Ty::kU8: return "u8";
    case Ty::kE4m3: return "e4m3";
    case Ty::kE5m2: return "e5m2";
  }
  return "?";
}

uint32_t RandomBits(Ty t, std::mt19937& rng) {
  std::uniform_real_distribution<float> f(-2.0f, 2.0f);
  switch (t) {
    case Ty::kF16: return fp::F32ToF16(f(rng));
    case Ty::kBf16: return fp::F32ToBf16(f(rng));
    case Ty::kTf32: return std::bit_cast<uint32_t>(f(rng));  // low 13 fraction bits must be ignored
    case Ty::kE4m3: return RandomFiniteE4m3(rng);
    case Ty::kE5m2: return RandomFiniteE5m2(rng);
    default: return rng() & 0xff;
  }
}
float AsFloat(Ty t, uint32_t b) {
  switch (t) {
    case Ty::kF16: return fp::F16ToF32(static_cast<uint16_t>(b));
    case Ty::kBf16: return fp::Bf16ToF32(static_cast<uint16_t>(b));
    case Ty::kE4m3: return fp::Narrow8ToF32(static_cast<uint8_t>(b), fp::Narrow8::kE4m3);
    case Ty::kE5m2: return fp::Narrow8ToF32(static_cast<uint8_t>(b), fp::Narrow8::kE5m2);
    default: return std::bit_cast<float>(b & 0xffffe000u);
  }
}
int64_t AsInt(Ty t, uint32_t b) { return t == Ty::kS8 ? static_cast<int8_t>(b) : static_cast<int64_t>(b & 0xff); }

// A shared-memory operand: `mn` x `k` elements, placed per the ISA's canonical
// layout table (T = 16 / bytes, W = swizzle bytes, strides in elements there,
// bytes here):
//   K-major none      ((8,m),(T,2k))    : ((1T,SBO),(1,LBO))
//   K-major W         ((8,m),(T,2k))    : ((W/16 T,SBO),(1,T))
//   MN-major none     ((T,1,m),(8,k))   : ((1,T,SBO),(1T,LBO))
//   MN-major W        ((T,W/16,m),(8,k)): ((1,T,LBO),(W/16 T,SBO))
// then Swizzle<B,4,3> (B = log2(W/16)) of the byte address.
struct Operand {
  uint32_t lbo = 0, sbo = 0, swizzle = 0;
  bool mn_major = false;
  uint32_t bytes = 2;

  uint32_t Offset(uint32_t mn, uint32_t kk) const {
    const uint32_t t = 16 / bytes;
    uint32_t o;
    if (!mn_major && swizzle == 0) {
      const uint32_t i0 = mn % 8, i1 = mn / 8, j0 = kk % t, j1 = kk / t;
      o = i0 * 16 + i1 * sbo + j0 * bytes + j1 * lbo;
    } else if (!mn_major) {
      o = (mn % 8) * swizzle + (mn / 8) * sbo + kk * bytes;
    } else if (swizzle == 0) {
      const uint32_t i0 = mn % t, i2 = mn / t, j0 = kk % 8, j1 = kk / 8;
      o = i0 * bytes + i2 * sbo + j0 * 16 + j1 * lbo;
    } else {
      const uint32_t g = swizzle / 16;
      const uint32_t i0 = mn % t, i1 = (mn / t) % g, i2 = mn / (t * g), j0 = kk % 8, j1 = kk / 8;
      o = i0 * bytes + i1 * 16 + i2 * lbo + j0 * swizzle + j1 * sbo;
    }
    return o;
  }
  static uint32_t Swizzle(uint32_t addr, uint32_t w) {
    if (w == 0) return addr;
    const uint32_t bits = w == 32 ? 1 : w == 64 ? 2 : 3;
    const uint32_t yyy = (addr >> 7) & ((1u << bits) - 1);
    return addr ^ (yyy << 4);
  }
  uint64_t Descriptor(uint32_t start) const {
    const uint64_t mode = swizzle == 0 ? 0 : swizzle == 128 ? 1 : swizzle == 64 ? 2 : 3;
    return ((start & 0x3ffff) >> 4) | (uint64_t{(lbo & 0x3ffff) >> 4} << 16) |
           (uint64_t{(sbo & 0x3ffff) >> 4} << 32) | (mode << 62);
  }
};

// Strides with gaps for `mn` x `k`: garbage lies between the used bytes.
Operand MakeOperand(uint32_t mn, uint32_t k, uint32_t bytes, uint32_t swizzle, bool mn_major) {
  Operand o;
  o.bytes = bytes, o.swizzle = swizzle, o.mn_major = mn_major;
  const uint32_t t = 16 / bytes;
  if (!mn_major && swizzle == 0) {
    o.lbo = 128;                          // K core matrices adjacent
    o.sbo = 128 * (k / t) + 256;          // 8-row groups with a 256-byte gap
  } else if (!mn_major) {
    o.lbo = 16;                           // unused ("assumed 1")
    o.sbo = 8 * swizzle;                  // 8-row atoms
  } else if (swizzle == 0) {
    o.sbo = 128;                          // MN core matrices adjacent
    o.lbo = 128 * (mn / t) + 512;         // 8-k groups with a gap
  } else {
    const uint32_t atoms = std::max<uint32_t>(1, mn / (swizzle / bytes));
    o.lbo = 8 * swizzle;                  // MN atoms adjacent
    o.sbo = 8 * swizzle * (atoms + 1);    // 8-k groups with a one-atom gap
  }
  return o;
}

std::string Regs(const std::string& prefix, uint32_t first, uint32_t count) {
  std::string s = "{";
  for (uint32_t i = 0; i < count; ++i) s += (i ? ", " : "") + prefix + std::to_string(first + i);
  return s + "}";
}

// The kernel: copy `image_bytes` of the image to smem (1024-aligned), fence,
// load D (d_in[tid][i]) and A registers (a_in[tid][0..3]), run the wgmma with
// descriptors desc + smem/16, commit, wait, store D.
std::string Kernel(const Config& c, uint32_t image_bytes) {
  const uint32_t per = c.n / 2;
  const bool integer = IsInt(c.type);
  const bool words = integer || c.d_f16;  // D in .b32 registers (an .f16 D: two elements each)
  const uint32_t dregs = c.d_f16 ? per / 2 : per;
  const std::string acc = words ? "%s" : "%f";
  std::string b;
  b += "  .reg .b32 %r<40>;\n  .reg .b64 %rd<20>;\n  .reg .pred %p<4>;\n";
  b += "  .reg .f32 %f<" + std::to_string(per + 1) + ">;\n  .reg .b32 %s<" + std::to_string(per + 1) + ">;\n";
  b += "  .shared .align 1024 .b8 smem[" + std::to_string(image_bytes) + "];\n";
  b += R"(  ld.param.u64 %rd1, [k_img];
  ld.param.u64 %rd2, [k_din];
  ld.param.u64 %rd3, [k_ain];
  ld.param.u64 %rd4, [k_out];
  ld.param.u64 %rd5, [k_desca];
  ld.param.u64 %rd6, [k_descb];
  ld.param.u32 %r30, [k_scaled];
  mov.u32 %r1, %tid.x;
  shl.b32 %r2, %r1, 4;
  mov.u32 %r3, smem;
COPY:
  setp.ge.u32 %p1, %r2, )" + std::to_string(image_bytes) + R"(;
  @%p1 bra DONE;
  cvt.u64.u32 %rd7, %r2;
  add.u64 %rd8, %rd1, %rd7;
  ld.global.v4.u32 {%r4, %r5, %r6, %r7}, [%rd8];
  add.u32 %r8, %r3, %r2;
  st.shared.v4.u32 [%r8], {%r4, %r5, %r6, %r7};
  add.u32 %r2, %r2, 2048;
  bra COPY;
DONE:
  fence.proxy.async.shared::cta;
  bar.sync 0;
  shr.u32 %r9, %r3, 4;
  cvt.u64.u32 %rd9, %r9;
  add.u64 %rd10, %rd5, %rd9;
  add.u64 %rd11, %rd6, %rd9;
  setp.ne.u32 %p2, %r30, 0;
  mul.wide.u32 %rd12, %r1, )" + std::to_string(per * 4) + R"(;
  add.u64 %rd13, %rd2, %rd12;
  add.u64 %rd14, %rd4, %rd12;
  mul.wide.u32 %rd15, %r1, 16;
  add.u64 %rd16, %rd3, %rd15;
  ld.global.v4.u32 {%r20, %r21, %r22, %r23}, [%rd16];
)";
  for (uint32_t i = 0; i < dregs; ++i)
    b += "  ld.global." + std::string(words ? "u32 %s" : "f32 %f") + std::to_string(i) + ", [%rd13+" +
         std::to_string(4 * i) + "];\n";
  b += "  wgmma.fence.sync.aligned;\n";
  const std::string t = Name(c.type), tb = Name(c.btype);
  b += "  wgmma.mma_async.sync.aligned.m64n" + std::to_string(c.n) + "k" + std::to_string(K(c.type)) +
       (c.satfinite ? ".satfinite" : "") + (integer ? ".s32." : c.d_f16 ? ".f16." : ".f32.") + t + "." + tb +
       " " + Regs(acc, 0, dregs) + ", " + (c.a_regs ? Regs("%r", 20, 4) : "%rd10") + ", %rd11, %p2";
  if (!integer) b += ", " + std::to_string(c.scale_a) + ", " + std::to_string(c.scale_b);
  if (c.type == Ty::kF16 || c.type == Ty::kBf16) {
    if (!c.a_regs) b += std::string(", ") + (c.trans_a ? "1" : "0");
    b += std::string(", ") + (c.trans_b ? "1" : "0");
  }
  b += ";\n  wgmma.commit_group.sync.aligned;\n  wgmma.wait_group.sync.aligned 0;\n";
  for (uint32_t i = 0; i < dregs; ++i)
    b += "  st.global." + std::string(words ? "u32" : "f32") + " [%rd14+" + std::to_string(4 * i) + "], " +
         acc + std::to_string(i) + ";\n";
  b += "  ret;\n";
  std::string ptx = WrapKernel("k",
                               ".param .u64 k_img, .param .u64 k_din, .param .u64 k_ain, .param .u64 k_out, "
                               ".param .u64 k_desca, .param .u64 k_descb, .param .u32 k_scaled",
                               b, "sm_90a");
  return ptx.replace(0, 12, ".version 8.4");  // mixed .s8/.u8 wgmma needs PTX 8.4 (ptxas)
}

// D fragment (ISA, wgmma m64nNk D): thread 32w + l, element i -> row 16w + g +
// 8 ((i/2) % 2), column 8 (i/4) + 2t + i % 2 (g = l / 4, t = l % 4).
void DPlace(uint32_t tid, uint32_t i, uint32_t& row, uint32_t& col) {
  const uint32_t w = tid / 32, l = tid % 32, g = l / 4, t = l % 4;
  row = 16 * w + g + 8 * ((i / 2) % 2);
  col = 8 * (i / 4) + 2 * t + i % 2;
}
// A register fragment (ISA, wgmma m64nNk16 / k8 / k32 A): element e of thread tid.
void APlace(Ty ty, uint32_t tid, uint32_t e, uint32_t& row, uint32_t& col) {
  const uint32_t w = tid / 32, l = tid % 32, g = l / 4, t = l % 4;
  if (ty == Ty::kTf32) {  // a0..a3
    row = g + 8 * (e % 2), col = t + 4 * (e / 2);
  } else if (Bytes(ty) == 2) {  // a0..a7
    row = g + 8 * ((e / 2) % 2), col = 2 * t + e % 2 + 8 * (e / 4);
  } else {  // a0..a15
    row = g + 8 * ((e / 4) % 2), col = 4 * t + e % 4 + 16 * (e / 8);
  }
  row += 16 * w;
}

struct Run {
  std::vector<uint32_t> got, want;
  std::vector<protocol::Record> records;
};

Run RunWgmma(const Config& c, uint32_t seed, bool trace = false) {
  std::mt19937 rng(seed);
  const uint32_t m = 64, n = c.n, k = K(c.type), eb = Bytes(c.type);
  std::vector<uint32_t> a(m * k), b(k * n);
  for (auto& v : a) v = RandomBits(c.type, rng);
  for (auto& v : b) v = RandomBits(c.btype, rng);
  const Operand oa = MakeOperand(m, k, eb, c.swizzle_a, c.trans_a);
  const Operand ob = MakeOperand(n, k, eb, c.swizzle_b, c.trans_b);
  uint32_t a_end = 0, b_end = 0;
  for (uint32_t r = 0; r < m; ++r)
    for (uint32_t kk = 0; kk < k; ++kk) a_end = std::max(a_end, oa.Offset(r, kk) + 16);
  const uint32_t b_base = (a_end + 1023) / 1024 * 1024;
  for (uint32_t col = 0; col < n; ++col)
    for (uint32_t kk = 0; kk < k; ++kk) b_end = std::max(b_end, b_base + ob.Offset(col, kk) + 16);
  const uint32_t size = (b_end + 1023) / 1024 * 1024;
  std::vector<uint8_t> image(size);
  for (auto& byte : image) byte = static_cast<uint8_t>(0x7f);  // garbage: large values / NaN patterns
  auto put = [&](uint32_t addr, uint32_t v) { std::memcpy(&image[Operand::Swizzle(addr, c.swizzle_a)], &v, eb); };
  for (uint32_t r = 0; r < m; ++r)
    for (uint32_t kk = 0; kk < k; ++kk) put(oa.Offset(r, kk), a[r * k + kk]);
  for (uint32_t col = 0; col < n; ++col)
    for (uint32_t kk = 0; kk < k; ++kk) {
      const uint32_t addr = Operand::Swizzle(b_base + ob.Offset(col, kk), c.swizzle_b);
      std::memcpy(&image[addr], &b[kk * n + col], eb);
    }
  // A registers, D in.
  const uint32_t per = n / 2;
  std::vector<uint32_t> a_in(128 * 4, 0), d_in(128 * per);
  const uint32_t a_elems = 16 / eb;
  for (uint32_t tid = 0; tid < 128; ++tid)
    for (uint32_t e = 0; e < a_elems; ++e) {
      uint32_t row, col;
      APlace(c.type, tid, e, row, col);
      const uint32_t bits = a[row * k + col];
      if (eb == 4) a_in[tid * 4 + e] = bits;
      else a_in[tid * 4 + e * eb / 4] |= bits << (8 * eb * (e % (4 / eb)));
    }
  std::vector<uint32_t> c_mat(m * n);
  for (auto& v : c_mat)
    v = IsInt(c.type) ? static_cast<uint32_t>(static_cast<int32_t>(rng() % 2001) - 1000)
        : c.d_f16     ? uint32_t{fp::F32ToF16(std::uniform_real_distribution<float>(-4, 4)(rng))}
                      : std::bit_cast<uint32_t>(std::uniform_real_distribution<float>(-4, 4)(rng));
  if (c.satfinite) c_mat[0] = 0x7ffffff0u, c_mat[1] = 0x80000010u;
  Run run;
  run.want.resize(128 * per);
  for (uint32_t tid = 0; tid < 128; ++tid)
    for (uint32_t i = 0; i < per; ++i) {
      uint32_t row, col;
      DPlace(tid, i, row, col);
      if (c.d_f16) {
        d_in[tid * per + i / 2] |= c_mat[row * n + col] << (16 * (i % 2));
      } else {
        d_in[tid * per + i] = c_mat[row * n + col];
      }
      uint32_t want;
      if (IsInt(c.type)) {
        int64_t acc = c.scale_d ? static_cast<int32_t>(c_mat[row * n + col]) : 0;
        for (uint32_t kk = 0; kk < k; ++kk) acc += AsInt(c.type, a[row * k + kk]) * AsInt(c.btype, b[kk * n + col]);
        if (c.satfinite) acc = std::clamp<int64_t>(acc, INT32_MIN, INT32_MAX);
        want = static_cast<uint32_t>(acc);
      } else {
        const uint32_t held = c_mat[row * n + col];
        float acc = !c.scale_d ? 0.0f : c.d_f16 ? fp::F16ToF32(static_cast<uint16_t>(held)) : std::bit_cast<float>(held);
        for (uint32_t kk = 0; kk < k; ++kk)
          acc = std::fmaf(c.scale_a * AsFloat(c.type, a[row * k + kk]), c.scale_b * AsFloat(c.btype, b[kk * n + col]),
                          acc);
        want = c.d_f16 ? uint32_t{fp::F32ToF16(acc)} : std::bit_cast<uint32_t>(acc);  // .f16: rounded once
      }
      run.want[tid * per + i] = want;
    }
  KernelRunner r(Kernel(c, size));
  CollectingSink sink;
  if (trace) r.device().SetSink(&sink);
  auto img = r.Alloc<uint8_t>(size, image);
  auto din = r.Alloc<uint32_t>(d_in.size(), d_in);
  auto ain = r.Alloc<uint32_t>(a_in.size(), a_in);
  auto out = r.Alloc<uint32_t>(d_in.size());
  const absl::Status st = r.Launch("k", {1, 1, 1}, {128, 1, 1}, img.device, din.device, ain.device, out.device,
                                   oa.Descriptor(0), ob.Descriptor(b_base), c.scale_d ? 1u : 0u);
  INFO(st.message());
  REQUIRE(st.ok());
  run.got = r.Read(out);
  if (c.d_f16) {  // element i of a thread: half i % 2 of its word i / 2
    std::vector<uint32_t> halves(run.got.size());
    for (uint32_t tid = 0; tid < 128; ++tid)
      for (uint32_t i = 0; i < per; ++i) halves[tid * per + i] = (run.got[tid * per + i / 2] >> (16 * (i % 2))) & 0xffff;
    run.got = std::move(halves);
  }
  if (trace) run.records = sink.Flatten(0);
  return run;
}

void Check(const Config& c, uint32_t seed) {
  INFO("type " << Name(c.type) << "." << Name(c.btype) << (c.d_f16 ? " D f16" : "") << " n " << c.n << " a_regs " << c.a_regs << " swizzle "
               << c.swizzle_a << "/" << c.swizzle_b << " trans " << c.trans_a << c.trans_b << " scale " << c.scale_a
               << c.scale_b << c.scale_d);
  const Run run = RunWgmma(c, seed);
  uint32_t bad = 0;
  for (size_t i = 0; i < run.want.size(); ++i)
    if (run.got[i] != run.want[i] && ++bad <= 4) {
      INFO("element " << i << " (thread " << i / (c.n / 2) << ")");
      CHECK(run.got[i] == run.want[i]);
    }
  CHECK(bad == 0);
}

constexpr uint32_t kSwizzles[] = {0, 32, 64, 128};

}  // namespace

TEST_CASE("wgmma f16/bf16: every N, A from shared memory and registers", "[tensor][wgmma]") {
  uint32_t seed = 1;
  for (Ty t : {Ty::kF16, Ty::kBf16})
    for (uint32_t n = 8; n <= 256; n += 8) {
      Config c;
      c.type = c.btype = t, c.n = n;
      c.a_regs = n % 16 == 8;
      c.swizzle_a = kSwizzles[(n / 8) % 4], c.swizzle_b = kSwizzles[(n / 8 + 1) % 4];
      Check(c, seed++);
    }
}

TEST_CASE("wgmma f16/bf16: every swizzle mode, K- and MN-major A and B", "[tensor][wgmma]") {
  uint32_t seed = 100;
  for (Ty t : {Ty::kF16, Ty::kBf16})
    for (uint32_t sw : kSwizzles)
      for (int trans = 0; trans < 4; ++trans)
        for (uint32_t n : {16u, 64u, 136u}) {
          Config c;
          c.type = c.btype = t, c.n = n;
          c.swizzle_a = c.swizzle_b = sw;
          c.trans_a = trans & 1, c.trans_b = trans & 2;
          Check(c, seed++);
        }
  // A in registers with an N-major B.
  Config c;
  c.n = 64, c.a_regs = true, c.swizzle_b = 128, c.trans_b = true;
  Check(c, seed++);
}

TEST_CASE("wgmma: imm-scale-a/b negate, scale-d = false ignores D", "[tensor][wgmma]") {
  for (int sa : {1, -1})
    for (int sb : {1, -1})
      for (bool sd : {true, false}) {
        Config c;
        c.n = 32, c.scale_a = sa, c.scale_b = sb, c.scale_d = sd, c.swizzle_a = 64, c.swizzle_b = 32;
        Check(c, 7);
      }
}

TEST_CASE("wgmma tf32 (k8) and s8/u8 (k32, .satfinite)", "[tensor][wgmma]") {
  uint32_t seed = 300;
  for (uint32_t sw : kSwizzles)
    for (uint32_t n : {8u, 24u, 128u, 256u}) {
      Config c;
      c.type = c.btype = Ty::kTf32, c.n = n, c.swizzle_a = sw, c.swizzle_b = kSwizzles[(sw / 32 + 1) % 4];
      c.a_regs = n == 24;
      Check(c, seed++);
    }
  for (Ty ta : {Ty::kS8, Ty::kU8})
    for (Ty tb : {Ty::kS8, Ty::kU8})
      for (uint32_t n : {8u, 24u, 64u, 256u}) {
        Config c;
        c.type = ta, c.btype = tb, c.n = n, c.swizzle_a = kSwizzles[n % 4], c.swizzle_b = kSwizzles[(n / 8) % 4];
        c.a_regs = n == 64, c.satfinite = n == 24;
        c.scale_d = n != 256;
        Check(c, seed++);
      }
}

TEST_CASE("wgmma fp8 (k32, e4m3 and e5m2 mixed) and .f16 accumulators", "[tensor][wgmma]") {
  uint32_t seed = 400;
  for (Ty ta : {Ty::kE4m3, Ty::kE5m2})
    for (Ty tb : {Ty::kE4m3, Ty::kE5m2})
      for (uint32_t n : {8u, 40u, 128u, 256u}) {
        Config c;
        c.type = ta, c.btype = tb, c.n = n;
        c.swizzle_a = kSwizzles[(n / 8) % 4], c.swizzle_b = kSwizzles[(n / 8 + 1) % 4];
        c.a_regs = n == 40;
        c.d_f16 = n == 128 || (n == 8 && ta != tb);
        c.scale_a = n == 256 ? -1 : 1;
        c.scale_d = n != 8;
        Check(c, seed++);
      }
  for (uint32_t n : {8u, 24u, 96u, 256u}) {  // .f16.f16.f16
    Config c;
    c.n = n, c.d_f16 = true, c.a_regs = n == 24, c.trans_b = n == 96, c.swizzle_a = 128, c.swizzle_b = 64;
    c.scale_b = n == 256 ? -1 : 1;
    Check(c, seed++);
  }
}

TEST_CASE("wgmma records: async-proxy reads of each 16-byte piece, kAsyncWait at the wait", "[tensor][wgmma][records]") {
  Config c;
  c.n = 16;  // K-major, no swizzle, f16: A 64 rows x 32 bytes, B 16 columns x 32 bytes
  const Run run = RunWgmma(c, 5, true);
  for (size_t i = 0; i < run.want.size(); ++i) REQUIRE(run.got[i] == run.want[i]);
  std::vector<protocol::Record> reads, waits;
  for (const auto& rec : run.records) {
    const protocol::Op op = protocol::OpOf(rec.header);
    if (op == protocol::Op::kRead && (rec.header.flags & protocol::kFlagAsyncProxy)) reads.push_back(rec);
    if (op == protocol::Op::kAsyncWait) waits.push_back(rec);
  }
  // Per warp: its 16 rows of A (32 pieces) and all of B (32 pieces), 32
  // pieces per record: 2 records per warp, 8 in all.
  REQUIRE(reads.size() == 8);
  std::vector<uint64_t> pieces;
  for (const auto& rec : reads) {
    CHECK(rec.header.flags == (protocol::kFlagAsync | protocol::kFlagAsyncProxy));
    CHECK(protocol::SpaceOf(rec.header) == protocol::Space::kShared);
    CHECK(rec.header.access_size == 16);
    CHECK(rec.header.active_mask == kFullMask);
    for (uint32_t l = 0; l < 32; ++l) {
      CHECK(rec.addr[l] % 16 == 0);
      pieces.push_back(rec.addr[l]);
    }
  }
  std::sort(pieces.begin(), pieces.end());
  const size_t all = pieces.size();
  pieces.erase(std::unique(pieces.begin(), pieces.end()), pieces.end());
  CHECK(all == 256);
  CHECK(pieces.size() == 128 + 32);  // A once, B four times (once per warp)
  // One kAsyncWait per warp: every lane observes its 2 records.
  REQUIRE(waits.size() == 4);
  for (const auto& w : waits) {
    CHECK(w.header.active_mask == kFullMask);
    for (uint32_t l = 0; l < 32; ++l) CHECK(w.addr[l] == 2);
  }
}

TEST_CASE("wgmma.wait_group N leaves the N newest groups unobserved", "[tensor][wgmma][records]") {
  KernelRunner r(WrapKernel("k", ".param .u64 k_desc", R"(
  .reg .b32 %r<4>;
  .reg .b64 %rd<4>;
  .reg .f32 %f<5>;
  .reg .pred %p<2>;
  .shared .align 1024 .b8 smem[4096];
  ld.param.u64 %rd1, [k_desc];
  mov.u32 %r1, 0;
  setp.eq.u32 %p1, %r1, 0;
  wgmma.fence.sync.aligned;
  wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%f0, %f1, %f2, %f3}, %rd1, %rd1, %p1, 1, 1, 0, 0;
  wgmma.commit_group.sync.aligned;
  wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%f0, %f1, %f2, %f3}, %rd1, %rd1, %p1, 1, 1, 0, 0;
  wgmma.commit_group.sync.aligned;
  wgmma.wait_group.sync.aligned 1;
  wgmma.wait_group.sync.aligned 1;
  wgmma.wait_group.sync.aligned 0;
  ret;
)", "sm_90a"));
  CollectingSink sink;
  r.device().SetSink(&sink);
  // K-major, no swizzle: LBO 128, SBO 256 (A: 64 rows -> 4 KB region used up to 2 KB).
  const uint64_t desc = (uint64_t{128 >> 4} << 16) | (uint64_t{256 >> 4} << 32);
  REQUIRE(r.Launch("k", {1, 1, 1}, {128, 1, 1}, desc).ok());
  std::vector<protocol::Record> waits;
  uint32_t reads = 0;
  for (const auto& rec : sink.Flatten(0)) {
    if (protocol::OpOf(rec.header) == protocol::Op::kAsyncWait) waits.push_back(rec);
    if (protocol::OpOf(rec.header) == protocol::Op::kRead && (rec.header.flags & protocol::kFlagAsyncProxy)) ++reads;
  }
  // Per warp and wgmma: A 32 pieces + B 16 pieces = 48 -> 2 records (lanes
  // 0-31, then lanes 0-15). Lane 0's count: 2 per wgmma; lane 20's: 1.
  CHECK(reads == 4 * 2 * 2);
  // Per warp: the first wait observes group 1, the second nothing new, the
  // third group 2.
  REQUIRE(waits.size() == 8);
  std::vector<uint64_t> lane0, lane20;
  for (const auto& w : waits) lane0.push_back(w.addr[0]), lane20.push_back(w.addr[20]);
  std::sort(lane0.begin(), lane0.end());
  std::sort(lane20.begin(), lane20.end());
  CHECK(lane0 == std::vector<uint64_t>{2, 2, 2, 2, 4, 4, 4, 4});
  CHECK(lane20 == std::vector<uint64_t>{1, 1, 1, 1, 2, 2, 2, 2});
}

TEST_CASE("wgmma forms left out are refused when the module loads", "[tensor][wgmma]") {
  for (const char* inst : {
           "wgmma.mma_async.sync.aligned.m64n8k16.f16.bf16.bf16 {%r1, %r2}, %rd1, %rd1, %p1, 1, 1, 0, 0;",
           "wgmma.mma_async.sync.aligned.m64n8k256.s32.b1.b1.and.popc {%r0, %r1, %r2, %r3}, %rd1, %rd1, %p1;",
           "wgmma.mma_async.sync.aligned.m64n8k32.f32.e4m3.e4m3 {%f0, %f1, %f2, %f3}, %rd1, %rd1, %p1, 1, 1, 0, 0;",
           "wgmma.mma_async.sp.sync.aligned.m64n8k32.f32.f16.f16 {%f0, %f1, %f2, %f3}, %rd1, %rd1, %r1, 0, %p1, 1, 1, 0, 0;",
       }) {
    INFO(inst);
    const std::string body = std::string(R"(
  .reg .b32 %r<4>;
  .reg .b64 %rd<4>;
  .reg .f32 %f<5>;
  .reg .pred %p<2>;
  ld.param.u64 %rd1, [k_desc];
  mov.u32 %r1, 0;
  setp.eq.u32 %p1, %r1, 0;
  )") + inst + "\n  ret;\n";
    bool refused = false;
    try {
      KernelRunner r(WrapKernel("k", ".param .u64 k_desc", body, "sm_90a"));
      const absl::Status st = r.Launch("k", {1, 1, 1}, {128, 1, 1}, uint64_t{0});
      refused = !st.ok();
      CHECK_THAT(std::string(st.message()), Catch::Contains("wgmma"));
    } catch (const std::exception& e) {
      refused = true;
      CHECK_THAT(std::string(e.what()), Catch::Contains("wgmma"));
    }
    CHECK(refused);
  }
}

}  // namespace barracuda::emu::testing

namespace barracuda::emu::testing {

TEST_CASE("wgmma faults: operands outside shared memory, lanes' descriptors differ, base offset, partial warp",
          "[tensor][wgmma][fault]") {
  const std::string head = R"(
  .reg .b32 %r<4>;
  .reg .b64 %rd<6>;
  .reg .f32 %f<5>;
  .reg .pred %p<2>;
  .shared .align 1024 .b8 smem[2048];
  ld.param.u64 %rd1, [k_desc];
  mov.u32 %r1, %tid.x;
  setp.eq.u32 %p1, %r1, %r1;
)";
  const std::string mma =
      "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%f0, %f1, %f2, %f3}, %rd2, %rd2, %p1, 1, 1, 0, 0;\n";
  struct Case {
    const char* what;
    std::string body;
    uint64_t desc;
  };
  const uint64_t lbo_sbo = (uint64_t{128 >> 4} << 16) | (uint64_t{256 >> 4} << 32);
  const Case cases[] = {
      {"shared", "  mov.b64 %rd2, %rd1;\n  " + mma, lbo_sbo | (uint64_t{0x3f000 >> 4})},
      {"differs", "  cvt.u64.u32 %rd3, %r1;\n  add.u64 %rd2, %rd1, %rd3;\n  " + mma, lbo_sbo},
      {"base offset", "  mov.b64 %rd2, %rd1;\n  " + mma, lbo_sbo | (uint64_t{1} << 49) | (uint64_t{1} << 62)},
      {"not the whole warp", "  mov.b64 %rd2, %rd1;\n  setp.lt.u32 %p1, %r1, 16;\n  @%p1 " + mma, lbo_sbo},
  };
  for (const Case& c : cases) {
    INFO(c.what);
    KernelRunner r(WrapKernel("k", ".param .u64 k_desc", head + c.body + "  ret;\n", "sm_90a"));
    const absl::Status st = r.Launch("k", {1, 1, 1}, {128, 1, 1}, c.desc);
    REQUIRE_FALSE(st.ok());
    CHECK_THAT(std::string(st.message()), Catch::Contains(c.what));
  }
}

}  // namespace barracuda::emu::testing
