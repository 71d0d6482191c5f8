// The shared-memory transport between record producers (the emulator's
// replacement libcudart inside the app, the GPU agent later) and the analysis
// daemon (barracudad). DESIGN.md "Processes and data flow".
//
// One POSIX shared-memory segment per session (shm_open + mmap), created by the
// CLI (or by barracudad --create). It holds a fixed table of process slots; a
// producer process claims one with an atomic compare-and-swap. A slot owns
//   - `rings_per_process` single-producer single-consumer rings of
//     protocol::Record (one per emulator worker: the records of one block are on
//     one ring, in that block's order, as AnalyzeLaunchParallel wants);
//   - one SPSC byte channel of framed messages (side tables: site tables as JSON,
//     kernel names, launch begin/end, allocations, process exit). Messages may be
//     larger than the channel: writer and reader stream through it.
// The layout holds no pointers: every part is found by offset from the segment
// base, computed from the parameters in the segment header, so each process may
// map the segment anywhere.
//
// Nothing is dropped: a producer whose ring (or channel) is full waits (spin,
// then yield, then short sleeps) until the daemon has consumed. Each ring's head
// counts the records ever pushed and its tail those ever popped, so at the end
// the daemon can verify that it consumed everything that was produced. If the
// daemon dies, a waiting producer notices (the daemon's pid is in the header)
// and the push fails instead of hanging the app.
//
// Launch framing on the rings: records of launch L on ring r are followed by one
// kKernelEnd record (the end marker) pushed by the launching thread after every
// worker finished; the channel carries kLaunchBegin (before any record) and
// kLaunchEnd (after the markers, with the per-ring record counts).
#ifndef BARRACUDA_DEVICE_LOGGER_SHM_TRANSPORT_H_
#define BARRACUDA_DEVICE_LOGGER_SHM_TRANSPORT_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "device_logger/protocol.h"

