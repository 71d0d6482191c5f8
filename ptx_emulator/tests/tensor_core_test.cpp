// Tensor-core instructions end to end: mma.sync per shape and type with the
// PTX ISA's fragment layouts (transcribed here from the ISA's "Matrix
// Fragments for mma.mXnYkZ" formulas, independently of ops/tensor_layouts.cpp),
// wmma load/mma/store per shape and type against a CPU GEMM (the wmma mapping
// is the emulator's own, so only memory-to-memory results are checked),
// ldmatrix / stmatrix / movmatrix element by element, faults, records, and
// the forms that are refused.
#include <catch2/catch.hpp>

#include <algorithm>
#include <bit>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "ptx_emulator/core/device_memory.h"
#include "ptx_emulator/core/record_sink.h"
#include "ptx_emulator/ops/fp_format.h"
#include "ptx_emulator/ops/fp_narrow.h"
#include "ptx_emulator/ops/tensor_layouts.h"
#include "ptx_emulator/tests/fp8_codes.h"
#include "ptx_emulator/tests/kernel_runner.h"

namespace barracuda::emu::testing {
namespace {

// ---------------------------------------------------------------- elements
enum class T { kF16, kBf16, kTf32, kF32, kF64, kS8, kU8, kS32, kE4m3, kE5m2 };

uint32_t Bytes(T t) {
  switch (t) {
    case T::kF16:
    case T::kBf16: return 2;
    case T::kS8:
    case T::kU8:
    case T::kE4m3:
    case T::kE5m2: return 1;
    case T::kF64: return 8;
    default: return 4;
  }
}
std::string Name(T t) {
  switch (t) {
    case T::kF16: return "f16";
    case T::kBf16: return "bf16";
    case T::kTf32: return "tf32";
    case T::kF32: return "f32";
    case T::kF64: return "f64";
    case T::kS8: return "s8";
    case T::kU8: return "u8";
    case T::kS32: return "s32";
    case T::kE4m3: return "e4m3";
    case T::kE5m2: return "e5m2";
  }
  return "?";
}
bool IsInt(T t) { return t == T::kS8 || t == T::kU8 || t == T::kS32; }

uint64_t RandomBits(T t, std::mt19937& rng, bool big_ints = false) {
  std::uniform_real_distribution<float> f(-2.0f, 2.0f);
  switch (t) {
    case T::kF16: return fp::F32ToF16(f(rng));
    case T::kBf16: return fp::F32ToBf16(f(rng));
    case T::kTf32:  // full f32 bits: the low 13 fraction bits must be ignored
    case T::kF32: return std::bit_cast<uint32_t>(f(rng));
    case T::kF64: return std::bit_cast<uint64_t>(static_cast<double>(f(rng)) + f(rng) * 1e-9);
    case T::kS8: return static_cast<uint8_t>(rng());
    case T::kU8: return static_cast<uint8_t>(rng());
    case T::kE4m3: return RandomFiniteE4m3(rng);
    case T::kE5m2: return RandomFiniteE5m2(rng);
    case T::kS32: {
      if (big_ints) return static_cast<uint32_t>((rng() & 1) ? 0x7fff0000u + (rng() & 0xffff) : 0x80000000u + (rng() & 0xffff));
      return static_cast<uint32_t>(static_cast<int32_t>(rng() % 200001) - 100000);
    }
  }
  return 0;
}

double Value(T t, uint64_t b) {
  switch (t) {
    case T::kF16: return fp::F16ToF32(static_cast<uint16_t>(b));
    case T::kBf16: return fp::Bf16ToF32(static_cast<uint16_t>(b));
    case T::kTf32: return std::bit_cast<float>(static_cast<uint32_t>(b) & 0xffffe000u);
    case T::kF32: return std::bit_cast<float>(static_cast<uint32_t>(b));
    case T::kF64: return std::bit_cast<double>(b);
    case T::kE4m3: return fp::Narrow8ToF32(static_cast<uint8_t>(b), fp::Narrow8::kE4m3);
    case T::kE5m2: return fp::Narrow8ToF32(static_cast<uint8_t>(b), fp::Narrow8::kE5m2);
    default: return 0;
  }
}
int64_t IntValue(T t, uint64_t b) {
  switch (t) {
    case T::kS8: return static_cast<int8_t>(b);
    case T::kU8: return static_cast<uint8_t>(b);
    default: return static_cast<int32_t>(b);
  }
}

// The CPU reference, in the order README "Tensor-core instructions" documents:
// c first, then k ascending, in double (exact fma chain for .f64), one rounding.
struct Math {
  T a, b, c, d;
  bool sat = false;
};
std::vector<uint64_t> Gemm(const Math& m, int M, int N, int K, const std::vector<uint64_t>& A,
                           const std::vector<uint64_t>& B, const std::vector<uint64_t>& C) {
  std::vector<uint64_t> D(M * N);
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      if (IsInt(m.a)) {
        int64_t acc = IntValue(m.c, C[i * N + j]);
        for (int k = 0; k < K; ++k) acc += IntValue(m.a, A[i * K + k]) * IntValue(m.b, B[k * N + j]);
        if (m.sat) acc = std::clamp<int64_t>(acc, INT32_MIN, INT32_MAX);
        D[i * N + j] = static_cast<uint32_t>(acc);
      } else if (m.d == T::kF64) {
        double acc = Value(T::kF64, C[i * N + j]);
        for (int k = 0; k < K; ++k) acc = std::fma(Value(T::kF64, A[i * K + k]), Value(T::kF64, B[k * N + j]), acc);
        D[i * N + j] = std::bit_cast<uint64_t>(acc);
      } else {
        double acc = Value(m.c, C[i * N + j]);
        for (int k = 0; k < K; ++k) acc += Value(m.a, A[i * K + k]) * Value(m.b, B[k * N + j]);
        D[i * N + j] = m.d == T::kF16 ? fp::RoundDouble<fp::F16Format>(acc, 0, fp::RoundMode::kRn, 0x7fff)
                                      : std::bit_cast<uint32_t>(static_cast<float>(acc));
      }
    }
  return D;
}

std::vector<uint64_t> RandomMatrix(T t, size_t n, std::mt19937& rng, bool big = false) {
  std::vector<uint64_t> v(n);
  for (auto& e : v) e = RandomBits(t, rng, big);
  return v;
}

// ---------------------------------------------------------------- mma.sync layouts (ISA)
struct Pos {
  int g, r, c;
};
using Layout = std::function<Pos(int lane, int i)>;
int Gid(int l) { return l >> 2; }  // groupID
int Tig(int l) { return l % 4; }   // threadID_in_group

Pos C16(int l, int i) { return {0, Gid(l) + (i >= 2 ? 8 : 0), Tig(l) * 2 + (i & 1)}; }
Pos C8(int l, int i) { return {0, Gid(l), Tig(l) * 2 + i}; }

struct MmaCase {
  MmaCase(std::string inst_, int m, int n, int k, int groups_, T a_, T b_, T c_, T d_, int na_, int nb_, int nc_)
      : inst(std::move(inst_)), M(m), N(n), K(k), groups(groups_), a(a_), b(b_), c(c_), d(d_), na(na_), nb(nb_),
        nc(nc_) {}
  std::string inst;  // opcode and modifiers
  int M, N, K, groups = 1;
  T a, b, c, d;
  int na, nb, nc;  // elements per lane
  Layout A, B, C, D;
  bool sat = false;
  std::string target = "sm_80";
};

std::string RegType(T t, bool accumulator) {
  if (t == T::kF64) return ".f64";
  if (accumulator && t == T::kF32) return ".f32";
  return ".b32";
}

int Registers(T t, int elements) { return t == T::kF64 ? elements : elements * static_cast<int>(Bytes(t)) / 4; }

std::string RegList(const std::string& name, int n) {
  std::string s = "{";
  for (int i = 0; i < n; ++i) s += (i ? ", %" : "%") + name + std::to_string(i);
  return s + "}";
}

// A kernel that loads every fragment register from in[(slot * 32 + lane)]
// (8-byte slots: A's registers, then B's, then C's), runs `inst`, and stores
// D's registers to out the same way.
std::string FragmentKernel(const std::string& inst, T a, T b, T c, T d, int ra, int rb, int rc, int rd) {
  std::string s = "  .reg .b32 %r<4>;\n  .reg .b64 %rd<8>;\n";
  s += "  .reg " + RegType(a, false) + " %a<" + std::to_string(ra) + ">;\n";
  s += "  .reg " + RegType(b, false) + " %b<" + std::to_string(rb) + ">;\n";
  s += "  .reg " + RegType(c, true) + " %c<" + std::to_string(rc) + ">;\n";
  s += "  .reg " + RegType(d, true) + " %d<" + std::to_string(rd) + ">;\n";
  s += "  ld.param.u64 %rd1, [k_in];\n  ld.param.u64 %rd2, [k_out];\n  mov.u32 %r1, %laneid;\n";
  s += "  mul.wide.u32 %rd3, %r1, 8;\n  add.s64 %rd4, %rd1, %rd3;\n  add.s64 %rd5, %rd2, %rd3;\n";
  int slot = 0;
  auto load = [&](const std::string& name, T t, bool acc, int n) {
    for (int i = 0; i < n; ++i, ++slot)
      s += "  ld.global" + RegType(t, acc) + " %" + name + std::to_string(i) + ", [%rd4+" +
           std::to_string(slot * 256) + "];\n";
  };
  load("a", a, false, ra);
  load("b", b, false, rb);
  load("c", c, true, rc);
  s += "  " + inst + " " + RegList("d", rd) + ", " + RegList("a", ra) + ", " + RegList("b", rb) + ", " +
       RegList("c", rc) + ";\n";
  for (int i = 0; i < rd; ++i)
    s += "  st.global" + RegType(d, true) + " [%rd5+" + std::to_string(i * 256) + "], %d" + std::to_string(i) + ";\n";
  s += "  ret;\n";
  return s;
}

// Element i of a lane's fragment of type t, packed into its registers.
void Put(std::vector<uint64_t>& regs, T t, int i, uint64_t bits) {
  const int bytes = static_cast<int>(Bytes(t));
  if (bytes == 8) {
    regs[i] = bits;
    return;
  }
  const int per = 4 / bytes;
  regs[i / per] |= (bits & ((uint64_t{1} << (8 * bytes)) - 1)) << (8 * bytes * (i % per));
}
uint64_t Get(const std::vector<uint64_t>& regs, T t, int i) {
  const int bytes = static_cast<int>(Bytes(t));
  if (bytes == 8) return regs[i];
  const int per = 4 / bytes;
  return (regs[i / per] >> (8 * bytes * (i % per))) & ((uint64_t{1} << (8 * bytes)) - 1);
}

void RunMma(const MmaCase& mc, uint32_t seed) {
  INFO(mc.inst);
  // The test's layouts place every element of every computation exactly once.
  auto covers = [&](const Layout& f, int n, int rows, int cols) {
    std::vector<int> seen(mc.groups * rows * cols, 0);
    for (int l = 0; l < 32; ++l)
      for (int i = 0; i < n; ++i) {
        const Pos p = f(l, i);
        REQUIRE((p.g >= 0 && p.g < mc.groups && p.r >= 0 && p.r < rows && p.c >= 0 && p.c < cols));
        ++seen[(p.g * rows + p.r) * cols + p.c];
      }
    for (int v : seen) REQUIRE(v == 1);
  };
  covers(mc.A, mc.na, mc.M, mc.K);
  covers(mc.B, mc.nb, mc.K, mc.N);
  covers(mc.C, mc.nc, mc.M, mc.N);
  covers(mc.D, mc.nc, mc.M, mc.N);

  std::mt19937 rng(seed);
  std::vector<std::vector<uint64_t>> A, B, C, D;
  const Math math{mc.a, mc.b, mc.c, mc.d, mc.sat};
  for (int g = 0; g < mc.groups; ++g) {
    A.push_back(RandomMatrix(mc.a, mc.M * mc.K, rng));
    B.push_back(RandomMatrix(mc.b, mc.K * mc.N, rng));
    C.push_back(RandomMatrix(mc.c, mc.M * mc.N, rng, mc.sat));
    D.push_back(Gemm(math, mc.M, mc.N, mc.K, A.back(), B.back(), C.back()));
  }
  const int ra = Registers(mc.a, mc.na), rb = Registers(mc.b, mc.nb), rc = Registers(mc.c, mc.nc),
            rd = Registers(mc.d, mc.nc);
  std::vector<uint64_t> in((ra + rb + rc) * 32, 0);
  for (int l = 0; l < 32; ++l) {
    std::vector<uint64_t> ga(ra, 0), gb(rb, 0), gc(rc, 0);
    for (int i = 0; i < mc.na; ++i) {
      const Pos p = mc.A(l, i);
      Put(ga, mc.a, i, A[p.g][p.r * mc.K + p.c]);
    }
    for (int i = 0; i < mc.nb; ++i) {
      const Pos p = mc.B(l, i);
      Put(gb, mc.b, i, B[p.g][p.r * mc.N + p.c]);
    }
    for (int i = 0; i < mc.nc; ++i) {
      const Pos p = mc.C(l, i);
      Put(gc, mc.c, i, C[p.g][p.r * mc.N + p.c]);
    }
    int slot = 0;
    for (uint64_t v : ga) in[(slot++) * 32 + l] = v;
    for (uint64_t v : gb) in[(slot++) * 32 + l] = v;
    for (uint64_t v : gc) in[(slot++) * 32 + l] = v;
  }
  KernelRunner r(WrapKernel("k", ".param .u64 k_in, .param .u64 k_out",
                            FragmentKernel(mc.inst, mc.a, mc.b, mc.c, mc.d, ra, rb, rc, rd), mc.target));
  auto din = r.Alloc<uint64_t>(in.size(), in);
  auto dout = r.Alloc<uint64_t>(rd * 32);
  const absl::Status st = r.Launch("k", {1, 1, 1}, {32, 1, 1}, din.device, dout.device);
  INFO(st.message());
  REQUIRE(st.ok());
  const std::vector<uint64_t> out = r.Read(dout);
  for (int l = 0; l < 32; ++l) {
    std::vector<uint64_t> gd(rd);
    for (int j = 0; j < rd; ++j) gd[j] = mc.d == T::kF64 ? out[j * 32 + l] : out[j * 32 + l] & 0xffffffffu;
    for (int i = 0; i < mc.nc; ++i) {
      const Pos p = mc.D(l, i);
      INFO("lane " << l << " element " << i << " -> computation " << p.g << " (" << p.r << ", " << p.c << ")");
      CHECK(Get(gd, mc.d, i) == D[p.g][p.r * mc.N + p.c]);
    }
  }
}

std::string MmaName(const std::string& shape, const std::string& layouts, T d, T a, T b, T c,
                    const std::string& extra = "") {
  return "mma.sync.aligned." + shape + "." + layouts + extra + "." + Name(d) + "." + Name(a) + "." + Name(b) + "." +
         Name(c);
}

// m16n8k16 / m16n8k8 .f16 / .bf16 (Figures "MMA .m16n8k16 / .m16n8k8 fragment layout ... .f16 / .bf16").
MmaCase Half16816(T ab, T c, T d) {
  MmaCase mc{MmaName("m16n8k16", "row.col", d, ab, ab, c), 16, 8, 16, 1, ab, ab, c, d, 8, 4, 4};
  mc.A = [](int l, int i) {
    return Pos{0, Gid(l) + ((i < 2 || (i >= 4 && i < 6)) ? 0 : 8), Tig(l) * 2 + (i & 1) + (i >= 4 ? 8 : 0)};
  };
  mc.B = [](int l, int i) { return Pos{0, Tig(l) * 2 + (i & 1) + (i >= 2 ? 8 : 0), Gid(l)}; };
  mc.C = mc.D = C16;
  return mc;
}
MmaCase Half1688(T ab, T c, T d) {
  MmaCase mc{MmaName("m16n8k8", "row.col", d, ab, ab, c), 16, 8, 8, 1, ab, ab, c, d, 4, 2, 4};
  mc.A = [](int l, int i) { return Pos{0, Gid(l) + (i < 2 ? 0 : 8), Tig(l) * 2 + (i & 1)}; };
  mc.B = [](int l, int i) { return Pos{0, Tig(l) * 2 + i, Gid(l)}; };
  mc.C = mc.D = C16;
  return mc;
}

TEST_CASE("mma.sync m16n8k16 and m16n8k8 with .f16 / .bf16 multiplicands", "[tensor][mma]") {
  RunMma(Half16816(T::kF16, T::kF32, T::kF32), 1);
  RunMma(Half16816(T::kF16, T::kF16, T::kF16), 2);
  RunMma(Half16816(T::kBf16, T::kF32, T::kF32), 5);
  RunMma(Half1688(T::kF16, T::kF32, T::kF32), 6);
  RunMma(Half1688(T::kF16, T::kF16, T::kF16), 7);
  RunMma(Half1688(T::kBf16, T::kF32, T::kF32), 8);
}

TEST_CASE("mma.sync m16n8k8 and m16n8k4 with .tf32 (low fraction bits ignored)", "[tensor][mma]") {
  MmaCase k8{MmaName("m16n8k8", "row.col", T::kF32, T::kTf32, T::kTf32, T::kF32), 16, 8, 8, 1,
             T::kTf32, T::kTf32, T::kF32, T::kF32, 4, 2, 4};
  k8.A = [](int l, int i) { return Pos{0, Gid(l) + ((i == 0 || i == 2) ? 0 : 8), Tig(l) + (i < 2 ? 0 : 4)}; };
  k8.B = [](int l, int i) { return Pos{0, Tig(l) + (i == 0 ? 0 : 4), Gid(l)}; };
  k8.C = k8.D = C16;
  RunMma(k8, 11);
  MmaCase k4{MmaName("m16n8k4", "row.col", T::kF32, T::kTf32, T::kTf32, T::kF32), 16, 8, 4, 1,
             T::kTf32, T::kTf32, T::kF32, T::kF32, 2, 1, 4};
  k4.A = [](int l, int i) { return Pos{0, Gid(l) + (i == 0 ? 0 : 8), Tig(l)}; };
  k4.B = [](int l, int) { return Pos{0, Tig(l), Gid(l)}; };
  k4.C = k4.D = C16;
  RunMma(k4, 12);
}

TEST_CASE("mma.sync integer shapes, .s8/.u8 (mixed) with and without .satfinite", "[tensor][mma]") {
  for (bool sat : {false, true}) {
    for (auto [ta, tb] : {std::pair{T::kS8, T::kS8}, std::pair{T::kU8, T::kS8}, std::pair{T::kU8, T::kU8}}) {
      const std::string extra = sat ? ".satfinite" : "";
      MmaCase k16{MmaName("m16n8k16", "row.col", T::kS32, ta, tb, T::kS32, extra), 16, 8, 16, 1,
                  ta, tb, T::kS32, T::kS32, 8, 4, 4};
      k16.A = [](int l, int i) { return Pos{0, Gid(l) + (i < 4 ? 0 : 8), Tig(l) * 4 + (i & 3)}; };
      k16.B = [](int l, int i) { return Pos{0, Tig(l) * 4 + i, Gid(l)}; };
      k16.C = k16.D = C16;
      k16.sat = sat;
      RunMma(k16, 20 + sat);
      MmaCase k32{MmaName("m16n8k32", "row.col", T::kS32, ta, tb, T::kS32, extra), 16, 8, 32, 1,
                  ta, tb, T::kS32, T::kS32, 16, 8, 4};
      k32.A = [](int l, int i) {
        return Pos{0, Gid(l) + ((i < 4 || (i >= 8 && i < 12)) ? 0 : 8), Tig(l) * 4 + (i & 3) + (i >= 8 ? 16 : 0)};
      };
      k32.B = [](int l, int i) { return Pos{0, Tig(l) * 4 + (i & 3) + (i >= 4 ? 16 : 0), Gid(l)}; };
      k32.C = k32.D = C16;
      k32.sat = sat;
      RunMma(k32, 22 + sat);
      MmaCase k8{MmaName("m8n8k16", "row.col", T::kS32, ta, tb, T::kS32, extra), 8, 8, 16, 1,
                 ta, tb, T::kS32, T::kS32, 4, 4, 2};
      k8.A = [](int l, int i) { return Pos{0, Gid(l), Tig(l) * 4 + i}; };
      k8.B = [](int l, int i) { return Pos{0, Tig(l) * 4 + i, Gid(l)}; };
      k8.C = k8.D = C8;
      k8.sat = sat;
      k8.target = "sm_75";
      RunMma(k8, 24 + sat);
    }
  }
}

TEST_CASE("mma.sync fp8 (sm_89): m16n8k32 and m16n8k16, .e4m3/.e5m2 mixed, .f32 and .f16 accumulators", "[tensor][mma]") {
  uint32_t seed = 60;
  for (auto [ta, tb] : {std::pair{T::kE4m3, T::kE4m3}, std::pair{T::kE4m3, T::kE5m2}, std::pair{T::kE5m2, T::kE4m3},
                        std::pair{T::kE5m2, T::kE5m2}})
    for (T acc : {T::kF32, T::kF16}) {
      // The .s8 layouts of the same shapes (ISA: one figure for .s8/.u8/.e4m3/.e5m2).
      MmaCase k32{MmaName("m16n8k32", "row.col", acc, ta, tb, acc), 16, 8, 32, 1, ta, tb, acc, acc, 16, 8, 4};
      k32.A = [](int l, int i) {
        return Pos{0, Gid(l) + ((i < 4 || (i >= 8 && i < 12)) ? 0 : 8), Tig(l) * 4 + (i & 3) + (i >= 8 ? 16 : 0)};
      };
      k32.B = [](int l, int i) { return Pos{0, Tig(l) * 4 + (i & 3) + (i >= 4 ? 16 : 0), Gid(l)}; };
      k32.C = k32.D = C16;
      k32.target = "sm_89";
      RunMma(k32, seed++);
      MmaCase k16{MmaName("m16n8k16", "row.col", acc, ta, tb, acc), 16, 8, 16, 1, ta, tb, acc, acc, 8, 4, 4};
      k16.A = [](int l, int i) { return Pos{0, Gid(l) + (i < 4 ? 0 : 8), Tig(l) * 4 + (i & 3)}; };
      k16.B = [](int l, int i) { return Pos{0, Tig(l) * 4 + i, Gid(l)}; };
      k16.C = k16.D = C16;
      k16.target = "sm_89";
      RunMma(k16, seed++);
    }
}

TEST_CASE("mma.sync m8n8k4 .f16: four quad-pair products, every layout and accumulator", "[tensor][mma]") {
  for (bool a_col : {false, true})
    for (bool b_col : {false, true})
      for (T c : {T::kF16, T::kF32})
        for (T d : {T::kF16, T::kF32}) {
          if (c == T::kF32 && d == T::kF16) continue;  // ptxas: .f32 C needs .f32 D
          const std::string layouts = std::string(a_col ? "col" : "row") + "." + (b_col ? "col" : "row");
          MmaCase mc{MmaName("m8n8k4", layouts, d, T::kF16, T::kF16, c), 8, 8, 4, 4, T::kF16, T::kF16, c, d, 4, 4, 8};
          auto grp = [](int l) { return (l >> 2) & 3; };
          auto hi = [](int l) { return l < 16 ? 0 : 4; };
          if (a_col) {
            mc.A = [=](int l, int i) { return Pos{grp(l), i % 4 + hi(l), l % 4}; };
          } else {
            mc.A = [=](int l, int i) { return Pos{grp(l), l % 4 + hi(l), i}; };
          }
          if (b_col) {
            mc.B = [=](int l, int i) { return Pos{grp(l), i, l % 4 + hi(l)}; };
          } else {
            mc.B = [=](int l, int i) { return Pos{grp(l), l % 4, i + hi(l)}; };
          }
          auto acc = [=](T t) -> Layout {
            if (t == T::kF16) return [=](int l, int i) { return Pos{grp(l), l % 4 + hi(l), i}; };
            return [=](int l, int i) {
              const int x = (l & 1) + (i & 2);
              return Pos{grp(l), x + hi(l), (i & 4) + (l & 2) + (i & 1)};
            };
          };
          mc.C = acc(c);
          mc.D = acc(d);
          mc.target = "sm_75";
          RunMma(mc, 30 + a_col * 8 + b_col * 4 + (c == T::kF32) * 2 + (d == T::kF32));
        }
}

TEST_CASE("mma.sync .f64: m8n8k4 and the sm_90 m16n8k4/k8/k16 forms (exact fma chain)", "[tensor][mma]") {
  MmaCase k4{MmaName("m8n8k4", "row.col", T::kF64, T::kF64, T::kF64, T::kF64), 8, 8, 4, 1,
             T::kF64, T::kF64, T::kF64, T::kF64, 1, 1, 2};
  k4.A = [](int l, int) { return Pos{0, l >> 2, l % 4}; };
  k4.B = [](int l, int) { return Pos{0, l % 4, l >> 2}; };
  k4.C = k4.D = C8;
  RunMma(k4, 40);
  k4.inst = MmaName("m8n8k4", "row.col", T::kF64, T::kF64, T::kF64, T::kF64, ".rn");
  RunMma(k4, 41);
  MmaCase w4{MmaName("m16n8k4", "row.col", T::kF64, T::kF64, T::kF64, T::kF64), 16, 8, 4, 1,
             T::kF64, T::kF64, T::kF64, T::kF64, 2, 1, 4};
  w4.A = [](int l, int i) { return Pos{0, Gid(l) + (i == 0 ? 0 : 8), Tig(l)}; };
  w4.B = [](int l, int) { return Pos{0, Tig(l), Gid(l)}; };
  w4.C = w4.D = C16;
  w4.target = "sm_90";
  RunMma(w4, 42);
  MmaCase w8 = w4;
  w8.inst = MmaName("m16n8k8", "row.col", T::kF64, T::kF64, T::kF64, T::kF64);
  w8.K = 8, w8.na = 4, w8.nb = 2;
  w8.A = [](int l, int i) { return Pos{0, Gid(l) + ((i == 0 || i == 2) ? 0 : 8), Tig(l) + (i < 2 ? 0 : 4)}; };
  w8.B = [](int l, int i) { return Pos{0, Tig(l) + (i == 0 ? 0 : 4), Gid(l)}; };
  RunMma(w8, 43);
  MmaCase w16 = w4;
  w16.inst = MmaName("m16n8k16", "row.col", T::kF64, T::kF64, T::kF64, T::kF64);
  w16.K = 16, w16.na = 8, w16.nb = 4;
  w16.A = [](int l, int i) {
    return Pos{0, Gid(l) + (i % 2 == 0 ? 0 : 8), i % 2 == 0 ? i * 2 + Tig(l) : i * 2 - 2 + Tig(l)};
  };
  w16.B = [](int l, int i) { return Pos{0, Tig(l) + i * 4, Gid(l)}; };
  RunMma(w16, 44);
}

TEST_CASE("the emulator's mma layouts are the ISA's (every shape, lane and element)", "[tensor][layout]") {
  // A second, table-free look at ops/tensor_layouts.cpp: MmaPlace against the
  // formulas above for one representative of every figure.
  auto check = [](tensor::MmaShape s, const Layout& A, const Layout& B, const Layout& C, int na, int nb, int nc) {
    for (int l = 0; l < 32; ++l) {
      for (int i = 0; i < na; ++i) {
        const tensor::Place p = tensor::MmaPlace(s, tensor::Operand::kA, l, i);
        const Pos q = A(l, i);
        CHECK((p.group == q.g && p.row == q.r && p.col == q.c));
      }
      for (int i = 0; i < nb; ++i) {
        const tensor::Place p = tensor::MmaPlace(s, tensor::Operand::kB, l, i);
        const Pos q = B(l, i);
        CHECK((p.group == q.g && p.row == q.r && p.col == q.c));
      }
      for (int i = 0; i < nc; ++i) {
        const tensor::Place p = tensor::MmaPlace(s, tensor::Operand::kC, l, i);
        const Pos q = C(l, i);
        CHECK((p.group == q.g && p.row == q.r && p.col == q.c));
      }
    }
    CHECK(static_cast<int>(tensor::MmaElements(s, tensor::Operand::kA)) == na);
    CHECK(static_cast<int>(tensor::MmaElements(s, tensor::Operand::kB)) == nb);
    CHECK(static_cast<int>(tensor::MmaElements(s, tensor::Operand::kC)) == nc);
  };
  const MmaCase h = Half16816(T::kF16, T::kF32, T::kF32);
  check({16, 8, 16, 1, tensor::Elem::kF16, tensor::Elem::kF16, tensor::Elem::kF32}, h.A, h.B, h.C, 8, 4, 4);
  const MmaCase h8 = Half1688(T::kBf16, T::kF32, T::kF32);
  check({16, 8, 8, 1, tensor::Elem::kBf16, tensor::Elem::kBf16, tensor::Elem::kF32}, h8.A, h8.B, h8.C, 4, 2, 4);
  check({8, 8, 16, 1, tensor::Elem::kS8, tensor::Elem::kU8, tensor::Elem::kS32},
        [](int l, int i) { return Pos{0, Gid(l), Tig(l) * 4 + i}; },
        [](int l, int i) { return Pos{0, Tig(l) * 4 + i, Gid(l)}; }, C8, 4, 4, 2);
}

// ---------------------------------------------------------------- wmma
struct WmmaCase {
  WmmaCase(int m, int n, int k, T a_, T b_, T c_, T d_, bool ac, bool bc, bool cc, bool dc, int pad_ = 0,
           bool sat_ = false, std::string space_ = ".global")
      : M(m), N(n), K(k), a(a_), b(b_), c(c_), d(d_), a_col(ac), b_col(bc), c_col(cc), d_col(dc), pad(pad_),
        sat(sat_), space(std::move(space_)) {}
  int M, N, K;
  T a, b, c, d;
  bool a_col, b_col, c_col, d_col;
  int pad = 0;  // extra elements per leading dimension (a stride above the default)
  bool sat = false;
  std::string space = ".global";
};

int WmmaRegs(const WmmaCase& w, char which) {
  const int rows = which == 'b' ? w.K : w.M, cols = which == 'a' ? w.K : w.N;
  const T t = which == 'a' ? w.a : which == 'b' ? w.b : which == 'c' ? w.c : w.d;
  if ((which == 'a' || which == 'b') && t == T::kF16) return 8;  // ISA: 8 .f16x2 registers
  const int per_lane = rows * cols / 32;
  return Registers(t, per_lane);
}

std::string Shape(const WmmaCase& w) {
  return "m" + std::to_string(w.M) + "n" + std::to_string(w.N) + "k" + std::to_string(w.K);
}

void RunWmma(const WmmaCase& w, uint32_t seed) {
  const std::string shape = Shape(w);
  auto lay = [](bool col) { return std::string(col ? ".col" : ".row"); };
  std::string types;
  if (w.a == T::kF16 && w.b == T::kF16) {
    types = "." + Name(w.d) + "." + Name(w.c);
  } else {
    types = "." + Name(w.d) + "." + Name(w.a) + "." + Name(w.b) + "." + Name(w.c);
  }
  if (w.sat) types += ".satfinite";
  const int ra = WmmaRegs(w, 'a'), rb = WmmaRegs(w, 'b'), rc = WmmaRegs(w, 'c'), rd = WmmaRegs(w, 'd');
  // Leading dimensions (+ pad), as strides in elements.
  const int lda = (w.a_col ? w.M : w.K) + w.pad, ldb = (w.b_col ? w.K : w.N) + w.pad;
  const int ldc = (w.c_col ? w.M : w.N) + w.pad, ldd = (w.d_col ? w.M : w.N) + w.pad;
  std::string body = "  .reg .b32 %r<8>;\n  .reg .b64 %rd<12>;\n";
  body += "  .reg " + RegType(w.a, false) + " %a<" + std::to_string(ra) + ">;\n";
  body += "  .reg " + RegType(w.b, false) + " %b<" + std::to_string(rb) + ">;\n";
  body += "  .reg " + RegType(w.c, true) + " %c<" + std::to_string(rc) + ">;\n";
  body += "  .reg " + RegType(w.d, true) + " %d<" + std::to_string(rd) + ">;\n";
  body += "  ld.param.u64 %rd1, [k_a];\n  ld.param.u64 %rd2, [k_b];\n  ld.param.u64 %rd3, [k_c];\n"
          "  ld.param.u64 %rd4, [k_d];\n";
  if (w.space == ".global") {
    for (int i = 1; i <= 4; ++i)
      body += "  cvta.to.global.u64 %rd" + std::to_string(i) + ", %rd" + std::to_string(i) + ";\n";
  }
  body += "  mov.u32 %r1, " + std::to_string(lda) + ";\n";
  body += "  wmma.load.a.sync.aligned" + lay(w.a_col) + "." + shape + w.space + "." + Name(w.a) + " " +
          RegList("a", ra) + ", [%rd1], %r1;\n";
  body += "  wmma.load.b.sync.aligned" + lay(w.b_col) + "." + shape + w.space + "." + Name(w.b) + " " +
          RegList("b", rb) + ", [%rd2], " + std::to_string(ldb) + ";\n";
  // C with the default stride when there is no padding (the operand is optional).
  body += "  wmma.load.c.sync.aligned" + lay(w.c_col) + "." + shape + w.space + "." + Name(w.c) + " " +
          RegList("c", rc) + ", [%rd3]" + (w.pad ? ", " + std::to_string(ldc) : std::string()) + ";\n";
  body += "  wmma.mma.sync.aligned" + lay(w.a_col) + lay(w.b_col) + "." + shape + types + " " + RegList("d", rd) +
          ", " + RegList("a", ra) + ", " + RegList("b", rb) + ", " + RegList("c", rc) + ";\n";
  body += "  wmma.store.d.sync.aligned" + lay(w.d_col) + "." + shape + w.space + "." + Name(w.d) + " [%rd4], " +
          RegList("d", rd) + ", " + std::to_string(ldd) + ";\n  ret;\n";
  INFO(body);
  std::mt19937 rng(seed);
  const auto A = RandomMatrix(w.a, w.M * w.K, rng), B = RandomMatrix(w.b, w.K * w.N, rng),
             C = RandomMatrix(w.c, w.M * w.N, rng, w.sat);
  const auto D = Gemm(Math{w.a, w.b, w.c, w.d, w.sat}, w.M, w.N, w.K, A, B, C);
  // Matrices in memory: element (r, c) at r * ld + c (row) or c * ld + r (col).
  auto store = [](const std::vector<uint64_t>& m, int rows, int cols, bool col, int ld, T t) {
    const int lines = col ? cols : rows;
    std::vector<uint8_t> mem(static_cast<size_t>(lines) * ld * Bytes(t), 0);
    for (int r = 0; r < rows; ++r)
      for (int c = 0; c < cols; ++c) {
        const size_t at = (col ? static_cast<size_t>(c) * ld + r : static_cast<size_t>(r) * ld + c) * Bytes(t);
        std::memcpy(mem.data() + at, &m[r * cols + c], Bytes(t));
      }
    return mem;
  };
  KernelRunner r(WrapKernel("k", ".param .u64 k_a, .param .u64 k_b, .param .u64 k_c, .param .u64 k_d", body,
                            "sm_80"));
  const auto ma = store(A, w.M, w.K, w.a_col, lda, w.a), mb = store(B, w.K, w.N, w.b_col, ldb, w.b),
             mc = store(C, w.M, w.N, w.c_col, ldc, w.c);
  const size_t d_bytes = static_cast<size_t>(w.d_col ? w.N : w.M) * ldd * Bytes(w.d);
  auto da = r.Alloc<uint8_t>(ma.size(), ma), db = r.Alloc<uint8_t>(mb.size(), mb), dc = r.Alloc<uint8_t>(mc.size(), mc);
  auto dd = r.Alloc<uint8_t>(d_bytes + 64);
  const absl::Status st = r.Launch("k", {1, 1, 1}, {32, 1, 1}, da.device, db.device, dc.device, dd.device);
  INFO(st.message());
  REQUIRE(st.ok());
  const auto out = r.Read(dd);
  const auto want = store(D, w.M, w.N, w.d_col, ldd, w.d);
  for (size_t i = 0; i < want.size(); i += Bytes(w.d)) {
    INFO("byte " << i << " of D (" << (w.d_col ? "column-major" : "row-major") << ", ld " << ldd << ")");
    CHECK(std::memcmp(out.data() + i, want.data() + i, Bytes(w.d)) == 0);
  }
  for (size_t i = want.size(); i < out.size(); ++i) CHECK(out[i] == 0);  // nothing past the matrix
}

TEST_CASE("wmma .f16 shapes, every layout, .f16/.f32 accumulators, strides", "[tensor][wmma]") {
  uint32_t seed = 100;
  for (auto [m, n, k] : {std::tuple{16, 16, 16}, std::tuple{32, 8, 16}, std::tuple{8, 32, 16}})
    for (bool a_col : {false, true})
      for (bool b_col : {false, true}) {
        RunWmma({m, n, k, T::kF16, T::kF16, T::kF32, T::kF32, a_col, b_col, false, true}, seed++);
        RunWmma({m, n, k, T::kF16, T::kF16, T::kF16, T::kF16, a_col, b_col, true, false, 8}, seed++);
        RunWmma({m, n, k, T::kF16, T::kF16, T::kF16, T::kF32, a_col, b_col, false, false, 16}, seed++);
        RunWmma({m, n, k, T::kF16, T::kF16, T::kF32, T::kF16, a_col, b_col, true, true}, seed++);
      }
}

TEST_CASE("wmma .bf16, .tf32, .f64, .s8/.u8 with .satfinite", "[tensor][wmma]") {
  uint32_t seed = 200;
  for (auto [m, n, k] : {std::tuple{16, 16, 16}, std::tuple{32, 8, 16}, std::tuple{8, 32, 16}}) {
    RunWmma({m, n, k, T::kBf16, T::kBf16, T::kF32, T::kF32, false, true, false, false}, seed++);
    RunWmma({m, n, k, T::kBf16, T::kBf16, T::kF32, T::kF32, true, false, true, false, 8}, seed++);
    RunWmma({m, n, k, T::kS8, T::kS8, T::kS32, T::kS32, false, true, false, false}, seed++);
    RunWmma({m, n, k, T::kU8, T::kU8, T::kS32, T::kS32, true, false, false, true, 16, true}, seed++);
    RunWmma({m, n, k, T::kS8, T::kS8, T::kS32, T::kS32, false, true, true, false, 0, true}, seed++);
  }
  RunWmma({16, 16, 8, T::kTf32, T::kTf32, T::kF32, T::kF32, false, true, false, false}, seed++);
  RunWmma({16, 16, 8, T::kTf32, T::kTf32, T::kF32, T::kF32, true, false, true, true, 4}, seed++);
  RunWmma({8, 8, 4, T::kF64, T::kF64, T::kF64, T::kF64, false, true, false, false}, seed++);
  RunWmma({8, 8, 4, T::kF64, T::kF64, T::kF64, T::kF64, true, false, true, true, 2}, seed++);
}

TEST_CASE("wmma through generic addresses", "[tensor][wmma]") {
  RunWmma({16, 16, 16, T::kF16, T::kF16, T::kF32, T::kF32, false, true, false, false, 0, false, ""}, 300);
  RunWmma({8, 8, 4, T::kF64, T::kF64, T::kF64, T::kF64, false, true, false, false, 0, false, ""}, 301);
}

TEST_CASE("wmma: the wmma mapping is a bijection, A/B copies in the upper lanes", "[tensor][layout]") {
  using tensor::Operand;
  for (auto [m, n, k] : {std::tuple{16, 16, 16}, std::tuple{32, 8, 16}, std::tuple{8, 32, 16}})
    for (Operand op : {Operand::kA, Operand::kB, Operand::kC})
      for (bool col : {false, true}) {
        const tensor::WmmaMatrix f =
            tensor::WmmaFragment(m, n, k, op, op == Operand::kC ? tensor::Elem::kF32 : tensor::Elem::kF16);
        std::vector<int> seen(f.rows * f.cols, 0);
        for (uint32_t l = 0; l < 32; ++l)
          for (uint32_t i = 0; i < f.per_lane; ++i) {
            uint32_t row, c, hl, hi;
            tensor::WmmaPlace(f, op, col, l, i, row, c);
            ++seen[row * f.cols + c];
            tensor::WmmaHolder(f, op, col, row, c, hl, hi);
            // The holder is the first copy: the same element, in a lane <= l.
            uint32_t r2, c2;
            tensor::WmmaPlace(f, op, col, hl, hi, r2, c2);
            CHECK((r2 == row && c2 == c && hl <= l));
          }
        const int copies = static_cast<int>(32 * f.per_lane / (f.rows * f.cols));
        for (int v : seen) CHECK(v == copies);
      }
}

// The WMMA shared-memory pattern nvcc emits for a block-cooperative tile: the
// block copies A into shared memory, then one warp loads it with
// wmma.load.a...shared and the tile is multiplied.
TEST_CASE("wmma.load from shared memory after a block copy", "[tensor][wmma]") {
  KernelRunner r(WrapKernel("k", ".param .u64 k_a, .param .u64 k_b, .param .u64 k_d", R"(
  .reg .b32 %r<40>;
  .reg .b64 %rd<12>;
  .reg .f32 %f<8>;
  .reg .pred %p<2>;
  .shared .align 32 .b8 tile[512];
  ld.param.u64 %rd1, [k_a];
  ld.param.u64 %rd2, [k_b];
  ld.param.u64 %rd3, [k_d];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd4, %r1, 4;
  add.s64 %rd5, %rd1, %rd4;
  ld.global.b32 %r2, [%rd5];
  mov.u32 %r3, tile;
  shl.b32 %r4, %r1, 2;
  add.u32 %r5, %r3, %r4;
  st.shared.b32 [%r5], %r2;
  bar.sync 0;
  shr.u32 %r6, %r1, 5;
  setp.ne.u32 %p1, %r6, 0;
  @%p1 bra DONE;
  wmma.load.a.sync.aligned.row.m16n16k16.shared.f16 {%r10, %r11, %r12, %r13, %r14, %r15, %r16, %r17}, [%r3];
  wmma.load.b.sync.aligned.col.m16n16k16.global.f16 {%r20, %r21, %r22, %r23, %r24, %r25, %r26, %r27}, [%rd2];
  mov.f32 %f0, 0f00000000;
  wmma.mma.sync.aligned.row.col.m16n16k16.f32.f32 {%f0, %f1, %f2, %f3, %f4, %f5, %f6, %f7}, {%r10, %r11, %r12, %r13, %r14, %r15, %r16, %r17}, {%r20, %r21, %r22, %r23, %r24, %r25, %r26, %r27}, {%f0, %f0, %f0, %f0, %f0, %f0, %f0, %f0};
  wmma.store.d.sync.aligned.row.m16n16k16.global.f32 [%rd3], {%f0, %f1, %f2, %f3, %f4, %f5, %f6, %f7}, 16;
DONE:
  ret;
)"));
  std::mt19937 rng(7);
  const auto A = RandomMatrix(T::kF16, 256, rng), B = RandomMatrix(T::kF16, 256, rng);
  std::vector<uint16_t> a16(256), b16(256);
  for (int r = 0; r < 16; ++r)
    for (int c = 0; c < 16; ++c) {
      a16[r * 16 + c] = static_cast<uint16_t>(A[r * 16 + c]);
      b16[c * 16 + r] = static_cast<uint16_t>(B[r * 16 + c]);  // column-major B
    }
  const auto D = Gemm(Math{T::kF16, T::kF16, T::kF32, T::kF32}, 16, 16, 16, A, B, std::vector<uint64_t>(256, 0));
  auto da = r.Alloc<uint16_t>(256, a16), db = r.Alloc<uint16_t>(256, b16);
  auto dd = r.Alloc<uint32_t>(256);
  const absl::Status st = r.Launch("k", {1, 1, 1}, {128, 1, 1}, da.device, db.device, dd.device);
  INFO(st.message());
  REQUIRE(st.ok());
  const auto out = r.Read(dd);
  for (int i = 0; i < 256; ++i) CHECK(out[i] == D[i]);
}

TEST_CASE("wmma fragments support element-wise operations (scale C before mma)", "[tensor][wmma]") {
  KernelRunner r(WrapKernel("k", ".param .u64 k_c, .param .u64 k_d", R"(
  .reg .b64 %rd<4>;
  .reg .f32 %f<8>;
  ld.param.u64 %rd1, [k_c];
  ld.param.u64 %rd2, [k_d];
  wmma.load.c.sync.aligned.col.m32n8k16.global.f32 {%f0, %f1, %f2, %f3, %f4, %f5, %f6, %f7}, [%rd1];
  mul.f32 %f0, %f0, 0f40000000;
  mul.f32 %f1, %f1, 0f40000000;
  mul.f32 %f2, %f2, 0f40000000;
  mul.f32 %f3, %f3, 0f40000000;
  mul.f32 %f4, %f4, 0f40000000;
  mul.f32 %f5, %f5, 0f40000000;
  mul.f32 %f6, %f6, 0f40000000;
  mul.f32 %f7, %f7, 0f40000000;
  wmma.store.d.sync.aligned.row.m32n8k16.global.f32 [%rd2], {%f0, %f1, %f2, %f3, %f4, %f5, %f6, %f7};
  ret;
)"));
  std::vector<float> c(256);
  for (int i = 0; i < 256; ++i) c[i] = static_cast<float>(i);  // column-major 32 x 8: (r, col) = col * 32 + r
  auto dc = r.Alloc<float>(256, c);
  auto dd = r.Alloc<float>(256);
  REQUIRE(r.Launch("k", {1, 1, 1}, {32, 1, 1}, dc.device, dd.device).ok());
  const auto out = r.Read(dd);
  for (int row = 0; row < 32; ++row)
    for (int col = 0; col < 8; ++col) CHECK(out[row * 8 + col] == 2.0f * static_cast<float>(col * 32 + row));
}

// ---------------------------------------------------------------- ldmatrix & co
// Shared memory holds 4 matrices of 8 rows; row r of matrix q lives at
// ((q * 8 + (r * 5) % 8) * 32) bytes (rows scattered, 32-byte pitch), element
// (q, r, c) = q << 12 | r << 8 | c. Lane l names row l % 8 of matrix l / 8.
std::string LdmatrixBody(const std::string& inst, int regs) {
  std::string s = R"(
  .reg .b32 %r<40>;
  .reg .b64 %rd<8>;
  .shared .align 16 .b8 smem[1024];
  mov.u32 %r1, %tid.x;
  // fill: thread t writes u16 words t*16 .. t*16+15 of the 512-word window
  mov.u32 %r2, smem;
  mov.u32 %r30, 0;
FILL:
  shl.b32 %r3, %r1, 4;
  add.u32 %r3, %r3, %r30;      // word index w
  shr.u32 %r4, %r3, 4;          // slot (32 bytes = 16 words)
  and.b32 %r5, %r3, 15;         // column within the slot
  shr.u32 %r6, %r4, 3;          // q
  and.b32 %r7, %r4, 7;          // scattered row index s = (r * 5) % 8 -> r = (s * 5) % 8
  mul.lo.u32 %r8, %r7, 5;
  and.b32 %r8, %r8, 7;          // r
  shl.b32 %r9, %r6, 12;
  shl.b32 %r10, %r8, 8;
  or.b32 %r9, %r9, %r10;
  or.b32 %r9, %r9, %r5;
  shl.b32 %r11, %r3, 1;
  add.u32 %r11, %r11, %r2;
  st.shared.u16 [%r11], %r9;
  add.u32 %r30, %r30, 1;
  setp.lt.u32 %p1, %r30, 16;
  @%p1 bra FILL;
  bar.warp.sync -1;
  // row address of lane l: matrix q = l / 8, row r = l % 8 at slot q * 8 + (r * 5) % 8
  shr.u32 %r12, %r1, 3;
  and.b32 %r13, %r1, 7;
  mul.lo.u32 %r14, %r13, 5;
  and.b32 %r14, %r14, 7;
  shl.b32 %r15, %r12, 3;
  add.u32 %r15, %r15, %r14;
  shl.b32 %r15, %r15, 5;
  add.u32 %r16, %r2, %r15;
)";
  s += "  " + inst + " ";
  std::string list = "{";
  for (int i = 0; i < regs; ++i) list += (i ? ", %r" : "%r") + std::to_string(20 + i);
  list += "}";
  s += list + ", [%r16];\n";
  s += "  ld.param.u64 %rd1, [k_out];\n  mul.wide.u32 %rd2, %r1, 4;\n  add.s64 %rd3, %rd1, %rd2;\n";
  for (int i = 0; i < regs; ++i) s += "  st.global.u32 [%rd3+" + std::to_string(i * 128) + "], %r" + std::to_string(20 + i) + ";\n";
  s += "  ret;\n";
  return s;
}

TEST_CASE("ldmatrix .x1/.x2/.x4, with and without .trans: the ISA's row addresses and layout", "[tensor][ldmatrix]") {
  for (int regs : {1, 2, 4})
    for (bool trans : {false, true})
      for (const char* space : {".shared", ".shared::cta", ""}) {
        const std::string inst = std::string("ldmatrix.sync.aligned.m8n8.x") + std::to_string(regs) +
                                 (trans ? ".trans" : "") + space + ".b16";
        INFO(inst);
        std::string body = LdmatrixBody(inst, regs);
        body.insert(body.find("  .shared"), "  .reg .pred %p<2>;\n");
        if (std::string(space).empty()) {
          // Generic: the row address as a 64-bit generic pointer.
          body.replace(body.find(", [%r16];"), 9, ", [%rd6];");
          body.insert(body.find("  " + inst), "  cvt.u64.u32 %rd5, %r16;\n  cvta.shared.u64 %rd6, %rd5;\n");
        }
        KernelRunner r(WrapKernel("k", ".param .u64 k_out", body));
        auto out = r.Alloc<uint32_t>(32 * 4);
        const absl::Status st = r.Launch("k", {1, 1, 1}, {32, 1, 1}, out.device);
        INFO(st.message());
        REQUIRE(st.ok());
        const auto got = r.Read(out);
        for (int q = 0; q < regs; ++q)
          for (int l = 0; l < 32; ++l) {
            // Fragment element (row l/4, col 2(l%4)+h) is memory (row, col), or (col, row) with .trans.
            auto expect = [&](int h) {
              const int fr = l / 4, fc = 2 * (l % 4) + h;
              const int mr = trans ? fc : fr, mc = trans ? fr : fc;
              return static_cast<uint32_t>(q << 12 | mr << 8 | mc);
            };
            INFO("matrix " << q << " lane " << l);
            CHECK(got[q * 32 + l] == (expect(0) | expect(1) << 16));
          }
      }
}

TEST_CASE("stmatrix .x1/.x4 (.trans) is ldmatrix's inverse, movmatrix transposes", "[tensor][ldmatrix]") {
  for (int regs : {1, 4})
    for (bool trans : {false, true}) {
      const std::string x = std::to_string(regs);
      std::string body = R"(
  .reg .b32 %r<40>;
  .reg .b64 %rd<8>;
  .shared .align 16 .b8 smem[512];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, smem;
  // lane l, register q: the 16-bit values q << 12 | l << 4 | h, halves h = 0, 1
  shl.b32 %r3, %r1, 4;
  or.b32 %r4, %r3, 1;
  shl.b32 %r4, %r4, 16;
  or.b32 %r20, %r3, %r4;
  or.b32 %r21, %r20, 0x10001000;
  or.b32 %r22, %r20, 0x20002000;
  or.b32 %r23, %r20, 0x30003000;
  // lane l names row l % 8 of matrix l / 8 at 16 * (l ^ 5)
  xor.b32 %r6, %r1, 5;
  shl.b32 %r6, %r6, 4;
  add.u32 %r7, %r2, %r6;
)";
      std::string list = "{";
      for (int i = 0; i < regs; ++i) list += (i ? ", %r" : "%r") + std::to_string(20 + i);
      list += "}";
      body += "  stmatrix.sync.aligned.m8n8.x" + x + (trans ? ".trans" : "") + ".shared.b16 [%r7], " + list + ";\n";
      body += R"(
  bar.warp.sync -1;
  ld.param.u64 %rd1, [k_out];
  mul.wide.u32 %rd2, %r1, 16;
  add.s64 %rd3, %rd1, %rd2;
  add.u32 %r8, %r2, %r6;
  ld.shared.v4.u32 {%r10, %r11, %r12, %r13}, [%r8];
  st.global.v4.u32 [%rd3], {%r10, %r11, %r12, %r13};
  movmatrix.sync.aligned.m8n8.trans.b16 %r14, %r20;
  mul.wide.u32 %rd4, %r1, 4;
  add.s64 %rd5, %rd1, %rd4;
  st.global.u32 [%rd5+512], %r14;
  ret;
)";
      INFO(body);
      KernelRunner r(WrapKernel("k", ".param .u64 k_out", body, "sm_90"));
      auto out = r.Alloc<uint16_t>(256 + 64);
      const absl::Status st = r.Launch("k", {1, 1, 1}, {32, 1, 1}, out.device);
      INFO(st.message());
      REQUIRE(st.ok());
      const auto got = r.Read(out);
      // The fragment value of (matrix q, lane l, half h).
      auto value = [](int q, int l, int h) { return static_cast<uint16_t>(q << 12 | l << 4 | h); };
      for (int q = 0; q < regs; ++q)
        for (int row = 0; row < 8; ++row) {
          const int lane = q * 8 + row;  // the lane whose address received memory row `row` of matrix q
          for (int col = 0; col < 8; ++col) {
            const int fr = trans ? col : row, fc = trans ? row : col;
            INFO("matrix " << q << " row " << row << " col " << col);
            CHECK(got[lane * 8 + col] == value(q, 4 * fr + fc / 2, fc % 2));
          }
        }
      // movmatrix of register 0: D(r, c) = A(c, r).
      for (int l = 0; l < 32; ++l)
        for (int h = 0; h < 2; ++h) {
          const int dr = l / 4, dc = 2 * (l % 4) + h;
          CHECK(got[256 + 2 * l + h] == value(0, 4 * dc + dr / 2, dr % 2));
        }
    }
}

