// CUDA's happens-before order over stream work, as the runtime documents it,
// for stream-order race checks in a barracuda session: the emulator runs every
// operation at once, in the order the program issues them, but a GPU runs
// work of different streams concurrently unless events, host synchronisation
// or the legacy default stream order it. Each kernel launch, copy and set gets
// a vector clock over streams; the daemon compares the memory that unordered
// operations touch (host_detector/daemon/stream_order_check.h).
//
// Rules (CUDA Runtime API, "Stream synchronization behavior" and the
// programming guide's "Implicit Synchronization"):
// - work of one stream is ordered in issue order; the host's waits
//   (cudaStreamSynchronize, cudaEventSynchronize, successful queries) order
//   what it waited for before everything it issues later;
// - cudaEventRecord captures what an operation issued then on the stream
//   would be ordered after (on the legacy stream, every blocking stream's
//   work), cudaStreamWaitEvent orders the event's work before the stream's
//   later work;
// - a host function (cudaLaunchHostFunc, a stream callback, a graph host
//   node) orders what it is ordered after before the host's later accesses,
//   as a host wait would: programs signal host threads from it (a flag, a
//   condition variable), which is invisible here. Its own accesses are not
//   ordered before the host's (HostFunctionRan);
// - the legacy default stream waits for every blocking stream and every
//   blocking stream's later work waits for it (cudaStreamNonBlocking streams
//   do not); per-thread default streams are blocking streams;
// - device-wide barriers: cudaDeviceSynchronize, and (conservatively, so that
//   no race is reported that the runtime's implicit synchronisation prevents)
//   cudaMalloc*/cudaFree*, page-locked allocations, synchronous cudaMemset and
//   device-to-device cudaMemcpy.
// The host's own reads and writes of managed / mapped memory while a kernel,
// or an asynchronous copy or set of that memory, may run (host_access_watch.h)
// are operations of the host timeline
// (kHostTimeline), each ordered after what the host had waited for then; a
// host function's accesses are operations of its stream (HostFunctionRan).
// The host threads of the program are one timeline: host-side ordering
// between threads (mutexes, joins) is invisible, so operations that threads
// issue are taken as ordered by their issue order (races between threads'
// streams are still found; orders that only a host lock gives are assumed).
#ifndef BARRACUDA_PTX_EMULATOR_RUNTIME_STREAM_ORDER_H_
#define BARRACUDA_PTX_EMULATOR_RUNTIME_STREAM_ORDER_H_

#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "device_logger/stream_op_message.h"
#include "ptx_emulator/runtime/host_access_watch.h"

namespace barracuda::cudart {

class StreamOrder {
 public:
  using Clock = absl::flat_hash_map<uint64_t, uint64_t>;  // stream (timeline) -> tick
  static StreamOrder& Get();
  static void Join(Clock& into, const Clock& from);
  // Graph nodes run on timelines of their own, numbered from here up (stream
  // ids are below): reports call such a side "a node of a graph".
  static constexpr uint64_t kFirstGraphNodeTimeline = uint64_t{1} << 48;
  // The host's own accesses to host-accessible device memory
  // (host_access_watch.h) are operations of this timeline.
  static constexpr uint64_t kHostTimeline = transport::kHostTimeline;

  // A stream other than the default ones exists: from now on operations are
  // sent to the session (before, all work is on one stream and ordered).
  void NoteStreamCreated();
  bool active() const;

  // The next operation on `stream_id` (0: legacy): fills op.stream_id, tick,
  // before and after_barrier, and moves the stream past it. A kernel, and a
  // copy or set the host does not wait for (`host_waits` false) whose ranges
  // lie in host-accessible memory, is outstanding until the host is ordered
  // after it: the memory it may use is watched (host_access_watch.h). A
  // cudaMemcpyAsync's DMA may read or write pinned host memory until then.
  // A kernel op whose programmatic_after is kProgrammaticRequested gets the
  // launch id of its stream's previous operation if that is a kernel, else 0.
  void Enqueue(uint64_t stream_id, bool non_blocking, transport::StreamOpInfo& op, bool host_waits = false);
  static constexpr uint64_t kProgrammaticRequested = ~uint64_t{0};
  // Whether some kernel, copy or set is not ordered before the host (tests).
  bool Outstanding() const;
  void RecordEvent(const void* event, uint64_t stream_id, bool non_blocking);
  void WaitEvent(uint64_t stream_id, const void* event);
  void HostWaitStream(uint64_t stream_id);
  void HostWaitEvent(const void* event);
  void Barrier();  // device-wide: everything before is ordered before everything after
  void Reset();    // cudaDeviceReset
  // After a host function ran on `stream_id` (host_access::HostFunctionScope):
  // its accesses become operations of that stream (kHostAccess, api "host
  // function"; of the graph node running it, inside a NodeScope), ordered
  // after the stream's earlier work and before its later work, and
  // outstanding like a kernel: the host's own accesses to the same bytes
  // before it synchronises with the stream are checked against them.
  // `enqueued_at`: the frames of the call that enqueued it (its
  // node_location, unless a graph node's frames are).
  void HostFunctionRan(uint64_t stream_id, bool non_blocking, const std::string& enqueued_at);
  // Sends the host accesses recorded since the last change of the host's
  // clock (every host wait and every operation issued does it first, so each
  // access is ordered after exactly what the host had waited for).
  void FlushHostAccesses();

