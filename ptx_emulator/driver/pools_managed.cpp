// Stream-ordered allocation and memory pools, managed-memory hints and host
// registration through the runtime (memory_pools.cpp, managed_advice.cpp,
// host_register.cpp of the replacement libcudart.so.13): CUmemoryPool is the
// runtime's cudaMemPool_t, and the driver's pool, location, access and
// attribute types have the runtime's layouts and values (checked below).
// The _ptsz variants take the calling thread's default stream for NULL.
#include <type_traits>

#include "ptx_emulator/driver/driver_api.h"

using barracuda::cuda_driver::CheckInit;
using barracuda::cuda_driver::DevPtr;
using barracuda::cuda_driver::PerThread;
using barracuda::cuda_driver::Ptr;
using barracuda::cuda_driver::Run;
using barracuda::cuda_driver::Stream;
using barracuda::cuda_driver::ToResult;

namespace {

static_assert(sizeof(CUmemPoolProps) == sizeof(cudaMemPoolProps) && sizeof(CUmemLocation) == sizeof(cudaMemLocation) &&
              sizeof(CUmemAccessDesc) == sizeof(cudaMemAccessDesc));
static_assert(static_cast<int>(CU_MEM_LOCATION_TYPE_DEVICE) == cudaMemLocationTypeDevice &&
              static_cast<int>(CU_MEM_LOCATION_TYPE_HOST) == cudaMemLocationTypeHost &&
              static_cast<int>(CU_MEM_LOCATION_TYPE_HOST_NUMA) == cudaMemLocationTypeHostNuma);
static_assert(static_cast<int>(CU_MEMPOOL_ATTR_RELEASE_THRESHOLD) == cudaMemPoolAttrReleaseThreshold &&
              static_cast<int>(CU_MEMPOOL_ATTR_USED_MEM_HIGH) == cudaMemPoolAttrUsedMemHigh);
static_assert(static_cast<int>(CU_MEM_ADVISE_SET_READ_MOSTLY) == cudaMemAdviseSetReadMostly &&
              static_cast<int>(CU_MEM_ADVISE_UNSET_ACCESSED_BY) == cudaMemAdviseUnsetAccessedBy);
static_assert(static_cast<int>(CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY) == cudaMemRangeAttributeReadMostly &&
              static_cast<int>(CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION_ID) ==
                  cudaMemRangeAttributeLastPrefetchLocationId);
static_assert(static_cast<int>(CU_MEM_ACCESS_FLAGS_PROT_READWRITE) == cudaMemAccessFlagsProtReadWrite);

cudaMemPool_t Pool(CUmemoryPool p) { return reinterpret_cast<cudaMemPool_t>(p); }
cudaMemLocation Location(const CUmemLocation& l) {
  return {static_cast<cudaMemLocationType>(l.type), l.id};
}

CUresult AllocAsync(CUdeviceptr* dptr, size_t bytes, cudaMemPool_t pool, cudaStream_t stream) {
  if (CUresult r = CheckInit()) return r;
  if (!dptr) return CUDA_ERROR_INVALID_VALUE;
  void* p = nullptr;
  const cudaError_t e = pool ? cudaMallocFromPoolAsync(&p, bytes, pool, stream) : cudaMallocAsync(&p, bytes, stream);
  if (e != cudaSuccess) return ToResult(e);
  *dptr = DevPtr(p);
  return CUDA_SUCCESS;
}

}  // namespace

// ---------------------------------------------------------------- stream-ordered allocation

CUresult cuMemAllocAsync(CUdeviceptr* dptr, size_t bytesize, CUstream hStream) {
  return AllocAsync(dptr, bytesize, nullptr, Stream(hStream));
}
CU_EXPORT CUresult cuMemAllocAsync_ptsz(CUdeviceptr* dptr, size_t bytesize, CUstream hStream) {
  return AllocAsync(dptr, bytesize, nullptr, PerThread(hStream));
}
CUresult cuMemAllocFromPoolAsync(CUdeviceptr* dptr, size_t bytesize, CUmemoryPool pool, CUstream hStream) {
  if (!pool) return CUDA_ERROR_INVALID_VALUE;
  return AllocAsync(dptr, bytesize, Pool(pool), Stream(hStream));
}
CU_EXPORT CUresult cuMemAllocFromPoolAsync_ptsz(CUdeviceptr* dptr, size_t bytesize, CUmemoryPool pool,
                                                CUstream hStream) {
  if (!pool) return CUDA_ERROR_INVALID_VALUE;
  return AllocAsync(dptr, bytesize, Pool(pool), PerThread(hStream));
}
CUresult cuMemFreeAsync(CUdeviceptr dptr, CUstream hStream) {
  return Run([&] { return cudaFreeAsync(Ptr(dptr), Stream(hStream)); });
}
CU_EXPORT CUresult cuMemFreeAsync_ptsz(CUdeviceptr dptr, CUstream hStream) {
  return Run([&] { return cudaFreeAsync(Ptr(dptr), PerThread(hStream)); });
}

// ---------------------------------------------------------------- pools

