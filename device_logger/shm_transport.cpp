#include "device_logger/shm_transport.h"

#include <dirent.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <new>
#include <utility>

#include <sstream>

namespace barracuda::transport {
namespace {

// absl::StrCat takes absl::string_view, which is not std::string_view in this
// Abseil build.
template <typename... A>
std::string Cat(const A&... parts) {
  std::ostringstream os;
  (os << ... << parts);
  return os.str();
}

bool IsPowerOfTwo(uint64_t v) { return v != 0 && (v & (v - 1)) == 0; }
uint64_t AlignUp(uint64_t v, uint64_t a) { return (v + a - 1) / a * a; }

std::string ShmName(std::string_view name) {
  if (!name.empty() && name.front() == '/') return std::string(name);
  return Cat("/", name);
}

absl::Status Errno(std::string_view what, std::string_view name) {
  return absl::UnavailableError(Cat(what, " ", name, ": ", std::strerror(errno)));
}

// Byte offsets inside one slot.
struct SlotOffsets {
  uint64_t ring_indices, channel_indices, channel_data, records;
};
SlotOffsets OffsetsOf(const Layout& l) {
  SlotOffsets o{};
  o.ring_indices = AlignUp(sizeof(SlotHeader), 128);
  o.channel_indices = o.ring_indices + uint64_t{l.rings_per_process} * sizeof(RingIndices);
  o.channel_data = o.channel_indices + sizeof(RingIndices);
  o.records = AlignUp(o.channel_data + l.channel_bytes, 64);
  return o;
}

bool ProcessAlive(uint32_t pid) {
  if (pid == 0) return true;  // no daemon yet: keep waiting
  return kill(static_cast<pid_t>(pid), 0) == 0 || errno == EPERM;
}

}  // namespace

const char* MessageTypeName(MessageType type) {
  switch (type) {
    case MessageType::kHello: return "hello";
    case MessageType::kModule: return "module";
    case MessageType::kKernelName: return "kernel-name";
    case MessageType::kLaunchBegin: return "launch-begin";
    case MessageType::kLaunchEnd: return "launch-end";
    case MessageType::kAllocation: return "allocation";
    case MessageType::kFree: return "free";
    case MessageType::kExit: return "exit";
    case MessageType::kDiagnostic: return "diagnostic";
    case MessageType::kLaunchNotRun: return "launch-not-run";
    case MessageType::kMemoryError: return "memory-error";
    case MessageType::kStreamOp: return "stream-op";
    case MessageType::kLaunchUnchecked: return "launch-unchecked";
    case MessageType::kProducerStats: return "producer-stats";
    case MessageType::kSchedule: return "schedule";
  }
  return "unknown";
}

absl::Status ValidateLayout(const Layout& l) {
  if (l.max_processes == 0 || l.max_processes > 4096)
    return absl::InvalidArgumentError("max_processes must be in 1..4096");
  if (l.rings_per_process == 0 || l.rings_per_process > 1024)
    return absl::InvalidArgumentError("rings_per_process must be in 1..1024");
  if (!IsPowerOfTwo(l.ring_capacity) || l.ring_capacity < 2 || l.ring_capacity > (1u << 24))
    return absl::InvalidArgumentError("ring_capacity must be a power of two in 2..2^24");
  if (!IsPowerOfTwo(l.channel_bytes) || l.channel_bytes < 64 || l.channel_bytes > (1u << 30))
    return absl::InvalidArgumentError("channel_bytes must be a power of two in 64..2^30");
  return absl::OkStatus();
}

// ---- payloads

PayloadWriter& PayloadWriter::Raw(const void* p, size_t n) {
  data_.append(static_cast<const char*>(p), n);
  return *this;
}

bool PayloadReader::Raw(void* out, size_t n) {
  if (remaining() < n) return false;
  std::memcpy(out, data_.data() + pos_, n);
  pos_ += n;
  return true;
}

bool PayloadReader::Bytes(size_t n, std::string_view* out) {
  if (remaining() < n) return false;
  *out = data_.substr(pos_, n);
  pos_ += n;
  return true;
}

std::string_view PayloadReader::Rest() {
  std::string_view rest = data_.substr(pos_);
  pos_ = data_.size();
  return rest;
}

// ---- waiting

bool Backoff::Wait() {
  ++steps_;
  if (steps_ < 64) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
    return true;
  }
  if (steps_ < 80) {
    sched_yield();
    return true;
  }
  // Sleeping: the daemon is behind (or gone). Check it every ~1000 sleeps (~50 ms).
  if (steps_ % 1024 == 0 && !ProcessAlive(header_->daemon_pid.load(std::memory_order_acquire)))
    return false;
  timespec ts{0, 50'000};
  nanosleep(&ts, nullptr);
  return true;
}

// ---- record ring

bool RecordRing::TryPush(const protocol::Record& r) {
  const uint64_t head = idx_->head.load(std::memory_order_relaxed);
  const uint64_t tail = idx_->tail.load(std::memory_order_acquire);
  if (head - tail > mask_) return false;
  slots_[head & mask_] = r;
  idx_->head.store(head + 1, std::memory_order_release);
  return true;
}

bool RecordRing::Push(const protocol::Record& r, Backoff& backoff) {
  // Full: wait until a quarter of the ring is free again, not for one slot.
  // A producer far ahead of the analysis (the emulator runs a tiled matmul
  // ~20x faster than it is analysed) otherwise woke for every slot the
  // consumer freed, and its spinning and yields took the analysis's core.
  const uint64_t room = std::max<uint64_t>(1, (mask_ + 1) / 4);
  for (;;) {
    const uint64_t used = idx_->head.load(std::memory_order_relaxed) - idx_->tail.load(std::memory_order_acquire);
    if (mask_ + 1 - used >= room && TryPush(r)) return true;
    if (!backoff.Wait()) return false;
  }
}

size_t RecordRing::PopBatch(std::span<protocol::Record> out) {
  const uint64_t tail = idx_->tail.load(std::memory_order_relaxed);
  const uint64_t head = idx_->head.load(std::memory_order_acquire);
  const size_t n = static_cast<size_t>(std::min<uint64_t>(head - tail, out.size()));
  for (size_t i = 0; i < n; ++i) out[i] = slots_[(tail + i) & mask_];
  if (n != 0) idx_->tail.store(tail + n, std::memory_order_release);
  return n;
}

size_t RecordRing::PeekBatch(std::span<protocol::Record> out) const {
  const uint64_t tail = idx_->tail.load(std::memory_order_relaxed);
  const uint64_t head = idx_->head.load(std::memory_order_acquire);
  const size_t n = static_cast<size_t>(std::min<uint64_t>(head - tail, out.size()));
  for (size_t i = 0; i < n; ++i) out[i] = slots_[(tail + i) & mask_];
  return n;
}

void RecordRing::Consume(size_t n) {
  if (n == 0) return;
  idx_->tail.store(idx_->tail.load(std::memory_order_relaxed) + n, std::memory_order_release);
}

size_t RecordRing::Available() const {
  return static_cast<size_t>(idx_->head.load(std::memory_order_acquire) -
                             idx_->tail.load(std::memory_order_relaxed));
}

// ---- byte channel

bool ByteChannel::Write(std::string_view bytes, Backoff& backoff) {
  const uint64_t capacity = uint64_t{mask_} + 1;
  while (!bytes.empty()) {
    const uint64_t head = idx_->head.load(std::memory_order_relaxed);
    const uint64_t tail = idx_->tail.load(std::memory_order_acquire);
    const uint64_t free = capacity - (head - tail);
    if (free == 0) {
      if (!backoff.Wait()) return false;
      continue;
    }
    const uint64_t at = head & mask_;
    const size_t n = static_cast<size_t>(std::min<uint64_t>({free, bytes.size(), capacity - at}));
    std::memcpy(data_ + at, bytes.data(), n);
    idx_->head.store(head + n, std::memory_order_release);
    bytes.remove_prefix(n);
  }
  return true;
}

size_t ByteChannel::ReadAvailable(std::string* out) {
  const uint64_t capacity = uint64_t{mask_} + 1;
  const uint64_t tail = idx_->tail.load(std::memory_order_relaxed);
  const uint64_t head = idx_->head.load(std::memory_order_acquire);
  uint64_t pos = tail;
  while (pos != head) {
    const uint64_t at = pos & mask_;
    const size_t n = static_cast<size_t>(std::min<uint64_t>(head - pos, capacity - at));
    out->append(reinterpret_cast<const char*>(data_ + at), n);
    pos += n;
  }
  if (pos != tail) idx_->tail.store(pos, std::memory_order_release);
  return static_cast<size_t>(pos - tail);
}

bool MessageStream::Next(Message* out) {
  if (error_) return false;
  Compact();
  if (buffered() < sizeof(MessageHeader)) return false;
  MessageHeader h;
  std::memcpy(&h, buffer_.data() + pos_, sizeof h);
  if (h.size > kMaxMessageBytes) {
    error_ = true;
    return false;
  }
  if (buffered() < sizeof h + h.size) return false;
  out->type = static_cast<MessageType>(h.type);
  out->payload = std::string_view(buffer_).substr(pos_ + sizeof h, h.size);
  pos_ += sizeof h + h.size;
  return true;
}

void MessageStream::Compact() {
  if (pos_ == buffer_.size() || pos_ > (1u << 20)) {  // now and then
    buffer_.erase(0, pos_);
    pos_ = 0;
  }
  // A large message (a Thrust module's site table: ~17 MiB) left the buffer
  // that large; give it back once it is read.
  if (buffer_.empty() && buffer_.capacity() > (size_t{1} << 20)) std::string().swap(buffer_);
}

// ---- segment

uint64_t Segment::SlotBytes(const Layout& l) {
  const SlotOffsets o = OffsetsOf(l);
  return AlignUp(o.records + uint64_t{l.rings_per_process} * l.ring_capacity * sizeof(protocol::Record),
                 4096);
}

uint64_t Segment::TotalBytes(const Layout& l) {
  return AlignUp(sizeof(SegmentHeader), 4096) + uint64_t{l.max_processes} * SlotBytes(l);
}

std::string Segment::UniqueName() {
  static std::atomic<uint32_t> counter{0};
  static const uint32_t nonce = [] {
    uint32_t n = 0;
    if (getrandom(&n, sizeof n, GRND_NONBLOCK) != static_cast<ssize_t>(sizeof n)) {
      timespec ts{};
      clock_gettime(CLOCK_REALTIME, &ts);
      n = static_cast<uint32_t>(ts.tv_nsec) ^ static_cast<uint32_t>(ts.tv_sec);
    }
    return n;
  }();
  char hex[9];
  std::snprintf(hex, sizeof hex, "%08x", nonce);
  return Cat("/barracuda-", getpid(), "-", hex, "-", counter.fetch_add(1));
}

int Segment::RemoveOrphans(std::string_view shm_dir, std::string_view prefix) {
  DIR* dir = opendir(std::string(shm_dir).c_str());
  if (dir == nullptr) return 0;
  int removed = 0;
  while (const dirent* e = readdir(dir)) {
    std::string_view n = e->d_name;
    if (n.substr(0, prefix.size()) != prefix) continue;
    n.remove_prefix(prefix.size());
    long pid = 0;
    size_t digits = 0;
    while (digits < n.size() && digits < 10 && n[digits] >= '0' && n[digits] <= '9') {
      pid = pid * 10 + (n[digits] - '0');
      ++digits;
    }
    // Only "<pid>-..." names are UniqueName's; anything else may be a user's.
    if (digits == 0 || digits >= n.size() || n[digits] != '-' || pid <= 0) continue;
    if (kill(static_cast<pid_t>(pid), 0) == 0 || errno != ESRCH) continue;
    if (shm_unlink(("/" + std::string(e->d_name)).c_str()) == 0) ++removed;
  }
  closedir(dir);
  return removed;
}

absl::StatusOr<Segment> Segment::Create(std::string_view name_in, const Layout& layout) {
  if (absl::Status s = ValidateLayout(layout); !s.ok()) return s;
  const std::string name = ShmName(name_in);
  const int fd = shm_open(name.c_str(), O_RDWR | O_CREAT | O_EXCL, 0600);
  if (fd < 0) return Errno("cannot create shared-memory segment", name);
  const uint64_t total = TotalBytes(layout);
  if (ftruncate(fd, static_cast<off_t>(total)) != 0) {
    absl::Status s = Errno("cannot size shared-memory segment", name);
    close(fd);
    shm_unlink(name.c_str());
    return s;
  }
  void* base = mmap(nullptr, total, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  close(fd);
  if (base == MAP_FAILED) {
    absl::Status s = Errno("cannot map shared-memory segment", name);
    shm_unlink(name.c_str());
    return s;
  }
  // The file is zero-filled: every index and slot state starts at 0. Only the
  // header needs writing; magic last, so an attacher never sees a half header.
  auto* header = new (base) SegmentHeader();
  header->version = kTransportVersion;
  header->header_bytes = sizeof(SegmentHeader);
  header->layout = layout;
  header->slot_bytes = SlotBytes(layout);
  header->total_bytes = total;
  header->magic.store(kSegmentMagic, std::memory_order_release);
  Segment seg;
  seg.name_ = name;
  seg.header_ = header;
  seg.mapped_bytes_ = total;
  return seg;
}

absl::StatusOr<Segment> Segment::Attach(std::string_view name_in) {
  const std::string name = ShmName(name_in);
  const int fd = shm_open(name.c_str(), O_RDWR, 0);
  if (fd < 0) return Errno("cannot open shared-memory segment", name);
  struct stat st{};
  if (fstat(fd, &st) != 0) {
    absl::Status s = Errno("cannot stat shared-memory segment", name);
    close(fd);
    return s;
  }
  const uint64_t size = static_cast<uint64_t>(st.st_size);
  if (size < sizeof(SegmentHeader)) {
    close(fd);
    return absl::FailedPreconditionError(Cat("shared-memory segment ", name, " is too small (",
                                                      size, " bytes): not a barracuda session"));
  }
  void* base = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  close(fd);
  if (base == MAP_FAILED) return Errno("cannot map shared-memory segment", name);
  auto* header = static_cast<SegmentHeader*>(base);
  auto fail = [&](std::string message) {
    munmap(base, size);
    return absl::FailedPreconditionError(Cat("shared-memory segment ", name, ": ", message));
  };
  if (header->magic.load(std::memory_order_acquire) != kSegmentMagic)
    return fail("bad magic (not a barracuda session, or not initialised)");
  if (header->version != kTransportVersion)
    return fail(Cat("transport version ", header->version, ", expected ", kTransportVersion));
  if (header->header_bytes != sizeof(SegmentHeader)) return fail("header size mismatch");
  if (!ValidateLayout(header->layout).ok()) return fail("invalid layout");
  if (header->total_bytes != TotalBytes(header->layout) || header->total_bytes > size ||
      header->slot_bytes != SlotBytes(header->layout))
    return fail("size does not match its layout");
  Segment seg;
  seg.name_ = name;
  seg.header_ = header;
  seg.mapped_bytes_ = size;
  return seg;
}

absl::Status Segment::Unlink(std::string_view name_in) {
  const std::string name = ShmName(name_in);
  if (shm_unlink(name.c_str()) != 0) return Errno("cannot remove shared-memory segment", name);
  return absl::OkStatus();
}

Segment::Segment(Segment&& other) noexcept
    : name_(std::move(other.name_)),
      header_(std::exchange(other.header_, nullptr)),
      mapped_bytes_(std::exchange(other.mapped_bytes_, 0)) {}

Segment& Segment::operator=(Segment&& other) noexcept {
  if (this != &other) {
    if (header_ != nullptr) munmap(header_, mapped_bytes_);
    name_ = std::move(other.name_);
    header_ = std::exchange(other.header_, nullptr);
    mapped_bytes_ = std::exchange(other.mapped_bytes_, 0);
  }
  return *this;
}

Segment::~Segment() {
  if (header_ != nullptr) munmap(header_, mapped_bytes_);
}

uint8_t* Segment::SlotBase(uint32_t index) const {
  return reinterpret_cast<uint8_t*>(header_) + AlignUp(sizeof(SegmentHeader), 4096) +
         uint64_t{index} * header_->slot_bytes;
}

SlotHeader& Segment::slot(uint32_t index) const {
  return *reinterpret_cast<SlotHeader*>(SlotBase(index));
}

RecordRing Segment::ring(uint32_t slot, uint32_t ring) const {
  const Layout& l = header_->layout;
  const SlotOffsets o = OffsetsOf(l);
  uint8_t* base = SlotBase(slot);
  auto* idx = reinterpret_cast<RingIndices*>(base + o.ring_indices) + ring;
  auto* records = reinterpret_cast<protocol::Record*>(base + o.records) + uint64_t{ring} * l.ring_capacity;
  return RecordRing(idx, records, l.ring_capacity);
}

void Segment::ReleaseSlotData(uint32_t slot) const {
  const SlotOffsets o = OffsetsOf(header_->layout);
  const uintptr_t base = reinterpret_cast<uintptr_t>(SlotBase(slot));
  const uintptr_t begin = AlignUp(base + o.channel_data, 4096);
  const uintptr_t end = (base + header_->slot_bytes) / 4096 * 4096;
  // Best effort: a failure only keeps the pages.
  if (end > begin) (void)madvise(reinterpret_cast<void*>(begin), end - begin, MADV_REMOVE);
}

ByteChannel Segment::channel(uint32_t slot) const {
  const Layout& l = header_->layout;
  const SlotOffsets o = OffsetsOf(l);
  uint8_t* base = SlotBase(slot);
  return ByteChannel(reinterpret_cast<RingIndices*>(base + o.channel_indices), base + o.channel_data,
                     l.channel_bytes);
}

// ---- producer

absl::StatusOr<std::unique_ptr<Producer>> Producer::Attach(std::string_view segment_name) {
  absl::StatusOr<Segment> seg = Segment::Attach(segment_name);
  if (!seg.ok()) return seg.status();
  const uint32_t slots = seg->layout().max_processes;
  for (uint32_t i = 0; i < slots; ++i) {
    SlotHeader& s = seg->slot(i);
    uint32_t expected = static_cast<uint32_t>(SlotState::kFree);
    if (!s.state.compare_exchange_strong(expected, static_cast<uint32_t>(SlotState::kClaimed),
                                         std::memory_order_acq_rel))
      continue;
    // Fresh slots are zero (slots are never reused within a session).
    s.pid.store(static_cast<uint32_t>(getpid()), std::memory_order_relaxed);
    s.state.store(static_cast<uint32_t>(SlotState::kActive), std::memory_order_release);
    return std::unique_ptr<Producer>(new Producer(std::move(*seg), i));
  }
  return absl::ResourceExhaustedError(Cat("shared-memory segment ", segment_name, ": all ", slots,
                                                   " process slots are taken"));
}

Producer::~Producer() { Detach(0); }

bool Producer::PushRecord(uint32_t ring, const protocol::Record& record) {
  RecordRing r = segment_.ring(slot_, ring);
  if (r.TryPush(record)) return true;
  // Full: the analysis is behind. Only this slow path reads the clock.
  const auto start = std::chrono::steady_clock::now();
  Backoff backoff(&segment_.header());
  const bool pushed = r.Push(record, backoff);
  waited_ns_.fetch_add(static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                                 std::chrono::steady_clock::now() - start)
                                                 .count()),
                       std::memory_order_relaxed);
  return pushed;
}

