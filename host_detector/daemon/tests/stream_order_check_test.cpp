// StreamOrderCheck on synthetic operations: which pairs of unordered
// operations are stream-order races.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "host_detector/daemon/stream_order_check.h"

namespace barracuda::daemon {
namespace {

using transport::StreamOpInfo;
using transport::StreamOpKind;

StreamOpInfo Op(StreamOpKind kind, uint64_t stream, uint64_t tick, std::vector<std::pair<uint64_t, uint64_t>> before,
                uint64_t launch = 0) {
  StreamOpInfo op;
  op.kind = kind;
  op.stream_id = stream;
  op.tick = tick;
  op.before = std::move(before);
  op.launch_id = launch;
  op.api = kind == StreamOpKind::kKernel ? "kernel launch" : "cudaMemcpyAsync";
  return op;
}

StreamOpInfo Copy(uint64_t stream, uint64_t tick, std::vector<std::pair<uint64_t, uint64_t>> before, uint64_t base,
                  uint64_t size, bool write) {
  StreamOpInfo op = Op(StreamOpKind::kCopy, stream, tick, std::move(before));
  op.ranges.push_back({base, size, write});
  return op;
}

// A warp's access: lanes 0..31 at base + 4 * lane.
protocol::Record Access(protocol::Op op, uint64_t base, uint8_t flags = 0, uint32_t site = 7) {
  protocol::Record r{};
  r.header.op = static_cast<uint8_t>(op);
  r.header.flags = flags;
  r.header.access_size = 4;
  r.header.space_scope = protocol::PackSpaceScope(protocol::Space::kGlobal, protocol::Scope::kGpu);
  r.header.active_mask = 0xffffffffu;
  r.header.site_id = site;
  for (uint32_t l = 0; l < 32; ++l) r.addr[l] = base + 4 * l;
  return r;
}

void Kernel(StreamOrderCheck& check, StreamOpInfo op, const std::vector<protocol::Record>& records) {
  const uint64_t launch = op.launch_id;
  check.OnOp(std::move(op));
  REQUIRE(check.Collecting(launch));
  check.Collect(records);
  check.EndLaunch(launch);
}

TEST_CASE("StreamOrderCheck: unordered operations touching the same bytes", "[daemon][stream-order]") {
  StreamOrderCheck check;
  Kernel(check, Op(StreamOpKind::kKernel, 16, 1, {}, 1), {Access(protocol::Op::kWrite, 0x1000)});
  // A copy on another stream that reads the kernel's output: a race.
  check.OnOp(Copy(17, 1, {}, 0x1040, 16, false));
  REQUIRE(check.races().size() == 1);
  const StreamOrderRace& r = check.races()[0];
  CHECK(r.address == 0x1040);
  CHECK(r.earlier.write);
  CHECK(r.earlier.site == 7);
  CHECK_FALSE(r.later.write);
  CHECK(r.later.api == "cudaMemcpyAsync");
  // Ordered after the kernel (an event wait): none.
  check.OnOp(Copy(17, 2, {{16, 1}, {17, 1}}, 0x1000, 128, true));
  // Disjoint bytes: none (the copy above is ordered before? no: it is on 17
  // after 17:1; this one on stream 18 touches other memory).
  check.OnOp(Copy(18, 1, {}, 0x9000, 64, true));
  CHECK(check.races().size() == 1);
  // The same pair of places again: one entry, two occurrences.
  Kernel(check, Op(StreamOpKind::kKernel, 16, 2, {{16, 1}}, 2), {Access(protocol::Op::kWrite, 0x5000)});
  check.OnOp(Copy(19, 1, {}, 0x5000, 4, false));
  REQUIRE(check.races().size() == 1);
  CHECK(check.races()[0].occurrences == 2);
}

TEST_CASE("StreamOrderCheck: reads, atomics and barriers are not races", "[daemon][stream-order]") {
  StreamOrderCheck check;
  // Two readers.
  Kernel(check, Op(StreamOpKind::kKernel, 16, 1, {}, 1), {Access(protocol::Op::kRead, 0x1000)});
  Kernel(check, Op(StreamOpKind::kKernel, 17, 1, {}, 2), {Access(protocol::Op::kRead, 0x1000)});
  // Two kernels' atomics on one counter (strong read-modify-writes).
  const uint8_t rmw = protocol::kFlagLoad | protocol::kFlagStore;
  Kernel(check, Op(StreamOpKind::kKernel, 16, 2, {{16, 1}}, 3), {Access(protocol::Op::kAtomic, 0x2000, rmw)});
  Kernel(check, Op(StreamOpKind::kKernel, 17, 2, {{17, 1}}, 4), {Access(protocol::Op::kAtomic, 0x2000, rmw)});
  CHECK(check.races().empty());
  // An atomic against a plain read of another stream is a race.
  Kernel(check, Op(StreamOpKind::kKernel, 18, 1, {}, 5), {Access(protocol::Op::kRead, 0x2000)});
  // With each of the two atomic kernels: the same pair of sites, one entry.
  REQUIRE(check.races().size() == 1);
  CHECK(check.races()[0].occurrences == 2);
  CHECK(check.races()[0].earlier.strong);
  CHECK_FALSE(check.races()[0].later.strong);
  // After a device-wide barrier earlier operations are forgotten.
  StreamOpInfo after = Copy(19, 1, {}, 0x1000, 64, true);
  after.after_barrier = true;
  check.OnOp(after);
  CHECK(check.races().size() == 1);
  CHECK(check.races()[0].occurrences == 2);
}

TEST_CASE("StreamOrderCheck: a programmatic launch before its griddepcontrol.wait", "[daemon][stream-order]") {
  StreamOrderCheck check;
  // Kernel 1 writes 0x1000..0x107f; kernel 2 follows it on stream 16 with
  // programmatic stream serialisation (ordered after it, as stream work is).
  Kernel(check, Op(StreamOpKind::kKernel, 16, 1, {}, 1), {Access(protocol::Op::kWrite, 0x1000)});
  StreamOpInfo second = Op(StreamOpKind::kKernel, 16, 2, {{16, 1}}, 2);
  second.programmatic_after = 1;
  protocol::Record wait{};
  wait.header.op = static_cast<uint8_t>(protocol::Op::kGridDepWait);
  wait.header.active_mask = 0x0000ffffu;  // lanes 0-15 of warp 0 waited
  protocol::Record other_warp = Access(protocol::Op::kRead, 0x1000, 0, 9);
  other_warp.header.warp_id = 1;
  SECTION("reads after the wait are ordered") {
    protocol::Record read = Access(protocol::Op::kRead, 0x1000, 0, 8);
    read.header.active_mask = 0x0000ffffu;
    Kernel(check, second, {wait, read});
    CHECK(check.races().empty());
  }
  auto check_race = [&](uint32_t site) {
    REQUIRE(check.races().size() == 1);  // one per pair of operations
    const StreamOrderRace& r = check.races()[0];
    CHECK(r.earlier.launch_id == 1);
    CHECK(r.earlier.write);
    CHECK(r.later.launch_id == 2);
    CHECK(r.later.site == site);
    CHECK(r.later.api == StreamOpInfo::kBeforeGridDependencyWait);
  };
  SECTION("lanes that did not wait race with kernel 1") {
    Kernel(check, second, {wait, Access(protocol::Op::kRead, 0x1000, 0, 8)});  // lanes 16-31
    check_race(8);
  }
  SECTION("a warp that did not wait races with kernel 1") {
    Kernel(check, second, {wait, other_warp});
    check_race(9);
  }
  SECTION("without the attribute, nothing") {
    second.programmatic_after = 0;
    Kernel(check, second, {other_warp});
    CHECK(check.races().empty());
  }
}

}  // namespace
StreamOpInfo HostAccess(uint64_t tick, std::vector<std::pair<uint64_t, uint64_t>> before, uint64_t base, uint64_t size,
                        bool write, std::string where = "app+0x10") {
  StreamOpInfo op = Op(StreamOpKind::kHostAccess, uint64_t{1} << 47, tick, std::move(before));
  op.api = "host access";
  op.host_location = std::move(where);
  op.ranges.push_back({base, size, write});
  return op;
}

TEST_CASE("StreamOrderCheck: host accesses against kernels not synchronised with", "[daemon][stream-order]") {
  StreamOrderCheck check;
  Kernel(check, Op(StreamOpKind::kKernel, 0, 1, {}, 1), {Access(protocol::Op::kWrite, 0x1000)});
  // The host reads the kernel's output before waiting for stream 0: a race,
  // the kernel first, the host second.
  check.OnOp(HostAccess(1, {}, 0x1000, 4096, false));
  REQUIRE(check.races().size() == 1);
  const StreamOrderRace& r = check.races()[0];
  CHECK(r.address == 0x1000);
  CHECK(r.earlier.kind == StreamOpKind::kKernel);
  CHECK(r.earlier.write);
  CHECK(r.later.kind == StreamOpKind::kHostAccess);
  CHECK_FALSE(r.later.write);
  CHECK(r.later.host_location == "app+0x10");
  // After the host waited for the kernel (its clock has stream 0 at 1): none.
  check.OnOp(HostAccess(2, {{0, 1}}, 0x1000, 4096, true, "app+0x20"));
  CHECK(check.races().size() == 1);
  // Bytes the kernel did not touch (another allocation on the page): none.
  check.OnOp(HostAccess(3, {}, 0x1080, 64, true, "app+0x30"));
  CHECK(check.races().size() == 1);
}

TEST_CASE("StreamOrderCheck: host reads of bytes a kernel only read are not races", "[daemon][stream-order]") {
  StreamOrderCheck check;
  Kernel(check, Op(StreamOpKind::kKernel, 16, 1, {}, 1), {Access(protocol::Op::kRead, 0x2000)});
  check.OnOp(HostAccess(1, {}, 0x2000, 128, false));
  CHECK(check.races().empty());
  // A host write of them is one (write after read).
  check.OnOp(HostAccess(2, {}, 0x2000, 128, true, "app+0x40"));
  REQUIRE(check.races().size() == 1);
  CHECK_FALSE(check.races()[0].earlier.write);
  CHECK(check.races()[0].later.write);
}

TEST_CASE("StreamOrderCheck: host accesses are not retained", "[daemon][stream-order]") {
  StreamOrderCheck check;
  // The host writes, then issues a kernel reading the same bytes: CUDA orders
  // the kernel after the host's earlier work, and the host access is not
  // kept to be compared with it.
  check.OnOp(HostAccess(1, {}, 0x3000, 128, true));
  Kernel(check, Op(StreamOpKind::kKernel, 16, 1, {}, 1), {Access(protocol::Op::kRead, 0x3000)});
  CHECK(check.races().empty());
}

TEST_CASE("StreamOrderCheck: a host function is work of its stream, compared with later work too",
          "[daemon][stream-order]") {
  StreamOrderCheck check;
  // A host function on stream 16 writes a pinned buffer; a kernel issued
  // later on stream 17 reads it with nothing ordering the streams: a race,
  // although the host function came first (it is retained, unlike the
  // host thread's own accesses).
  StreamOpInfo fn = HostAccess(1, {}, 0x5000, 128, true, "app+0x50");
  fn.stream_id = 16;
  fn.api = "host function";
  check.OnOp(fn);
  CHECK(check.races().empty());
  Kernel(check, Op(StreamOpKind::kKernel, 17, 1, {}, 1), {Access(protocol::Op::kRead, 0x5000)});
  REQUIRE(check.races().size() == 1);
  CHECK(check.races()[0].earlier.kind == StreamOpKind::kHostAccess);
  CHECK(check.races()[0].earlier.stream_id == 16);
  CHECK(check.races()[0].earlier.api == "host function");
  CHECK(check.races()[0].later.kind == StreamOpKind::kKernel);
  // A kernel on its own stream after it is ordered after it.
  Kernel(check, Op(StreamOpKind::kKernel, 16, 2, {{16, 1}}, 2), {Access(protocol::Op::kRead, 0x5000)});
  CHECK(check.races().size() == 1);
}

TEST_CASE("StreamOrderCheck: a host access and an unfinished copy", "[daemon][stream-order]") {
  StreamOrderCheck check;
  // cudaMemcpyAsync into pinned memory on stream 16, read by the host before
  // cudaStreamSynchronize: a race too.
  check.OnOp(Copy(16, 1, {}, 0x4000, 256, true));
  check.OnOp(HostAccess(1, {}, 0x4000, 4096, false));
  REQUIRE(check.races().size() == 1);
  CHECK(check.races()[0].earlier.api == "cudaMemcpyAsync");
}

TEST_CASE("StreamOrderCheck: the host overwrites the source of an unfinished copy", "[daemon][stream-order]") {
  StreamOrderCheck check;
  // cudaMemcpyAsync from page-locked memory at 0x5000 (host-to-device) on
  // stream 16: the copy reads its source until the host synchronises.
  StreamOpInfo copy = Copy(16, 1, {}, 0x5000, 256, false);
  copy.ranges.push_back({0x90000, 256, true});  // the device destination
  copy.host_location = "app+0x100";
  check.OnOp(copy);
  // The host reading the source too is no race (read after read).
  check.OnOp(HostAccess(1, {}, 0x5000, 4096, false, "app+0x110"));
  CHECK(check.races().empty());
  // The host writing it is one, naming both call sites.
  check.OnOp(HostAccess(2, {}, 0x5000, 4096, true, "app+0x120"));
  REQUIRE(check.races().size() == 1);
  const StreamOrderRace& r = check.races()[0];
  CHECK(r.address == 0x5000);  // the lowest conflicting word: the fault's byte is not known here
  CHECK(r.earlier.kind == StreamOpKind::kCopy);
  CHECK(r.earlier.api == "cudaMemcpyAsync");
  CHECK(r.earlier.host_location == "app+0x100");
  CHECK_FALSE(r.earlier.write);
  CHECK(r.later.kind == StreamOpKind::kHostAccess);
  CHECK(r.later.host_location == "app+0x120");
  CHECK(r.later.write);
  // After cudaStreamSynchronize (the host's clock has stream 16 at 1): none.
  check.OnOp(HostAccess(3, {{16, 1}}, 0x5000, 4096, true, "app+0x130"));
  CHECK(check.races().size() == 1);
}

TEST_CASE("StreamOrderCheck: a host access names the byte its fault caught", "[daemon][stream-order]") {
  // The host's access is known at one byte (the page fault's address); the
  // rest of its page is assumed. The race names that byte, whatever order the
  // lines are compared in; a byte the other side does not touch names the
  // lowest conflicting word instead.
  for (uint64_t exact : {0x5028u, 0x50f3u, 0x5100u}) {
    StreamOrderCheck check;
    check.OnOp(Copy(16, 1, {}, 0x5000, 256, false));
    StreamOpInfo host = HostAccess(1, {}, 0x5000, 4096, true);
    host.exact = exact;
    check.OnOp(host);
    REQUIRE(check.races().size() == 1);
    CHECK(check.races()[0].address == (exact < 0x5100 ? exact : 0x5000));
  }
}

// A warp's byte or short accesses: lane l at base + stride * l.
protocol::Record NarrowAccess(protocol::Op op, uint64_t base, uint8_t size, uint64_t stride, uint32_t mask,
                              uint32_t site = 9) {
  protocol::Record r = Access(op, base, 0, site);
  r.header.access_size = size;
  r.header.active_mask = mask;
  for (uint32_t l = 0; l < 32; ++l) r.addr[l] = base + stride * l;
  return r;
}

TEST_CASE("StreamOrderCheck: disjoint bytes of one word are not a race", "[daemon][stream-order]") {
  // Two streams each fill their part of a char buffer split at an odd offset:
  // the word holding the split has bytes of both, none of them shared.
  StreamOrderCheck check;
  check.OnOp(Copy(16, 1, {}, 0x1000, 6, true));   // bytes 0..5
  check.OnOp(Copy(17, 1, {}, 0x1006, 10, true));  // bytes 6..15
  CHECK(check.races().empty());
  // A kernel on a third stream reading byte 5 (lane 0 only) races with the
  // first copy, at that byte; its other lanes' bytes are outside both.
  Kernel(check, Op(StreamOpKind::kKernel, 18, 1, {}, 1), {NarrowAccess(protocol::Op::kRead, 0x1005, 1, 64, 0x1)});
  REQUIRE(check.races().size() == 1);
  CHECK(check.races()[0].address == 0x1005);
  CHECK(check.races()[0].earlier.write);
  CHECK_FALSE(check.races()[0].later.write);
  CHECK(check.races()[0].later.site == 9);
}

TEST_CASE("StreamOrderCheck: kernels writing interleaved bytes of one word", "[daemon][stream-order]") {
  StreamOrderCheck check;
  // Even bytes from one stream, odd bytes from another: no byte shared.
  Kernel(check, Op(StreamOpKind::kKernel, 16, 1, {}, 1), {NarrowAccess(protocol::Op::kWrite, 0x2000, 1, 2, ~0u)});
  Kernel(check, Op(StreamOpKind::kKernel, 17, 1, {}, 2), {NarrowAccess(protocol::Op::kWrite, 0x2001, 1, 2, ~0u, 10)});
  CHECK(check.races().empty());
  // Shorts at byte 2 of each word: they overlap both kernels' bytes.
  Kernel(check, Op(StreamOpKind::kKernel, 18, 1, {}, 3), {NarrowAccess(protocol::Op::kRead, 0x2002, 2, 4, 0x1)});
  REQUIRE(check.races().size() == 2);
  CHECK(check.races()[0].address == 0x2002);  // with the even bytes' kernel
  CHECK(check.races()[1].address == 0x2003);  // with the odd bytes'
  // Four byte stores covering a word make it whole: a whole-word read of
  // another stream conflicts with it as with a word store.
  Kernel(check, Op(StreamOpKind::kKernel, 19, 1, {}, 4), {NarrowAccess(protocol::Op::kWrite, 0x3000, 1, 1, 0xf)});
  Kernel(check, Op(StreamOpKind::kKernel, 20, 1, {}, 5), {Access(protocol::Op::kRead, 0x3000)});
  REQUIRE(check.races().size() == 3);
  CHECK(check.races()[2].address == 0x3000);
}

}  // namespace barracuda::daemon
