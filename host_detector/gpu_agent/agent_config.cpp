#include "host_detector/gpu_agent/agent_config.h"

#include <algorithm>
#include <bit>
#include <cstdlib>

#include "device_logger/gpu_queue.h"
#include "device_logger/shm_transport.h"

namespace barracuda::gpu_agent {
namespace {

const char* Env(const char* name) {
  const char* v = std::getenv(name);
  return v != nullptr && *v != '\0' ? v : nullptr;
}

}  // namespace

AgentConfig AgentConfig::FromEnvironment() {
  AgentConfig c;
  if (const char* v = Env(transport::kSessionEnv)) c.session = v;
  if (const char* v = Env("BARRACUDA_GPU_SM")) c.target_sm = static_cast<uint32_t>(std::strtoul(v, nullptr, 10));
  if (const char* v = Env("BARRACUDA_GPU_PRUNE")) c.prune = std::string(v) != "0";
  if (const char* v = Env("BARRACUDA_GPU_STAMP_LOCKS")) c.stamp_locks = std::string(v) != "0";
  if (const char* v = Env("BARRACUDA_GPU_QUEUE_SHARE")) {
    const double share = std::strtod(v, nullptr);
    if (share > 0 && share <= 0.5) c.queue_share = share;
  }
  if (const char* v = Env("BARRACUDA_GPU_QUEUE_MB")) c.queue_bytes = std::strtoull(v, nullptr, 10) << 20;
  if (const char* v = Env("BARRACUDA_GPU_DUMP_PTX")) c.dump_dir = v;
  if (const char* v = Env("BARRACUDA_GPU_SHARED_BASE")) c.shared_base = std::strtoll(v, nullptr, 0);
  if (const char* v = Env("BARRACUDA_GPU_VERBOSE")) c.verbose = std::string(v) == "1";
  if (const char* v = Env("BARRACUDA_GPU_DRIVER_QUEUES")) c.driver_queues = std::string(v) == "1";
  return c;
}

QueueGeometry ChooseQueueGeometry(const AgentConfig& config, uint32_t sms, uint64_t device_bytes,
                                  uint32_t max_queues) {
  QueueGeometry g;
  g.queues = std::clamp<uint32_t>(gpu_queue::QueuesForSms(sms), 1, std::max<uint32_t>(1, max_queues));
  uint64_t budget = config.queue_bytes;
  if (budget == 0)
    budget = std::clamp<uint64_t>(static_cast<uint64_t>(static_cast<double>(device_bytes) * config.queue_share),
                                  uint64_t{16} << 20, uint64_t{512} << 20);
  const uint64_t per_queue = budget / g.queues;
  const uint64_t fit = per_queue > sizeof(gpu_queue::QueueHeader)
                           ? (per_queue - sizeof(gpu_queue::QueueHeader)) / sizeof(protocol::Record)
                           : 0;
  g.slots = static_cast<uint32_t>(std::clamp<uint64_t>(std::bit_floor(std::max<uint64_t>(fit, 1)), 64, 1u << 20));
  g.bytes = gpu_queue::QueueSetBytes(g.queues, g.slots);
  return g;
}

bool UseDriverQueues(const AgentConfig& config, bool driver_launch, bool runtime_loaded) {
  return config.driver_queues || (driver_launch && !runtime_loaded);
}

}  // namespace barracuda::gpu_agent