bool Producer::Send(MessageType type, std::string_view payload) {
  MessageHeader h{static_cast<uint32_t>(type), static_cast<uint32_t>(payload.size())};
  std::string frame(reinterpret_cast<const char*>(&h), sizeof h);
  frame.append(payload);
  while (channel_lock_.test_and_set(std::memory_order_acquire)) sched_yield();
  Backoff backoff(&segment_.header());
  const bool ok = segment_.channel(slot_).Write(frame, backoff);
  channel_lock_.clear(std::memory_order_release);
  return ok;
}

bool Producer::SendHello(const std::vector<std::string>& argv) {
  PayloadWriter w;
  for (const std::string& a : argv) w.Bytes(a).Raw("", 1);
  return Send(MessageType::kHello, w.data());
}

bool Producer::SendHello() {
  // /proc/self/cmdline is the kHello payload already: NUL-terminated arguments.
  std::string argv;
  if (FILE* f = std::fopen("/proc/self/cmdline", "rb")) {
    char buf[4096];
    for (size_t n; (n = std::fread(buf, 1, sizeof buf, f)) > 0;) argv.append(buf, n);
    std::fclose(f);
  }
  return Send(MessageType::kHello, argv);
}

bool Producer::SendModule(uint32_t module_id, uint32_t site_base, std::string_view name,
                          std::string_view site_table_json) {
  PayloadWriter w;
  w.U32(module_id).U32(site_base).U32(static_cast<uint32_t>(name.size())).Bytes(name).Bytes(site_table_json);
  return Send(MessageType::kModule, w.data());
}