namespace barracuda::transport {

inline constexpr uint64_t kSegmentMagic = 0x6164756361727261ull;  // "arracuda"
inline constexpr uint32_t kTransportVersion = 1;
// The environment variable naming the session's segment (set by the CLI for the app).
inline constexpr const char* kSessionEnv = "BARRACUDA_SESSION";

static_assert(std::atomic<uint64_t>::is_always_lock_free, "shared atomics must be address-free");
static_assert(std::atomic<uint32_t>::is_always_lock_free, "shared atomics must be address-free");

// Segment shape, fixed at creation. Rings and channel sizes are powers of two.
struct Layout {
  uint32_t max_processes = 16;
  uint32_t rings_per_process = 32;
  uint32_t ring_capacity = 1024;         // records per ring (280 KiB)
  uint32_t channel_bytes = 1u << 20;     // side-table channel per process
  friend bool operator==(const Layout&, const Layout&) = default;
};
absl::Status ValidateLayout(const Layout& layout);

// ---- shared structures (all offsets, no pointers)

// Producer and consumer indices on separate cache lines.
struct alignas(64) RingIndices {
  std::atomic<uint64_t> head{0};  // written by the producer: items ever pushed
  char pad0[56];
  std::atomic<uint64_t> tail{0};  // written by the consumer: items ever popped
  char pad1[56];
};
static_assert(sizeof(RingIndices) == 128);

enum class SlotState : uint32_t {
  kFree = 0,
  kClaimed = 1,  // a producer is initialising it
  kActive = 2,   // producing
  kExited = 3,   // the producer detached normally (everything it produced is in the slot)
};

struct alignas(64) SlotHeader {
  std::atomic<uint32_t> state{0};  // SlotState
  std::atomic<uint32_t> pid{0};
  std::atomic<uint32_t> rings_used{0};  // highest ring index used + 1 (for diagnostics)
  uint32_t reserved = 0;
};

struct alignas(64) SegmentHeader {
  std::atomic<uint64_t> magic{0};  // written last by Create
  uint32_t version = 0;
  uint32_t header_bytes = 0;
  Layout layout;
  uint64_t slot_bytes = 0;
  uint64_t total_bytes = 0;
  std::atomic<uint32_t> daemon_pid{0};   // 0 until a daemon attached
  std::atomic<uint32_t> app_done{0};     // set by the CLI when the app ended (informational)
  // Live counters the daemon publishes for the CLI's progress line.
  std::atomic<uint64_t> launches_analysed{0};
  std::atomic<uint64_t> records_analysed{0};
  std::atomic<uint64_t> races_found{0};
  // Launches whose begin the daemon has seen: more than launches_analysed
  // while one is under way (the CLI's hint about a launch that never ends).
  std::atomic<uint64_t> launches_begun{0};
};

// ---- framed messages on the byte channel

enum class MessageType : uint32_t {
  kHello = 1,        // argv of the process, NUL-separated
  kModule = 2,       // u32 module_id, u32 site_base, u32 name_len, name, site-table JSON
  kKernelName = 3,   // u32 name_id, mangled name
  kLaunchBegin = 4,  // Record (kKernelBegin), u32 rings
  kLaunchEnd = 5,    // Record (kKernelEnd), u32 rings, u64 records[rings]
  kAllocation = 6,   // u64 base, u64 size, u32 kind, label
  kFree = 7,         // u64 base
  kExit = 8,         // i32 status (the process detached normally)
  kDiagnostic = 9,   // text the producer wants in the report (e.g. a launch failed)
  // A launch that did not run (or not to its end) for a reason of the tool, not
  // of the program: its module could not be loaded, or it uses an instruction
  // the emulator does not implement. i32 cudaError_t, u32 name_len, mangled
  // kernel name, reason text. The analysis is then incomplete.
  kLaunchNotRun = 10,
  // Sent at Detach, before kExit: u64 ns inside launches (the producer's
  // clock: OnLaunchBegin to OnLaunchEnd), u64 ns PushRecord waited for room
  // in a full ring (the analysis behind; summed over the producer's threads),
  // u64 launches. For `-v`.
  kProducerStats = 11,
  // The emulator schedule the process runs under (barracuda --seed /
  // --schedule-policy / --schedules): u64 seed, u32 policy_len, policy name,
  // the other barracuda options that replay it ("--delays 1:0:17"; may be
  // empty). Reports name it; schedule exploration tells its runs apart by it.
  kSchedule = 12,
  // A kernel's memory access fault (the emulator's memcheck): out of bounds,
  // use after free, misaligned, ... with the thread, site and address.
  // Payload: memory_error_message.h (MemoryErrorInfo::Encode).
  kMemoryError = 13,
  // A stream-ordered operation (kernel launch, copy, set) with its
  // happens-before over streams and events, for stream-order race checks.
  // Payload: stream_op_message.h (StreamOpInfo::Encode).
  kStreamOp = 14,
  // A launch that ran and was traced, of a kernel that reaches instructions
  // the producer does not log (the GPU backend's logger: TMA tensor copies,
  // texture fetches, ...): races through them are not checked, so the
  // analysis is incomplete. u32 name_len, mangled kernel name, what is not
  // logged (text).
  kLaunchUnchecked = 15,
};
const char* MessageTypeName(MessageType type);

struct MessageHeader {
  uint32_t type = 0;
  uint32_t size = 0;  // payload bytes that follow
};
static_assert(sizeof(MessageHeader) == 8);
inline constexpr uint32_t kMaxMessageBytes = 256u << 20;

// Allocation kinds as sent (mirrors reports::AllocationKind).
enum class AllocationKind : uint32_t { kDevice = 0, kAsync, kManaged, kHostMapped, kModuleGlobal, kOther };

// Payload builders and a bounds-checked reader (native byte order: both ends
// run on the same machine).
class PayloadWriter {
 public:
  PayloadWriter& U32(uint32_t v) { return Raw(&v, sizeof v); }
  PayloadWriter& U64(uint64_t v) { return Raw(&v, sizeof v); }
  PayloadWriter& I32(int32_t v) { return Raw(&v, sizeof v); }
  PayloadWriter& Bytes(std::string_view s) { return Raw(s.data(), s.size()); }
  PayloadWriter& Rec(const protocol::Record& r) { return Raw(&r, sizeof r); }
  PayloadWriter& Raw(const void* p, size_t n);
  const std::string& data() const { return data_; }

 private:
  std::string data_;
};

class PayloadReader {
 public:
  explicit PayloadReader(std::string_view data) : data_(data) {}
  bool U32(uint32_t* v) { return Raw(v, sizeof *v); }
  bool U64(uint64_t* v) { return Raw(v, sizeof *v); }
  bool I32(int32_t* v) { return Raw(v, sizeof *v); }
  bool Rec(protocol::Record* r) { return Raw(r, sizeof *r); }
  bool Bytes(size_t n, std::string_view* out);
  std::string_view Rest();
  bool Raw(void* out, size_t n);
  size_t remaining() const { return data_.size() - pos_; }

