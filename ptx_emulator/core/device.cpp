#include "ptx_emulator/core/device.h"

#include <cstdlib>
#include <cstring>
#include <thread>

namespace barracuda::emu {

Device::Device() : memory_(std::make_unique<DeviceMemory>()) {
  // Environment knobs, read once: the CLI sets them for the app process.
  if (const char* s = std::getenv("BARRACUDA_EMU_WORKERS")) schedule_.workers = static_cast<uint32_t>(std::atoi(s));
  if (const char* s = std::getenv("BARRACUDA_EMU_SEED")) schedule_.seed = std::strtoull(s, nullptr, 10);
  if (const char* s = std::getenv("BARRACUDA_EMU_QUANTUM")) {
    const int q = std::atoi(s);
    if (q > 0) schedule_.quantum = static_cast<uint32_t>(q);
  }
  if (const char* s = std::getenv("BARRACUDA_EMU_POLICY")) {
    if (std::strcmp(s, "random") == 0) schedule_.policy = ScheduleOptions::Policy::kRandom;
    if (std::strcmp(s, "round-robin") == 0) schedule_.policy = ScheduleOptions::Policy::kRoundRobin;
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