bool Producer::SendKernelName(uint32_t name_id, std::string_view mangled) {
  PayloadWriter w;
  w.U32(name_id).Bytes(mangled);
  return Send(MessageType::kKernelName, w.data());
}

bool Producer::SendLaunchBegin(const protocol::Record& begin, uint32_t rings) {
  uint32_t used = segment_.slot(slot_).rings_used.load(std::memory_order_relaxed);
  if (rings > used) segment_.slot(slot_).rings_used.store(rings, std::memory_order_relaxed);
  PayloadWriter w;
  w.Rec(begin).U32(rings);
  return Send(MessageType::kLaunchBegin, w.data());
}

bool Producer::EndLaunch(const protocol::Record& end, std::span<const uint64_t> counts) {
  protocol::Record marker = end;
  marker.header.op = static_cast<uint8_t>(protocol::Op::kKernelEnd);
  for (uint32_t r = 0; r < counts.size(); ++r)
    if (!PushRecord(r, marker)) return false;
  PayloadWriter w;
  w.Rec(end).U32(static_cast<uint32_t>(counts.size()));
  for (uint64_t c : counts) w.U64(c);
  return Send(MessageType::kLaunchEnd, w.data());
}

bool Producer::SendAllocation(uint64_t base, uint64_t size, AllocationKind kind, std::string_view label) {
  PayloadWriter w;
  w.U64(base).U64(size).U32(static_cast<uint32_t>(kind)).Bytes(label);
  return Send(MessageType::kAllocation, w.data());
}