CUresult cuMemPoolCreate(CUmemoryPool* pool, const CUmemPoolProps* poolProps) {
  return Run([&] {
    return cudaMemPoolCreate(reinterpret_cast<cudaMemPool_t*>(pool), reinterpret_cast<const cudaMemPoolProps*>(poolProps));
  });
}
CUresult cuMemPoolDestroy(CUmemoryPool pool) { return Run([&] { return cudaMemPoolDestroy(Pool(pool)); }); }
CUresult cuMemPoolTrimTo(CUmemoryPool pool, size_t minBytesToKeep) {
  return Run([&] { return cudaMemPoolTrimTo(Pool(pool), minBytesToKeep); });
}
CUresult cuMemPoolSetAttribute(CUmemoryPool pool, CUmemPool_attribute attr, void* value) {
  return Run([&] { return cudaMemPoolSetAttribute(Pool(pool), static_cast<cudaMemPoolAttr>(attr), value); });
}
CUresult cuMemPoolGetAttribute(CUmemoryPool pool, CUmemPool_attribute attr, void* value) {
  return Run([&] { return cudaMemPoolGetAttribute(Pool(pool), static_cast<cudaMemPoolAttr>(attr), value); });
}
CUresult cuMemPoolSetAccess(CUmemoryPool pool, const CUmemAccessDesc* map, size_t count) {
  return Run([&] { return cudaMemPoolSetAccess(Pool(pool), reinterpret_cast<const cudaMemAccessDesc*>(map), count); });
}
CUresult cuMemPoolGetAccess(CUmemAccess_flags* flags, CUmemoryPool memPool, CUmemLocation* location) {
  return Run([&] {
    return cudaMemPoolGetAccess(reinterpret_cast<cudaMemAccessFlags*>(flags), Pool(memPool),
                                reinterpret_cast<cudaMemLocation*>(location));
  });
}
CUresult cuDeviceGetDefaultMemPool(CUmemoryPool* pool_out, CUdevice dev) {
  return Run([&] { return cudaDeviceGetDefaultMemPool(reinterpret_cast<cudaMemPool_t*>(pool_out), dev); });
}
CUresult cuDeviceGetMemPool(CUmemoryPool* pool, CUdevice dev) {
  return Run([&] { return cudaDeviceGetMemPool(reinterpret_cast<cudaMemPool_t*>(pool), dev); });
}
CUresult cuDeviceSetMemPool(CUdevice dev, CUmemoryPool pool) {
  return Run([&] { return cudaDeviceSetMemPool(dev, Pool(pool)); });
}
CUresult cuMemGetDefaultMemPool(CUmemoryPool* pool_out, CUmemLocation* location, CUmemAllocationType type) {
  return Run([&] {
    return cudaMemGetDefaultMemPool(reinterpret_cast<cudaMemPool_t*>(pool_out),
                                    reinterpret_cast<cudaMemLocation*>(location), static_cast<cudaMemAllocationType>(type));
  });
}
CUresult cuMemGetMemPool(CUmemoryPool* pool, CUmemLocation* location, CUmemAllocationType type) {
  return Run([&] {
    return cudaMemGetMemPool(reinterpret_cast<cudaMemPool_t*>(pool), reinterpret_cast<cudaMemLocation*>(location),
                             static_cast<cudaMemAllocationType>(type));
  });
}
CUresult cuMemSetMemPool(CUmemLocation* location, CUmemAllocationType type, CUmemoryPool pool) {
  return Run([&] {
    return cudaMemSetMemPool(reinterpret_cast<cudaMemLocation*>(location), static_cast<cudaMemAllocationType>(type),
                             Pool(pool));
  });
}

// ---------------------------------------------------------------- managed memory hints

CUresult cuMemPrefetchAsync(CUdeviceptr devPtr, size_t count, CUmemLocation location, unsigned int flags,
                            CUstream hStream) {
  return Run([&] { return cudaMemPrefetchAsync(Ptr(devPtr), count, Location(location), flags, Stream(hStream)); });
}
CU_EXPORT CUresult cuMemPrefetchAsync_v2_ptsz(CUdeviceptr devPtr, size_t count, CUmemLocation location,
                                              unsigned int flags, CUstream hStream) {
  return Run([&] { return cudaMemPrefetchAsync(Ptr(devPtr), count, Location(location), flags, PerThread(hStream)); });
}
CUresult cuMemAdvise(CUdeviceptr devPtr, size_t count, CUmem_advise advice, CUmemLocation location) {
  return Run([&] { return cudaMemAdvise(Ptr(devPtr), count, static_cast<cudaMemoryAdvise>(advice), Location(location)); });
}
CUresult cuMemRangeGetAttribute(void* data, size_t dataSize, CUmem_range_attribute attribute, CUdeviceptr devPtr,
                                size_t count) {
  return Run([&] {
    return cudaMemRangeGetAttribute(data, dataSize, static_cast<cudaMemRangeAttribute>(attribute), Ptr(devPtr), count);
  });
}
CUresult cuMemRangeGetAttributes(void** data, size_t* dataSizes, CUmem_range_attribute* attributes,
                                 size_t numAttributes, CUdeviceptr devPtr, size_t count) {
  return Run([&] {
    return cudaMemRangeGetAttributes(data, dataSizes, reinterpret_cast<cudaMemRangeAttribute*>(attributes),
                                     numAttributes, Ptr(devPtr), count);
  });
}

// ---------------------------------------------------------------- host registration
// CU_MEMHOSTREGISTER_* equal cudaHostRegister* flags.

CUresult cuMemHostRegister(void* p, size_t bytesize, unsigned int Flags) {
  return Run([&] { return cudaHostRegister(p, bytesize, Flags); });
}
CUresult cuMemHostUnregister(void* p) { return Run([&] { return cudaHostUnregister(p); }); }
CUresult cuMemHostGetFlags(unsigned int* pFlags, void* p) { return Run([&] { return cudaHostGetFlags(pFlags, p); }); }