  // A graph launched on `stream_id` (activates the order: nodes without an
  // edge between them may run at the same time even on one stream). Returns
  // the clock its root nodes start from; EndGraph orders the stream's later
  // work after `all` (the join of every node's clock).
  Clock BeginGraph(uint64_t stream_id, bool non_blocking);
  void EndGraph(uint64_t stream_id, bool non_blocking, const Clock& all);
  // While alive, this thread's operations are the work of one graph node:
  // a timeline of its own, ordered after `before` (its dependencies).
  class NodeScope {
   public:
    // `created_at`: where the program added the node (GraphNode::created_at).
    NodeScope(Clock before, std::string created_at);
    ~NodeScope();
    NodeScope(const NodeScope&) = delete;
    NodeScope& operator=(const NodeScope&) = delete;
    Clock after() const;  // `before` and this node's own work
    struct State {
      uint64_t timeline = 0;
      uint64_t tick = 0;
      Clock before;
      std::string created_at;
    };

   private:
    State state_;
    State* outer_;
  };

 private:
  Clock Before(uint64_t stream_id, bool non_blocking);  // mu_ held
  void EnqueueLocked(uint64_t stream_id, bool non_blocking, transport::StreamOpInfo& op);
  // mu_ held: the recorded host accesses as operations (sent by the caller
  // after unlocking, before anything the call itself sends); a host
  // function's go to `host_function` when given (else they count as the host's).
  std::vector<transport::StreamOpInfo> TakeHostAccesses(std::vector<host_access::Access>* host_function = nullptr);
  // mu_ held: whether some kernel or asynchronous copy / set is not ordered
  // before the host (its host-accessible memory is watched until none is).
  void UpdateOutstanding();
  // timeline -> its last kernel's (or watched copy's / set's) tick, while not
  // ordered before the host
  Clock outstanding_;
  uint64_t host_tick_ = 0;
  mutable std::mutex mu_;
  uint64_t next_graph_timeline_ = kFirstGraphNodeTimeline;
  bool active_ = false;
  bool barrier_pending_ = false;
  Clock host_;
  absl::flat_hash_map<uint64_t, Clock> streams_;
  absl::flat_hash_map<uint64_t, bool> non_blocking_;
  absl::flat_hash_map<const void*, Clock> events_;
  // stream -> the launch id of its last operation when that is a kernel
  absl::flat_hash_map<uint64_t, uint64_t> last_kernel_;
};

// The program's frames that called the runtime, innermost first, outside this
// library: "module+0xoffset" each (addr2line -e module offset names the line).
std::string HostCallSite();
// The same for raw program counters: pc[0] is exact when `first_exact` (a
// faulting instruction), the others return addresses.
std::string FormatHostFrames(const uint64_t* pcs, int n, bool first_exact);

// Host-accessible device memory (managed, mapped pinned, registered): its
// host accesses are watched while a kernel may run (host_access_watch.h),
// and the stream order becomes active (the host is a timeline of its own).
// `device`: the same bytes as kernels address them.
// `always_armed`: watched after every launch (a __managed__ variable), not
// only after launches passed a pointer into it (host_access_watch.h).
void NoteHostAccessibleMemory(uint64_t host, uint64_t size, uint64_t device, bool always_armed = false);
void ForgetHostAccessibleMemory(uint64_t host);

// Whether operations are sent: the order is active and a session traces.
// Callers check it before computing what an operation touched.
bool StreamOpsTraced();

// Session hooks: send the operation when a session traces and the order is
// active. `host_waits`: a synchronous API call (the host waits for it before
// it returns, so it is never outstanding).
// `programmatic`: launched with programmatic stream serialisation; when the
// stream's previous operation is a kernel, the op names it
// (StreamOpInfo::programmatic_after).
void NoteKernelOp(uint64_t stream_id, bool non_blocking, uint64_t launch_id, bool programmatic = false);
void NoteMemoryOp(transport::StreamOpKind kind, const char* api, uint64_t stream_id, bool non_blocking,
                  std::vector<transport::StreamOpInfo::Range> ranges, bool host_waits = false);

}  // namespace barracuda::cudart

#endif  // BARRACUDA_PTX_EMULATOR_RUNTIME_STREAM_ORDER_H_
