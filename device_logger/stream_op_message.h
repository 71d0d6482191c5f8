// kStreamOp: a stream-ordered operation of the program (a kernel launch, a
// copy, a set) with its place in CUDA's happens-before order over streams,
// events and host synchronisation, for stream-order race checks in the daemon
// (host_detector/daemon/stream_order_check.h). Sent by the emulator's runtime
// once the program uses more than one stream.
#ifndef BARRACUDA_DEVICE_LOGGER_STREAM_OP_MESSAGE_H_
#define BARRACUDA_DEVICE_LOGGER_STREAM_OP_MESSAGE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace barracuda::transport {

// kHostAccess: host (CPU) reads and writes of host-accessible device memory
// (managed, mapped pinned, registered) while some kernel was not ordered
// before the host (ptx_emulator/runtime/host_access_watch.h); its ranges are
// the bytes as kernels address them, stream_id the host's own timeline.
// A host function (cudaLaunchHostFunc, a stream callback, a graph host node)
// is kHostAccess too, with api "host function" and its stream's (or graph
// node's) timeline as stream_id: work of that stream, which later work of
// other streams can race with.
enum class StreamOpKind : uint32_t { kKernel = 1, kCopy = 2, kSet = 3, kHostAccess = 4 };
// The stream_id of the host thread's own accesses (stream ids are below,
// graph nodes' timelines above, from 1 << 48).
inline constexpr uint64_t kHostTimeline = uint64_t{1} << 47;

struct StreamOpInfo {
  StreamOpKind kind = StreamOpKind::kKernel;
  // Everything before this operation is ordered before everything after it
  // (a device-wide implicit synchronisation: cudaDeviceSynchronize, cudaMalloc,
  // cudaFree, ...): the daemon forgets earlier operations.
  bool after_barrier = false;
  uint64_t launch_id = 0;  // kKernel: the launch this operation is
  uint64_t stream_id = 0;  // the stream (0: the legacy default stream)
  uint64_t tick = 0;       // the operation is (stream_id, tick): the stream's tick-th
  // The operations ordered before it: for each stream, the ticks up to which.
  std::vector<std::pair<uint64_t, uint64_t>> before;
  struct Range {
    uint64_t base = 0, size = 0;
    bool write = false;
  };
  std::vector<Range> ranges;  // kCopy / kSet: the device bytes read and written
  // kHostAccess: the device address of the byte the host was caught accessing
  // (0: unknown); `ranges` then covers the rest of its page, assumed accessed.
  uint64_t exact = 0;
  // kKernel launched with programmatic stream serialisation (programmatic
  // dependent launch) right after another kernel of its stream: that launch's
  // id. Until a thread passes griddepcontrol.wait (kGridDepWait) its accesses
  // are not ordered after that kernel's, which may still run (0: none).
  uint64_t programmatic_after = 0;
  // `api` of the part of such a launch before griddepcontrol.wait, as the
  // daemon's stream-order races name it.
  static constexpr std::string_view kBeforeGridDependencyWait = "kernel launch, before griddepcontrol.wait";
  std::string api;            // "cudaMemcpyAsync", "kernel launch"
  std::string host_location;  // the program's calling frames ("module+0xoffset ..."), may be empty
  // The work of a graph node: the frames that added the node to its graph
  // (cudaGraphAdd*Node, or the call captured into it); empty otherwise.
  std::string node_location;

  // Whether `earlier` is ordered before this operation.
  bool After(const StreamOpInfo& earlier) const;
  std::string Encode() const;
  static std::optional<StreamOpInfo> Decode(std::string_view payload);  // nullopt: malformed
};

}  // namespace barracuda::transport

#endif  // BARRACUDA_DEVICE_LOGGER_STREAM_OP_MESSAGE_H_
