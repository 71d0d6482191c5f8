// Initialisation, the device, and contexts.
//
// One device (ordinal 0), whose state (memory, modules, streams, events) is
// the runtime's and process-wide. Contexts are bookkeeping over it: the
// primary context and any created one are handles a thread makes current
// (a per-thread stack), not separate address spaces. Destroying a created
// context, or releasing the primary one, frees nothing; cuDevicePrimaryCtxReset
// resets the device as cudaDeviceReset does. A call that needs a context and
// finds none current works on the primary one, as the runtime API does
// (a GPU's driver would fail it with CUDA_ERROR_INVALID_CONTEXT).
#include <atomic>
#include <cstring>
#include <mutex>
#include <vector>

#include <unordered_set>
#include "ptx_emulator/driver/driver_api.h"

namespace barracuda::cuda_driver {
namespace {

std::atomic<bool> initialised{false};

struct Context {
  unsigned flags = 0;
  bool primary = false;
};

struct Contexts {
  std::mutex mu;
  Context primary{0, true};
  int primary_retains = 0;
  std::unordered_set<Context*> live{&primary};
};

Contexts& State() {
  static Contexts* contexts = new Contexts();  // never destroyed: used from atexit handlers
  return *contexts;
}

std::vector<CUcontext>& Stack() {
  thread_local std::vector<CUcontext> stack;
  return stack;
}

CUcontext Handle(Context* c) { return reinterpret_cast<CUcontext>(c); }

bool Live(CUcontext ctx) {
  Contexts& s = State();
  std::lock_guard<std::mutex> lock(s.mu);
  return s.live.count(reinterpret_cast<Context*>(ctx)) == 1;
}

CUresult CheckDevice(CUdevice dev) {
  if (CUresult r = CheckInit()) return r;
  return dev == 0 ? CUDA_SUCCESS : CUDA_ERROR_INVALID_DEVICE;
}

// Checks `dev` and the output `out`, then hands the runtime's properties of
// the device to `use`.
template <typename Use>
CUresult WithProperties(CUdevice dev, const void* out, Use use) {
  if (CUresult r = CheckDevice(dev)) return r;
  if (!out) return CUDA_ERROR_INVALID_VALUE;
  cudaDeviceProp prop;
  if (cudaError_t e = cudaGetDeviceProperties(&prop, 0)) return ToResult(e);
  use(prop);
  return CUDA_SUCCESS;
}

CUresult Create(CUcontext* pctx, unsigned flags, CUdevice dev) {
  if (CUresult r = CheckDevice(dev)) return r;
  if (!pctx) return CUDA_ERROR_INVALID_VALUE;
  auto* c = new Context{flags, false};
  {
    Contexts& s = State();
    std::lock_guard<std::mutex> lock(s.mu);
    s.live.insert(c);
  }
  Stack().push_back(Handle(c));
  *pctx = Handle(c);
  return CUDA_SUCCESS;
}

}  // namespace

CUresult CheckInit() {
  return initialised.load(std::memory_order_acquire) ? CUDA_SUCCESS : CUDA_ERROR_NOT_INITIALIZED;
}

}  // namespace barracuda::cuda_driver

using barracuda::cuda_driver::CheckDevice;
using barracuda::cuda_driver::CheckInit;
using barracuda::cuda_driver::Context;
using barracuda::cuda_driver::Handle;
using barracuda::cuda_driver::Live;
using barracuda::cuda_driver::Stack;
using barracuda::cuda_driver::State;
using barracuda::cuda_driver::ToResult;
using barracuda::cuda_driver::WithProperties;

CUresult cuInit(unsigned int flags) {
  if (flags != 0) return CUDA_ERROR_INVALID_VALUE;
  barracuda::cuda_driver::initialised.store(true, std::memory_order_release);
  return CUDA_SUCCESS;
}

CUresult cuDriverGetVersion(int* driverVersion) {
  if (!driverVersion) return CUDA_ERROR_INVALID_VALUE;
  return ToResult(cudaDriverGetVersion(driverVersion));
}

// ---------------------------------------------------------------- device

CUresult cuDeviceGet(CUdevice* device, int ordinal) {
  if (CUresult r = CheckInit()) return r;
  if (!device) return CUDA_ERROR_INVALID_VALUE;
  if (ordinal != 0) return CUDA_ERROR_INVALID_DEVICE;
  *device = 0;
  return CUDA_SUCCESS;
}