// ---------------------------------------------------------------- faults, records, refusals
const char* kWmmaLoadBody = R"(
  .reg .b32 %r<10>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [k_a];
  wmma.load.a.sync.aligned.row.m16n16k16.global.f16 {%r1, %r2, %r3, %r4, %r5, %r6, %r7, %r8}, [%rd1];
  ld.param.u64 %rd2, [k_out];
  st.global.u32 [%rd2], %r1;
  ret;
)";

TEST_CASE("wmma.load past the end of device memory faults like ld", "[tensor][fault]") {
  KernelRunner r(WrapKernel("k", ".param .u64 k_a, .param .u64 k_out", kWmmaLoadBody));
  auto out = r.Alloc<uint32_t>(1);
  // The 16 x 16 matrix starts 256 bytes before the end of the arena: rows 8..15 are outside.
  auto* tail = reinterpret_cast<uint16_t*>(r.device().memory().end() - 256);
  const absl::Status st = r.Launch("k", {1, 1, 1}, {32, 1, 1}, tail, out.device);
  REQUIRE_FALSE(st.ok());
  INFO(st.message());
  CHECK_THAT(std::string(st.message()), Catch::Contains("wmma.load") && Catch::Contains("illegal global address"));
  // Misaligned: a row start that is not a multiple of 16 bytes.
  auto big = r.Alloc<uint16_t>(512);
  const absl::Status mis = r.Launch("k", {1, 1, 1}, {32, 1, 1}, big.device + 1, out.device);
  REQUIRE_FALSE(mis.ok());
  CHECK_THAT(std::string(mis.message()), Catch::Contains("misaligned"));
  // A null pointer.
  const absl::Status null = r.Launch("k", {1, 1, 1}, {32, 1, 1}, static_cast<uint16_t*>(nullptr), out.device);
  CHECK_FALSE(null.ok());
}

