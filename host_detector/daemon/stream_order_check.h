// Stream-order races (issue 18 item 2): two operations of the program that
// CUDA does not order (different streams, no event, host synchronisation or
// legacy-stream operation between them: ptx_emulator/runtime/stream_order.h)
// and that touch the same device bytes, at least one writing with a plain
// access: two kernels, or a kernel and a cudaMemcpyAsync / cudaMemsetAsync.
// The emulator runs them one after the other, so the kernels' own analysis
// sees no race; on a GPU they may overlap. Also the host's own reads and
// writes of managed / mapped memory (kHostAccess operations, the bytes of the
// watched page: ptx_emulator/runtime/host_access_watch.h) against earlier
// kernels and copies the host had not synchronised with, and host functions'
// (kHostAccess on a stream's timeline) against the work of other streams,
// earlier or later, and the host's own accesses, as any stream operation.
//
// Per operation, the device memory it touched (a footprint of 4-byte words
// per 128-byte line: plain reads, plain writes, strong reads, strong writes,
// and the first site of each per line; a word only partly touched keeps its
// bytes, so that operations touching disjoint bytes of one word, e.g. two
// streams each filling its half of a char buffer split at an odd offset, are
// not a race), collected from a kernel's records as
// they are drained and from a copy's ranges. When an operation completes it
// is compared with the retained earlier operations it is not ordered after;
// strong accesses on both sides are not a race (morally strong at device
// scope). At most kMaxRetained operations are retained (the oldest are
// dropped: races between operations further apart are missed) and a
// device-wide barrier drops them all.
// A programmatic dependent launch (StreamOpInfo::programmatic_after) is
// ordered after the kernel before it only for each thread's accesses after
// its griddepcontrol.wait (kGridDepWait records): the accesses before are
// also collected apart and compared with that kernel's (api
// kBeforeGridDependencyWait on the later side).
#ifndef BARRACUDA_HOST_DETECTOR_DAEMON_STREAM_ORDER_CHECK_H_
#define BARRACUDA_HOST_DETECTOR_DAEMON_STREAM_ORDER_CHECK_H_

#include <cstdint>
#include <deque>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "device_logger/protocol.h"
#include "device_logger/stream_op_message.h"

namespace barracuda::daemon {

struct StreamOrderRace {
  struct Side {
    transport::StreamOpKind kind = transport::StreamOpKind::kKernel;
    std::string api;           // "kernel launch", "cudaMemcpyAsync", ...
    uint64_t stream_id = 0;
    uint64_t launch_id = 0;    // kernels
    uint32_t site = protocol::kNoSite;  // kernels: a site of the access on that line
    bool write = false;
    bool strong = false;
    std::string host_location; // "module+0xoffset ..." of the API call
    std::string node_location; // a graph node's work: frames that added the node, else empty
  };
  Side earlier, later;          // in issue order
  uint64_t address = 0;         // the conflicting word (its first conflicting byte when only part
                                // of it conflicts: Compare), or the host's exact byte
  uint64_t occurrences = 1;     // pairs of operations with the same sides
};

class StreamOrderCheck {
 public:
  static constexpr size_t kMaxRetained = 64;
  static constexpr size_t kMaxRaces = 256;
  static constexpr size_t kMaxLines = size_t{4} << 20;  // per operation (512 MiB of device memory)

  // A copy, set or host access is checked at once; a kernel when its launch
  // ends. Host accesses are not retained (later operations follow them).
  void OnOp(transport::StreamOpInfo op);
  // Whether the records of `launch_id` are to be collected.
  bool Collecting(uint64_t launch_id) const { return open_ && open_->info.launch_id == launch_id; }
  void Collect(std::span<const protocol::Record> records);
  void EndLaunch(uint64_t launch_id);

  const std::vector<StreamOrderRace>& races() const { return races_; }
  uint64_t truncated_ops() const { return truncated_; }

 private:
  // Which bytes of one 4-byte word were touched, by kind (4 bits used each).
  struct WordBytes {
    uint8_t read = 0, write = 0, strong_read = 0, strong_write = 0;
  };
  struct Line {
    uint32_t read = 0, write = 0, strong_read = 0, strong_write = 0;  // whole words
    uint32_t partial = 0;  // words with bytes in Op::partial_words
    uint32_t read_site = protocol::kNoSite, write_site = protocol::kNoSite;
  };
  struct Op {
    transport::StreamOpInfo info;
    absl::flat_hash_map<uint64_t, Line> lines;  // by address / 128
    // Words some access covered only in part, by address / 4: the bytes of
    // each kind not (yet) covering the whole word. A kind that comes to
    // cover the word moves to the line's mask; past kMaxLines entries a word
    // counts as whole (a race may be reported on disjoint bytes: never missed).
    absl::flat_hash_map<uint64_t, WordBytes> partial_words;
    bool truncated = false;
  };
  void Touch(Op& op, uint64_t address, uint64_t size, bool write, bool strong, uint32_t site);
  static WordBytes BytesOf(const Op& op, const Line& l, uint64_t line, uint32_t word);
  void Complete(Op op);
  void Compare(const Op& earlier, const Op& later);

  std::deque<Op> retained_;
  std::optional<Op> open_;  // the kernel launch being collected
  // A programmatic launch's accesses before its threads' griddepcontrol.wait,
  // and per warp (RecordHeader::warp_id) the lanes that passed it.
  std::optional<Op> open_before_wait_;
  absl::flat_hash_map<uint32_t, uint32_t> waited_lanes_;
  std::vector<StreamOrderRace> races_;
  absl::flat_hash_map<std::string, size_t> race_index_;  // sides' key -> races_ index
  uint64_t truncated_ = 0;
};

}  // namespace barracuda::daemon

#endif  // BARRACUDA_HOST_DETECTOR_DAEMON_STREAM_ORDER_CHECK_H_
