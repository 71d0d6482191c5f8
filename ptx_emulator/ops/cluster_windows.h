// Distributed shared memory of a thread-block cluster, as the memory handlers
// see it (WarpCtx::cluster, core/warp_context.h):
//   .shared::cluster address of the own CTA  = its .shared::cta offset
//   .shared::cluster address of rank r's CTA = ClusterSharedAddress(r, offset)
//                                              ((r + 1) << 24 | offset)
//   generic address of rank r's offset       = ClusterWindows::base[r] + offset
// mapa produces the last two, getctarank reads the rank back, and
// ld/st/atom/red (.shared::cluster or generic) reach the neighbour's window
// through mem::Resolve, recording protocol::SharedAddress(neighbour block,
// offset). A WarpCtx without a cluster (handler tests) is a cluster of one.
#ifndef BARRACUDA_PTX_EMULATOR_OPS_CLUSTER_WINDOWS_H_
#define BARRACUDA_PTX_EMULATOR_OPS_CLUSTER_WINDOWS_H_

#include <cstdint>

#include "ptx_emulator/core/exec_form.h"
#include "ptx_emulator/core/warp_context.h"

namespace barracuda::emu::mem {

// A byte range [offset, offset + size) of rank `rank`'s window.
struct ClusterPlace {
  uint32_t rank = 0;
  uint32_t offset = 0;
};

inline uint32_t ClusterSize(const WarpCtx& ctx) { return ctx.cluster != nullptr ? ctx.cluster->size : 1; }

// %cluster_ctarank of `lane` (0 without a cluster).
inline uint32_t OwnClusterRank(const WarpCtx& ctx, uint32_t lane) {
  if (ctx.cluster == nullptr || ctx.sregs == nullptr) return 0;
  return static_cast<uint32_t>(ctx.sregs[static_cast<uint32_t>(SpecialReg::kClusterCtarank) * kLanes + lane]);
}

inline bool InWindow(uint64_t offset, uint32_t size, uint32_t window) {
  return size <= window && offset <= window - size;
}

// A .shared::cluster address: the own window (plain offset) or a rank's.
inline bool FindClusterShared(const WarpCtx& ctx, uint32_t lane, uint64_t addr, uint32_t size, ClusterPlace& out) {
  if (InWindow(addr, size, ctx.shared_bytes)) {
    out = ClusterPlace{OwnClusterRank(ctx, lane), static_cast<uint32_t>(addr)};
    return true;
  }
  const uint64_t tag = addr >> kClusterWindowShift;
  const uint64_t offset = addr & ((uint64_t{1} << kClusterWindowShift) - 1);
  if (tag == 0 || tag > ClusterSize(ctx) || !InWindow(offset, size, ctx.shared_bytes)) return false;
  out = ClusterPlace{static_cast<uint32_t>(tag - 1), static_cast<uint32_t>(offset)};
  return true;
}

// A generic address inside the shared window of some CTA of the cluster.
inline bool FindClusterGeneric(const WarpCtx& ctx, uint32_t lane, uint64_t addr, uint32_t size, ClusterPlace& out) {
  const uint64_t own = reinterpret_cast<uintptr_t>(ctx.shared_base);
  if (ctx.shared_base != nullptr && InWindow(addr - own, size, ctx.shared_bytes)) {
    out = ClusterPlace{OwnClusterRank(ctx, lane), static_cast<uint32_t>(addr - own)};
    return true;
  }
  if (ctx.cluster == nullptr) return false;
  for (uint32_t r = 0; r < ctx.cluster->size; ++r) {
    const uint64_t base = reinterpret_cast<uintptr_t>(ctx.cluster->base[r]);
    if (InWindow(addr - base, size, ctx.shared_bytes)) {
      out = ClusterPlace{r, static_cast<uint32_t>(addr - base)};
      return true;
    }
  }
  return false;
}

// Host pointer of a place, and the grid-linear block that owns it.
inline uint8_t* ClusterHost(const WarpCtx& ctx, const ClusterPlace& p) {
  return (ctx.cluster != nullptr ? ctx.cluster->base[p.rank] : ctx.shared_base) + p.offset;
}
inline uint32_t ClusterBlock(const WarpCtx& ctx, const ClusterPlace& p) {
  return ctx.cluster != nullptr ? ctx.cluster->block_linear[p.rank] : ctx.block_linear;
}

}  // namespace barracuda::emu::mem

#endif  // BARRACUDA_PTX_EMULATOR_OPS_CLUSTER_WINDOWS_H_
