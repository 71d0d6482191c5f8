#include "ptx_emulator/core/device.h"

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>


namespace barracuda::emu {

absl::StatusOr<std::vector<DelayPoint>> ParseDelays(std::string_view text) {
  std::vector<DelayPoint> out;
  while (!text.empty()) {
    const size_t comma = text.find(',');
    const std::string_view item = text.substr(0, comma);
    text = comma == std::string_view::npos ? std::string_view() : text.substr(comma + 1);
    DelayPoint d;
    const char* p = item.data();
    const char* end = item.data() + item.size();
    auto number = [&](auto* value, bool last) {
      const std::from_chars_result r = std::from_chars(p, end, *value);
      if (r.ec != std::errc() || (last ? r.ptr != end : (r.ptr == end || *r.ptr != ':'))) return false;
      p = last ? r.ptr : r.ptr + 1;
      return true;
    };
    if (!number(&d.launch, false) || !number(&d.block, false) || !number(&d.site, true))
      return absl::InvalidArgumentError("delay point '" + std::string(item) +
                                        "' is not LAUNCH:BLOCK:SITE (three numbers)");
    out.push_back(d);
  }
  return out;
}

std::string DelaysText(std::span<const DelayPoint> delays) {
  std::string out;
  for (const DelayPoint& d : delays) {
    if (!out.empty()) out += ',';
    out += std::to_string(d.launch) + ":" + std::to_string(d.block) + ":" + std::to_string(d.site);
  }
  return out;
}

const char* PolicyName(ScheduleOptions::Policy policy) {
  switch (policy) {
    case ScheduleOptions::Policy::kRoundRobin: return "round-robin";
    case ScheduleOptions::Policy::kRandom: return "random";
    case ScheduleOptions::Policy::kConflictDelay: return "cd";
    case ScheduleOptions::Policy::kPct: return "pct";
  }
  return "round-robin";
}

std::string ScheduleArguments(const ScheduleOptions& options) {
  switch (options.policy) {
    case ScheduleOptions::Policy::kConflictDelay: return "--delays " + DelaysText(options.delays);
    case ScheduleOptions::Policy::kPct:
      return "--pct-depth " + std::to_string(options.pct_depth) +
             (options.pct_horizon != 0 ? " --pct-horizon " + std::to_string(options.pct_horizon) : std::string());
    default: return "";
  }
}

void Device::SetComputeCapability(uint32_t sm) {
  DeviceDescription& d = description_;
  struct Limits {
    uint32_t threads_per_sm, blocks_per_sm, shared_optin_kib, shared_per_sm_kib;
  };
  // CUDA C++ Programming Guide, "Features and Technical Specifications":
  // per compute capability.
  Limits l{};
  if (sm < 75) l = {2048, 32, 96, 96};                   // 7.0, 7.2
  else if (sm < 80) l = {1024, 16, 64, 64};              // 7.5
  else if (sm == 80 || sm == 87) l = {2048, 32, 163, 164};
  else if (sm == 86) l = {1536, 16, 99, 100};
  else if (sm < 90) l = {1536, 24, 99, 100};             // 8.9
  else if (sm < 120) l = {2048, 32, 227, 228};           // 9.0, 10.x, 11.0
  else l = {1536, 32, 99, 100};                          // 12.x
  d.max_threads_per_sm = l.threads_per_sm;
  d.max_blocks_per_sm = l.blocks_per_sm;
  d.shared_per_block_optin = l.shared_optin_kib * 1024;
  d.shared_per_sm = l.shared_per_sm_kib * 1024;
}

uint32_t DeviceDescription::ResidentBlocksPerSm(uint32_t block_threads, uint64_t shared_bytes) const {
  if (block_threads == 0 || block_threads > max_threads_per_block) return 0;
  const uint32_t warp_threads = (block_threads + warp_size - 1) / warp_size * warp_size;
  uint64_t blocks = std::min<uint64_t>(max_blocks_per_sm, max_threads_per_sm / warp_threads);
  if (shared_bytes > shared_per_block_optin) return 0;
  if (shared_bytes > 0) blocks = std::min<uint64_t>(blocks, shared_per_sm / shared_bytes);
  return static_cast<uint32_t>(blocks);
}

Device::Device() : memory_(std::make_unique<DeviceMemory>()) {
  // Environment knobs, read once: the CLI sets them for the app process.
  if (const char* s = std::getenv("BARRACUDA_EMU_WORKERS")) schedule_.workers = static_cast<uint32_t>(std::atoi(s));
  if (const char* s = std::getenv("BARRACUDA_EMU_SEED")) schedule_.seed = std::strtoull(s, nullptr, 10);
  if (const char* s = std::getenv("BARRACUDA_EMU_QUANTUM")) {
    const int q = std::atoi(s);
    if (q > 0) schedule_.quantum = static_cast<uint32_t>(q);
  }
  if (const char* s = std::getenv("BARRACUDA_EMU_POLICY")) {
    for (auto p : {ScheduleOptions::Policy::kRoundRobin, ScheduleOptions::Policy::kRandom,
                   ScheduleOptions::Policy::kConflictDelay, ScheduleOptions::Policy::kPct})
      if (std::strcmp(s, PolicyName(p)) == 0) schedule_.policy = p;
  }
  if (const char* s = std::getenv("BARRACUDA_EMU_DELAYS")) {
    // The CLI checked the syntax; a malformed list here delays nothing.
    if (absl::StatusOr<std::vector<DelayPoint>> d = ParseDelays(s); d.ok()) schedule_.delays = std::move(*d);
  }
  if (const char* s = std::getenv("BARRACUDA_EMU_PCT_DEPTH")) schedule_.pct_depth = static_cast<uint32_t>(std::atoi(s));
  if (const char* s = std::getenv("BARRACUDA_EMU_PCT_HORIZON")) schedule_.pct_horizon = std::strtoull(s, nullptr, 10);
  if (const char* s = std::getenv("BARRACUDA_EMU_CONFLICTS_OUT")) schedule_.conflicts_out = s;
  if (const char* s = std::getenv("BARRACUDA_EMU_KERNEL_TIMEOUT")) schedule_.kernel_timeout_s = std::atof(s);
  if (const char* s = std::getenv("BARRACUDA_EMU_HOLD_ROUNDS")) {
    const int n = std::atoi(s);
    if (n > 0) schedule_.hold_rounds = static_cast<uint32_t>(n);
  }
  if (const char* s = std::getenv("BARRACUDA_EMU_DETERMINISTIC")) schedule_.deterministic = std::atoi(s) != 0;
  if (const char* s = std::getenv("BARRACUDA_EMU_STREAMS")) {
    const int n = std::atoi(s);
    if (n > 0) schedule_.record_streams = static_cast<uint32_t>(n);
  }
  if (const char* s = std::getenv("BARRACUDA_EMU_SLOTS")) {
    const int n = std::atoi(s);
    if (n > 0) schedule_.resident_slots = static_cast<uint32_t>(n);
  }
  if (schedule_.workers == 0) schedule_.workers = std::max(1u, std::thread::hardware_concurrency());
}

Device::~Device() = default;

}  // namespace barracuda::emu
