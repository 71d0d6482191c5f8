// Stream attributes, stream ids and devices. An access-policy window (L2
// persistence), the synchronisation policy and the memory-sync domains tune
// caching and scheduling on a GPU; the emulator has neither, so it checks and
// keeps what a program sets and gives it back, as libraries that set a window
// and read it back (or copy it to another stream) expect. The priority
// attribute is the stream's priority (cudaStreamGetPriority).
#include <algorithm>
#include <map>
#include <mutex>
#include <utility>

#include "ptx_emulator/runtime/cuda_api.h"
#include "ptx_emulator/runtime/runtime_state.h"

namespace {

using barracuda::cudart::Runtime;
using barracuda::cudart::StreamState;

// Set attributes, by Runtime::StreamId and attribute.
struct AttributeStore {
  std::mutex mu;
  std::map<std::pair<uint64_t, int>, cudaLaunchAttributeValue> values;
  static AttributeStore& Get() {
    static AttributeStore* store = new AttributeStore;  // never destroyed: used from atexit handlers too
    return *store;
  }
};

bool Builtin(cudaStream_t s) { return s == nullptr || s == cudaStreamLegacy || s == cudaStreamPerThread; }

bool StreamAttribute(cudaLaunchAttributeID attr) {
  switch (attr) {
    case cudaLaunchAttributeAccessPolicyWindow:
    case cudaLaunchAttributeSynchronizationPolicy:
    case cudaLaunchAttributePriority:
    case cudaLaunchAttributeMemSyncDomainMap:
    case cudaLaunchAttributeMemSyncDomain:
      return true;
    default:
      return false;
  }
}

bool ValidValue(cudaLaunchAttributeID attr, const cudaLaunchAttributeValue& v) {
  switch (attr) {
    case cudaLaunchAttributeAccessPolicyWindow: {
      const cudaAccessPolicyWindow& w = v.accessPolicyWindow;
      auto valid_property = [](cudaAccessProperty p) {
        return p == cudaAccessPropertyNormal || p == cudaAccessPropertyStreaming || p == cudaAccessPropertyPersisting;
      };
      return w.hitRatio >= 0.0f && w.hitRatio <= 1.0f && valid_property(w.hitProp) && valid_property(w.missProp) &&
             w.missProp != cudaAccessPropertyPersisting;
    }
    case cudaLaunchAttributeSynchronizationPolicy:
      return v.syncPolicy == cudaSyncPolicyAuto || v.syncPolicy == cudaSyncPolicySpin ||
             v.syncPolicy == cudaSyncPolicyYield || v.syncPolicy == cudaSyncPolicyBlockingSync;
    case cudaLaunchAttributeMemSyncDomain:
      return v.memSyncDomain == cudaLaunchMemSyncDomainDefault || v.memSyncDomain == cudaLaunchMemSyncDomainRemote;
    default:
      return true;
  }
}

cudaError_t GetAttribute(cudaStream_t stream, cudaLaunchAttributeID attr, cudaLaunchAttributeValue* value,
                         bool per_thread) {
  Runtime& rt = Runtime::Get();
  if (!value || !StreamAttribute(attr)) return rt.Fail(cudaErrorInvalidValue);
  if (!rt.ValidStream(stream)) return rt.Fail(cudaErrorInvalidResourceHandle);
  *value = cudaLaunchAttributeValue{};
  if (attr == cudaLaunchAttributePriority) {
    value->priority = Builtin(stream) ? 0 : reinterpret_cast<StreamState*>(stream)->priority;
    return cudaSuccess;
  }
  AttributeStore& store = AttributeStore::Get();
  std::lock_guard<std::mutex> lock(store.mu);
  auto it = store.values.find({rt.StreamId(stream, per_thread), attr});
  if (it != store.values.end()) {
    *value = it->second;
  } else if (attr == cudaLaunchAttributeMemSyncDomainMap) {
    value->memSyncDomainMap.remote = 1;  // the default map: default -> 0, remote -> 1
  }
  return cudaSuccess;
}

cudaError_t SetAttribute(cudaStream_t stream, cudaLaunchAttributeID attr, const cudaLaunchAttributeValue* value,
                         bool per_thread) {
  Runtime& rt = Runtime::Get();
  if (!value || !StreamAttribute(attr) || !ValidValue(attr, *value)) return rt.Fail(cudaErrorInvalidValue);
  if (!rt.ValidStream(stream)) return rt.Fail(cudaErrorInvalidResourceHandle);
  if (attr == cudaLaunchAttributePriority) {
    int least = 0, greatest = 0;
    cudaDeviceGetStreamPriorityRange(&least, &greatest);
    if (Builtin(stream)) return rt.Fail(cudaErrorInvalidResourceHandle);
    // Clamped to the range, as cudaStreamCreateWithPriority does.
    reinterpret_cast<StreamState*>(stream)->priority = std::min(least, std::max(greatest, value->priority));
    return cudaSuccess;
  }
  AttributeStore& store = AttributeStore::Get();
  std::lock_guard<std::mutex> lock(store.mu);
  store.values[{rt.StreamId(stream, per_thread), attr}] = *value;
  return cudaSuccess;
}

cudaError_t CopyAttributes(cudaStream_t dst, cudaStream_t src, bool per_thread) {
  Runtime& rt = Runtime::Get();
  if (!rt.ValidStream(dst) || !rt.ValidStream(src)) return rt.Fail(cudaErrorInvalidResourceHandle);
  const uint64_t from = rt.StreamId(src, per_thread), to = rt.StreamId(dst, per_thread);
  {
    AttributeStore& store = AttributeStore::Get();
    std::lock_guard<std::mutex> lock(store.mu);
    std::map<std::pair<uint64_t, int>, cudaLaunchAttributeValue> copied;
    for (auto it = store.values.lower_bound({from, 0}); it != store.values.end() && it->first.first == from; ++it)
      copied[{to, it->first.second}] = it->second;
    std::erase_if(store.values, [&](const auto& kv) { return kv.first.first == to; });
    store.values.merge(copied);
  }
  if (!Builtin(dst)) {
    reinterpret_cast<StreamState*>(dst)->priority = Builtin(src) ? 0 : reinterpret_cast<StreamState*>(src)->priority;
  }
  return cudaSuccess;
}

cudaError_t GetId(cudaStream_t stream, unsigned long long* id, bool per_thread) {
  Runtime& rt = Runtime::Get();
  if (!id) return rt.Fail(cudaErrorInvalidValue);
  if (!rt.ValidStream(stream)) return rt.Fail(cudaErrorInvalidResourceHandle);
  *id = rt.StreamId(stream, per_thread);
  return cudaSuccess;
}

cudaError_t GetDevice(cudaStream_t stream, int* device) {
  Runtime& rt = Runtime::Get();
  if (!device) return rt.Fail(cudaErrorInvalidValue);
  if (!rt.ValidStream(stream)) return rt.Fail(cudaErrorInvalidResourceHandle);
  *device = 0;  // the one device
  return cudaSuccess;
}

}  // namespace

