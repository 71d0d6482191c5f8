// The shared-memory transport: segment layout and validation, SPSC rings and
// the byte channel (full rings, wrap-around, counters), several producer
// processes (fork) on one segment, and a producer that stops waiting when the
// consumer is gone.
#include "device_logger/shm_transport.h"
#include "device_logger/stream_op_message.h"

#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

namespace barracuda::transport {
namespace {

using protocol::Record;

// Removes the segment name when a test ends.
struct ScopedName {
  std::string name = Segment::UniqueName();
  ~ScopedName() { (void)Segment::Unlink(name); }
};

Record MakeRecord(uint32_t warp, uint32_t seq) {
  Record r{};
  r.header.op = static_cast<uint8_t>(protocol::Op::kWrite);
  r.header.warp_id = warp;
  r.header.site_id = seq;
  r.header.active_mask = 0xffffffffu;
  r.header.access_size = 4;
  for (uint32_t l = 0; l < protocol::kWarpSize; ++l) r.addr[l] = uint64_t{seq} * 128 + l * 4;
  return r;
}

TEST_CASE("segment: create, attach, validate", "[transport]") {
  ScopedName n;
  Layout layout{.max_processes = 3, .rings_per_process = 2, .ring_capacity = 16, .channel_bytes = 256};
  absl::StatusOr<Segment> seg = Segment::Create(n.name, layout);
  REQUIRE(seg.ok());
  CHECK(seg->layout() == layout);
  // A second Create of the same name fails (exclusive).
  CHECK_FALSE(Segment::Create(n.name, layout).ok());
  absl::StatusOr<Segment> other = Segment::Attach(n.name);
  REQUIRE(other.ok());
  CHECK(other->layout() == layout);
  // Both mappings see the same memory.
  seg->header().records_analysed.store(42);
  CHECK(other->header().records_analysed.load() == 42);
  // Rings of different slots and rings do not overlap.
  RecordRing a = seg->ring(0, 1), b = other->ring(1, 0);
  REQUIRE(a.TryPush(MakeRecord(1, 1)));
  CHECK(b.Available() == 0);
  CHECK(other->ring(0, 1).Available() == 1);
}

TEST_CASE("segment: bad layouts and names are refused", "[transport]") {
  ScopedName n;
  CHECK_FALSE(Segment::Create(n.name, Layout{.ring_capacity = 1000}).ok());  // not a power of two
  CHECK_FALSE(Segment::Create(n.name, Layout{.max_processes = 0}).ok());
  CHECK_FALSE(Segment::Create(n.name, Layout{.channel_bytes = 100}).ok());
  absl::StatusOr<Segment> missing = Segment::Attach("/barracuda-no-such-session");
  REQUIRE_FALSE(missing.ok());
  CHECK(std::string(missing.status().message()).find("barracuda-no-such-session") != std::string::npos);
}

TEST_CASE("segment: names are fresh, and orphans of dead creators are removed", "[transport]") {
  CHECK(Segment::UniqueName() != Segment::UniqueName());
  // A pid that surely is dead: a child that has exited and been reaped.
  const pid_t child = fork();
  REQUIRE(child >= 0);
  if (child == 0) _exit(0);
  int status = 0;
  REQUIRE(waitpid(child, &status, 0) == child);
  const Layout small{.max_processes = 1, .rings_per_process = 1, .ring_capacity = 4, .channel_bytes = 64};
  // A family of names of this test's own: a barracuda session that a parallel
  // test starts removes orphans of the default family, never these, so the
  // counts below are exact.
  const std::string family = "barracuda-unit" + std::to_string(getpid()) + "-";
  const std::string orphan = "/" + family + std::to_string(child) + "-test-0";
  const std::string live = "/" + family + std::to_string(getpid()) + "-test-1";
  const std::string foreign = "/" + family + "session-of-a-user";
  struct Cleanup {
    std::vector<std::string> names;
    ~Cleanup() {
      for (const std::string& n : names) (void)Segment::Unlink(n);
    }
  } cleanup{{orphan, live, foreign}};
  for (const std::string& n : cleanup.names) REQUIRE(Segment::Create(n, small).ok());
  CHECK(Segment::RemoveOrphans("/dev/shm", family) == 1);
  CHECK_FALSE(Segment::Attach(orphan).ok());
  CHECK(Segment::Attach(live).ok());
  CHECK(Segment::Attach(foreign).ok());
  CHECK(Segment::RemoveOrphans("/no/such/dir", family) == 0);
  // The default family does not reach the test's names.
  REQUIRE(Segment::Create(orphan, small).ok());
  Segment::RemoveOrphans();
  CHECK(Segment::Attach(orphan).ok());
}

TEST_CASE("ring: FIFO, full ring refuses, wrap-around, counters", "[transport]") {
  ScopedName n;
  absl::StatusOr<Segment> seg = Segment::Create(n.name, {.max_processes = 1, .rings_per_process = 1,
                                                         .ring_capacity = 4, .channel_bytes = 64});
  REQUIRE(seg.ok());
  RecordRing ring = seg->ring(0, 0);
  uint32_t pushed = 0, popped = 0;
  for (int round = 0; round < 5; ++round) {
    while (ring.TryPush(MakeRecord(0, pushed))) ++pushed;
    CHECK(ring.Available() == 4);  // full at capacity
    Record out[3];
    size_t n = ring.PopBatch(out);
    REQUIRE(n == 3);
    for (size_t i = 0; i < n; ++i) {
      CHECK(out[i].header.site_id == popped);
      CHECK(out[i].addr[31] == uint64_t{popped} * 128 + 124);
      ++popped;
    }
  }
  CHECK(ring.produced() == pushed);
  CHECK(ring.consumed() == popped);
  CHECK(pushed == 4 + 4 * 3);
}

TEST_CASE("channel: messages larger than the channel stream through", "[transport]") {
  ScopedName n;
  absl::StatusOr<Segment> seg = Segment::Create(n.name, {.max_processes = 1, .rings_per_process = 1,
                                                         .ring_capacity = 2, .channel_bytes = 64});
  REQUIRE(seg.ok());
  seg->header().daemon_pid.store(static_cast<uint32_t>(getpid()));
  std::string big(10'000, '\0');
  for (size_t i = 0; i < big.size(); ++i) big[i] = static_cast<char>('a' + i % 26);
  std::thread writer([&] {
    ByteChannel ch = seg->channel(0);
    Backoff backoff(&seg->header());
    for (int i = 0; i < 3; ++i) {
      MessageHeader h{static_cast<uint32_t>(MessageType::kDiagnostic), static_cast<uint32_t>(big.size())};
      REQUIRE(ch.Write(std::string_view(reinterpret_cast<const char*>(&h), sizeof h), backoff));
      REQUIRE(ch.Write(big, backoff));
    }
  });
  ByteChannel ch = seg->channel(0);
  MessageStream stream;
  // (type, payload copied: a payload views the stream's buffer only until the next call)
  std::vector<std::pair<MessageType, std::string>> got;
  MessageStream::Message m;
  while (got.size() < 3) {
    stream.Fill(ch);
    while (stream.Next(&m)) got.emplace_back(m.type, std::string(m.payload));
  }
  writer.join();
  for (const auto& [type, payload] : got) {
    CHECK(type == MessageType::kDiagnostic);
    CHECK(payload == big);
  }
  CHECK(ch.produced() == ch.consumed());
  CHECK(ch.produced() == 3 * (big.size() + sizeof(MessageHeader)));
}

TEST_CASE("message stream: partial frames wait, oversized frames are an error", "[transport]") {
  MessageStream s;
  PayloadWriter w;
  w.U32(7).Bytes("kernel");
  MessageHeader h{static_cast<uint32_t>(MessageType::kKernelName), static_cast<uint32_t>(w.data().size())};
  std::string frame(reinterpret_cast<const char*>(&h), sizeof h);
  frame += w.data();
  MessageStream::Message m;
  s.Append(frame.substr(0, 5));
  CHECK_FALSE(s.Next(&m));
  s.Append(frame.substr(5));
  REQUIRE(s.Next(&m));
  CHECK(m.type == MessageType::kKernelName);
  PayloadReader r(m.payload);
  uint32_t id = 0;
  REQUIRE(r.U32(&id));
  CHECK(id == 7);
  CHECK(r.Rest() == "kernel");
  uint32_t extra;
  CHECK_FALSE(r.U32(&extra));  // bounds-checked

  MessageHeader huge{1, kMaxMessageBytes + 1};
  s.Append(std::string_view(reinterpret_cast<const char*>(&huge), sizeof huge));
  CHECK_FALSE(s.Next(&m));
  CHECK(s.error());
}

// Several producer processes, tiny rings (producers block on full rings), one
// consumer draining all slots: every record arrives once, in order per ring,
// and the counters agree.
TEST_CASE("kLaunchNotRun: error, kernel and reason round-trip", "[transport]") {
  ScopedName n;
  absl::StatusOr<Segment> seg = Segment::Create(n.name, {.max_processes = 1, .rings_per_process = 1,
                                                         .ring_capacity = 2, .channel_bytes = 1u << 16});
  REQUIRE(seg.ok());
  seg->header().daemon_pid.store(static_cast<uint32_t>(getpid()));
  auto producer = Producer::Attach(n.name);
  REQUIRE(producer.ok());
  REQUIRE((*producer)->SendLaunchNotRun(801, "_Z8tile_mmaPK6__halfS1_Pf", "unsupported PTX instruction `wmma`"));
  ByteChannel ch = seg->channel((*producer)->slot());
  MessageStream stream;
  stream.Fill(ch);
  MessageStream::Message m;
  bool found = false;
  while (stream.Next(&m)) {
    if (m.type != MessageType::kLaunchNotRun) continue;
    found = true;
    PayloadReader r(m.payload);
    int32_t error = 0;
    uint32_t len = 0;
    std::string_view name;
    REQUIRE(r.I32(&error));
    REQUIRE(r.U32(&len));
    REQUIRE(r.Bytes(len, &name));
    CHECK(error == 801);
    CHECK(name == "_Z8tile_mmaPK6__halfS1_Pf");
    CHECK(r.Rest() == "unsupported PTX instruction `wmma`");
  }
  CHECK(found);
  CHECK(std::string(MessageTypeName(MessageType::kLaunchNotRun)) == "launch-not-run");
}

TEST_CASE("StreamOpInfo: every field round-trips and truncated payloads are refused", "[transport]") {
  StreamOpInfo op;
  op.kind = StreamOpKind::kHostAccess;
  op.after_barrier = true;
  op.launch_id = 7;
  op.stream_id = uint64_t{1} << 47;
  op.tick = 3;
  op.before = {{16, 2}, {0, 9}};
  op.ranges = {{0x5000, 4096, true}, {0x9000, 8, false}};
  op.exact = 0x5028;
  op.programmatic_after = 41;
  op.api = "host access";
  op.host_location = "app+0x120 libc.so.6+0x27249";
  op.node_location = "app+0x88 libc.so.6+0x27249";
  const std::string payload = op.Encode();
  std::optional<StreamOpInfo> back = StreamOpInfo::Decode(payload);
  REQUIRE(back.has_value());
  CHECK(back->kind == op.kind);
  CHECK(back->after_barrier);
  CHECK(back->launch_id == 7);
  CHECK(back->stream_id == op.stream_id);
  CHECK(back->tick == 3);
  CHECK(back->before == op.before);
  REQUIRE(back->ranges.size() == 2);
  CHECK(back->ranges[0].base == 0x5000);
  CHECK(back->ranges[0].size == 4096);
  CHECK(back->ranges[0].write);
  CHECK_FALSE(back->ranges[1].write);
  CHECK(back->exact == 0x5028);
  CHECK(back->programmatic_after == 41);
  CHECK(back->api == "host access");
  CHECK(back->host_location == op.host_location);
  CHECK(back->node_location == op.node_location);
  // Every cut before the node location (the rest of the payload) is malformed.
  const size_t fixed = payload.size() - op.node_location.size();
  for (size_t n = 0; n < fixed; ++n) CHECK_FALSE(StreamOpInfo::Decode(payload.substr(0, n)).has_value());
}

TEST_CASE("producers in several processes share one segment", "[transport]") {
  ScopedName n;
  constexpr uint32_t kProcs = 3, kRings = 2, kPerRing = 2000;
  absl::StatusOr<Segment> seg = Segment::Create(
      n.name, {.max_processes = 4, .rings_per_process = kRings, .ring_capacity = 8, .channel_bytes = 128});
  REQUIRE(seg.ok());
  seg->header().daemon_pid.store(static_cast<uint32_t>(getpid()));
  std::vector<pid_t> children;
  for (uint32_t p = 0; p < kProcs; ++p) {
    pid_t child = fork();
    REQUIRE(child >= 0);
    if (child == 0) {
      // Child: no Catch2 here; the exit status says what went wrong.
      auto producer = Producer::Attach(n.name);
      if (!producer.ok()) _exit(10);
      if (!(*producer)->SendKernelName(p, "kernel_of_" + std::to_string(p))) _exit(11);
      std::vector<std::thread> workers;
      bool ok[kRings] = {};
      for (uint32_t r = 0; r < kRings; ++r)
        workers.emplace_back([&, r] {
          ok[r] = true;
          for (uint32_t i = 0; i < kPerRing; ++i)
            ok[r] = ok[r] && (*producer)->PushRecord(r, MakeRecord(p * 100 + r, i));
        });
      for (auto& w : workers) w.join();
      for (bool o : ok)
        if (!o) _exit(12);
      (*producer)->Detach(0);
      _exit(0);
    }
    children.push_back(child);
  }
  // Consumer.
  struct Seen {
    uint32_t next[kRings] = {};
    bool exited = false;
    std::string name;
    uint32_t pid = 0;
  };
  std::vector<Seen> seen(4);
  std::vector<MessageStream> streams(4);
  uint32_t done = 0;
  Record buf[5];
  bool in_order = true;
  for (int spins = 0; done < kProcs && spins < 50'000'000; ++spins) {
    for (uint32_t s = 0; s < 4; ++s) {
      const auto state = static_cast<SlotState>(seg->slot(s).state.load(std::memory_order_acquire));
      if (state != SlotState::kActive && state != SlotState::kExited) continue;
      seen[s].pid = seg->slot(s).pid.load();
      // Channel first, then rings: a producer sends kExit after its last push,
      // so once kExit is read the ring pass below sees every record.
      ByteChannel ch = seg->channel(s);
      streams[s].Fill(ch);
      MessageStream::Message m;
      while (streams[s].Next(&m)) {
        if (m.type == MessageType::kKernelName) seen[s].name = m.payload.substr(4);
        if (m.type == MessageType::kExit && !seen[s].exited) {
          seen[s].exited = true;
          ++done;
        }
      }
      for (uint32_t r = 0; r < kRings; ++r) {
        RecordRing ring = seg->ring(s, r);
        for (size_t got; (got = ring.PopBatch(buf)) != 0;) {
          for (size_t i = 0; i < got; ++i) {
            in_order = in_order && buf[i].header.site_id == seen[s].next[r];
            seen[s].next[r]++;
          }
        }
      }
    }
  }
  for (pid_t c : children) {
    int status = 0;
    REQUIRE(waitpid(c, &status, 0) == c);
    CHECK(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 0);
  }
  CHECK(in_order);
  REQUIRE(done == kProcs);
  std::vector<std::string> names;
  for (uint32_t s = 0; s < kProcs; ++s) {
    CHECK(static_cast<SlotState>(seg->slot(s).state.load()) == SlotState::kExited);
    CHECK(std::find(children.begin(), children.end(), static_cast<pid_t>(seen[s].pid)) != children.end());
    names.push_back(seen[s].name);
    for (uint32_t r = 0; r < kRings; ++r) {
      CHECK(seen[s].next[r] == kPerRing);
      CHECK(seg->ring(s, r).produced() == kPerRing);
      CHECK(seg->ring(s, r).consumed() == kPerRing);
    }
  }
  std::sort(names.begin(), names.end());
  CHECK(names == std::vector<std::string>{"kernel_of_0", "kernel_of_1", "kernel_of_2"});
  CHECK(static_cast<SlotState>(seg->slot(3).state.load()) == SlotState::kFree);
}

TEST_CASE("slot table: attach fails cleanly when every slot is taken", "[transport]") {
  ScopedName n;
  REQUIRE(Segment::Create(n.name, {.max_processes = 2, .rings_per_process = 1, .ring_capacity = 2,
                                   .channel_bytes = 64})
              .ok());
  auto a = Producer::Attach(n.name);
  auto b = Producer::Attach(n.name);
  REQUIRE(a.ok());
  REQUIRE(b.ok());
  CHECK((*a)->slot() != (*b)->slot());
  auto c = Producer::Attach(n.name);
  REQUIRE_FALSE(c.ok());
  CHECK(absl::IsResourceExhausted(c.status()));
}

TEST_CASE("a producer on a full ring gives up when the daemon is gone", "[transport]") {
  ScopedName n;
  absl::StatusOr<Segment> seg = Segment::Create(n.name, {.max_processes = 1, .rings_per_process = 1,
                                                         .ring_capacity = 2, .channel_bytes = 64});
  REQUIRE(seg.ok());
  // A pid that has exited and been reaped: the "daemon" is gone.
  pid_t dead = fork();
  REQUIRE(dead >= 0);
  if (dead == 0) _exit(0);
  REQUIRE(waitpid(dead, nullptr, 0) == dead);
  seg->header().daemon_pid.store(static_cast<uint32_t>(dead));
  auto producer = Producer::Attach(n.name);
  REQUIRE(producer.ok());
  CHECK((*producer)->PushRecord(0, MakeRecord(0, 0)));
  CHECK((*producer)->PushRecord(0, MakeRecord(0, 1)));
  CHECK_FALSE((*producer)->PushRecord(0, MakeRecord(0, 2)));  // full, nobody drains
  CHECK(seg->ring(0, 0).produced() == 2);
}

}  // namespace
}  // namespace barracuda::transport