TEST_CASE("ldmatrix outside the shared window faults", "[tensor][fault]") {
  KernelRunner r(WrapKernel("k", "", R"(
  .reg .b32 %r<8>;
  .shared .align 16 .b8 smem[256];
  mov.u32 %r1, %tid.x;
  shl.b32 %r2, %r1, 4;
  mov.u32 %r3, smem;
  add.u32 %r4, %r3, %r2;
  ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%r5, %r6, %r7, %r1}, [%r4];
  ret;
)"));
  const absl::Status st = r.Launch("k", {1, 1, 1}, {32, 1, 1});
  REQUIRE_FALSE(st.ok());
  CHECK_THAT(std::string(st.message()), Catch::Contains("ldmatrix") && Catch::Contains("shared"));
}

TEST_CASE("a matrix instruction executed by part of a warp stops it", "[tensor][fault]") {
  KernelRunner r(WrapKernel("k", ".param .u64 k_a, .param .u64 k_out", R"(
  .reg .b32 %r<10>;
  .reg .b64 %rd<4>;
  .reg .pred %p<2>;
  ld.param.u64 %rd1, [k_a];
  mov.u32 %r9, %tid.x;
  setp.lt.u32 %p1, %r9, 16;
  @%p1 wmma.load.a.sync.aligned.row.m16n16k16.global.f16 {%r1, %r2, %r3, %r4, %r5, %r6, %r7, %r8}, [%rd1];
  ret;
)"));
  auto a = r.Alloc<uint16_t>(256);
  auto out = r.Alloc<uint32_t>(1);
  const absl::Status st = r.Launch("k", {1, 1, 1}, {32, 1, 1}, a.device, out.device);
  REQUIRE_FALSE(st.ok());
  CHECK_THAT(std::string(st.message()), Catch::Contains("not the whole warp"));
}

TEST_CASE("traced wmma.load / wmma.store / ldmatrix / stmatrix produce read and write records", "[tensor][records]") {
  KernelRunner r(WrapKernel("k", ".param .u64 k_a, .param .u64 k_d", R"(
  .reg .b32 %r<40>;
  .reg .b64 %rd<4>;
  .reg .f32 %f<8>;
  .shared .align 16 .b8 smem[512];
  ld.param.u64 %rd1, [k_a];
  ld.param.u64 %rd2, [k_d];
  wmma.load.a.sync.aligned.row.m16n16k16.global.f16 {%r1, %r2, %r3, %r4, %r5, %r6, %r7, %r8}, [%rd1];
  wmma.load.c.sync.aligned.col.m16n16k16.global.f32 {%f0, %f1, %f2, %f3, %f4, %f5, %f6, %f7}, [%rd2];
  wmma.store.d.sync.aligned.row.m16n16k16.global.f32 [%rd2], {%f0, %f1, %f2, %f3, %f4, %f5, %f6, %f7};
  mov.u32 %r10, %tid.x;
  shl.b32 %r11, %r10, 4;
  mov.u32 %r12, smem;
  add.u32 %r13, %r12, %r11;
  stmatrix.sync.aligned.m8n8.x4.shared.b16 [%r13], {%r1, %r2, %r3, %r4};
  ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%r20, %r21}, [%r13];
  ret;
)", "sm_90"));
  CollectingSink sink;
  r.device().SetSink(&sink);
  auto a = r.Alloc<uint16_t>(256);
  auto d = r.Alloc<float>(256);
  REQUIRE(r.Launch("k", {1, 1, 1}, {32, 1, 1}, a.device, d.device).ok());
  std::vector<protocol::Record> mem;
  for (const auto& rec : sink.Flatten(0))
    if (protocol::IsMemoryOp(protocol::OpOf(rec.header))) mem.push_back(rec);
  // wmma.load.a: each lane reads one 32-byte row (lane l: row l % 16) -> two
  // 16-byte records. load.c .col: lane l holds row l / 2, columns 8 (l % 2)..+7
  // of C (the emulator's mapping), 4-byte elements 64 bytes apart -> 8 records.
  // store .row: the same elements, contiguous -> two 16-byte records.
  // stmatrix .x4: one 16-byte record; ldmatrix .x2: one, 16 lanes.
  REQUIRE(mem.size() == 2 + 8 + 2 + 1 + 1);
  const uint64_t base_a = reinterpret_cast<uint64_t>(a.device), base_d = reinterpret_cast<uint64_t>(d.device);
  for (int i = 0; i < 2; ++i) {
    const protocol::Record& rec = mem[i];
    CHECK(protocol::OpOf(rec.header) == protocol::Op::kRead);
    CHECK(rec.header.access_size == 16);
    CHECK(rec.header.active_mask == kFullMask);
    CHECK(rec.header.site_id != protocol::kNoSite);
    for (int l = 0; l < 32; ++l) CHECK(rec.addr[l] == base_a + (l % 16) * 32 + i * 16);
  }
  for (int i = 0; i < 8; ++i) {
    const protocol::Record& rec = mem[2 + i];
    CHECK(protocol::OpOf(rec.header) == protocol::Op::kRead);
    CHECK(rec.header.access_size == 4);
    for (int l = 0; l < 32; ++l) {
      const int row = l / 2, col = 8 * (l % 2) + i;
      CHECK(rec.addr[l] == base_d + (col * 16 + row) * 4);
    }
  }
  for (int i = 0; i < 2; ++i) {
    const protocol::Record& rec = mem[10 + i];
    CHECK(protocol::OpOf(rec.header) == protocol::Op::kWrite);
    CHECK(rec.header.access_size == 16);
    CHECK(rec.header.site_id != mem[0].header.site_id);
    for (int l = 0; l < 32; ++l) CHECK(rec.addr[l] == base_d + l * 32 + i * 16);
  }
  const protocol::Record& st = mem[12];
  CHECK(protocol::OpOf(st.header) == protocol::Op::kWrite);
  CHECK(protocol::SpaceOf(st.header) == protocol::Space::kShared);
  CHECK(st.header.access_size == 16);
  CHECK(st.header.active_mask == kFullMask);
  const protocol::Record& ld = mem[13];
  CHECK(protocol::OpOf(ld.header) == protocol::Op::kRead);
  CHECK(ld.header.active_mask == 0xffffu);
  CHECK(ld.addr[3] == st.addr[3]);
}

TEST_CASE("tensor-core forms the emulator does not implement are refused at load", "[tensor][refusal]") {
  auto refused = [](const std::string& inst, const std::string& regs, const std::string& target,
                    const std::string& what) {
    const std::string body = "  .reg .b32 %r<20>;\n  .reg .b64 %rd<4>;\n  .reg .f32 %f<10>;\n" + regs + "  " +
                             inst + "\n  ret;\n";
    INFO(inst);
    try {
      KernelRunner r(WrapKernel("k", "", body, target));
      FAIL("loaded");
    } catch (const std::runtime_error& e) {
      CHECK_THAT(std::string(e.what()), Catch::Contains(what));
    }
  };
  refused("wmma.load.a.sync.aligned.row.m8n8k32.s4 {%r1}, [%rd1];", "", "sm_80", "wmma.load.a.sync.aligned.row.m8n8k32.s4: ");
  refused("wmma.mma.xor.popc.sync.aligned.row.col.m8n8k128.s32.b1.b1.s32 {%r1, %r2}, {%r3}, {%r4}, {%r5, %r6};", "",
          "sm_80", "wmma.mma");
  refused("mma.sync.aligned.m16n8k32.row.col.s32.s4.s4.s32 {%r1, %r2, %r3, %r4}, {%r1, %r2}, "
          "{%r5}, {%r6, %r7, %r8, %r9};", "", "sm_90", "mma.sync.aligned.m16n8k32");
  refused("mma.sync.aligned.m16n8k32.row.col.f16.e4m3.e4m3.f32 {%r1, %r2}, {%r1, %r2, %r3, %r4}, "
          "{%r5, %r6}, {%f5, %f6, %f7, %f8};", "", "sm_90", "mma.sync.aligned.m16n8k32");
  refused("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f1, %f2, %f3, %f4}, {%r1, %r2}, {%r5, %r6}, "
          "{%f5, %f6, %f7, %f8};", "", "sm_80", "a: a vector of 4 registers expected");
  refused("mma.sync.aligned.m16n8k16.col.row.f32.f16.f16.f32 {%f1, %f2, %f3, %f4}, {%r1, %r2, %r3, %r4}, {%r5, %r6}, "
          "{%f5, %f6, %f7, %f8};", "", "sm_80", "only .row.col");
  refused("mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f32 {%r1, %r2}, {%r1, %r2, %r3, %r4}, {%r5, %r6}, "
          "{%f5, %f6, %f7, %f8};", "", "sm_80", "mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f32: ");
  refused("ldmatrix.sync.aligned.m16n16.x1.trans.shared.b8 {%r1, %r2}, [%rd1];", "", "sm_90", "ldmatrix");
}

}  // namespace
}  // namespace barracuda::emu::testing
