// Test harness of the float/conversion families: runs one instruction's
// handler directly on a warp context whose registers the test owns.
//
//   OneInst add("add.rn.f32 %d, %a, %b");   // operand i reads/writes register slot i
//   auto out = add.Run({{a0, b0}, {a1, b1}, ...});  // one row per lane (any count)
//
// A %p... operand is a predicate (slot 0). Each batch of 32 rows runs twice,
// with the full mask (vectorised loop) and with a partial mask (bit-walking
// loop); the harness checks both agree and that inactive lanes are untouched.
#ifndef BARRACUDA_PTX_EMULATOR_TESTS_FLOAT_TEST_HARNESS_H_
#define BARRACUDA_PTX_EMULATOR_TESTS_FLOAT_TEST_HARNESS_H_

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "ptx_emulator/core/handlers.h"
#include "ptx_emulator/core/warp_context.h"
#include "ptx_rewriter/parser.h"

namespace barracuda::emu::testing {

inline uint64_t B(float f) { return std::bit_cast<uint32_t>(f); }
inline uint64_t B(double d) { return std::bit_cast<uint64_t>(d); }
inline float AsF(uint64_t v) { return std::bit_cast<float>(static_cast<uint32_t>(v)); }
inline double AsD(uint64_t v) { return std::bit_cast<double>(v); }
inline std::string Hex(uint64_t v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

// Selection through the two families this harness serves.
inline absl::StatusOr<bool> SelectFloatFamilies(const ptx::Instruction& ir, Inst& inst) {
  auto f = SelectFloatOp(ir, inst);
  if (!f.ok() || *f) return f;
  return SelectConversionOp(ir, inst);
}

class OneInst {
 public:
  explicit OneInst(const std::string& text) {
    auto parsed = ptx::ParseInstruction(text);
    if (!parsed.ok()) throw std::runtime_error(std::string(parsed.status().message()));
    ir_ = *parsed;
    inst_.opcode = ir_.op;
    inst_.info = ir_.info;
    inst_.num_ops = static_cast<uint8_t>(ir_.operands.size());
    for (size_t i = 0; i < ir_.operands.size(); ++i) {
      Opnd& o = inst_.ops[i];
      if (ir_.operands[i].text.starts_with("%p")) {
        o.kind = Opnd::Kind::kPred;
        o.index = 0;
      } else {
        o.kind = Opnd::Kind::kValue;
        o.ref = RegisterRef(static_cast<uint32_t>(i));
      }
    }
    selected_ = SelectFloatFamilies(ir_, inst_);
  }
  const absl::StatusOr<bool>& selected() const { return selected_; }
  bool ok() const { return selected_.ok() && *selected_ && inst_.fn != nullptr; }

  // Runs rows of source values (operands 1..n); returns the destination slot
  // values (or, for a predicate destination, 0/1).
  std::vector<uint64_t> Run(const std::vector<std::vector<uint64_t>>& rows) {
    if (!ok()) throw std::runtime_error("instruction not selected: " + std::string(selected_.status().message()));
    std::vector<uint64_t> out;
    for (size_t base = 0; base < rows.size(); base += kLanes) {
      const uint32_t n = static_cast<uint32_t>(std::min<size_t>(kLanes, rows.size() - base));
      std::vector<uint64_t> full = RunBatch(rows, base, n, kFullMask);
      // Partial mask: every other used lane, then the rest.
      const uint32_t used = n == 32 ? kFullMask : (1u << n) - 1;
      std::vector<uint64_t> even = RunBatch(rows, base, n, used & 0x55555555u);
      std::vector<uint64_t> odd = RunBatch(rows, base, n, used & 0xaaaaaaaau);
      for (uint32_t l = 0; l < n; ++l) {
        const uint64_t partial = (l & 1) ? odd[l] : even[l];
        if (partial != full[l]) {
          FAIL_CHECK("full-mask and partial-mask results differ in lane " << l << ": " << Hex(full[l]) << " vs "
                                                                           << Hex(partial));
        }
        out.push_back(full[l]);
      }
    }
    return out;
  }
  uint64_t Run1(std::vector<uint64_t> row) { return Run({std::move(row)})[0]; }

  // For benchmarks: fill source operand i with `values[i]` in every lane, then
  // RunOnce(exec) calls the handler on that state as the interpreter would.
  void Prepare(const std::vector<uint64_t>& values) {
    bench_regs_.assign(kMaxOperands * kLanes, 0);
    for (uint32_t l = 0; l < kLanes; ++l)
      for (size_t i = 0; i < values.size(); ++i) bench_regs_[(i + 1) * kLanes + l] = values[i] + l;
    bench_ctx_.regs = bench_ctx_.sregs = bench_regs_.data();
    bench_ctx_.consts = bench_regs_.data();
    bench_ctx_.preds = bench_preds_;
  }
  void RunOnce(uint32_t exec) { inst_.fn(inst_, bench_ctx_, exec); }

 private:
  static constexpr uint64_t kPoison = 0xdeadbeefcafef00dull;
  std::vector<uint64_t> RunBatch(const std::vector<std::vector<uint64_t>>& rows, size_t base, uint32_t n,
                                 uint32_t exec) {
    std::vector<uint64_t> regs(kMaxOperands * kLanes, kPoison);
    uint32_t preds[2] = {0x12345678u, 0};
    for (uint32_t l = 0; l < kLanes; ++l) {
      const auto& row = rows[base + (l < n ? l : 0)];
      for (size_t i = 0; i < row.size(); ++i) regs[(i + 1) * kLanes + l] = row[i];
    }
    WarpCtx ctx;
    ctx.regs = regs.data();
    ctx.consts = regs.data();
    ctx.sregs = regs.data();
    ctx.preds = preds;
    ctx.active = ctx.exists = ctx.live = kFullMask;
    inst_.fn(inst_, ctx, exec);
    std::vector<uint64_t> out(kLanes);
    const bool pred = inst_.ops[0].kind == Opnd::Kind::kPred;
    for (uint32_t l = 0; l < kLanes; ++l) {
      const bool active = (exec >> l) & 1;
      if (pred) {
        if (!active && ((preds[0] ^ 0x12345678u) >> l & 1)) FAIL_CHECK("inactive lane " << l << " predicate written");
        out[l] = (preds[0] >> l) & 1;
      } else {
        if (!active && regs[l] != kPoison) FAIL_CHECK("inactive lane " << l << " written");
        out[l] = regs[l];
      }
    }
    return out;
  }

  ptx::Instruction ir_;
  Inst inst_;
  std::vector<uint64_t> bench_regs_;
  uint32_t bench_preds_[2] = {};
  WarpCtx bench_ctx_;
  absl::StatusOr<bool> selected_;
};

// ---- 16-bit float formats: exact decoding and an independent rounding
// reference (libm nearbyint/trunc/floor/ceil at the format's precision).
inline constexpr double kInfinity = std::numeric_limits<double>::infinity();

struct Fmt {
  int precision;  // significant bits
  int emin;       // exponent of the smallest normal
  double max;     // largest finite
  int exp_bits;
  int man_bits;
};
inline constexpr Fmt kF16{11, -14, 65504.0, 5, 10};
inline constexpr Fmt kBf16{8, -126, 0x1.fep127, 8, 7};

// Exact value of a 16-bit pattern, from the IEEE definition.
inline double Decode(uint16_t h, const Fmt& f) {
  const int bias = (1 << (f.exp_bits - 1)) - 1;
  const int e = (h >> f.man_bits) & ((1 << f.exp_bits) - 1);
  const int m = h & ((1 << f.man_bits) - 1);
  const double sign = (h >> 15) ? -1.0 : 1.0;
  if (e == (1 << f.exp_bits) - 1) return m ? std::numeric_limits<double>::quiet_NaN() : sign * kInfinity;
  if (e == 0) return sign * std::ldexp(m, 1 - bias - f.man_bits);
  return sign * std::ldexp(m + (1 << f.man_bits), e - bias - f.man_bits);
}

// x rounded to the format, mode 'n' (nearest even), 'z', 'm', 'p'.
inline double RefRound(double x, const Fmt& f, char mode = 'n') {
  if (std::isnan(x) || std::isinf(x) || x == 0) return x;
  int e;
  std::frexp(x, &e);
  const int lead = std::max(e - 1, f.emin);
  const double scale = std::ldexp(1.0, f.precision - 1 - lead);
  const double y = x * scale;
  const double q = mode == 'n' ? std::nearbyint(y) : mode == 'z' ? std::trunc(y) : mode == 'm' ? std::floor(y) : std::ceil(y);
  double r = q / scale;
  if (r == 0) r = std::copysign(0.0, x);
  if (std::fabs(r) > f.max) {
    const bool to_inf = mode == 'n' || (mode == 'm' && r < 0) || (mode == 'p' && r > 0);
    r = to_inf ? std::copysign(kInfinity, x) : std::copysign(f.max, x);
  }
  return r;
}

// Checks a 16-bit result against an expected value (NaN: any NaN of the
// canonical encoding 0x7fff).
inline void CheckHalf(uint64_t got, double want, const Fmt& f) {
  INFO("got " << Hex(got) << " = " << Decode(static_cast<uint16_t>(got), f) << ", want " << want);
  CHECK((got >> 16) == 0);
  if (std::isnan(want)) {
    CHECK(got == 0x7fff);
    return;
  }
  const double v = Decode(static_cast<uint16_t>(got), f);
  CHECK(v == want);
  CHECK(std::signbit(v) == std::signbit(want));
}

// Bits of a float result compared exactly, NaNs compared by their bits too.
#define CHECK_BITS(got, want)                                                                          \
  do {                                                                                                 \
    INFO("got " << ::barracuda::emu::testing::Hex(got) << " want " << ::barracuda::emu::testing::Hex(want)); \
    CHECK((got) == (want));                                                                            \
  } while (0)

}  // namespace barracuda::emu::testing

#endif  // BARRACUDA_PTX_EMULATOR_TESTS_FLOAT_TEST_HARNESS_H_
