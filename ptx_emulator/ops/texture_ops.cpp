// Texture and surface instructions on texture/surface objects (handles in
// 64-bit registers, ops/texture_objects.h):
//   tex[.level,.grad].{1d,2d,3d,a1d,a2d}.v4.{f32,s32,u32}.{f32,s32} d, [h, {c}] [, lod]
//   tld4.{r,g,b,a}.2d.v4.{f32,s32,u32}.f32 d, [h, {x, y}]
//   txq.{width,height,depth,array_size,normalized_coords,filter_mode,num_mipmap_levels}.b32 d, [h]
//   suld.b.{1d,2d,3d,a1d,a2d}[.v2,.v4].{b8,b16,b32,b64}.{trap,clamp,zero} d, [h, {c}]
//   sust.b.(same) [h, {c}], s
//   suq.{width,height,depth}.b32 d, [h]
// The fetch arithmetic is texture_sampling.h's. Every element a fetch, a
// surface load or a surface store touches is an ordinary global access of the
// lane: checked against the live allocations (memcheck), through the slot's
// store buffer in deterministic rounds, and recorded like ld/st (kRead /
// kWrite, weak) so that the detector sees texture reads and surface writes of
// one array race. `.level` (explicit LOD) and `.grad` (gradients) read level
// 0: the emulator has no mipmapped arrays.
#include <algorithm>
#include <bit>
#include <cstring>
#include <string>

#include "ptx_emulator/core/handlers.h"
#include "ptx_emulator/core/phase_store_buffer.h"
#include "ptx_emulator/ops/mem_access.h"
#include "ptx_emulator/ops/texture_objects.h"
#include "ptx_emulator/ops/texture_sampling.h"

namespace barracuda::emu {
namespace {

using mem::ForLanes;
using mem::Space;
using mem::Where;

// Inst::imm of every texture/surface instruction.
constexpr uint64_t kDimsMask = 0x3;          // 1..3
constexpr uint64_t kLayered = 1u << 2;
constexpr uint64_t kFloatCoords = 1u << 3;
constexpr int kCountShift = 8;               // results (tex: 4) / surface vector elements
constexpr int kSizeShift = 16;               // surface element bytes
constexpr int kModeShift = 24;               // surface out-of-range mode / tld4 component / query
enum class Clamp : uint8_t { kTrap, kClamp, kZero };
enum class Query : uint8_t { kWidth, kHeight, kDepth, kArraySize, kNormalizedCoords, kFilterMode, kMipLevels };

uint32_t Dims(const Inst& i) { return static_cast<uint32_t>(i.imm & kDimsMask); }
bool Layered(const Inst& i) { return (i.imm & kLayered) != 0; }
uint32_t Count(const Inst& i) { return static_cast<uint32_t>(i.imm >> kCountShift) & 0xff; }
uint32_t Size(const Inst& i) { return static_cast<uint32_t>(i.imm >> kSizeShift) & 0xff; }
uint8_t Mode(const Inst& i) { return static_cast<uint8_t>(i.imm >> kModeShift); }

// The object of each lane's handle, looked up once per distinct handle.
class Objects {
 public:
  const tex::Object* Get(WarpCtx& ctx, const Inst& inst, uint32_t lane, uint64_t handle, bool surface) {
    if (!have_ || handle != handle_) {
      object_ = tex::Find(handle);
      handle_ = handle;
      have_ = true;
    }
    if (!object_ || object_->surface != surface) {
      ctx.Raise(FaultKind::kIllegalAddress, inst, lane, handle,
                mem::InstText(inst) + ": " + std::to_string(handle) + " in lane " + std::to_string(lane) +
                    " is not a live " + (surface ? "surface" : "texture") + " object");
      return nullptr;
    }
    return &*object_;
  }

