// Queue-drain throughput of the GPU agent's host side (issue 7: "a queue-drain
// benchmark reports records per second"). The device is simulated by bumping
// the commit index over records already in the slots, so what is measured is
// the host: gpu_queue::Drain alone, and the whole drainer (queues -> session
// rings, with a consumer thread popping as barracudad does).
//
//   build/bin/queue_drain_bench --benchmark_counters_tabular=true
#include <unistd.h>

#include <atomic>
#include <thread>
#include <vector>

#include <benchmark/benchmark.h>

#include "device_logger/gpu_queue.h"
#include "device_logger/shm_transport.h"
#include "host_detector/gpu_agent/queue_drainer.h"

namespace {

namespace gq = barracuda::gpu_queue;
namespace proto = barracuda::protocol;
namespace transport = barracuda::transport;

struct Queues {
  Queues(uint32_t queues, uint32_t slots) : memory(gq::QueueSetBytes(queues, slots)) {
    gq::InitQueueSet(memory.data(), queues, slots);
    for (uint32_t q = 0; q < queues; ++q)
      for (uint32_t i = 0; i < slots; ++i) {
        proto::Record& r = gq::SlotsOf(set(), q)[i];
        r.header.op = static_cast<uint8_t>(proto::Op::kRead);
        r.header.active_mask = ~0u;
        for (uint32_t l = 0; l < proto::kWarpSize; ++l) r.addr[l] = 0x1000 + 4 * l;
      }
  }
  gq::QueueSet* set() { return reinterpret_cast<gq::QueueSet*>(memory.data()); }
  // The "device" commits `n` more records in `queue` (n <= slots, queue drained).
  void Commit(uint32_t queue, uint64_t n) {
    gq::QueueHeader* h = gq::QueueAt(set(), queue);
    h->write_head += n;
    std::atomic_ref<uint64_t>(h->commit).store(h->write_head, std::memory_order_release);
  }
  std::vector<uint8_t> memory;
};

// gpu_queue::Drain into a local copy: the cost of reading mapped memory and
// advancing the read head, per record.
void BM_DrainCopy(benchmark::State& state) {
  const uint32_t slots = static_cast<uint32_t>(state.range(0));
  Queues queues(1, slots);
  proto::Record sink{};
  uint64_t records = 0;
  for (auto _ : state) {
    queues.Commit(0, slots);
    records += gq::Drain(queues.set(), 0, [&](const proto::Record& r) { sink = r; });
    benchmark::DoNotOptimize(sink);
  }
  state.SetItemsProcessed(static_cast<int64_t>(records));
  state.SetBytesProcessed(static_cast<int64_t>(records * sizeof(proto::Record)));
  state.counters["records_per_s"] = benchmark::Counter(static_cast<double>(records), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_DrainCopy)->Arg(1024)->Arg(16384)->UseRealTime();

// The QueueDrainer end to end: `queues` queues, each committing a full queue
// per launch, moved onto the session's rings while a consumer thread pops
// them; one iteration = one launch (BeginLaunch .. FinishLaunch).
void BM_DrainerToRings(benchmark::State& state) {
  const uint32_t n_queues = static_cast<uint32_t>(state.range(0));
  constexpr uint32_t kSlots = 4096;
  const std::string name = transport::Segment::UniqueName();
  auto segment = transport::Segment::Create(
      name, transport::Layout{.max_processes = 1, .rings_per_process = 256, .ring_capacity = 1024,
                              .channel_bytes = 1u << 20});
  if (!segment.ok()) {
    state.SkipWithError("segment");
    return;
  }
  segment->header().daemon_pid.store(static_cast<uint32_t>(getpid()));
  auto producer = transport::Producer::Attach(name);
  Queues queues(n_queues, kSlots);
  std::atomic<bool> stop{false};
  std::thread consumer([&] {
    std::vector<proto::Record> batch(256);
    std::string channel_bytes;
    while (!stop.load(std::memory_order_relaxed)) {
      for (uint32_t q = 0; q < n_queues; ++q) segment->ring((*producer)->slot(), q).PopBatch(batch);
      segment->channel((*producer)->slot()).ReadAvailable(&channel_bytes);
      channel_bytes.clear();
    }
  });
  uint64_t records = 0;
  {
    barracuda::gpu_agent::QueueDrainer drainer(queues.set(), producer->get());
    proto::Record end{};
    end.header.op = static_cast<uint8_t>(proto::Op::kKernelEnd);
    for (auto _ : state) {
      drainer.BeginLaunch();
      for (uint32_t q = 0; q < n_queues; ++q) queues.Commit(q, kSlots);
      drainer.FinishLaunch(end);
      records += uint64_t{n_queues} * kSlots;
    }
  }
  stop = true;
  consumer.join();
  (void)transport::Segment::Unlink(name);
  state.SetItemsProcessed(static_cast<int64_t>(records));
  state.SetBytesProcessed(static_cast<int64_t>(records * sizeof(proto::Record)));
  state.counters["records_per_s"] = benchmark::Counter(static_cast<double>(records), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_DrainerToRings)->Arg(1)->Arg(8)->Arg(165)->UseRealTime()->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
