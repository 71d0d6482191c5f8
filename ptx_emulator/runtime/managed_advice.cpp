// Unified-memory hints and what they read back: cudaMemAdvise and
// cudaMemPrefetchAsync change nothing on the emulator (managed memory is host
// memory that kernels read in place), but programs query them back with
// cudaMemRangeGetAttribute(s), so each is kept per 4 KiB page of a managed
// allocation (counted from its base: the runtime's allocations start on page
// boundaries, the emulator's need not) and a query answers for the whole range as the runtime documents: a value
// when every page agrees, else "invalid" (cudaInvalidDeviceId / the invalid
// location type), read-mostly only when every page is, accessed-by the
// devices set for every page.
#include <algorithm>
#include <cstring>
#include <map>
#include <mutex>
#include <optional>
#include <utility>
#include <vector>

#include "ptx_emulator/runtime/cuda_api.h"
#include "ptx_emulator/runtime/runtime_state.h"

namespace {

using barracuda::cudart::Runtime;

constexpr uint64_t kPageBytes = 4096;

struct PageAdvice {
  bool read_mostly = false;
  cudaMemLocation preferred{cudaMemLocationTypeInvalid, 0};
  bool accessed_by_device = false;  // device 0
  bool accessed_by_host = false;
  cudaMemLocation last_prefetch{cudaMemLocationTypeInvalid, 0};
};

struct AdviceStore {
  std::mutex mu;
  // By (allocation base, page index in the allocation); absent = no advice.
  std::map<std::pair<uint64_t, uint64_t>, PageAdvice> pages;
  static AdviceStore& Get() {
    static AdviceStore* store = new AdviceStore;
    return *store;
  }
};

// The base of the managed allocation holding [ptr, ptr + count), or 0:
// cudaMallocManaged memory, or a __managed__ variable (module memory that the
// runtime knows by its address).
uint64_t ManagedBase(const void* ptr, size_t count) {
  using Kind = barracuda::emu::DeviceMemory::Kind;
  Runtime& rt = Runtime::Get();
  const auto a = rt.device().memory().Find(reinterpret_cast<uint64_t>(ptr), count ? count : 1);
  if (!a.has_value()) return 0;
  if (a->kind == Kind::kManaged) return a->base;
  if (a->kind == Kind::kGlobalVariable) {
    const barracuda::cudart::RegisteredVar* v = rt.VarBySymbol(reinterpret_cast<const void*>(a->base));
    if (v != nullptr && v->managed) return a->base;
  }
  return 0;
}
bool ManagedRange(const void* ptr, size_t count) { return ManagedBase(ptr, count) != 0; }

bool ValidLocation(const cudaMemLocation& l) {
  switch (l.type) {
    case cudaMemLocationTypeDevice: return l.id == 0;
    case cudaMemLocationTypeHost:
    case cudaMemLocationTypeHostNumaCurrent: return true;
    case cudaMemLocationTypeHostNuma: return l.id == 0;  // one NUMA node
    default: return false;
  }
}

bool operator==(const cudaMemLocation& a, const cudaMemLocation& b) { return a.type == b.type && a.id == b.id; }

// The legacy int form of a location: a device id, cudaCpuDeviceId for the host.
int LegacyId(const cudaMemLocation& l) {
  if (l.type == cudaMemLocationTypeDevice) return l.id;
  if (l.type == cudaMemLocationTypeInvalid) return cudaInvalidDeviceId;
  return cudaCpuDeviceId;
}

// f(key) for the pages of a range inside one managed allocation.
template <class F>
void ForEachPage(const void* ptr, size_t count, F&& f) {
  const uint64_t base = ManagedBase(ptr, count);
  const uint64_t from = reinterpret_cast<uint64_t>(ptr) - base;
  const uint64_t first = from / kPageBytes, last = (from + std::max<size_t>(count, 1) - 1) / kPageBytes;
  for (uint64_t p = first; p <= last; ++p) f(std::make_pair(base, p));
}

// The pages' common value of `field`, or nullopt when they differ.
template <class Get>
auto Common(const void* ptr, size_t count, Get&& get) -> std::optional<decltype(get(PageAdvice{}))> {
  AdviceStore& s = AdviceStore::Get();
  std::optional<decltype(get(PageAdvice{}))> common;
  bool differ = false;
  ForEachPage(ptr, count, [&](const std::pair<uint64_t, uint64_t>& p) {
    auto it = s.pages.find(p);
    const auto v = get(it == s.pages.end() ? PageAdvice{} : it->second);
    if (!common) {
      common = v;
    } else if (!(*common == v)) {
      differ = true;
    }
  });
  return differ ? std::nullopt : common;
}

cudaError_t Attribute(void* data, size_t size, cudaMemRangeAttribute attribute, const void* ptr, size_t count) {
  if (!data || size == 0) return cudaErrorInvalidValue;
  auto put_int = [&](int v) {
    if (size < sizeof(int)) return cudaErrorInvalidValue;
    std::memcpy(data, &v, sizeof(v));
    return cudaSuccess;
  };
  const cudaMemLocation invalid{cudaMemLocationTypeInvalid, 0};
  switch (attribute) {
    case cudaMemRangeAttributeReadMostly:
      return put_int(Common(ptr, count, [](const PageAdvice& a) { return a.read_mostly; }).value_or(false) ? 1 : 0);
    case cudaMemRangeAttributePreferredLocation:
      return put_int(LegacyId(Common(ptr, count, [](const PageAdvice& a) { return a.preferred; }).value_or(invalid)));
    case cudaMemRangeAttributePreferredLocationType:
      return put_int(Common(ptr, count, [](const PageAdvice& a) { return a.preferred; }).value_or(invalid).type);
    case cudaMemRangeAttributePreferredLocationId:
      return put_int(Common(ptr, count, [](const PageAdvice& a) { return a.preferred; }).value_or(invalid).id);
    case cudaMemRangeAttributeLastPrefetchLocation:
      return put_int(LegacyId(Common(ptr, count, [](const PageAdvice& a) { return a.last_prefetch; }).value_or(invalid)));
    case cudaMemRangeAttributeLastPrefetchLocationType:
      return put_int(Common(ptr, count, [](const PageAdvice& a) { return a.last_prefetch; }).value_or(invalid).type);
    case cudaMemRangeAttributeLastPrefetchLocationId:
      return put_int(Common(ptr, count, [](const PageAdvice& a) { return a.last_prefetch; }).value_or(invalid).id);
    case cudaMemRangeAttributeAccessedBy: {
      if (size % sizeof(int) != 0) return cudaErrorInvalidValue;
      std::vector<int> devices;
      if (Common(ptr, count, [](const PageAdvice& a) { return a.accessed_by_device; }).value_or(false))
        devices.push_back(0);
      if (Common(ptr, count, [](const PageAdvice& a) { return a.accessed_by_host; }).value_or(false))
        devices.push_back(cudaCpuDeviceId);
      int* out = static_cast<int*>(data);
      for (size_t i = 0; i < size / sizeof(int); ++i) out[i] = i < devices.size() ? devices[i] : cudaInvalidDeviceId;
      return cudaSuccess;
    }
    default: return cudaErrorInvalidValue;
  }
}

}  // namespace

