#include "device_logger/memory_error_message.h"

#include "device_logger/shm_transport.h"

namespace barracuda::transport {

const char* MemoryErrorKindName(MemoryErrorKind kind) {
  switch (kind) {
    case MemoryErrorKind::kOutOfBounds: return "out-of-bounds";
    case MemoryErrorKind::kUseAfterFree: return "use-after-free";
    case MemoryErrorKind::kInvalidAddress: return "invalid-address";
    case MemoryErrorKind::kMisaligned: return "misaligned";
    case MemoryErrorKind::kReadOnly: return "read-only";
  }
  return "unknown";
}

const char* MemorySpaceName(MemorySpace space) {
  switch (space) {
    case MemorySpace::kGeneric: return "generic";
    case MemorySpace::kGlobal: return "global";
    case MemorySpace::kShared: return "shared";
    case MemorySpace::kLocal: return "local";
    case MemorySpace::kParam: return "param";
    case MemorySpace::kConst: return "const";
  }
  return "unknown";
}

// Layout: i32 cuda_error, u32 kind, u32 write, u32 space, u32 size, u64
// address, u64 launch_id, u32 site, u32 ptx_line, u32 block[3], u32
// thread[3], u32 kernel_len, kernel, message (the rest).
std::string MemoryErrorInfo::Encode() const {
  PayloadWriter w;
  w.I32(cuda_error).U32(static_cast<uint32_t>(kind)).U32(write ? 1 : 0).U32(static_cast<uint32_t>(space)).U32(size);
  w.U64(address).U64(launch_id).U32(site).U32(ptx_line);
  for (uint32_t v : block) w.U32(v);
  for (uint32_t v : thread) w.U32(v);
  w.U32(static_cast<uint32_t>(kernel.size())).Bytes(kernel).Bytes(message);
  return w.data();
}

std::optional<MemoryErrorInfo> MemoryErrorInfo::Decode(std::string_view payload) {
  PayloadReader r(payload);
  MemoryErrorInfo m;
  uint32_t kind = 0, write = 0, space = 0, kernel_len = 0;
  if (!r.I32(&m.cuda_error) || !r.U32(&kind) || !r.U32(&write) || !r.U32(&space) || !r.U32(&m.size) ||
      !r.U64(&m.address) || !r.U64(&m.launch_id) || !r.U32(&m.site) || !r.U32(&m.ptx_line))
    return std::nullopt;
  for (uint32_t& v : m.block)
    if (!r.U32(&v)) return std::nullopt;
  for (uint32_t& v : m.thread)
    if (!r.U32(&v)) return std::nullopt;
  std::string_view kernel;
  if (!r.U32(&kernel_len) || !r.Bytes(kernel_len, &kernel)) return std::nullopt;
  if (kind < 1 || kind > 5 || write > 1 || space > 5) return std::nullopt;
  m.kind = static_cast<MemoryErrorKind>(kind);
  m.write = write != 0;
  m.space = static_cast<MemorySpace>(space);
  m.kernel = std::string(kernel);
  m.message = std::string(r.Rest());
  return m;
}

}  // namespace barracuda::transport