bool Producer::SendFree(uint64_t base) {
  PayloadWriter w;
  w.U64(base);
  return Send(MessageType::kFree, w.data());
}

bool Producer::SendDiagnostic(std::string_view text) { return Send(MessageType::kDiagnostic, text); }

bool Producer::SendLaunchNotRun(int32_t cuda_error, std::string_view mangled_kernel, std::string_view reason) {
  PayloadWriter w;
  w.I32(cuda_error).U32(static_cast<uint32_t>(mangled_kernel.size())).Bytes(mangled_kernel).Bytes(reason);
  return Send(MessageType::kLaunchNotRun, w.data());
}

bool Producer::SendLaunchUnchecked(std::string_view mangled_kernel, std::string_view what) {
  PayloadWriter w;
  w.U32(static_cast<uint32_t>(mangled_kernel.size())).Bytes(mangled_kernel).Bytes(what);
  return Send(MessageType::kLaunchUnchecked, w.data());
}

bool Producer::SendMemoryError(std::string_view encoded) { return Send(MessageType::kMemoryError, encoded); }

bool Producer::SendStreamOp(std::string_view encoded) { return Send(MessageType::kStreamOp, encoded); }

bool Producer::SendSchedule(std::string_view policy, uint64_t seed, std::string_view arguments) {
  PayloadWriter w;
  w.U64(seed).U32(static_cast<uint32_t>(policy.size())).Bytes(policy).Bytes(arguments);
  return Send(MessageType::kSchedule, w.data());
}

void Producer::Detach(int32_t status) {
  if (!attached_) return;
  attached_ = false;
  PayloadWriter stats;
  stats.U64(launch_ns_.load()).U64(waited_ns_.load()).U64(launches_.load());
  Send(MessageType::kProducerStats, stats.data());
  PayloadWriter w;
  w.I32(status);
  Send(MessageType::kExit, w.data());
  segment_.slot(slot_).state.store(static_cast<uint32_t>(SlotState::kExited), std::memory_order_release);
}

}  // namespace barracuda::transport