 private:
  std::string_view data_;
  size_t pos_ = 0;
};

// ---- views over the segment

// Waiting policy of a producer on a full ring/channel. Returns false when the
// consumer is gone (the wait was abandoned).
class Backoff {
 public:
  explicit Backoff(const SegmentHeader* header) : header_(header) {}
  bool Wait();  // one step of spin / yield / sleep; checks the daemon now and then

 private:
  const SegmentHeader* header_;
  uint32_t steps_ = 0;
};

class RecordRing {
 public:
  RecordRing(RingIndices* indices, protocol::Record* slots, uint32_t capacity)
      : idx_(indices), slots_(slots), mask_(capacity - 1) {}
  // Producer side.
  bool TryPush(const protocol::Record& r);
  bool Push(const protocol::Record& r, Backoff& backoff);  // false: consumer gone
  // Consumer side: pops up to out.size() records; returns how many.
  size_t PopBatch(std::span<protocol::Record> out);
  // Consumer side, in two steps: copy up to out.size() records without
  // consuming them, then consume the first n (n <= what was peeked). Lets the
  // daemon stop exactly at a launch's end marker.
  size_t PeekBatch(std::span<protocol::Record> out) const;
  void Consume(size_t n);
  size_t Available() const;
  uint64_t produced() const { return idx_->head.load(std::memory_order_acquire); }
  uint64_t consumed() const { return idx_->tail.load(std::memory_order_acquire); }
  uint32_t capacity() const { return mask_ + 1; }

 private:
  RingIndices* idx_;
  protocol::Record* slots_;
  uint32_t mask_;
};

class ByteChannel {
 public:
  ByteChannel(RingIndices* indices, uint8_t* data, uint32_t capacity)
      : idx_(indices), data_(data), mask_(capacity - 1) {}
  // Producer side: writes all of `bytes`, waiting while full. False: consumer gone.
  bool Write(std::string_view bytes, Backoff& backoff);
  // Consumer side: appends every byte available now to `out`; returns how many.
  size_t ReadAvailable(std::string* out);
  uint64_t produced() const { return idx_->head.load(std::memory_order_acquire); }
  uint64_t consumed() const { return idx_->tail.load(std::memory_order_acquire); }

 private:
  RingIndices* idx_;
  uint8_t* data_;
  uint32_t mask_;
};

// Consumer side: reassembles framed messages from channel bytes.
class MessageStream {
 public:
  struct Message {
    MessageType type;
    // Into the stream's buffer: valid until the next Next, Fill or Append
    // (no copy: a module's site table is tens of MiB).
    std::string_view payload;
  };
  // Reads what the channel has now.
  void Fill(ByteChannel& channel) {
    Compact();
    channel.ReadAvailable(&buffer_);
  }
  void Append(std::string_view bytes) {
    Compact();
    buffer_.append(bytes);
  }
  // The next complete message; false when incomplete. A frame over
  // kMaxMessageBytes sets error() and stops the stream.
  bool Next(Message* out);
  bool error() const { return error_; }
  size_t buffered() const { return buffer_.size() - pos_; }

 private:
  void Compact();  // drops what was read (invalidates earlier payloads)
  std::string buffer_;
  size_t pos_ = 0;
  bool error_ = false;
};

// A mapped segment. Movable, unmaps on destruction.
class Segment {
 public:
  // Creates (exclusively) and initialises a segment. `name` is a POSIX shm name
  // ("/barracuda-1234"); a missing leading '/' is added.
  static absl::StatusOr<Segment> Create(std::string_view name, const Layout& layout = {});
  // Maps an existing segment; validates magic, version and size.
  static absl::StatusOr<Segment> Attach(std::string_view name);
  // Removes the name (mappings stay valid).
  static absl::Status Unlink(std::string_view name);
  // A fresh name for this process: "/barracuda-<pid>-<nonce>-<counter>". The
  // random nonce keeps a name fresh even when a segment of an earlier process
  // with the same (reused) pid was never unlinked (its creator was SIGKILLed).
  static std::string UniqueName();
  // Unlinks segments whose creating process (the pid in a UniqueName-style name)
  // no longer exists: a SIGKILLed session cannot unlink its segment, and tmpfs
  // keeps it (often 100+ MiB) until reboot. Returns how many were removed.
  // Names that are not ours, and segments of live processes, are left alone.
  // `prefix` is the names' family: tests pass one of their own, so that a
  // barracuda session starting beside them cannot remove their orphans first.
  static int RemoveOrphans(std::string_view shm_dir = "/dev/shm",
                           std::string_view prefix = "barracuda-");