CUresult cuDeviceGetCount(int* count) {
  if (CUresult r = CheckInit()) return r;
  if (!count) return CUDA_ERROR_INVALID_VALUE;
  *count = 1;
  return CUDA_SUCCESS;
}

CUresult cuDeviceGetName(char* name, int len, CUdevice dev) {
  return WithProperties(dev, len > 0 ? name : nullptr, [&](const cudaDeviceProp& prop) {
    std::strncpy(name, prop.name, static_cast<size_t>(len));
    name[len - 1] = '\0';
  });
}

CUresult cuDeviceGetUuid_v2(CUuuid* uuid, CUdevice dev) {
  return WithProperties(dev, uuid, [&](const cudaDeviceProp& prop) {
    static_assert(sizeof(*uuid) == sizeof(prop.uuid));
    std::memcpy(uuid, &prop.uuid, sizeof(*uuid));
  });
}

CUresult cuDeviceTotalMem(size_t* bytes, CUdevice dev) {
  return WithProperties(dev, bytes, [&](const cudaDeviceProp& prop) { *bytes = prop.totalGlobalMem; });
}

// CUdevice_attribute and cudaDeviceAttr have the same values.
CUresult cuDeviceGetAttribute(int* pi, CUdevice_attribute attrib, CUdevice dev) {
  if (CUresult r = CheckDevice(dev)) return r;
  if (!pi) return CUDA_ERROR_INVALID_VALUE;
  return ToResult(cudaDeviceGetAttribute(pi, static_cast<cudaDeviceAttr>(attrib), 0));
}

CUresult cuDeviceComputeCapability(int* major, int* minor, CUdevice dev) {
  if (CUresult r = CheckDevice(dev)) return r;
  if (!major || !minor) return CUDA_ERROR_INVALID_VALUE;
  if (cudaError_t e = cudaDeviceGetAttribute(major, cudaDevAttrComputeCapabilityMajor, 0)) return ToResult(e);
  return ToResult(cudaDeviceGetAttribute(minor, cudaDevAttrComputeCapabilityMinor, 0));
}

// ---------------------------------------------------------------- primary context

CUresult cuDevicePrimaryCtxRetain(CUcontext* pctx, CUdevice dev) {
  if (CUresult r = CheckDevice(dev)) return r;
  if (!pctx) return CUDA_ERROR_INVALID_VALUE;
  auto& s = State();
  std::lock_guard<std::mutex> lock(s.mu);
  ++s.primary_retains;
  *pctx = Handle(&s.primary);
  return CUDA_SUCCESS;
}

CUresult cuDevicePrimaryCtxRelease_v2(CUdevice dev) {
  if (CUresult r = CheckDevice(dev)) return r;
  auto& s = State();
  std::lock_guard<std::mutex> lock(s.mu);
  if (s.primary_retains == 0) return CUDA_ERROR_INVALID_CONTEXT;
  --s.primary_retains;  // frees nothing: the device state is the runtime's too
  return CUDA_SUCCESS;
}

CUresult cuDevicePrimaryCtxSetFlags_v2(CUdevice dev, unsigned int flags) {
  if (CUresult r = CheckDevice(dev)) return r;
  auto& s = State();
  std::lock_guard<std::mutex> lock(s.mu);
  s.primary.flags = flags;
  return CUDA_SUCCESS;
}

CUresult cuDevicePrimaryCtxGetState(CUdevice dev, unsigned int* flags, int* active) {
  if (CUresult r = CheckDevice(dev)) return r;
  if (!flags || !active) return CUDA_ERROR_INVALID_VALUE;
  auto& s = State();
  std::lock_guard<std::mutex> lock(s.mu);
  *flags = s.primary.flags;
  *active = s.primary_retains > 0;
  return CUDA_SUCCESS;
}

CUresult cuDevicePrimaryCtxReset_v2(CUdevice dev) {
  if (CUresult r = CheckDevice(dev)) return r;
  return ToResult(cudaDeviceReset());
}


// ---------------------------------------------------------------- contexts

