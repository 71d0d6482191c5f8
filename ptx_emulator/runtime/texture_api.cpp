// Texture and surface objects: cudaCreateTextureObject & co. turn the
// program's resource and texture descriptors into the emulator's
// descriptors (ops/texture_objects.h) and register them; the handle the
// program passes to kernels is the registry key the tex/suld/sust handlers
// look up. Resources: CUDA arrays (arrays.h, layered too), linear memory and
// pitch2D memory; mipmapped arrays are refused (cudaErrorNotSupported).
#include <mutex>

#include "absl/container/flat_hash_map.h"
#include "ptx_emulator/ops/texture_objects.h"
#include "ptx_emulator/ops/texture_sampling.h"
#include "ptx_emulator/runtime/arrays.h"
#include "ptx_emulator/runtime/runtime_state.h"

namespace barracuda::cudart {
namespace {

namespace tex = emu::tex;

// The descriptors as the program gave them, for the Get*Desc queries.
struct Given {
  cudaResourceDesc resource{};
  cudaTextureDesc texture{};
};
struct Descriptors {
  std::mutex mu;
  absl::flat_hash_map<uint64_t, Given> by_handle;
};
Descriptors& TheDescriptors() {
  static Descriptors* d = new Descriptors;  // never destroyed (atexit handlers destroy objects)
  return *d;
}

tex::Format FormatOf(const cudaChannelFormatDesc& d) {
  tex::Format f;
  f.channels = static_cast<uint8_t>(ElementBytes(d) * 8 / d.x);
  f.bits = static_cast<uint8_t>(d.x);
  f.kind = d.f == cudaChannelFormatKindSigned     ? tex::ChannelKind::kSigned
           : d.f == cudaChannelFormatKindUnsigned ? tex::ChannelKind::kUnsigned
                                                  : tex::ChannelKind::kFloat;
  return f;
}

bool InDeviceMemory(const void* p, size_t bytes) {
  return Runtime::Get().device().memory().Find(reinterpret_cast<uint64_t>(p), bytes ? bytes : 1).has_value();
}

// The resource a descriptor names, or the error the runtime gives.
cudaError_t ResourceOf(const cudaResourceDesc& d, tex::Resource& r) {
  switch (d.resType) {
    case cudaResourceTypeArray: {
      const CudaArray* a = FindArray(d.res.array.array);
      if (a == nullptr) return cudaErrorInvalidResourceHandle;
      r.base = reinterpret_cast<uint64_t>(a->data);
      r.format = FormatOf(a->desc);
      r.width = static_cast<uint32_t>(a->extent.width);
      r.height = static_cast<uint32_t>(a->rows);
      r.depth = static_cast<uint32_t>(a->slices);
      r.pitch = a->pitch;
      r.slice_pitch = a->pitch * a->rows;
      r.layered = (a->flags & cudaArrayLayered) != 0;
      r.dims = a->extent.height == 0 ? 1 : (a->extent.depth == 0 || r.layered) ? 2 : 3;
      return cudaSuccess;
    }
    case cudaResourceTypeLinear: {
      const size_t element = ElementBytes(d.res.linear.desc);
      if (element == 0) return cudaErrorInvalidChannelDescriptor;
      if (!d.res.linear.devPtr || d.res.linear.sizeInBytes < element ||
          !InDeviceMemory(d.res.linear.devPtr, d.res.linear.sizeInBytes))
        return cudaErrorInvalidValue;
      r.base = reinterpret_cast<uint64_t>(d.res.linear.devPtr);
      r.format = FormatOf(d.res.linear.desc);
      r.width = static_cast<uint32_t>(d.res.linear.sizeInBytes / element);
      r.pitch = r.slice_pitch = d.res.linear.sizeInBytes;
      r.dims = 1;
      r.linear = true;
      return cudaSuccess;
    }
    case cudaResourceTypePitch2D: {
      const auto& p = d.res.pitch2D;
      const size_t element = ElementBytes(p.desc);
      if (element == 0) return cudaErrorInvalidChannelDescriptor;
      if (!p.devPtr || p.width == 0 || p.height == 0 || p.pitchInBytes < p.width * element ||
          p.pitchInBytes % element != 0 || !InDeviceMemory(p.devPtr, p.pitchInBytes * (p.height - 1) + p.width * element))
        return cudaErrorInvalidValue;
      r.base = reinterpret_cast<uint64_t>(p.devPtr);
      r.format = FormatOf(p.desc);
      r.width = static_cast<uint32_t>(p.width);
      r.height = static_cast<uint32_t>(p.height);
      r.pitch = p.pitchInBytes;
      r.slice_pitch = p.pitchInBytes * p.height;
      r.dims = 2;
      return cudaSuccess;
    }
    default:
      PrintDiagnostic("texture objects on mipmapped arrays are not supported by the emulator backend");
      return cudaErrorNotSupported;
  }
}

cudaError_t SamplerOf(const cudaTextureDesc& t, const tex::Format& f, tex::Sampler& s) {
  for (int k = 0; k < 3; ++k) {
    if (t.addressMode[k] < cudaAddressModeWrap || t.addressMode[k] > cudaAddressModeBorder)
      return cudaErrorInvalidValue;
    s.address[k] = static_cast<tex::AddressMode>(t.addressMode[k]);
  }
  s.filter = t.filterMode == cudaFilterModeLinear ? tex::Filter::kLinear : tex::Filter::kPoint;
  s.read_normalized = t.readMode == cudaReadModeNormalizedFloat;
  s.normalized_coords = t.normalizedCoords != 0;
  for (int k = 0; k < 4; ++k) s.border[k] = t.borderColor[k];
  // The runtime's own errors for what the texture unit cannot do.
  if (s.read_normalized && f.kind != tex::ChannelKind::kFloat && f.bits == 32) return cudaErrorInvalidNormSetting;
  if (s.filter == tex::Filter::kLinear && !tex::ReturnsFloat(f, s.read_normalized))
    return cudaErrorInvalidFilterSetting;
  return cudaSuccess;
}

void Remember(uint64_t handle, const cudaResourceDesc& r, const cudaTextureDesc* t) {
  Descriptors& d = TheDescriptors();
  std::lock_guard lock(d.mu);
  Given& g = d.by_handle[handle];
  g.resource = r;
  if (t) g.texture = *t;
}

cudaError_t Destroy(uint64_t handle, bool surface) {
  if (handle == 0) return cudaSuccess;
  if (!tex::Unregister(handle, surface)) return Runtime::Get().Fail(cudaErrorInvalidValue);
  Descriptors& d = TheDescriptors();
  std::lock_guard lock(d.mu);
  d.by_handle.erase(handle);
  return cudaSuccess;
}

cudaError_t Recall(uint64_t handle, bool surface, Given& out) {
  auto o = tex::Find(handle);
  if (!o || o->surface != surface) return Runtime::Get().Fail(cudaErrorInvalidValue);
  Descriptors& d = TheDescriptors();
  std::lock_guard lock(d.mu);
  out = d.by_handle[handle];
  return cudaSuccess;
}

}  // namespace
}  // namespace barracuda::cudart