 private:
  bool have_ = false;
  uint64_t handle_ = 0;
  std::optional<tex::Object> object_;
};

const uint64_t* Handles(const Inst& inst, const WarpCtx& ctx, int op) { return ctx.Src(inst.ops[op].ref); }
const ValueRef* Coordinates(const Inst& inst, const WarpCtx& ctx, int op) {
  return ctx.function->vector_refs.data() + inst.ops[op].index;
}

// Coordinate registers in PTX order: {x[, y[, z]]}, layered ones {layer, x[, y]}.
struct LaneCoords {
  int32_t layer = 0;
  uint32_t bits[3] = {0, 0, 0};  // f32 bits or s32
};
LaneCoords CoordsOf(const Inst& inst, const WarpCtx& ctx, int op, uint32_t lane) {
  const ValueRef* refs = Coordinates(inst, ctx, op);
  LaneCoords c;
  uint32_t k = 0;
  if (Layered(inst)) c.layer = static_cast<int32_t>(ctx.Src(refs[k++])[lane]);
  for (uint32_t d = 0; d < Dims(inst) && k < inst.ops[op].count; ++d)
    c.bits[d] = static_cast<uint32_t>(ctx.Src(refs[k++])[lane]);
  return c;
}

// A surface store's bytes per lane (at most 16, little-endian).
struct StoreValues {
  uint64_t word[kLanes][2];
};

// The same-value flags of a store record, as st sets them: kFlagSameValue
// when no two lanes store different bytes to one address (accesses are
// aligned and of one size, so they overlap only when equal), kFlagValue with
// the value in `stamp` when every lane stores one value of at most 8 bytes.
void SameValueFlags(const StoreValues& v, uint32_t size, protocol::Record& r) {
  const uint32_t mask = r.header.active_mask;
  if (mask == 0) return;
  bool same = true, uniform = size <= 8;
  const uint32_t first = Lane(mask);
  for (uint32_t m = mask; m; m &= m - 1) {
    const uint32_t a = Lane(m);
    uniform = uniform && v.word[a][0] == v.word[first][0];
    for (uint32_t n = m & (m - 1); n && same; n &= n - 1) {
      const uint32_t b = Lane(n);
      same = r.addr[a] != r.addr[b] || (v.word[a][0] == v.word[b][0] && v.word[a][1] == v.word[b][1]);
    }
  }
  if (same) r.header.flags |= protocol::kFlagSameValue;
  if (uniform) {
    r.header.flags |= protocol::kFlagValue;
    r.stamp = v.word[first][0];
  }
}

// Resolves `size` bytes of device memory at `address` for every lane of
// `mask` (one element per lane, aligned): memcheck, store buffer, a record
// when tracing (a store's with its same-value flags from `stored`). False
// after a fault.
bool AccessElements(const Inst& inst, WarpCtx& ctx, uint32_t mask, const uint64_t* address, uint32_t size,
                  bool write, uint8_t** ptr, const StoreValues* stored = nullptr) {
  if (mask == 0) return true;
  protocol::Record r{};
  uint32_t logged = 0;
  bool ok = true;
  ForLanes(mask, [&](uint32_t l) {
    if (!ok) return;
    if ((address[l] & (size - 1)) != 0) {
      mem::RaiseMisaligned(ctx, inst, l, address[l], size, Space::kGlobal, write);
      ok = false;
      return;
    }
    Where where;
    uint64_t log;
    ptr[l] = mem::Resolve(ctx, inst, Space::kGlobal, false, l, address[l], size, write, where, log);
    if (ptr[l] == nullptr) {
      ok = false;
      return;
    }
    r.addr[l] = log;
    logged |= 1u << l;
  });
  if (!ok) return false;
  if (ctx.store_buffer != nullptr) ctx.store_buffer->Redirect(ptr, mask, write, size);
  if (ctx.tracer != nullptr) {
    protocol::Record h = mem::MakeRecord(inst, ctx, logged, protocol::Space::kGlobal, size,
                                         write ? protocol::Op::kWrite : protocol::Op::kRead, 0,
                                         protocol::Scope::kNone);
    std::copy(std::begin(r.addr), std::end(r.addr), std::begin(h.addr));
    if (stored != nullptr) SameValueFlags(*stored, size, h);
    ctx.tracer->Emit(h);
  }
  return true;
}

// Element bytes as a 16-byte little-endian buffer (a texel is 1..16 bytes).
void LoadElement(const uint8_t* p, uint32_t size, uint8_t out[16]) {
  uint64_t w[2] = {0, 0};
  if (size == 16) {
    mem::Load16(p, w[0], w[1], std::memory_order_relaxed);
  } else {
    w[0] = mem::LoadBytes(p, size, std::memory_order_relaxed);
  }
  std::memcpy(out, w, 16);
}

// ---------------------------------------------------------------- tex, tld4

// tld4 gathers one component of the bilinear footprint's four elements in
// the PTX ISA's order: (i, j+1), (i+1, j+1), (i+1, j), (i, j).
constexpr int kGatherOrder[4] = {2, 3, 1, 0};  // footprint taps are (i,j), (i+1,j), (i,j+1), (i+1,j+1)

template <bool kGather>
void Fetch(const Inst& inst, WarpCtx& ctx, uint32_t exec) {
  const uint64_t* handles = Handles(inst, ctx, 1);
  Objects objects;
  tex::Taps taps[kLanes];
  const tex::Object* obj[kLanes];
  int max_taps = 0;
  bool ok = true;
  ForLanes(exec, [&](uint32_t l) {
    if (!ok) return;
    obj[l] = objects.Get(ctx, inst, l, handles[l], false);
    if (obj[l] == nullptr) {
      ok = false;
      return;
    }
    const LaneCoords c = CoordsOf(inst, ctx, 1, l);
    if (kGather) {
      // The footprint of bilinear filtering, whatever the filter mode.
      tex::Object o = *obj[l];
      o.sampler.filter = tex::Filter::kLinear;
      const float xy[3] = {std::bit_cast<float>(c.bits[0]), std::bit_cast<float>(c.bits[1]), 0};
      taps[l] = tex::PlanFetch(o, xy, 0);
    } else if (inst.imm & kFloatCoords) {
      const float f[3] = {std::bit_cast<float>(c.bits[0]), std::bit_cast<float>(c.bits[1]),
                          std::bit_cast<float>(c.bits[2])};
      taps[l] = tex::PlanFetch(*obj[l], f, c.layer);
    } else {
      const int32_t i[3] = {static_cast<int32_t>(c.bits[0]), static_cast<int32_t>(c.bits[1]),
                            static_cast<int32_t>(c.bits[2])};
      taps[l] = tex::PlanIntegerFetch(*obj[l], i, c.layer);
    }
    max_taps = std::max(max_taps, taps[l].count);
  });
  if (!ok) return;
  // Tap t of every lane is one warp-wide access (one record), so that the
  // records stay per instruction and per element as for ld.
  tex::Value elements[kLanes][tex::kMaxTaps];
  for (int t = 0; t < max_taps; ++t) {
    uint32_t mask = 0;
    uint64_t address[kLanes];
    ForLanes(exec, [&](uint32_t l) {
      if (t >= taps[l].count || taps[l].tap[t].border) return;
      mask |= 1u << l;
      address[l] = obj[l]->resource.base + taps[l].tap[t].offset;
    });
    // Lanes reading objects of different element sizes: one access per size.
    while (mask != 0) {
      const uint32_t size0 = obj[Lane(mask)]->resource.format.element_bytes();
      uint32_t same = 0;
      ForLanes(mask, [&](uint32_t l) {
        if (obj[l]->resource.format.element_bytes() == size0) same |= 1u << l;
      });
      uint8_t* ptr[kLanes];
      if (!AccessElements(inst, ctx, same, address, size0, false, ptr)) return;
      ForLanes(same, [&](uint32_t l) {
        uint8_t bytes[16];
        LoadElement(ptr[l], size0, bytes);
        elements[l][t] = tex::Decode(obj[l]->resource.format, obj[l]->sampler.read_normalized, bytes);
      });
      mask &= ~same;
    }
  }
  const ValueRef* d = mem::ValueRefs(inst.ops[0], ctx);
  const uint32_t results = Count(inst);
  ForLanes(exec, [&](uint32_t l) {
    tex::Value v;
    if (kGather) {
      const int component = Mode(inst);
      for (int k = 0; k < 4; ++k) {
        const tex::Tap& tap = taps[l].tap[kGatherOrder[k]];
        tex::Taps one;
        one.count = 1;
        one.tap[0] = tap;
        v.bits[k] = tex::Combine(*obj[l], one, &elements[l][kGatherOrder[k]]).bits[component];
      }
    } else {
      v = tex::Combine(*obj[l], taps[l], elements[l]);
    }
    for (uint32_t k = 0; k < results; ++k) ctx.Dst(d[k])[l] = v.bits[k];
  });
}

// ---------------------------------------------------------------- txq, suq

template <bool kSurface>
void QueryObject(const Inst& inst, WarpCtx& ctx, uint32_t exec) {
  const uint64_t* handles = Handles(inst, ctx, 1);
  uint64_t* d = ctx.Dst(inst.ops[0].ref);
  Objects objects;
  bool ok = true;
  ForLanes(exec, [&](uint32_t l) {
    if (!ok) return;
    const tex::Object* o = objects.Get(ctx, inst, l, handles[l], kSurface);
    if (o == nullptr) {
      ok = false;
      return;
    }
    const tex::Resource& r = o->resource;
    uint32_t v = 0;
    switch (static_cast<Query>(Mode(inst))) {
      case Query::kWidth: v = r.width; break;
      case Query::kHeight: v = r.height; break;
      case Query::kDepth: v = r.layered ? 1 : r.depth; break;
      case Query::kArraySize: v = r.layered ? r.depth : 0; break;
      case Query::kNormalizedCoords: v = o->sampler.normalized_coords ? 1 : 0; break;
      case Query::kFilterMode: v = static_cast<uint32_t>(o->sampler.filter); break;
      case Query::kMipLevels: v = 0; break;  // no mipmapped arrays: no levels past 0
    }
    d[l] = v;
  });
}

// ---------------------------------------------------------------- suld, sust

// The element offset of a surface access, or nothing: outside with .zero
// (faults with .trap, clamped with .clamp).
bool SurfaceOffset(const Inst& inst, WarpCtx& ctx, const tex::Object& o, const LaneCoords& c, uint32_t lane,
                   bool write, uint64_t& offset) {
  const tex::Resource& r = o.resource;
  const uint32_t size = Size(inst) * Count(inst);
  // x is a byte coordinate; y, z (or the layer) are element rows and slices.
  int64_t x = static_cast<int32_t>(c.bits[0]);
  int64_t y = Dims(inst) > 1 ? static_cast<int32_t>(c.bits[1]) : 0;
  int64_t z = Layered(inst) ? c.layer : Dims(inst) > 2 ? static_cast<int32_t>(c.bits[2]) : 0;
  const int64_t row_bytes = int64_t{r.width} * r.format.element_bytes();
  const bool inside = x >= 0 && x + size <= row_bytes && y >= 0 && y < r.height && z >= 0 && z < r.depth;
  if (!inside) {
    switch (static_cast<Clamp>(Mode(inst))) {
      case Clamp::kZero: return false;
      case Clamp::kClamp:
        x = std::clamp<int64_t>(x, 0, std::max<int64_t>(row_bytes - size, 0)) / size * size;
        y = std::clamp<int64_t>(y, 0, int64_t{r.height} - 1);
        z = std::clamp<int64_t>(z, 0, int64_t{r.depth} - 1);
        break;
      case Clamp::kTrap: {
        const uint64_t at = r.base + static_cast<uint64_t>(z * int64_t(r.slice_pitch) + y * int64_t(r.pitch) + x);
        ctx.RaiseMemory(MemoryError::kOutOfBounds, inst, lane, at, size, static_cast<uint8_t>(Space::kGlobal),
                        write ? AccessKind::kWrite : AccessKind::kRead,
                        mem::InstText(inst) + ": surface coordinate (" + std::to_string(x) + " bytes, " +
                            std::to_string(y) + ", " + std::to_string(z) + ") in lane " + std::to_string(lane) +
                            " is outside the " + std::to_string(r.width) + " x " + std::to_string(r.height) +
                            " x " + std::to_string(r.depth) + " surface");
        return false;
      }
    }
  }
  offset = static_cast<uint64_t>(z) * r.slice_pitch + static_cast<uint64_t>(y) * r.pitch + static_cast<uint64_t>(x);
  return true;
}

template <bool kStore>
void SurfaceAccess(const Inst& inst, WarpCtx& ctx, uint32_t exec) {
  const int addr_op = kStore ? 0 : 1;
  const uint64_t* handles = Handles(inst, ctx, addr_op);
  const uint32_t elem = Size(inst), count = Count(inst), size = elem * count;
  Objects objects;
  uint32_t mask = 0;
  uint64_t address[kLanes];
  bool ok = true;
  ForLanes(exec, [&](uint32_t l) {
    if (!ok) return;
    const tex::Object* o = objects.Get(ctx, inst, l, handles[l], true);
    if (o == nullptr) {
      ok = false;
      return;
    }
    uint64_t offset = 0;
    if (SurfaceOffset(inst, ctx, *o, CoordsOf(inst, ctx, addr_op, l), l, kStore, offset)) {
      mask |= 1u << l;
      address[l] = o->resource.base + offset;
    } else if (ctx.faulted()) {
      ok = false;
    }
  });
  if (!ok) return;
  const ValueRef* v = mem::ValueRefs(inst.ops[kStore ? 1 : 0], ctx);
  StoreValues stored;
  if (kStore && ctx.tracer != nullptr) {
    ForLanes(mask, [&](uint32_t l) {
      uint8_t bytes[16] = {};
      for (uint32_t k = 0; k < count; ++k) {
        const uint64_t x = ctx.Src(v[k])[l];
        std::memcpy(bytes + k * elem, &x, elem);  // little-endian: the low `elem` bytes
      }
      std::memcpy(stored.word[l], bytes, 16);
    });
  }
  uint8_t* ptr[kLanes];
  if (!AccessElements(inst, ctx, mask, address, size, kStore, ptr, kStore ? &stored : nullptr)) return;
  ForLanes(exec, [&](uint32_t l) {
    const bool inside = (mask >> l) & 1;
    for (uint32_t k = 0; k < count; ++k) {
      if (kStore) {
        if (inside) mem::StoreBytes(ptr[l] + k * elem, elem, ctx.Src(v[k])[l], std::memory_order_relaxed);
      } else {
        ctx.Dst(v[k])[l] = inside ? mem::LoadBytes(ptr[l] + k * elem, elem, std::memory_order_relaxed) : 0;
      }
    }
  });
}

// ---------------------------------------------------------------- selection

bool HasModifier(const ptx::Instruction& ir, std::string_view m) {
  return std::find(ir.modifiers.begin(), ir.modifiers.end(), m) != ir.modifiers.end();
}

// .1d .2d .3d .a1d .a2d into Inst::imm; false when none is there.
bool Geometry(const ptx::Instruction& ir, Inst& inst) {
  struct G { const char* name; uint64_t bits; };
  constexpr G kGeometries[] = {{".1d", 1}, {".2d", 2}, {".3d", 3}, {".a1d", 1 | kLayered}, {".a2d", 2 | kLayered}};
  for (const G& g : kGeometries)
    if (HasModifier(ir, g.name)) {
      inst.imm |= g.bits;
      return true;
    }
  return false;
}

// [handle, {coordinates}] with as many coordinates as the geometry reads.
bool HandleAndCoordinates(const Inst& inst, int op) {
  const Opnd& a = inst.ops[op];
  if (a.kind != Opnd::Kind::kAddress || a.base != Opnd::AddrBase::kRegister || a.offset != 0) return false;
  return a.count >= Dims(inst) + (Layered(inst) ? 1 : 0);
}

bool HandleOnly(const Inst& inst, int op) {
  const Opnd& a = inst.ops[op];
  return a.kind == Opnd::Kind::kAddress && a.base == Opnd::AddrBase::kRegister && a.offset == 0 && a.count == 0;
}

absl::StatusOr<bool> SelectTex(const ptx::Instruction& ir, Inst& inst, bool gather) {
  if (!Geometry(ir, inst)) return mem::UnimplementedForm(ir, "geometry (.1d/.2d/.3d/.a1d/.a2d) expected");
  if (HasModifier(ir, ".cube") || HasModifier(ir, ".acube") || HasModifier(ir, ".2dms") ||
      HasModifier(ir, ".a2dms"))
    return mem::UnimplementedForm(ir, "cube and multisample fetches are not implemented");
  if (ir.info.vector_width != 4 || ir.info.num_types != 2)
    return mem::UnimplementedForm(ir, "only the .v4.dtype.ctype forms are implemented");
  const ptx::Type d = ir.info.types[0], c = ir.info.types[1];
  if (d != ptx::Type::kF32 && d != ptx::Type::kS32 && d != ptx::Type::kU32)
    return mem::UnimplementedForm(ir, "result type .f32, .s32 or .u32 expected");
  if (c != ptx::Type::kF32 && c != ptx::Type::kS32)
    return mem::UnimplementedForm(ir, "coordinate type .f32 or .s32 expected");
  if (c == ptx::Type::kF32) inst.imm |= kFloatCoords;
  inst.imm |= uint64_t{4} << kCountShift;
  // [texref, {...}]: a module-scope .texref (removed from CUDA 12's API).
  if (inst.ops[1].kind == Opnd::Kind::kAddress && inst.ops[1].base == Opnd::AddrBase::kAbsolute)
    return mem::UnimplementedForm(ir, "texture references (.texref) are not implemented, only texture objects");
  if (inst.ops[0].kind != Opnd::Kind::kVector || inst.ops[0].count != 4 || !HandleAndCoordinates(inst, 1))
    return mem::UnimplementedForm(ir, "operands {d0, d1, d2, d3}, [texobj, {coordinates}] expected");
  // .level (an LOD) and .grad (two gradient vectors) choose a mipmap level:
  // the emulator's textures have only level 0, so they read it (anisotropic
  // filtering, which gradients also steer, is not modelled).
  const int extra = HasModifier(ir, ".level") ? 1 : HasModifier(ir, ".grad") ? 2 : 0;
  if (inst.num_ops != 2 + extra) return mem::UnimplementedForm(ir, "unexpected operands (depth compare?)");
  if (gather) {
    if (Dims(inst) != 2 || Layered(inst) || c != ptx::Type::kF32)
      return mem::UnimplementedForm(ir, "tld4 .2d with .f32 coordinates expected");
    constexpr const char* kComponents[] = {".r", ".g", ".b", ".a"};
    int component = -1;
    for (int k = 0; k < 4; ++k)
      if (HasModifier(ir, kComponents[k])) component = k;
    if (component < 0) return mem::UnimplementedForm(ir, "component .r/.g/.b/.a expected");
    inst.imm |= uint64_t(component) << kModeShift;
    inst.fn = &Fetch<true>;
  } else {
    inst.fn = &Fetch<false>;
  }
  return true;
}

absl::StatusOr<bool> SelectQuery(const ptx::Instruction& ir, Inst& inst, bool surface) {
  struct Q { const char* name; Query q; bool surface; };
  constexpr Q kQueries[] = {
      {".width", Query::kWidth, true},         {".height", Query::kHeight, true},
      {".depth", Query::kDepth, true},         {".array_size", Query::kArraySize, true},
      {".normalized_coords", Query::kNormalizedCoords, false}, {".filter_mode", Query::kFilterMode, false},
      {".num_mipmap_levels", Query::kMipLevels, false},
  };
  for (const Q& q : kQueries)
    if (HasModifier(ir, q.name) && (q.surface || !surface)) {
      if (inst.num_ops != 2 || inst.ops[0].kind != Opnd::Kind::kValue || !HandleOnly(inst, 1))
        return mem::UnimplementedForm(ir, "operands d, [object] expected");
      inst.imm = uint64_t(q.q) << kModeShift;
      inst.fn = surface ? &QueryObject<true> : &QueryObject<false>;
      return true;
    }
  return mem::UnimplementedForm(ir, "query not implemented");
}

absl::StatusOr<bool> SelectSurface(const ptx::Instruction& ir, Inst& inst, bool store) {
  if (!HasModifier(ir, ".b")) return mem::UnimplementedForm(ir, "only .b (unformatted) surface accesses");
  if (!Geometry(ir, inst)) return mem::UnimplementedForm(ir, "geometry (.1d/.2d/.3d/.a1d/.a2d) expected");
  uint32_t elem = 0;
  switch (ir.info.type()) {
    case ptx::Type::kB8: elem = 1; break;
    case ptx::Type::kB16: elem = 2; break;
    case ptx::Type::kB32: elem = 4; break;
    case ptx::Type::kB64: elem = 8; break;
    default: return mem::UnimplementedForm(ir, "type .b8, .b16, .b32 or .b64 expected");
  }
  const uint32_t count = ir.info.vector_width;
  if (elem * count > 16) return mem::UnimplementedForm(ir, "more than 16 bytes");
  Clamp mode = Clamp::kTrap;
  if (HasModifier(ir, ".clamp")) mode = Clamp::kClamp;
  if (HasModifier(ir, ".zero")) mode = Clamp::kZero;
  inst.imm |= uint64_t{count} << kCountShift | uint64_t{elem} << kSizeShift | uint64_t(mode) << kModeShift;
  const int addr = store ? 0 : 1, value = store ? 1 : 0;
  const Opnd& v = inst.ops[value];
  const uint32_t given = v.kind == Opnd::Kind::kVector ? v.count : v.kind == Opnd::Kind::kValue ? 1 : 0;
  if (inst.num_ops != 2 || given != count || !HandleAndCoordinates(inst, addr))
    return mem::UnimplementedForm(ir, "operands [surfobj, {coordinates}] and a vector of the access's size expected");
  inst.fn = store ? &SurfaceAccess<true> : &SurfaceAccess<false>;
  return true;
}

}  // namespace

absl::StatusOr<bool> SelectTextureOp(const ptx::Instruction& ir, Inst& inst) {
  switch (ir.op) {
    case ptx::Opcode::kTex: return inst.imm = 0, SelectTex(ir, inst, false);
    case ptx::Opcode::kTld4: return inst.imm = 0, SelectTex(ir, inst, true);
    case ptx::Opcode::kTxq: return inst.imm = 0, SelectQuery(ir, inst, false);
    case ptx::Opcode::kSuq: return inst.imm = 0, SelectQuery(ir, inst, true);
    case ptx::Opcode::kSuld: return inst.imm = 0, SelectSurface(ir, inst, false);
    case ptx::Opcode::kSust: return inst.imm = 0, SelectSurface(ir, inst, true);
    default: return false;
  }
}

}  // namespace barracuda::emu
