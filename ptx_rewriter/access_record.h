// The record-header fields (device_logger/protocol.h) of a classified access:
// one mapping for both producers of records, the emulator's tracer and the
// instrumentation pass, so that the two agree (DESIGN.md "The record contract").
#ifndef BARRACUDA_PTX_REWRITER_ACCESS_RECORD_H_
#define BARRACUDA_PTX_REWRITER_ACCESS_RECORD_H_

#include <cstdint>
#include <optional>

#include "device_logger/protocol.h"
#include "ptx_rewriter/sync_inference.h"

namespace barracuda::ptx {

// The record op of a class; nullopt for kNone (not logged).
inline std::optional<protocol::Op> RecordOp(AccessClass::Kind k) {
  using K = AccessClass::Kind;
  switch (k) {
    case K::kRead: return protocol::Op::kRead;
    case K::kWrite: return protocol::Op::kWrite;
    case K::kAtomic: return protocol::Op::kAtomic;
    case K::kAcquire: return protocol::Op::kAcquire;
    case K::kRelease: return protocol::Op::kRelease;
    case K::kAcqRel: return protocol::Op::kAcqRel;
    case K::kFence: return protocol::Op::kFence;
    case K::kNone: break;
  }
  return std::nullopt;
}

inline protocol::Scope RecordScope(Scope s) {
  switch (s) {
    case Scope::kCta: return protocol::Scope::kCta;
    case Scope::kCluster: return protocol::Scope::kCluster;
    case Scope::kGpu: return protocol::Scope::kGpu;
    case Scope::kSys: return protocol::Scope::kSys;
    case Scope::kNone: break;
  }
  return protocol::Scope::kNone;
}

// kFlagLoad / kFlagStore / kFlagVolatile (kFlagSameValue is decided per
// executed store, not statically).
inline uint8_t RecordFlags(const AccessClass& a) {
  uint8_t flags = 0;
  if (a.loads) flags |= protocol::kFlagLoad;
  if (a.stores) flags |= protocol::kFlagStore;
  if (a.is_volatile) flags |= protocol::kFlagVolatile;
  return flags;
}

}  // namespace barracuda::ptx

#endif  // BARRACUDA_PTX_REWRITER_ACCESS_RECORD_H_