namespace barracuda::cudart {
void ForgetManagedAdvice(uint64_t base, uint64_t) {
  AdviceStore& s = AdviceStore::Get();
  std::lock_guard<std::mutex> lock(s.mu);
  s.pages.erase(s.pages.lower_bound({base, 0}), s.pages.lower_bound({base + 1, 0}));
}
}  // namespace barracuda::cudart

CUDART_EXPORT cudaError_t cudaMemAdvise(const void* ptr, size_t count, cudaMemoryAdvise advice,
                                        cudaMemLocation location) {
  Runtime& rt = Runtime::Get();
  if (!ManagedRange(ptr, count)) return rt.Fail(cudaErrorInvalidValue);
  const bool needs_location = advice == cudaMemAdviseSetPreferredLocation || advice == cudaMemAdviseSetAccessedBy ||
                              advice == cudaMemAdviseUnsetAccessedBy;
  if (advice < cudaMemAdviseSetReadMostly || advice > cudaMemAdviseUnsetAccessedBy) return rt.Fail(cudaErrorInvalidValue);
  if (needs_location && !ValidLocation(location)) return rt.Fail(cudaErrorInvalidDevice);
  const bool device = location.type == cudaMemLocationTypeDevice;
  AdviceStore& s = AdviceStore::Get();
  std::lock_guard<std::mutex> lock(s.mu);
  ForEachPage(ptr, count, [&](const std::pair<uint64_t, uint64_t>& p) {
    PageAdvice& a = s.pages[p];
    switch (advice) {
      case cudaMemAdviseSetReadMostly: a.read_mostly = true; break;
      case cudaMemAdviseUnsetReadMostly: a.read_mostly = false; break;
      case cudaMemAdviseSetPreferredLocation: a.preferred = location; break;
      case cudaMemAdviseUnsetPreferredLocation: a.preferred = {cudaMemLocationTypeInvalid, 0}; break;
      case cudaMemAdviseSetAccessedBy: (device ? a.accessed_by_device : a.accessed_by_host) = true; break;
      case cudaMemAdviseUnsetAccessedBy: (device ? a.accessed_by_device : a.accessed_by_host) = false; break;
    }
  });
  return cudaSuccess;
}

