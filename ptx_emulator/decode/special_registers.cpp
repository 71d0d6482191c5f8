#include "ptx_emulator/decode/special_registers.h"

#include <charconv>
#include <cstdint>

namespace barracuda::emu {
namespace {

struct Vec3 {
  std::string_view base;
  SpecialReg x;
};
// Three-component registers: x, y, z follow each other in SpecialReg.
constexpr Vec3 kVectors[] = {
    {"%tid", SpecialReg::kTidX},
    {"%ntid", SpecialReg::kNtidX},
    {"%ctaid", SpecialReg::kCtaidX},
    {"%nctaid", SpecialReg::kNctaidX},
    {"%clusterid", SpecialReg::kClusterIdX},
    {"%nclusterid", SpecialReg::kNclusterIdX},
    {"%cluster_ctaid", SpecialReg::kClusterCtaidX},
    {"%cluster_nctaid", SpecialReg::kClusterNctaidX},
};

struct Scalar {
  std::string_view name;
  SpecialReg reg;
};
constexpr Scalar kScalars[] = {
    {"%laneid", SpecialReg::kLaneId},
    {"%warpid", SpecialReg::kWarpId},
    {"%nwarpid", SpecialReg::kNwarpId},
    {"%smid", SpecialReg::kSmId},
    {"%nsmid", SpecialReg::kNsmId},
    {"%gridid", SpecialReg::kGridId},
    {"%lanemask_eq", SpecialReg::kLanemaskEq},
    {"%lanemask_le", SpecialReg::kLanemaskLe},
    {"%lanemask_lt", SpecialReg::kLanemaskLt},
    {"%lanemask_ge", SpecialReg::kLanemaskGe},
    {"%lanemask_gt", SpecialReg::kLanemaskGt},
    {"%clock", SpecialReg::kClock},
    {"%clock64", SpecialReg::kClock64},
    {"%globaltimer", SpecialReg::kGlobalTimer},
    {"%globaltimer_lo", SpecialReg::kGlobalTimerLo},
    {"%globaltimer_hi", SpecialReg::kGlobalTimerHi},
    {"%cluster_ctarank", SpecialReg::kClusterCtarank},
    {"%cluster_nctarank", SpecialReg::kClusterNctarank},
    {"%is_explicit_cluster", SpecialReg::kIsExplicitCluster},
    {"%dynamic_smem_size", SpecialReg::kDynamicSmemSize},
    {"%total_smem_size", SpecialReg::kTotalSmemSize},
    {"%aggr_smem_size", SpecialReg::kAggrSmemSize},
};

}  // namespace

std::optional<uint64_t> PredefinedConstant(std::string_view name) {
  if (name == "WARP_SZ") return kLanes;
  return std::nullopt;
}

std::optional<SpecialReg> LookupSpecialRegister(std::string_view name) {
  if (const size_t dot = name.find('.'); dot != std::string_view::npos) {
    const std::string_view base = name.substr(0, dot), comp = name.substr(dot + 1);
    if (comp.size() != 1 || comp[0] < 'x' || comp[0] > 'z') return std::nullopt;
    for (const Vec3& v : kVectors)
      if (v.base == base) return static_cast<SpecialReg>(static_cast<uint32_t>(v.x) + (comp[0] - 'x'));
    return std::nullopt;
  }
  for (const Scalar& s : kScalars)
    if (s.name == name) return s.reg;
  constexpr std::string_view kEnv = "%envreg";
  if (name.substr(0, kEnv.size()) == kEnv && name.size() > kEnv.size() && name.size() <= kEnv.size() + 2) {
    uint32_t n = 0;
    const char* first = name.data() + kEnv.size();
    const char* last = name.data() + name.size();
    auto [p, ec] = std::from_chars(first, last, n);
    if (ec == std::errc() && p == last && n < 32 && !(name.size() == kEnv.size() + 2 && *first == '0'))
      return static_cast<SpecialReg>(static_cast<uint32_t>(SpecialReg::kEnvReg0) + n);
  }
  return std::nullopt;
}

bool IsDynamicSpecialRegister(SpecialReg r) {
  switch (r) {
    case SpecialReg::kClock:
    case SpecialReg::kClock64:
    case SpecialReg::kGlobalTimer:
    case SpecialReg::kGlobalTimerLo:
    case SpecialReg::kGlobalTimerHi:
      return true;
    default:
      return false;
  }
}

}  // namespace barracuda::emu
