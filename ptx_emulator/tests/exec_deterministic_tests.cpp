// Deterministic rounds (exec/deterministic_rounds.cpp): the same launch gives
// the same results and the same record stream, stamps included, with 1, 2 and
// 4 workers; weak global stores become visible to other blocks only between
// rounds, in slot order; a release/acquire hand-off and a spin-wait across
// blocks still work. PhaseStoreBuffer (core/phase_store_buffer.h) on its own.
#include <catch2/catch.hpp>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <sstream>
#include <unistd.h>
#include <memory>
#include <string>
#include <vector>

#include "ptx_emulator/core/phase_store_buffer.h"
#include "ptx_emulator/core/record_sink.h"
#include "ptx_emulator/tests/kernel_runner.h"

namespace barracuda::emu {
namespace {

using testing::KernelRunner;
using testing::WrapKernel;

// Every thread takes a ticket from a global counter and stores it; thread 0 of
// every block also stores its block id into one word (a data race between
// blocks) and adds its ticket to a block-shared sum with a shared atomic.
const std::string kTickets = WrapKernel("tickets", ".param .u64 counter, .param .u64 out, .param .u64 last", R"(
  .reg .b32 %r<8>;
  .reg .b64 %rd<8>;
  .reg .pred %p<2>;
  .shared .u32 sum;
  ld.param.u64 %rd1, [counter];
  ld.param.u64 %rd2, [out];
  ld.param.u64 %rd3, [last];
  mov.u32 %r1, %ctaid.x;
  mov.u32 %r2, %ntid.x;
  mov.u32 %r3, %tid.x;
  mad.lo.u32 %r4, %r1, %r2, %r3;
  atom.global.add.u32 %r5, [%rd1], 1;
  atom.shared.add.u32 %r6, [sum], %r5;
  mul.wide.u32 %rd4, %r4, 4;
  add.u64 %rd5, %rd2, %rd4;
  st.global.u32 [%rd5], %r5;
  setp.ne.u32 %p1, %r3, 0;
  @%p1 bra done;
  st.global.u32 [%rd3], %r1;
done:
  ret;
)");

// Device addresses as offsets into the arena: the arena's own address is the
// same on every run only where the preferred range is free (not under
// sanitizers, for instance).
std::vector<protocol::Record> Relative(std::vector<protocol::Record> records, uint64_t begin, uint64_t end) {
  for (protocol::Record& r : records) {
    if (!protocol::IsMemoryOp(protocol::OpOf(r.header))) continue;
    for (uint32_t m = r.header.active_mask; m; m &= m - 1) {
      uint64_t& a = r.addr[__builtin_ctz(m)];
      if (a >= begin && a < end) a -= begin;
    }
  }
  return records;
}

struct TicketRun {
  std::vector<uint32_t> out;
  uint32_t last = 0;
  std::vector<protocol::Record> records;
  size_t rings = 0;
};

TicketRun RunTickets(uint32_t workers, ScheduleOptions::Policy policy = ScheduleOptions::Policy::kRoundRobin,
                     uint64_t seed = 0, uint32_t streams = 1,
                     const std::function<void(ScheduleOptions&)>& tweak = nullptr) {
  auto device = std::make_unique<Device>();
  if (tweak) tweak(device->schedule());
  device->schedule().record_streams = streams;
  device->schedule().workers = workers;
  device->schedule().policy = policy;
  device->schedule().seed = seed;
  device->schedule().deterministic = true;
  device->schedule().resident_slots = 8;
  CollectingSink sink;
  device->SetSink(&sink);
  KernelRunner r(kTickets, std::move(device));
  constexpr uint32_t kBlocks = 40, kThreads = 96;
  auto counter = r.Alloc<uint32_t>(1, {0});
  auto out = r.Alloc<uint32_t>(kBlocks * kThreads);
  auto last = r.Alloc<uint32_t>(1, {0xffffffffu});
  REQUIRE(r.Launch("tickets", {kBlocks, 1, 1}, {kThreads, 1, 1}, counter.device, out.device, last.device).ok());
  TicketRun run;
  run.out = r.Read(out);
  run.last = r.Read(last)[0];
  run.records = Relative(sink.Flatten(0), r.device().memory().begin(), r.device().memory().end());
  run.rings = sink.launches[0].rings.size();
  r.device().SetSink(nullptr);
  return run;
}

bool SameRecords(const std::vector<protocol::Record>& a, const std::vector<protocol::Record>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (std::memcmp(&a[i], &b[i], sizeof(protocol::Record)) == 0) continue;
    const auto* x = reinterpret_cast<const uint8_t*>(&a[i]);
    const auto* y = reinterpret_cast<const uint8_t*>(&b[i]);
    size_t at = 0;
    while (x[at] == y[at]) ++at;
    UNSCOPED_INFO("record " << i << " of " << a.size() << " (op " << int(a[i].header.op) << ") differs at byte "
                            << at);
    return false;
  }
  return true;
}

TEST_CASE("deterministic rounds: results and records do not depend on the worker count", "[exec][determinism]") {
  const TicketRun one = RunTickets(1);
  CHECK(one.rings == 1);  // one stream: the analysis order is fixed too
  // Every ticket handed out once.
  std::vector<uint32_t> sorted = one.out;
  std::sort(sorted.begin(), sorted.end());
  for (uint32_t i = 0; i < sorted.size(); ++i) REQUIRE(sorted[i] == i);
  CHECK(one.last < 40);
  uint64_t stamped = 0, previous = 0;
  bool increasing = true;
  for (const protocol::Record& rec : one.records) {
    const uint64_t s = protocol::SequenceStamp(rec);
    if (s == 0) continue;
    ++stamped;
    increasing = increasing && s > previous;
    previous = s;
  }
  CHECK(stamped > 0);
  CHECK(increasing);  // one stream in stamp order
  for (uint32_t workers : {2u, 4u, 2u}) {
    INFO("workers " << workers);
    const TicketRun other = RunTickets(workers);
    CHECK(other.out == one.out);
    CHECK(other.last == one.last);
    CHECK(other.rings == 1);
    CHECK(SameRecords(other.records, one.records));
  }
}

TEST_CASE("deterministic rounds: the random policy's seed decides the order of atomics", "[exec][determinism]") {
  using Policy = ScheduleOptions::Policy;
  const TicketRun a = RunTickets(1, Policy::kRandom, 7);
  const TicketRun b = RunTickets(2, Policy::kRandom, 7);
  const TicketRun c = RunTickets(2, Policy::kRandom, 8);
  const TicketRun rr = RunTickets(2);
  CHECK(a.out == b.out);  // a seed replays exactly, whatever the workers
  CHECK(SameRecords(a.records, b.records));
  CHECK(a.out != c.out);  // another seed, another order of the tickets
  CHECK(a.out != rr.out);
}

TEST_CASE("deterministic rounds: several record streams carry the same records", "[exec][determinism]") {
  const TicketRun one = RunTickets(2);
  const TicketRun three = RunTickets(2, ScheduleOptions::Policy::kRoundRobin, 0, 3);
  CHECK(three.rings == 3);
  CHECK(three.out == one.out);  // the execution does not change, only where records go
  CHECK(three.records.size() == one.records.size());
}

// Block 0 writes data with plain stores and publishes it with st.release;
// block 1 spins on ld.acquire and then reads the data (a spin-wait across
// blocks: each iteration waits for a serial phase).
const std::string kHandoff = WrapKernel("handoff", ".param .u64 data, .param .u64 flag, .param .u64 seen", R"(
  .reg .b32 %r<8>;
  .reg .b64 %rd<8>;
  .reg .pred %p<3>;
  ld.param.u64 %rd1, [data];
  ld.param.u64 %rd2, [flag];
  ld.param.u64 %rd3, [seen];
  mov.u32 %r1, %ctaid.x;
  mov.u32 %r3, %tid.x;
  mul.wide.u32 %rd4, %r3, 4;
  add.u64 %rd5, %rd1, %rd4;
  add.u64 %rd6, %rd3, %rd4;
  setp.ne.u32 %p1, %r1, 0;
  @%p1 bra consumer;
  add.u32 %r4, %r3, 1000;
  st.global.u32 [%rd5], %r4;
  bar.sync 0;
  setp.ne.u32 %p2, %r3, 0;
  @%p2 bra done;
  st.release.gpu.global.u32 [%rd2], 1;
  bra done;
consumer:
  ld.acquire.gpu.global.u32 %r5, [%rd2];
  setp.eq.u32 %p2, %r5, 0;
  @%p2 bra consumer;
  ld.global.u32 %r6, [%rd5];
  st.global.u32 [%rd6], %r6;
done:
  ret;
)");

TEST_CASE("deterministic rounds: a release/acquire hand-off and a spin-wait between blocks", "[exec][determinism]") {
  for (uint32_t workers : {1u, 2u}) {
    INFO("workers " << workers);
    auto device = std::make_unique<Device>();
    device->schedule().workers = workers;
    KernelRunner r(kHandoff, std::move(device));
    auto data = r.Alloc<uint32_t>(64);
    auto flag = r.Alloc<uint32_t>(1, {0});
    auto seen = r.Alloc<uint32_t>(64);
    REQUIRE(r.Launch("handoff", {2, 1, 1}, {64, 1, 1}, data.device, flag.device, seen.device).ok());
    const std::vector<uint32_t> got = r.Read(seen);
    for (uint32_t t = 0; t < 64; ++t) REQUIRE(got[t] == t + 1000);
  }
}

// Every block but the last waits for the last one: thread 0 spins on a
// volatile load of `flag` until the last block stores 1, then the block
// stores its id + 1. The last block starts only once enough slots are in use.
const std::string kWaitForLast = WrapKernel("wait_for_last", ".param .u64 flag, .param .u64 out", R"(
  .reg .b32 %r<8>;
  .reg .b64 %rd<8>;
  .reg .pred %p<4>;
  ld.param.u64 %rd1, [flag];
  ld.param.u64 %rd2, [out];
  mov.u32 %r1, %ctaid.x;
  mov.u32 %r2, %nctaid.x;
  mov.u32 %r3, %tid.x;
  setp.ne.u32 %p1, %r3, 0;
  @%p1 bra done;
  add.u32 %r4, %r1, 1;
  setp.eq.u32 %p2, %r4, %r2;
  @%p2 bra last;
spin:
  ld.volatile.global.u32 %r5, [%rd1];
  setp.eq.u32 %p3, %r5, 0;
  @%p3 bra spin;
  bra record;
last:
  st.volatile.global.u32 [%rd1], 1;
record:
  mul.wide.u32 %rd3, %r1, 4;
  add.u64 %rd4, %rd2, %rd3;
  st.global.u32 [%rd4], %r4;
done:
  ret;
)");

// Blocks that spin on a block not yet resident get more slots, up to what the
// emulated GPU holds (16 SMs x 32 blocks of 32 threads here): the launch
// finishes, the same way with 1 and 2 workers.
TEST_CASE("deterministic rounds: spinning blocks make room for the block they wait for", "[exec][determinism]") {
  std::vector<protocol::Record> first;
  for (uint32_t workers : {1u, 2u}) {
    INFO("workers " << workers);
    auto device = std::make_unique<Device>();
    device->schedule().workers = workers;
    device->schedule().resident_slots = 8;
    device->schedule().kernel_timeout_s = 60;  // a regression fails instead of hanging
    CollectingSink sink;
    device->SetSink(&sink);
    KernelRunner r(kWaitForLast, std::move(device));
    constexpr uint32_t kBlocks = 100;
    auto flag = r.Alloc<uint32_t>(1, {0});
    auto out = r.Alloc<uint32_t>(kBlocks);
    const absl::Status s = r.Launch("wait_for_last", {kBlocks, 1, 1}, {32, 1, 1}, flag.device, out.device);
    INFO(s.message());
    REQUIRE(s.ok());
    const std::vector<uint32_t> got = r.Read(out);
    for (uint32_t b = 0; b < kBlocks; ++b) REQUIRE(got[b] == b + 1);
    std::vector<protocol::Record> records =
        Relative(sink.Flatten(0), r.device().memory().begin(), r.device().memory().end());
    r.device().SetSink(nullptr);
    if (workers == 1) first = std::move(records);
    else CHECK(SameRecords(first, records));
  }
}

// A grid larger than what the GPU holds hangs there too: the timeout says so.
TEST_CASE("deterministic rounds: a grid that does not fit times out saying why", "[exec][determinism]") {
  auto device = std::make_unique<Device>();
  device->schedule().workers = 1;
  device->schedule().kernel_timeout_s = 0.5;
  KernelRunner r(kWaitForLast, std::move(device));
  // 16 SMs x 2 blocks of 1024 threads: 32 resident, the 33rd never starts.
  constexpr uint32_t kBlocks = 33;
  auto flag = r.Alloc<uint32_t>(1, {0});
  auto out = r.Alloc<uint32_t>(kBlocks);
  const absl::Status s = r.Launch("wait_for_last", {kBlocks, 1, 1}, {1024, 1, 1}, flag.device, out.device);
  REQUIRE_FALSE(s.ok());
  INFO(s.message());
  CHECK_THAT(std::string(s.message()), Catch::Contains("ran longer than 0.5 s"));
  CHECK_THAT(std::string(s.message()),
             Catch::Contains("1 of the grid's 33 blocks have not started: the emulated GPU (16 SMs) holds 32 of them"));
}

// 20 generic atom.add per thread on one word, then a plain store of the last
// value: the word is in shared memory (param 0) or global memory (param 1).
const std::string kGenericAtomics =
    WrapKernel("generic_atomics", ".param .u64 out, .param .u32 global_word", R"(
  .reg .b32 %r<8>;
  .reg .b64 %rd<8>;
  .reg .pred %p<3>;
  .shared .align 4 .u32 word;
  ld.param.u64 %rd1, [out];
  ld.param.u32 %r1, [global_word];
  mov.u64 %rd2, word;
  cvta.shared.u64 %rd3, %rd2;
  setp.ne.u32 %p1, %r1, 0;
  @%p1 mov.u64 %rd3, %rd1;
  mov.u32 %r2, 0;
loop:
  atom.add.u32 %r3, [%rd3], 1;
  add.u32 %r2, %r2, 1;
  setp.lt.u32 %p2, %r2, 20;
  @%p2 bra loop;
  mov.u32 %r4, %tid.x;
  setp.ne.u32 %p2, %r4, 0;
  @%p2 bra done;
  st.global.u32 [%rd1+4], %r3;
done:
  ret;
)");

TEST_CASE("deterministic rounds: generic atomics on shared memory need no serial phase", "[exec][determinism]") {
  for (uint32_t global : {0u, 1u}) {
    INFO("global word " << global);
    KernelRunner r(kGenericAtomics);
    auto out = r.Alloc<uint32_t>(2, {0, 0});
    const uint64_t serial_before = r.device().statistics().serial_instructions;
    REQUIRE(r.Launch("generic_atomics", {2, 1, 1}, {64, 1, 1}, out.device, global).ok());
    const uint64_t serial = r.device().statistics().serial_instructions - serial_before;
    // 2 blocks x 2 warps x 20 atomics go through the serial phase only when global.
    CHECK(serial == (global != 0 ? 2u * 2u * 20u : 0u));
    if (global != 0) CHECK(r.Read(out)[0] == 2u * 64u * 20u);
  }
}

// A 2-page fake device region, page aligned.
struct FakeDevice {
  static constexpr size_t kBytes = 2 * PhaseStoreBuffer::kPageSize;
  uint8_t* base = static_cast<uint8_t*>(std::aligned_alloc(PhaseStoreBuffer::kPageSize, kBytes));
  FakeDevice() { std::memset(base, 0, kBytes); }
  ~FakeDevice() { std::free(base); }
  uint64_t begin() const { return reinterpret_cast<uint64_t>(base); }
  uint64_t end() const { return begin() + kBytes; }
};

uint8_t* One(PhaseStoreBuffer& b, uint8_t* address, bool write, uint32_t size = 1) {
  uint8_t* ptr[32] = {};
  ptr[0] = address;
  b.Redirect(ptr, 1u, write, size);
  return ptr[0];
}

TEST_CASE("phase store buffer: private until committed and in commit order", "[exec][determinism]") {
  FakeDevice dev;
  PhaseStoreBuffer a(dev.begin(), dev.end()), b(dev.begin(), dev.end());
  // Slot a changes byte 0 of a word, slot b byte 1 of the same word.
  *One(a, dev.base, true) = 5;
  *One(b, dev.base + 1, true) = 7;
  CHECK(dev.base[0] == 0);
  CHECK(dev.base[1] == 0);
  CHECK(*One(a, dev.base, false) == 5);      // a reads its own store
  CHECK(*One(b, dev.base, false) == 0);      // b does not see a's
  CHECK(One(b, dev.base + 4096, false) == dev.base + 4096);  // a page b never stored to: device memory
  CHECK(a.dirty_pages() == 1);
  a.Commit();
  b.Commit();
  CHECK(dev.base[0] == 5);
  CHECK(dev.base[1] == 7);
  CHECK(a.dirty_pages() == 0);
  // Both store to one byte (a data race): the later commit wins.
  *One(a, dev.base + 100, true) = 1;
  *One(b, dev.base + 100, true) = 2;
  a.Commit();
  b.Commit();
  CHECK(dev.base[100] == 2);
  // After a commit the buffer starts over: loads see device memory again.
  CHECK(One(a, dev.base + 100, false) == dev.base + 100);
  // Lanes on two pages and outside the region.
  uint8_t outside = 9;
  uint8_t* ptr[32] = {};
  ptr[0] = dev.base + 8;
  ptr[1] = dev.base + 4096 + 8;
  ptr[2] = &outside;
  a.Redirect(ptr, 0b111u, true, 1);
  CHECK(ptr[0] != dev.base + 8);
  CHECK(ptr[1] != dev.base + 4096 + 8);
  CHECK(ptr[2] == &outside);
  *ptr[1] = 3;
  CHECK(dev.base[4096 + 8] == 0);
  a.Commit();
  CHECK(dev.base[4096 + 8] == 3);
}


TEST_CASE("phase store buffer: racing word stores commit whole and never tear", "[exec][determinism]") {
  FakeDevice dev;
  const uint32_t old_value = 0x11223344u, a_value = 0xAA223344u, b_value = 0x112233BBu;
  std::memcpy(dev.base + 64, &old_value, 4);
  PhaseStoreBuffer a(dev.begin(), dev.end()), b(dev.begin(), dev.end());
  // Each store changes one byte of the word, a different one.
  std::memcpy(One(a, dev.base + 64, true, 4), &a_value, 4);
  std::memcpy(One(b, dev.base + 64, true, 4), &b_value, 4);
  a.Commit();
  b.Commit();
  uint32_t got = 0;
  std::memcpy(&got, dev.base + 64, 4);
  CHECK(got == b_value);  // the later slot's store, whole: not 0xAA2233BB
  // A store of the value memory already holds still wins over an earlier slot's.
  std::memcpy(One(a, dev.base + 64, true, 4), &a_value, 4);
  std::memcpy(One(b, dev.base + 64, true, 4), &b_value, 4);
  a.Commit();
  b.Commit();
  std::memcpy(&got, dev.base + 64, 4);
  CHECK(got == b_value);
  // Byte stores to different bytes of one word still both land.
  *One(a, dev.base + 128, true, 1) = 1;
  *One(b, dev.base + 129, true, 1) = 2;
  a.Commit();
  b.Commit();
  CHECK(dev.base[128] == 1);
  CHECK(dev.base[129] == 2);
}

// Schedule search (exec/serial_phase.h): the conflict points a run records,
// cd's delays at them and pct's change points, each replayed exactly with any
// number of workers.
TEST_CASE("serial phase: conflict recording, cd delays and pct change points", "[exec][determinism][schedules]") {
  using Policy = ScheduleOptions::Policy;
  const std::string file = "/tmp/barracuda_conflicts_" + std::to_string(getpid());
  std::remove(file.c_str());
  const TicketRun rr = RunTickets(2, Policy::kRoundRobin, 0, 1, [&](ScheduleOptions& o) { o.conflicts_out = file; });
  std::ifstream in(file);
  std::vector<std::string> conflicts;
  std::string steps;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("conflict ", 0) == 0)
      conflicts.push_back(line);
    else
      steps = line;
  }
  std::remove(file.c_str());
  // Every block's ticket atomic hits the one counter: one point per block, in block order.
  REQUIRE(conflicts.size() == 40);
  CHECK(conflicts[0].rfind("conflict 1 0 ", 0) == 0);
  CHECK(conflicts[39].rfind("conflict 1 39 ", 0) == 0);
  CHECK(steps == "steps 120");  // 40 blocks x 3 warps, one atomic each
  const uint32_t site = static_cast<uint32_t>(std::stoul(conflicts[0].substr(conflicts[0].rfind(' ') + 1)));
  CHECK(rr.out[0] == 0);  // block 0's first warp takes the first tickets

  // cd: block 0's atomic held back: the other resident blocks take tickets first.
  auto hold_block0 = [&](ScheduleOptions& o) { o.delays = {{1, 0, site}}; };
  const TicketRun cd = RunTickets(1, Policy::kConflictDelay, 0, 1, hold_block0);
  CHECK(cd.out[0] != 0);
  const TicketRun cd4 = RunTickets(4, Policy::kConflictDelay, 0, 1, hold_block0);
  CHECK(cd4.out == cd.out);
  CHECK(SameRecords(cd4.records, cd.records));
  // A delay point of another launch changes nothing.
  const TicketRun other = RunTickets(2, Policy::kConflictDelay, 0, 1, [&](ScheduleOptions& o) {
    o.delays = {{2, 0, site}};
  });
  CHECK(other.out == rr.out);

  // pct: priorities and change points from the seed; replays with any workers.
  auto pct = [](ScheduleOptions& o) {
    o.pct_depth = 3;
    o.pct_horizon = 120;
  };
  const TicketRun p1 = RunTickets(1, Policy::kPct, 5, 1, pct);
  const TicketRun p2 = RunTickets(2, Policy::kPct, 5, 1, pct);
  CHECK(p1.out == p2.out);
  CHECK(p1.out != rr.out);
}

TEST_CASE("delay points parse as LAUNCH:BLOCK:SITE lists", "[exec][schedules]") {
  absl::StatusOr<std::vector<DelayPoint>> d = ParseDelays("1:0:17,2:3:4");
  REQUIRE(d.ok());
  REQUIRE(d->size() == 2);
  CHECK((*d)[1] == DelayPoint{2, 3, 4});
  CHECK(DelaysText(*d) == "1:0:17,2:3:4");
  CHECK(!ParseDelays("1:0").ok());
  CHECK(!ParseDelays("1:0:x").ok());
  CHECK(!ParseDelays("1:0:3:4").ok());
  CHECK(ParseDelays("")->empty());
}

}  // namespace
}  // namespace barracuda::emu
