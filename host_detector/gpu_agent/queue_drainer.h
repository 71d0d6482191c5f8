// The agent's in-app drainer (paper §4.2, DESIGN.md data flow): a thread that
// moves committed records from the GPU queues (device_logger/gpu_queue.h, in
// mapped pinned memory) onto the session's rings while kernels run, so a full
// queue never stalls the device for long, and frames each launch for the
// daemon.
//
// Queue q goes to ring q, in queue order, and nothing else goes there: the
// logger stamps a record on its commit turn, so each ring's stamps grow, which
// the detector's stamp-ordered processing relies on. Hence queue_count <=
// rings_per_process (the agent sizes the queues accordingly).
//
// Launch framing (shm_transport.h): BeginLaunch after kLaunchBegin was sent;
// records drained until FinishLaunch count for that launch; FinishLaunch is
// called once the device is idle (the agent synchronised), drains the rest and
// sends the end markers with the per-ring counts. Between launches the thread
// sleeps and does not touch the queues (at exit the runtime may already have
// freed them). Records found at the start of a launch come from launches the
// agent did not see (CUDA graphs, the driver API): they are dropped and
// counted (`unframed()`).
#ifndef BARRACUDA_HOST_DETECTOR_GPU_AGENT_QUEUE_DRAINER_H_
#define BARRACUDA_HOST_DETECTOR_GPU_AGENT_QUEUE_DRAINER_H_

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>

#include "device_logger/gpu_queue.h"
#include "device_logger/protocol.h"
#include "device_logger/shm_transport.h"

namespace barracuda::gpu_agent {

class QueueDrainer {
 public:
  // `set` (host view of the queues) and `producer` outlive the drainer.
  // set->queue_count must not exceed producer->rings().
  QueueDrainer(gpu_queue::QueueSet* set, transport::Producer* producer);
  ~QueueDrainer();  // stops the thread (records still queued stay there)
  QueueDrainer(const QueueDrainer&) = delete;
  QueueDrainer& operator=(const QueueDrainer&) = delete;

  uint32_t rings() const { return rings_; }
  // The last sequence stamp the logger handed out: a launch's stamps start
  // after it (the kKernelBegin record carries it, streaming_analysis.h).
  uint64_t last_stamp() const { return __atomic_load_n(&set_->stamp, __ATOMIC_ACQUIRE); }
  void BeginLaunch();
  // Drains everything committed, pushes the end markers (`end`) and sends
  // kLaunchEnd with this launch's per-ring counts. False: the daemon is gone.
  bool FinishLaunch(const protocol::Record& end);

  uint64_t drained() const { return drained_.load(std::memory_order_relaxed); }
  uint64_t unframed() const { return unframed_.load(std::memory_order_relaxed); }
  bool failed() const { return failed_.load(std::memory_order_relaxed); }

 private:
  void Run();
  size_t DrainAllLocked();  // under mu_
  gpu_queue::QueueSet* set_;
  transport::Producer* producer_;
  uint32_t rings_;
  std::mutex mu_;
  std::condition_variable wake_;    // a launch began, or stop
  bool in_launch_ = false;          // under mu_
  bool stop_ = false;               // under mu_
  std::vector<uint64_t> counts_;    // under mu_: records per ring in the open launch
  std::atomic<uint64_t> drained_{0};
  std::atomic<uint64_t> unframed_{0};
  std::atomic<bool> failed_{false};
  std::thread thread_;
};

}  // namespace barracuda::gpu_agent

#endif  // BARRACUDA_HOST_DETECTOR_GPU_AGENT_QUEUE_DRAINER_H_
