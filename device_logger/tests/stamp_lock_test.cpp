// The stamp locks (logger_abi.h kRmwLock) on the emulator with several
// workers: every warp's lane 0 takes a ticket with atom.add on one word, so the
// tickets are the word's modification order; the atoms' records, sorted by
// stamp, must hand them out in that order. Without the locks a warp could be
// stamped, lose its turn to another worker's warp, and take a later ticket.
#include <catch2/catch.hpp>
#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "device_logger/gpu_queue.h"
#include "device_logger/logger_abi.h"
#include "device_logger/logger_ptx.h"
#include "device_logger/protocol.h"
#include "ptx_emulator/core/device.h"
#include "ptx_rewriter/instrument/instrument.h"
#include "ptx_rewriter/instrument/merge_logger.h"
#include "ptx_rewriter/parser.h"
#include "ptx_rewriter/printer.h"

namespace barracuda::logger_test {
namespace {

namespace proto = protocol;

// buf[0]: the ticket word; buf[1 + warp]: the ticket warp `warp` drew. The
// membar makes the module one that orders memory (StampLocksNeeded).
constexpr const char* kTickets = R"(.version 8.0
.target sm_75
.address_size 64
.visible .entry tickets(.param .u64 buf)
{
  .reg .pred %p<2>;
  .reg .b32 %r<10>;
  .reg .b64 %rd<10>;
  ld.param.u64 %rd1, [buf];
  cvta.to.global.u64 %rd2, %rd1;
  mov.u32 %r1, %tid.x;
  and.b32 %r2, %r1, 31;
  setp.ne.u32 %p1, %r2, 0;
  @%p1 bra $done;
  atom.global.add.u32 %r3, [%rd2], 1;
  membar.gl;
  mov.u32 %r4, %ctaid.x;
  mov.u32 %r5, %ntid.x;
  shr.u32 %r5, %r5, 5;
  shr.u32 %r6, %r1, 5;
  mad.lo.u32 %r7, %r4, %r5, %r6;
  add.u32 %r7, %r7, 1;
  mul.wide.u32 %rd3, %r7, 4;
  add.s64 %rd4, %rd2, %rd3;
  st.global.u32 [%rd4], %r3;
$done:
  ret;
}
)";

struct Drawn {
  uint64_t stamp;
  uint32_t ticket;
};

// Runs kTickets instrumented, with or without the lock words; the atoms'
// (stamp, ticket) pairs.
std::vector<Drawn> RunTickets(uint32_t blocks, uint32_t threads, uint64_t seed, bool locks) {
  auto module = ptx::ParseModule(kTickets, "tickets.ptx");
  REQUIRE(module.ok());
  ptx::InstrumentOptions options;
  options.prune = false;
  REQUIRE(ptx::InstrumentModule(*module, options).ok());
  auto logger = ptx::ParseModule(device_logger::LoggerPtx(), "logger.ptx");
  REQUIRE(logger.ok());
  REQUIRE(ptx::MergeLogger(*module, *logger).ok());
  const std::string text = ptx::PrintModule(*module);
  REQUIRE(text.find(logger_abi::kRmwLock) != std::string::npos);

  emu::Device device;
  // Warps switch after every instruction, in a seeded random order: the
  // stamp of an unlocked atom and its execution are then often apart.
  device.schedule().seed = seed;
  device.schedule().quantum = 1;
  device.schedule().policy = emu::ScheduleOptions::Policy::kRandom;
  auto unit = device.LoadLinkUnit({emu::PtxSource{text, "tickets.ptx"}});
  REQUIRE(unit.ok());
  constexpr uint32_t kQueues = 4, kSlots = 1u << 14;
  auto set_mem = device.memory().Allocate(gpu_queue::QueueSetBytes(kQueues, kSlots), emu::DeviceMemory::Kind::kDevice);
  REQUIRE(set_mem.ok());
  REQUIRE(gpu_queue::InitQueueSet(*set_mem, kQueues, kSlots));
  auto* set = static_cast<gpu_queue::QueueSet*>(*set_mem);
  if (locks) {
    const uint64_t bytes = uint64_t{gpu_queue::kRmwLocks} * sizeof(uint32_t);
    auto lock_mem = device.memory().Allocate(bytes, emu::DeviceMemory::Kind::kDevice);
    REQUIRE(lock_mem.ok());
    std::memset(*lock_mem, 0, bytes);
    set->rmw_locks = reinterpret_cast<uintptr_t>(*lock_mem);
    set->rmw_lock_count = gpu_queue::kRmwLocks;
  }
  auto var = device.FindVariable(*unit, logger_abi::kQueueSetSymbol);
  REQUIRE(var.ok());
  const uint64_t set_address = reinterpret_cast<uintptr_t>(*set_mem);
  std::memcpy(var->address, &set_address, sizeof set_address);

  const uint32_t warps = blocks * threads / 32;
  auto buf = device.memory().Allocate((1 + warps) * 4, emu::DeviceMemory::Kind::kDevice);
  REQUIRE(buf.ok());
  std::memset(*buf, 0, (1 + warps) * 4);
  auto kernel = device.FindKernel(*unit, "tickets");
  REQUIRE(kernel.ok());
  emu::LaunchConfig config;
  config.grid = {blocks, 1, 1};
  config.block = {threads, 1, 1};
  uint64_t arg = reinterpret_cast<uintptr_t>(*buf);
  void* args[] = {&arg};
  REQUIRE(device.Launch(*kernel, config, args).ok());

  const auto* drawn = static_cast<const uint32_t*>(*buf);
  std::vector<Drawn> out;
  for (uint32_t q = 0; q < kQueues; ++q)
    gpu_queue::Drain(set, q, [&](const proto::Record& r) {
      if (proto::OpOf(r.header) == proto::Op::kAtomic && r.header.warp_id < warps)
        out.push_back({proto::SequenceStamp(r), drawn[1 + r.header.warp_id]});
    });
  return out;
}

TEST_CASE("stamp locks: atomics' stamps follow their location's modification order", "[logger][locks]") {
  const uint32_t blocks = 16, threads = 128;
  // Tickets out of stamp order, per run.
  auto misordered = [&](uint64_t seed, bool locks) {
    std::vector<Drawn> drawn = RunTickets(blocks, threads, seed, locks);
    REQUIRE(drawn.size() == blocks * threads / 32);
    std::sort(drawn.begin(), drawn.end(), [](const Drawn& a, const Drawn& b) { return a.stamp < b.stamp; });
    size_t n = 0;
    for (size_t i = 0; i < drawn.size(); ++i) n += drawn[i].ticket != i;
    return n;
  };
  size_t unlocked = 0;
  for (uint64_t seed = 1; seed <= 4; ++seed) {
    INFO("seed " << seed);
    CHECK(misordered(seed, true) == 0);
    unlocked += misordered(seed, false);
  }
  // The schedule does separate stamps from atoms: without the locks the
  // order breaks (else this test could not fail).
  CHECK(unlocked > 0);
}

}  // namespace
}  // namespace barracuda::logger_test
