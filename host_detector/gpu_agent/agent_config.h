// The agent's settings, from the environment the CLI prepares for the app
// (host_detector/cli/README.md lists them).
#ifndef BARRACUDA_HOST_DETECTOR_GPU_AGENT_AGENT_CONFIG_H_
#define BARRACUDA_HOST_DETECTOR_GPU_AGENT_AGENT_CONFIG_H_

#include <cstdint>
#include <string>

namespace barracuda::gpu_agent {

struct AgentConfig {
  std::string session;      // BARRACUDA_SESSION: the segment; empty = run untraced
  uint32_t target_sm = 0;   // BARRACUDA_GPU_SM; 0 = ask the driver (75 without one)
  bool prune = true;        // BARRACUDA_GPU_PRUNE=0 turns the paper's pruning off
  bool stamp_locks = true;  // BARRACUDA_GPU_STAMP_LOCKS=0: no stamp locks (logger_abi.h kRmwLock)
  double queue_share = 0.01;  // BARRACUDA_GPU_QUEUE_SHARE: fraction of device memory for queues
  uint64_t queue_bytes = 0;   // BARRACUDA_GPU_QUEUE_MB (MiB): overrides the share
  std::string dump_dir;     // BARRACUDA_GPU_DUMP_PTX: write each instrumented module here
  int64_t shared_base = -1;  // BARRACUDA_GPU_SHARED_BASE: program shared memory's window offset (-1: the driver's
                             // reserved bytes per block, cudaDevAttrReservedSharedMemoryPerBlock)
  bool verbose = false;     // BARRACUDA_GPU_VERBOSE=1: per-module statistics on stderr
  bool driver_queues = false;  // BARRACUDA_GPU_DRIVER_QUEUES=1: queues set up through the driver even when the
                               // program loaded the CUDA runtime (device_backend.h)

  static AgentConfig FromEnvironment();
};

// Queue geometry for `sms` multiprocessors, `device_bytes` of device memory
// and at most `max_queues` queues (the session's rings per process): ~1.25
// queues per SM, slots a power of two, the whole set within the budget
// (config.queue_bytes, else config.queue_share of device memory, clamped to
// [16 MiB, 512 MiB]); at least 64 slots a queue.
struct QueueGeometry {
  uint32_t queues = 1;
  uint32_t slots = 64;
  uint64_t bytes = 0;  // gpu_queue::QueueSetBytes(queues, slots)
};
QueueGeometry ChooseQueueGeometry(const AgentConfig& config, uint32_t sms, uint64_t device_bytes,
                                  uint32_t max_queues);

// The queue-setup rule (device_backend.h): the driver's when forced
// (BARRACUDA_GPU_DRIVER_QUEUES=1) or when a driver launch meets a process
// without the CUDA runtime; the runtime's otherwise.
bool UseDriverQueues(const AgentConfig& config, bool driver_launch, bool runtime_loaded);

}  // namespace barracuda::gpu_agent

#endif  // BARRACUDA_HOST_DETECTOR_GPU_AGENT_AGENT_CONFIG_H_
