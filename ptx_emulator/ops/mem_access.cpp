// Address-space resolution and record building for the memory family.
#include "ptx_emulator/ops/mem_access.h"

#include <cinttypes>
#include <cstdio>

#include "ptx_emulator/ops/cluster_windows.h"
#include "ptx_rewriter/ir.h"

namespace barracuda::emu::mem {

Space SpaceOf(ptx::StateSpace s) {
  switch (s) {
    case ptx::StateSpace::kGlobal: return Space::kGlobal;
    case ptx::StateSpace::kShared:
    case ptx::StateSpace::kSharedCluster: return Space::kShared;
    case ptx::StateSpace::kLocal: return Space::kLocal;
    case ptx::StateSpace::kParam: return Space::kParam;
    case ptx::StateSpace::kConst: return Space::kConst;
    default: return Space::kGeneric;
  }
}

std::string SpaceName(Space s) {
  switch (s) {
    case Space::kGeneric: return "generic";
    case Space::kGlobal: return "global";
    case Space::kShared: return "shared";
    case Space::kLocal: return "local";
    case Space::kParam: return "param";
    case Space::kConst: return "const";
  }
  return "?";
}


std::string InstText(const Inst& inst) {
  if (inst.source == nullptr) return std::string(ptx::OpcodeName(inst.opcode));
  std::string s(inst.source->opcode_name());
  for (const auto& m : inst.source->modifiers) s += m;
  return s;
}

namespace {

std::string Hex(uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%" PRIx64, v);
  return buf;
}

void RaiseIllegal(WarpCtx& ctx, const Inst& inst, Space space, uint32_t lane, uint64_t addr, uint32_t size,
                  bool write, std::string_view why, MemoryError error = MemoryError::kInvalidAddress) {
  ctx.RaiseMemory(error, inst, lane, addr, size, static_cast<uint8_t>(space),
                  write ? AccessKind::kWrite : AccessKind::kRead,
                  InstText(inst) + ": illegal " + SpaceName(space) + " address " + Hex(addr) + " (" +
                      std::to_string(size) + " bytes) in lane " + std::to_string(lane) + ": " + std::string(why));
}

// Global memory outside every live allocation, or in a freed one (memcheck).
void RaiseUnallocated(WarpCtx& ctx, const Inst& inst, Space space, uint32_t lane, uint64_t addr, uint32_t size,
                      bool write, DeviceMemory::Access access) {
  const bool freed = access == DeviceMemory::Access::kFreed;
  RaiseIllegal(ctx, inst, space, lane, addr, size, write,
               std::string(freed ? "use after free: " : "out of bounds: ") + ctx.memory->Describe(addr, size),
               freed ? MemoryError::kUseAfterFree : MemoryError::kOutOfBounds);
}

// [addr, addr + size) inside [0, limit).
inline bool Within(uint64_t addr, uint32_t size, uint64_t limit) { return size <= limit && addr <= limit - size; }

}  // namespace

void RaiseMisaligned(WarpCtx& ctx, const Inst& inst, uint32_t lane, uint64_t addr, uint32_t size, Space space,
                     bool write) {
  ctx.RaiseMemory(MemoryError::kMisaligned, inst, lane, addr, size, static_cast<uint8_t>(space),
                  write ? AccessKind::kWrite : AccessKind::kRead,
                  InstText(inst) + ": misaligned address " + Hex(addr) + " in lane " + std::to_string(lane) +
                      " (a " + std::to_string(size) + "-byte access needs " + std::to_string(size) +
                      "-byte alignment)");
}

namespace {
// Byte `addr` of the kernel's parameter buffer (read-only).
uint8_t* KernelParam(WarpCtx& ctx, const Inst& inst, Space space, uint32_t lane, uint64_t addr, uint32_t size,
                     bool write, Where& where, uint64_t& log) {
  if (write) {
    RaiseIllegal(ctx, inst, space, lane, addr, size, write, "kernel parameters are read-only", MemoryError::kReadOnly);
    return nullptr;
  }
  if (!Within(addr, size, ctx.param_bytes)) {
    RaiseIllegal(ctx, inst, space, lane, addr, size, write, "outside the kernel parameter buffer",
                 MemoryError::kOutOfBounds);
    return nullptr;
  }
  where = Where::kParam;
  log = addr;
  return const_cast<uint8_t*>(ctx.param_base) + addr;
}
// Distributed shared memory of a CTA that has exited (ClusterWindows::exited):
// reported as a shared-memory use after free, whether the address was
// .shared::cluster or generic.
bool ExitedNeighbour(WarpCtx& ctx, const Inst& inst, uint32_t lane, uint32_t size, bool write,
                     const ClusterPlace& p) {
  if (ctx.cluster == nullptr || (ctx.cluster->exited >> p.rank & 1) == 0) return false;
  // The .shared::cluster address, also for a generic one: a host address
  // would differ from run to run, and reports must not.
  RaiseIllegal(ctx, inst, Space::kShared, lane, ClusterSharedAddress(p.rank, p.offset), size, write,
               "the shared memory of cluster CTA rank " + std::to_string(p.rank) +
                   ", which has exited (a CTA's shared memory is valid for the cluster only while it runs: "
                   "cluster.sync() before it exits)",
               MemoryError::kUseAfterFree);
  return true;
}

}  // namespace

uint8_t* Resolve(WarpCtx& ctx, const Inst& inst, Space space, bool frame, uint32_t lane, uint64_t addr,
                 uint32_t size, bool write, Where& where, uint64_t& log) {
  addr = SpaceAddress(space, addr);
  switch (space) {
    case Space::kShared:
      if (!Within(addr, size, ctx.shared_bytes)) {
        // Another CTA's window of the cluster (a .shared::cluster address from mapa).
        if (ClusterPlace p; FindClusterShared(ctx, lane, addr, size, p)) {
          if (ExitedNeighbour(ctx, inst, lane, size, write, p)) return nullptr;
          where = Where::kShared;
          log = protocol::SharedAddress(ClusterBlock(ctx, p), p.offset);
          return ClusterHost(ctx, p);
        }
        RaiseIllegal(ctx, inst, space, lane, addr, size, write,
                     "outside the block's " + std::to_string(ctx.shared_bytes) + "-byte shared window",
                     MemoryError::kOutOfBounds);
        return nullptr;
      }
      where = Where::kShared;
      log = protocol::SharedAddress(ctx.block_linear, static_cast<uint32_t>(addr));
      return ctx.shared_base + addr;
    case Space::kGlobal:
    case Space::kConst:
      if (ctx.memory == nullptr || !ctx.memory->InRange(addr, size)) {
        RaiseIllegal(ctx, inst, space, lane, addr, size, write, "not device memory");
        return nullptr;
      }
      if (const DeviceMemory::Access access = ctx.memory->Check(addr, size); access != DeviceMemory::Access::kOk) {
        RaiseUnallocated(ctx, inst, space, lane, addr, size, write, access);
        return nullptr;
      }
      where = space == Space::kGlobal ? Where::kGlobal : Where::kConst;
      if (space == Space::kConst && write) {
        RaiseIllegal(ctx, inst, space, lane, addr, size, write, "constant memory is read-only", MemoryError::kReadOnly);
        return nullptr;
      }
      log = addr;
      return reinterpret_cast<uint8_t*>(addr);
    case Space::kParam:
      // Kernel parameters live in the parameter buffer; .param variables of a
      // function body (call arguments) in the frame, i.e. the local window.
      if (!frame && (ctx.function == nullptr || ctx.function->is_entry)) {
        return KernelParam(ctx, inst, space, lane, addr, size, write, where, log);
      }
      [[fallthrough]];
    case Space::kLocal:
      if (!Within(addr, size, ctx.local_stride)) {
        RaiseIllegal(ctx, inst, space, lane, addr, size, write, "outside the thread's local window",
                     MemoryError::kOutOfBounds);
        return nullptr;
      }
      where = Where::kLocal;
      log = addr;
      return ctx.LocalWindow(lane) + addr;
    case Space::kGeneric: {
      const uint64_t shared = reinterpret_cast<uintptr_t>(ctx.shared_base);
      if (addr - shared < ctx.shared_bytes) {
        return Resolve(ctx, inst, Space::kShared, false, lane, addr - shared, size, write, where, log);
      }
      if (ctx.memory != nullptr && ctx.memory->InRange(addr, size)) {
        if (const DeviceMemory::Access access = ctx.memory->Check(addr, size); access != DeviceMemory::Access::kOk) {
          RaiseUnallocated(ctx, inst, space, lane, addr, size, write, access);
          return nullptr;
        }
        where = Where::kGlobal;
        log = addr;
        return reinterpret_cast<uint8_t*>(addr);
      }
      if (ClusterPlace p; ctx.cluster != nullptr && ctx.cluster->size > 1 && FindClusterGeneric(ctx, lane, addr, size, p)) {
        if (ExitedNeighbour(ctx, inst, lane, size, write, p)) return nullptr;
        where = Where::kShared;  // distributed shared memory: a neighbour's window
        log = protocol::SharedAddress(ClusterBlock(ctx, p), p.offset);
        return ClusterHost(ctx, p);
      }
      const uint64_t local = reinterpret_cast<uintptr_t>(ctx.LocalWindow(lane));
      if (ctx.local_stride != 0 && addr - local < ctx.local_stride) {
        return Resolve(ctx, inst, Space::kLocal, false, lane, addr - local, size, write, where, log);
      }
      const uint64_t param = reinterpret_cast<uintptr_t>(ctx.param_base);
      if (ctx.param_base != nullptr && addr - param < ctx.param_bytes) {
        // The kernel's parameter buffer, also from a called function (a -G
        // build passes &param through calls): never the callee's frame.
        return KernelParam(ctx, inst, space, lane, addr - param, size, write, where, log);
      }
      RaiseIllegal(ctx, inst, space, lane, addr, size, write,
                   addr == 0 ? "null pointer" : "not in any state space (no allocation, shared or local window)");
      return nullptr;
    }
  }
  return nullptr;
}

std::mutex& ReleaseMutex() {
  static std::mutex mu;
  return mu;
}

protocol::Record MakeRecord(const Inst& inst, const WarpCtx& ctx, uint32_t mask, protocol::Space space,
                            uint32_t access_size) {
  return MakeRecord(inst, ctx, mask, space, access_size, static_cast<protocol::Op>(AccessOp(inst.aux)),
                    AccessFlags(inst.aux), static_cast<protocol::Scope>(AccessScope(inst.aux)));
}

protocol::Record MakeRecord(const Inst& inst, const WarpCtx& ctx, uint32_t mask, protocol::Space space,
                            uint32_t access_size, protocol::Op op, uint8_t flags, protocol::Scope scope) {
  protocol::Record r{};
  r.header.op = static_cast<uint8_t>(op);
  r.header.flags = flags;
  r.header.access_size = static_cast<uint8_t>(access_size);
  r.header.space_scope = protocol::PackSpaceScope(space, scope);
  r.header.active_mask = mask;
  r.header.warp_id = ctx.warp_global;
  r.header.site_id = inst.site;
  return r;
}

}  // namespace barracuda::emu::mem
