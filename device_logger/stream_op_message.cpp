#include "device_logger/stream_op_message.h"

#include "device_logger/shm_transport.h"

namespace barracuda::transport {

bool StreamOpInfo::After(const StreamOpInfo& earlier) const {
  for (const auto& [stream, tick] : before)
    if (stream == earlier.stream_id) return tick >= earlier.tick;
  return false;
}

// Layout: u32 kind, u32 after_barrier, u64 launch_id, u64 stream_id, u64 tick,
// u32 n, n x (u64 stream, u64 tick), u32 m, m x (u64 base, u64 size, u32
// write), u64 exact, u32 api_len, api, u32 host_len, host_location,
// node_location (the rest).
std::string StreamOpInfo::Encode() const {
  PayloadWriter w;
  w.U32(static_cast<uint32_t>(kind)).U32(after_barrier ? 1 : 0).U64(launch_id).U64(stream_id).U64(tick);
  w.U32(static_cast<uint32_t>(before.size()));
  for (const auto& [stream, t] : before) w.U64(stream).U64(t);
  w.U32(static_cast<uint32_t>(ranges.size()));
  for (const Range& r : ranges) w.U64(r.base).U64(r.size).U32(r.write ? 1 : 0);
  w.U64(exact).U64(programmatic_after);
  w.U32(static_cast<uint32_t>(api.size())).Bytes(api);
  w.U32(static_cast<uint32_t>(host_location.size())).Bytes(host_location).Bytes(node_location);
  return w.data();
}

std::optional<StreamOpInfo> StreamOpInfo::Decode(std::string_view payload) {
  PayloadReader r(payload);
  StreamOpInfo op;
  uint32_t kind = 0, barrier = 0, n = 0, m = 0, api_len = 0, host_len = 0;
  if (!r.U32(&kind) || !r.U32(&barrier) || !r.U64(&op.launch_id) || !r.U64(&op.stream_id) || !r.U64(&op.tick) ||
      !r.U32(&n))
    return std::nullopt;
  if (kind < 1 || kind > 4 || barrier > 1 || n > r.remaining() / 16) return std::nullopt;
  op.kind = static_cast<StreamOpKind>(kind);
  op.after_barrier = barrier != 0;
  op.before.resize(n);
  for (auto& [stream, t] : op.before)
    if (!r.U64(&stream) || !r.U64(&t)) return std::nullopt;
  if (!r.U32(&m) || m > r.remaining() / 20) return std::nullopt;
  op.ranges.resize(m);
  for (Range& range : op.ranges) {
    uint32_t write = 0;
    if (!r.U64(&range.base) || !r.U64(&range.size) || !r.U32(&write) || write > 1) return std::nullopt;
    range.write = write != 0;
  }
  std::string_view api, host;
  if (!r.U64(&op.exact) || !r.U64(&op.programmatic_after) || !r.U32(&api_len) || !r.Bytes(api_len, &api) || !r.U32(&host_len) ||
      !r.Bytes(host_len, &host))
    return std::nullopt;
  op.api = std::string(api);
  op.host_location = std::string(host);
  op.node_location = std::string(r.Rest());
  return op;
}

}  // namespace barracuda::transport
