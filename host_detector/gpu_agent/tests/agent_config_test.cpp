// Queue geometry: ~1.25 queues per SM within the rings, slots a power of two,
// the set within its budget; the queue-setup rule and its switch.
#include <catch2/catch.hpp>

#include <cstdlib>

#include "device_logger/gpu_queue.h"
#include "host_detector/gpu_agent/agent_config.h"

namespace barracuda::gpu_agent {
namespace {

TEST_CASE("gpu agent: queue geometry", "[gpu_agent]") {
  AgentConfig config;
  SECTION("H100: 132 SMs, 80 GB, 1% share, 256 rings") {
    const QueueGeometry g = ChooseQueueGeometry(config, 132, uint64_t{80} << 30, 256);
    CHECK(g.queues == 165);
    CHECK((g.slots & (g.slots - 1)) == 0);
    CHECK(g.bytes == gpu_queue::QueueSetBytes(g.queues, g.slots));
    CHECK(g.bytes <= uint64_t{512} << 20);  // the ceiling
    CHECK(g.bytes > uint64_t{256} << 20);   // no more than half the budget lost to rounding
  }
  SECTION("queues limited by the rings") {
    CHECK(ChooseQueueGeometry(config, 132, uint64_t{80} << 30, 32).queues == 32);
  }
  SECTION("small device: the 16 MiB floor") {
    const QueueGeometry g = ChooseQueueGeometry(config, 2, uint64_t{1} << 30, 256);
    CHECK(g.queues == 3);
    CHECK(g.bytes <= uint64_t{16} << 20);
    CHECK(g.slots >= 8192);
  }
  SECTION("explicit size, and the 64-slot minimum") {
    config.queue_bytes = uint64_t{1} << 20;
    const QueueGeometry g = ChooseQueueGeometry(config, 132, uint64_t{80} << 30, 256);
    CHECK(g.slots == 64);
  }
}

// A driver-only program (no libcudart.so.13) gets the driver's queue setup;
// everything else keeps the runtime's unless BARRACUDA_GPU_DRIVER_QUEUES=1.
TEST_CASE("gpu agent: queue setup through the driver or the runtime", "[gpu_agent]") {
  AgentConfig config;
  CHECK_FALSE(UseDriverQueues(config, /*driver_launch=*/false, /*runtime_loaded=*/true));
  CHECK_FALSE(UseDriverQueues(config, /*driver_launch=*/true, /*runtime_loaded=*/true));
  CHECK(UseDriverQueues(config, /*driver_launch=*/true, /*runtime_loaded=*/false));
  config.driver_queues = true;
  CHECK(UseDriverQueues(config, /*driver_launch=*/false, /*runtime_loaded=*/true));
  CHECK(UseDriverQueues(config, /*driver_launch=*/true, /*runtime_loaded=*/true));
}

TEST_CASE("gpu agent: BARRACUDA_GPU_DRIVER_QUEUES", "[gpu_agent]") {
  ::unsetenv("BARRACUDA_GPU_DRIVER_QUEUES");
  CHECK_FALSE(AgentConfig::FromEnvironment().driver_queues);
  ::setenv("BARRACUDA_GPU_DRIVER_QUEUES", "1", 1);
  CHECK(AgentConfig::FromEnvironment().driver_queues);
  ::setenv("BARRACUDA_GPU_DRIVER_QUEUES", "0", 1);
  CHECK_FALSE(AgentConfig::FromEnvironment().driver_queues);
  ::unsetenv("BARRACUDA_GPU_DRIVER_QUEUES");
}

}  // namespace
}  // namespace barracuda::gpu_agent