  Segment(Segment&& other) noexcept;
  Segment& operator=(Segment&& other) noexcept;
  Segment(const Segment&) = delete;
  Segment& operator=(const Segment&) = delete;
  ~Segment();

  const std::string& name() const { return name_; }
  SegmentHeader& header() const { return *header_; }
  const Layout& layout() const { return header_->layout; }

  SlotHeader& slot(uint32_t index) const;
  RecordRing ring(uint32_t slot, uint32_t ring) const;
  ByteChannel channel(uint32_t slot) const;
  // Gives the pages of a finished slot's channel data and rings back to the
  // system (they read as zero afterwards; the indices stay). For a consumer
  // that drained a slot whose producer exited: a long session of many
  // processes (schedule exploration) then holds only the live slots' pages.
  void ReleaseSlotData(uint32_t slot) const;

  // Byte size of a segment with `layout` (header + slots).
  static uint64_t SlotBytes(const Layout& layout);
  static uint64_t TotalBytes(const Layout& layout);

 private:
  Segment() = default;
  uint8_t* SlotBase(uint32_t index) const;
  std::string name_;
  SegmentHeader* header_ = nullptr;
  size_t mapped_bytes_ = 0;
};

// The producer side of one process: claims a slot at Attach, releases it (state
// kExited) at Detach. Thread-safety: PushRecord(ring, ...) must be called by one
// thread at a time per ring (the emulator's worker owns its ring); Send* are
// serialised internally.
class Producer {
 public:
  static absl::StatusOr<std::unique_ptr<Producer>> Attach(std::string_view segment_name);
  ~Producer();  // Detach(0) when still attached

  uint32_t slot() const { return slot_; }
  uint32_t rings() const { return segment_.layout().rings_per_process; }
  const Segment& segment() const { return segment_; }

  // False when the daemon is gone (the record is lost; the caller should stop).
  bool PushRecord(uint32_t ring, const protocol::Record& record);
  bool Send(MessageType type, std::string_view payload);

  // Typed messages.
  bool SendHello(const std::vector<std::string>& argv);
  bool SendHello();  // this process's argv (/proc/self/cmdline)
  bool SendModule(uint32_t module_id, uint32_t site_base, std::string_view name,
                  std::string_view site_table_json);
  bool SendKernelName(uint32_t name_id, std::string_view mangled);
  bool SendLaunchBegin(const protocol::Record& begin, uint32_t rings);
  // Pushes the end marker on rings [0, rings) and sends kLaunchEnd with the
  // per-ring record counts of this launch (`counts`, excluding markers).
  bool EndLaunch(const protocol::Record& end, std::span<const uint64_t> counts);
  bool SendAllocation(uint64_t base, uint64_t size, AllocationKind kind, std::string_view label);
  bool SendFree(uint64_t base);
  bool SendDiagnostic(std::string_view text);
  bool SendLaunchNotRun(int32_t cuda_error, std::string_view mangled_kernel, std::string_view reason);
  bool SendLaunchUnchecked(std::string_view mangled_kernel, std::string_view what);
  bool SendMemoryError(std::string_view encoded);  // MemoryErrorInfo::Encode()
  bool SendStreamOp(std::string_view encoded);     // StreamOpInfo::Encode()
  bool SendSchedule(std::string_view policy, uint64_t seed, std::string_view arguments);
  // A launch took `ns` on the producer's clock (sent with kProducerStats).
  void CountLaunch(uint64_t ns) {
    launch_ns_.fetch_add(ns, std::memory_order_relaxed);
    launches_.fetch_add(1, std::memory_order_relaxed);
  }
  uint64_t waited_ns() const { return waited_ns_.load(std::memory_order_relaxed); }
  // Sends kProducerStats and kExit, and marks the slot kExited. Idempotent.
  void Detach(int32_t status);
  bool attached() const { return attached_; }

 private:
  Producer(Segment segment, uint32_t slot) : segment_(std::move(segment)), slot_(slot) {}
  Segment segment_;
  uint32_t slot_;
  bool attached_ = true;
  std::atomic_flag channel_lock_;  // clear (C++20)
  std::atomic<uint64_t> launch_ns_{0}, waited_ns_{0}, launches_{0};
};

}  // namespace barracuda::transport

#endif  // BARRACUDA_DEVICE_LOGGER_SHM_TRANSPORT_H_
