// Tensor-core arithmetic and fragment register packing (tensor_numerics.h).
// Built with -frounding-math (tensor.cmake): the .f64 chain switches the host
// rounding mode, and the compiler must not fold or move the fma calls across
// fesetround.
#include "ptx_emulator/ops/tensor_numerics.h"

#include <bit>
#include <cfenv>
#include <cmath>
#include <cstdint>

#include "ptx_emulator/ops/fp_narrow.h"

namespace barracuda::emu::tensor {

void ReadFragment(const WarpCtx& ctx, const ValueRef* refs, Elem e, uint32_t per_lane, LaneElements& out) {
  const uint32_t bytes = ElemBytes(e);
  if (bytes == 8) {
    for (uint32_t i = 0; i < per_lane; ++i) {
      const uint64_t* r = ctx.Src(refs[i]);
      for (uint32_t l = 0; l < kLanes; ++l) out.bits[l][i] = r[l];
    }
    return;
  }
  const uint32_t per_register = 4 / bytes;
  const uint64_t mask = (uint64_t{1} << (8 * bytes)) - 1;
  for (uint32_t i = 0; i < per_lane; ++i) {
    const uint64_t* r = ctx.Src(refs[i / per_register]);
    const uint32_t shift = 8 * bytes * (i % per_register);
    for (uint32_t l = 0; l < kLanes; ++l) out.bits[l][i] = (r[l] >> shift) & mask;
  }
}

void WriteFragment(WarpCtx& ctx, const ValueRef* refs, Elem e, uint32_t per_lane, const LaneElements& in,
                   uint32_t exec) {
  const uint32_t bytes = ElemBytes(e);
  if (bytes == 8) {
    for (uint32_t i = 0; i < per_lane; ++i) {
      uint64_t* r = ctx.Dst(refs[i]);
      for (uint32_t m = exec; m; m &= m - 1) r[Lane(m)] = in.bits[Lane(m)][i];
    }
    return;
  }
  const uint32_t per_register = 4 / bytes;
  const uint32_t registers = per_lane / per_register;
  for (uint32_t reg = 0; reg < registers; ++reg) {
    uint64_t* r = ctx.Dst(refs[reg]);
    for (uint32_t m = exec; m; m &= m - 1) {
      const uint32_t l = Lane(m);
      uint32_t word = 0;
      for (uint32_t k = 0; k < per_register; ++k)
        word |= static_cast<uint32_t>(in.bits[l][reg * per_register + k]) << (8 * bytes * k);
      r[l] = word;
    }
  }
}

namespace {

// A multiplicand or accumulator element as an exact double.
double ToDouble(Elem e, uint64_t bits) {
  switch (e) {
    case Elem::kF16: return fp::F16ToF32(static_cast<uint16_t>(bits));
    case Elem::kBf16: return fp::Bf16ToF32(static_cast<uint16_t>(bits));
    case Elem::kTf32: {
      const auto b = static_cast<uint32_t>(bits);
      // The low 13 fraction bits are not part of a tf32; a NaN whose payload
      // lies only there stays a NaN (not an infinity).
      if ((b & 0x7f800000u) == 0x7f800000u && (b & 0x7fffffu) != 0) return std::nan("");
      return std::bit_cast<float>(b & 0xffffe000u);
    }
    case Elem::kF32: return std::bit_cast<float>(static_cast<uint32_t>(bits));
    case Elem::kF64: return std::bit_cast<double>(bits);
    case Elem::kE4m3: return fp::Narrow8ToF32(static_cast<uint8_t>(bits), fp::Narrow8::kE4m3);
    case Elem::kE5m2: return fp::Narrow8ToF32(static_cast<uint8_t>(bits), fp::Narrow8::kE5m2);
    default: return 0;
  }
}

int64_t ToInt(Elem e, uint64_t bits) {
  switch (e) {
    case Elem::kS8: return static_cast<int8_t>(bits);
    case Elem::kU8: return static_cast<uint8_t>(bits);
    case Elem::kS32: return static_cast<int32_t>(bits);
    default: return 0;
  }
}

uint64_t FromDouble(Elem e, double v) {
  switch (e) {
    case Elem::kF16: return fp::RoundDouble<fp::F16Format>(v, 0.0, fp::RoundMode::kRn, fp::kCanonicalNanF16);
    case Elem::kF32: return fp::RoundDouble<fp::F32Format>(v, 0.0, fp::RoundMode::kRn, fp::kCanonicalNanF32);
    default: return 0;
  }
}

int FeMode(fp::RoundMode r) {
  switch (r) {
    case fp::RoundMode::kRz: return FE_TOWARDZERO;
    case fp::RoundMode::kRm: return FE_DOWNWARD;
    case fp::RoundMode::kRp: return FE_UPWARD;
    default: return FE_TONEAREST;
  }
}

void MultiplyF64(const MmaMath& math, uint32_t m, uint32_t n, uint32_t k, const uint64_t* a, const uint64_t* b,
                 const uint64_t* c, uint64_t* d) {
  const int old = std::fegetround();
  std::fesetround(FeMode(math.rounding));
  for (uint32_t i = 0; i < m; ++i) {
    for (uint32_t j = 0; j < n; ++j) {
      volatile double acc = std::bit_cast<double>(c[i * n + j]);
      for (uint32_t kk = 0; kk < k; ++kk)
        acc = std::fma(std::bit_cast<double>(a[i * k + kk]), std::bit_cast<double>(b[kk * n + j]), acc);
      d[i * n + j] = std::bit_cast<uint64_t>(static_cast<double>(acc));
    }
  }
  std::fesetround(old);
}

}  // namespace

void Multiply(const MmaMath& math, uint32_t m, uint32_t n, uint32_t k, const uint64_t* a, const uint64_t* b,
              const uint64_t* c, uint64_t* d) {
  if (math.d == Elem::kF64) {
    MultiplyF64(math, m, n, k, a, b, c, d);
    return;
  }
  if (IsIntElem(math.a)) {
    for (uint32_t i = 0; i < m; ++i) {
      for (uint32_t j = 0; j < n; ++j) {
        int64_t acc = ToInt(math.c, c[i * n + j]);
        for (uint32_t kk = 0; kk < k; ++kk) acc += ToInt(math.a, a[i * k + kk]) * ToInt(math.b, b[kk * n + j]);
        if (math.satfinite) {
          acc = acc > INT32_MAX ? INT32_MAX : acc < INT32_MIN ? INT32_MIN : acc;
        }
        d[i * n + j] = static_cast<uint32_t>(acc);  // wraps without .satfinite
      }
    }
    return;
  }
  // Widen every operand once (a K-loop over bits would convert each a[i][kk]
  // N times).
  double av[32 * 16], bv[16 * 32];
  for (uint32_t x = 0; x < m * k; ++x) av[x] = ToDouble(math.a, a[x]);
  for (uint32_t x = 0; x < k * n; ++x) bv[x] = ToDouble(math.b, b[x]);
  for (uint32_t i = 0; i < m; ++i) {
    for (uint32_t j = 0; j < n; ++j) {
      double acc = ToDouble(math.c, c[i * n + j]);
      for (uint32_t kk = 0; kk < k; ++kk) acc += av[i * k + kk] * bv[kk * n + j];
      d[i * n + j] = FromDouble(math.d, acc);
    }
  }
}

}  // namespace barracuda::emu::tensor