CUresult cuCtxCreate_v4(CUcontext* pctx, CUctxCreateParams*, unsigned int flags, CUdevice dev) {
  return barracuda::cuda_driver::Create(pctx, flags, dev);
}
CU_EXPORT CUresult cuCtxCreate_v3(CUcontext* pctx, CUexecAffinityParam*, int, unsigned int flags, CUdevice dev) {
  return barracuda::cuda_driver::Create(pctx, flags, dev);
}
CU_EXPORT CUresult cuCtxCreate_v2(CUcontext* pctx, unsigned int flags, CUdevice dev) {
  return barracuda::cuda_driver::Create(pctx, flags, dev);
}

CUresult cuCtxDestroy_v2(CUcontext ctx) {
  if (CUresult r = CheckInit()) return r;
  auto& s = State();
  {
    std::lock_guard<std::mutex> lock(s.mu);
    auto* c = reinterpret_cast<Context*>(ctx);
    if (!ctx || s.live.count(c) == 0 || c->primary) return CUDA_ERROR_INVALID_CONTEXT;
    s.live.erase(c);
    delete c;
  }
  auto& stack = Stack();
  std::erase(stack, ctx);  // current in this thread: no longer
  return CUDA_SUCCESS;
}

CUresult cuCtxPushCurrent_v2(CUcontext ctx) {
  if (CUresult r = CheckInit()) return r;
  if (!Live(ctx)) return CUDA_ERROR_INVALID_CONTEXT;
  Stack().push_back(ctx);
  return CUDA_SUCCESS;
}

CUresult cuCtxPopCurrent_v2(CUcontext* pctx) {
  if (CUresult r = CheckInit()) return r;
  auto& stack = Stack();
  if (stack.empty()) return CUDA_ERROR_INVALID_CONTEXT;
  if (pctx) *pctx = stack.back();
  stack.pop_back();
  return CUDA_SUCCESS;
}

CUresult cuCtxSetCurrent(CUcontext ctx) {
  if (CUresult r = CheckInit()) return r;
  auto& stack = Stack();
  if (!ctx) {  // unbinds the current context
    if (!stack.empty()) stack.pop_back();
    return CUDA_SUCCESS;
  }
  if (!Live(ctx)) return CUDA_ERROR_INVALID_CONTEXT;
  if (stack.empty()) stack.push_back(ctx);
  else stack.back() = ctx;
  return CUDA_SUCCESS;
}

CUresult cuCtxGetCurrent(CUcontext* pctx) {
  if (CUresult r = CheckInit()) return r;
  if (!pctx) return CUDA_ERROR_INVALID_VALUE;
  *pctx = Stack().empty() ? nullptr : Stack().back();
  return CUDA_SUCCESS;
}

CUresult cuCtxGetDevice(CUdevice* device) {
  if (CUresult r = CheckInit()) return r;
  if (!device) return CUDA_ERROR_INVALID_VALUE;
  *device = 0;
  return CUDA_SUCCESS;
}

CUresult cuCtxGetFlags(unsigned int* flags) {
  if (CUresult r = CheckInit()) return r;
  if (!flags) return CUDA_ERROR_INVALID_VALUE;
  auto& stack = Stack();
  Context* c = stack.empty() ? &State().primary : reinterpret_cast<Context*>(stack.back());
  *flags = c->flags;
  return CUDA_SUCCESS;
}

CUresult cuCtxSynchronize() {
  if (CUresult r = CheckInit()) return r;
  return ToResult(cudaDeviceSynchronize());
}

// CUlimit and cudaLimit have the same values.
CUresult cuCtxSetLimit(CUlimit limit, size_t value) {
  if (CUresult r = CheckInit()) return r;
  return ToResult(cudaDeviceSetLimit(static_cast<cudaLimit>(limit), value));
}

CUresult cuCtxGetLimit(size_t* pvalue, CUlimit limit) {
  if (CUresult r = CheckInit()) return r;
  return ToResult(cudaDeviceGetLimit(pvalue, static_cast<cudaLimit>(limit)));
}

CUresult cuCtxGetStreamPriorityRange(int* leastPriority, int* greatestPriority) {
  if (CUresult r = CheckInit()) return r;
  return ToResult(cudaDeviceGetStreamPriorityRange(leastPriority, greatestPriority));
}

CUresult cuCtxGetApiVersion(CUcontext ctx, unsigned int* version) {
  if (CUresult r = CheckInit()) return r;
  if (!version || (ctx && !Live(ctx))) return CUDA_ERROR_INVALID_VALUE;
  *version = 13000;
  return CUDA_SUCCESS;
}
