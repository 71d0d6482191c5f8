// QueueDrainer against a host-side stand-in for the device logger (same
// reserve / wait-for-room / commit-in-order protocol as logger.cu) and a real
// shared-memory segment: every record of a launch reaches its queue's ring in
// queue order, full queues unblock, counts and end markers frame the launch,
// records outside a launch are dropped and counted, and between launches the
// queues are left alone.
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include <catch2/catch.hpp>

#include "device_logger/gpu_queue.h"
#include "device_logger/shm_transport.h"
#include "host_detector/gpu_agent/queue_drainer.h"

namespace barracuda::gpu_agent {
namespace {

namespace proto = barracuda::protocol;
using transport::Layout;
using transport::Segment;

// One warp leader's append, as logger.cu does it (host atomics).
void DeviceAppend(gpu_queue::QueueSet* set, uint32_t queue, const proto::Record& r) {
  gpu_queue::QueueHeader* h = gpu_queue::QueueAt(set, queue);
  const uint64_t index = std::atomic_ref<uint64_t>(h->write_head).fetch_add(1);
  while (index - std::atomic_ref<uint64_t>(h->read_head).load(std::memory_order_acquire) >= set->slots_per_queue)
    std::this_thread::yield();
  gpu_queue::SlotsOf(set, queue)[index & (set->slots_per_queue - 1)] = r;
  while (std::atomic_ref<uint64_t>(h->commit).load(std::memory_order_acquire) != index) std::this_thread::yield();
  std::atomic_ref<uint64_t>(h->commit).store(index + 1, std::memory_order_release);
}

proto::Record Read(uint32_t warp, uint32_t sequence) {
  proto::Record r{};
  r.header.op = static_cast<uint8_t>(proto::Op::kRead);
  r.header.active_mask = 1;
  r.header.warp_id = warp;
  r.header.site_id = sequence;
  return r;
}

struct ScopedSegment {
  std::string name = Segment::UniqueName();
  ~ScopedSegment() { (void)Segment::Unlink(name); }
};

TEST_CASE("gpu agent: the drainer moves each queue onto its ring and frames the launch", "[gpu_agent]") {
  constexpr uint32_t kQueues = 3, kSlots = 64, kPerQueue = 500, kUnframed = 5;
  ScopedSegment n;
  auto segment = Segment::Create(n.name, Layout{.max_processes = 1, .rings_per_process = 4, .ring_capacity = 16,
                                                .channel_bytes = 4096});
  REQUIRE(segment.ok());
  segment->header().daemon_pid.store(static_cast<uint32_t>(getpid()));
  auto producer = transport::Producer::Attach(n.name);
  REQUIRE(producer.ok());
  std::vector<uint8_t> memory(gpu_queue::QueueSetBytes(kQueues, kSlots));
  REQUIRE(gpu_queue::InitQueueSet(memory.data(), kQueues, kSlots));
  auto* set = reinterpret_cast<gpu_queue::QueueSet*>(memory.data());

  QueueDrainer drainer(set, producer->get());
  CHECK(drainer.rings() == kQueues);
  for (uint32_t i = 0; i < kUnframed; ++i) DeviceAppend(set, 1, Read(99, i));  // a launch nobody framed

  // The daemon's side: pop every ring up to its end marker.
  std::vector<std::vector<proto::Record>> got(kQueues);
  std::thread consumer([&] {
    std::vector<bool> ended(kQueues, false);
    proto::Record batch[8];
    while (std::find(ended.begin(), ended.end(), false) != ended.end()) {
      for (uint32_t q = 0; q < kQueues; ++q) {
        const size_t k = segment->ring((*producer)->slot(), q).PopBatch(batch);
        for (size_t i = 0; i < k; ++i) {
          if (proto::OpOf(batch[i].header) == proto::Op::kKernelEnd) ended[q] = true;
          else got[q].push_back(batch[i]);
        }
      }
      std::this_thread::yield();
    }
  });

  drainer.BeginLaunch();
  CHECK(drainer.unframed() == kUnframed);
  std::vector<std::thread> warps;
  for (uint32_t q = 0; q < kQueues; ++q)
    warps.emplace_back([&, q] {
      for (uint32_t i = 0; i < kPerQueue; ++i) DeviceAppend(set, q, Read(q, i));  // 500 > 64 slots: must wait
    });
  for (auto& t : warps) t.join();
  proto::Record end{};
  end.header.op = static_cast<uint8_t>(proto::Op::kKernelEnd);
  end.kernel.launch_id = 1;
  REQUIRE(drainer.FinishLaunch(end));
  consumer.join();

  for (uint32_t q = 0; q < kQueues; ++q) {
    REQUIRE(got[q].size() == kPerQueue);
    for (uint32_t i = 0; i < kPerQueue; ++i) {
      CHECK(got[q][i].header.warp_id == q);
      CHECK(got[q][i].header.site_id == i);
    }
  }
  CHECK(drainer.drained() == kQueues * kPerQueue + kUnframed);

  // kLaunchEnd carries this launch's per-ring counts.
  transport::MessageStream messages;
  auto channel = segment->channel((*producer)->slot());
  messages.Fill(channel);
  transport::MessageStream::Message m;
  bool saw_end = false;
  while (messages.Next(&m)) {
    if (m.type != transport::MessageType::kLaunchEnd) continue;
    transport::PayloadReader r(m.payload);
    proto::Record rec;
    uint32_t rings = 0;
    REQUIRE(r.Rec(&rec));
    REQUIRE(r.U32(&rings));
    REQUIRE(rings == kQueues);
    for (uint32_t q = 0; q < kQueues; ++q) {
      uint64_t count = 0;
      REQUIRE(r.U64(&count));
      CHECK(count == kPerQueue);
    }
    saw_end = true;
  }
  CHECK(saw_end);

  // Between launches the queues are not touched (at exit the runtime may have
  // freed them already).
  DeviceAppend(set, 0, Read(0, 7));
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  gpu_queue::QueueHeader* q0 = gpu_queue::QueueAt(set, 0);
  CHECK(std::atomic_ref<uint64_t>(q0->read_head).load() + 1 == std::atomic_ref<uint64_t>(q0->commit).load());
}

}  // namespace
}  // namespace barracuda::gpu_agent