// The stream's earlier work is done (work runs when issued), so the prefetch
// "happens" at once.
CUDART_EXPORT cudaError_t cudaMemPrefetchAsync(const void* ptr, size_t count, cudaMemLocation location, unsigned int,
                                               cudaStream_t stream) {
  Runtime& rt = Runtime::Get();
  if (!rt.ValidStream(stream)) return rt.Fail(cudaErrorInvalidResourceHandle);
  if (!ManagedRange(ptr, count)) {
    // Device memory: accepted and ignored, as before (nothing to migrate).
    return Runtime::Get().device().memory().Find(reinterpret_cast<uint64_t>(ptr), count ? count : 1).has_value()
               ? cudaSuccess
               : rt.Fail(cudaErrorInvalidValue);
  }
  if (!ValidLocation(location)) return rt.Fail(cudaErrorInvalidDevice);
  AdviceStore& s = AdviceStore::Get();
  std::lock_guard<std::mutex> lock(s.mu);
  ForEachPage(ptr, count, [&](const std::pair<uint64_t, uint64_t>& p) { s.pages[p].last_prefetch = location; });
  return cudaSuccess;
}
CUDART_EXPORT cudaError_t cudaMemPrefetchAsync_ptsz(const void* ptr, size_t count, cudaMemLocation location,
                                                    unsigned int flags, cudaStream_t stream) {
  return cudaMemPrefetchAsync(ptr, count, location, flags, stream);
}

CUDART_EXPORT cudaError_t cudaMemRangeGetAttribute(void* data, size_t size, cudaMemRangeAttribute attribute,
                                                   const void* ptr, size_t count) {
  Runtime& rt = Runtime::Get();
  if (!ManagedRange(ptr, count)) return rt.Fail(cudaErrorInvalidValue);
  std::lock_guard<std::mutex> lock(AdviceStore::Get().mu);
  const cudaError_t e = Attribute(data, size, attribute, ptr, count);
  return e == cudaSuccess ? e : rt.Fail(e);
}

CUDART_EXPORT cudaError_t cudaMemRangeGetAttributes(void** data, size_t* sizes, cudaMemRangeAttribute* attributes,
                                                    size_t count_attributes, const void* ptr, size_t count) {
  Runtime& rt = Runtime::Get();
  if (!data || !sizes || !attributes || count_attributes == 0 || !ManagedRange(ptr, count))
    return rt.Fail(cudaErrorInvalidValue);
  std::lock_guard<std::mutex> lock(AdviceStore::Get().mu);
  for (size_t i = 0; i < count_attributes; ++i) {
    if (cudaError_t e = Attribute(data[i], sizes[i], attributes[i], ptr, count)) return rt.Fail(e);
  }
  return cudaSuccess;
}