namespace rt = barracuda::cudart;

CUDART_EXPORT cudaError_t cudaCreateTextureObject(cudaTextureObject_t* object, const cudaResourceDesc* resource,
                                                  const cudaTextureDesc* texture, const cudaResourceViewDesc* view) {
  rt::Runtime& r = rt::Runtime::Get();
  if (cudaError_t s = r.sticky()) return r.Fail(s);
  if (!object || !resource || !texture) return r.Fail(cudaErrorInvalidValue);
  if (view) {
    rt::PrintDiagnostic("texture resource views are not supported by the emulator backend");
    return r.Fail(cudaErrorNotSupported);
  }
  barracuda::emu::tex::Object o;
  if (cudaError_t e = rt::ResourceOf(*resource, o.resource)) return r.Fail(e);
  if (cudaError_t e = rt::SamplerOf(*texture, o.resource.format, o.sampler)) return r.Fail(e);
  *object = barracuda::emu::tex::Register(o);
  rt::Remember(*object, *resource, texture);
  return cudaSuccess;
}

CUDART_EXPORT cudaError_t cudaDestroyTextureObject(cudaTextureObject_t object) { return rt::Destroy(object, false); }

CUDART_EXPORT cudaError_t cudaGetTextureObjectResourceDesc(cudaResourceDesc* out, cudaTextureObject_t object) {
  rt::Given g;
  if (!out) return rt::Runtime::Get().Fail(cudaErrorInvalidValue);
  if (cudaError_t e = rt::Recall(object, false, g)) return e;
  *out = g.resource;
  return cudaSuccess;
}

CUDART_EXPORT cudaError_t cudaGetTextureObjectTextureDesc(cudaTextureDesc* out, cudaTextureObject_t object) {
  rt::Given g;
  if (!out) return rt::Runtime::Get().Fail(cudaErrorInvalidValue);
  if (cudaError_t e = rt::Recall(object, false, g)) return e;
  *out = g.texture;
  return cudaSuccess;
}

CUDART_EXPORT cudaError_t cudaCreateSurfaceObject(cudaSurfaceObject_t* object, const cudaResourceDesc* resource) {
  rt::Runtime& r = rt::Runtime::Get();
  if (cudaError_t s = r.sticky()) return r.Fail(s);
  if (!object || !resource) return r.Fail(cudaErrorInvalidValue);
  // Surfaces bind CUDA arrays made with cudaArraySurfaceLoadStore only.
  if (resource->resType != cudaResourceTypeArray) return r.Fail(cudaErrorInvalidValue);
  const rt::CudaArray* a = rt::FindArray(resource->res.array.array);
  if (a == nullptr) return r.Fail(cudaErrorInvalidResourceHandle);
  if (!(a->flags & cudaArraySurfaceLoadStore)) return r.Fail(cudaErrorInvalidValue);
  barracuda::emu::tex::Object o;
  o.surface = true;
  if (cudaError_t e = rt::ResourceOf(*resource, o.resource)) return r.Fail(e);
  *object = barracuda::emu::tex::Register(o);
  rt::Remember(*object, *resource, nullptr);
  return cudaSuccess;
}

CUDART_EXPORT cudaError_t cudaDestroySurfaceObject(cudaSurfaceObject_t object) { return rt::Destroy(object, true); }

CUDART_EXPORT cudaError_t cudaGetSurfaceObjectResourceDesc(cudaResourceDesc* out, cudaSurfaceObject_t object) {
  rt::Given g;
  if (!out) return rt::Runtime::Get().Fail(cudaErrorInvalidValue);
  if (cudaError_t e = rt::Recall(object, true, g)) return e;
  *out = g.resource;
  return cudaSuccess;
}