namespace barracuda::cudart {
void ForgetStreamAttributes(uint64_t stream_id) {
  AttributeStore& store = AttributeStore::Get();
  std::lock_guard<std::mutex> lock(store.mu);
  std::erase_if(store.values, [&](const auto& kv) { return kv.first.first == stream_id; });
}
}  // namespace barracuda::cudart

CUDART_EXPORT cudaError_t cudaStreamGetAttribute(cudaStream_t stream, cudaLaunchAttributeID attr,
                                                 cudaLaunchAttributeValue* value) {
  return GetAttribute(stream, attr, value, false);
}
CUDART_EXPORT cudaError_t cudaStreamGetAttribute_ptsz(cudaStream_t stream, cudaLaunchAttributeID attr,
                                                      cudaLaunchAttributeValue* value) {
  return GetAttribute(stream, attr, value, true);
}
CUDART_EXPORT cudaError_t cudaStreamSetAttribute(cudaStream_t stream, cudaLaunchAttributeID attr,
                                                 const cudaLaunchAttributeValue* value) {
  return SetAttribute(stream, attr, value, false);
}
CUDART_EXPORT cudaError_t cudaStreamSetAttribute_ptsz(cudaStream_t stream, cudaLaunchAttributeID attr,
                                                      const cudaLaunchAttributeValue* value) {
  return SetAttribute(stream, attr, value, true);
}
CUDART_EXPORT cudaError_t cudaStreamCopyAttributes(cudaStream_t dst, cudaStream_t src) {
  return CopyAttributes(dst, src, false);
}
CUDART_EXPORT cudaError_t cudaStreamCopyAttributes_ptsz(cudaStream_t dst, cudaStream_t src) {
  return CopyAttributes(dst, src, true);
}
CUDART_EXPORT cudaError_t cudaStreamGetId(cudaStream_t stream, unsigned long long* id) {
  return GetId(stream, id, false);
}
CUDART_EXPORT cudaError_t cudaStreamGetId_ptsz(cudaStream_t stream, unsigned long long* id) {
  return GetId(stream, id, true);
}
CUDART_EXPORT cudaError_t cudaStreamGetDevice(cudaStream_t stream, int* device) { return GetDevice(stream, device); }
CUDART_EXPORT cudaError_t cudaStreamGetDevice_ptsz(cudaStream_t stream, int* device) {
  return GetDevice(stream, device);
}
// Persisting L2 lines: none to reset on the emulator.
CUDART_EXPORT cudaError_t cudaCtxResetPersistingL2Cache() { return cudaSuccess; }
