// The device's links and identity beyond cudaDeviceGetAttribute: peers (the
// emulator has one device, so every peer query names an invalid pair, as a
// real runtime answers for a device and itself), atomics over the host link,
// PCI bus ids, the valid-device list, GPUDirect RDMA flushes and 1D linear
// texture widths.
#include <cstdio>

#include "ptx_emulator/runtime/cuda_api.h"
#include "ptx_emulator/runtime/runtime_state.h"

namespace {

using barracuda::cudart::Runtime;

constexpr char kBusId[] = "0000:00:00.0";  // what cudaDeviceGetPCIBusId reports

bool KnownOperation(cudaAtomicOperation op) {
  return op >= cudaAtomicOperationIntegerAdd && op <= cudaAtomicOperationFloatMax;
}

// What the emulator does natively on host memory for each operation: every
// atomic it decodes, on host and device memory alike (it runs on the host).
unsigned HostCapabilities(cudaAtomicOperation op) {
  constexpr unsigned kInt = cudaAtomicCapabilitySigned | cudaAtomicCapabilityUnsigned | cudaAtomicCapabilityReduction |
                            cudaAtomicCapabilityScalar32 | cudaAtomicCapabilityScalar64;
  switch (op) {
    case cudaAtomicOperationIntegerIncrement:
    case cudaAtomicOperationIntegerDecrement:
      return cudaAtomicCapabilityUnsigned | cudaAtomicCapabilityReduction | cudaAtomicCapabilityScalar32;  // .u32 only
    case cudaAtomicOperationExchange:
    case cudaAtomicOperationCAS:
      return cudaAtomicCapabilitySigned | cudaAtomicCapabilityUnsigned | cudaAtomicCapabilityScalar32 |
             cudaAtomicCapabilityScalar64 | cudaAtomicCapabilityScalar128;  // .b128 (sm_90)
    case cudaAtomicOperationFloatAdd:
      return cudaAtomicCapabilityReduction | cudaAtomicCapabilityScalar32 | cudaAtomicCapabilityScalar64 |
             cudaAtomicCapabilityVector32x4;  // red.v4.f32 (sm_90)
    case cudaAtomicOperationFloatMin:
    case cudaAtomicOperationFloatMax:
      return cudaAtomicCapabilityReduction | cudaAtomicCapabilityScalar32;
    default:
      return kInt;
  }
}

}  // namespace

CUDART_EXPORT cudaError_t cudaDeviceGetP2PAttribute(int* value, cudaDeviceP2PAttr, int, int) {
  Runtime& rt = Runtime::Get();
  if (!value) return rt.Fail(cudaErrorInvalidValue);
  return rt.Fail(cudaErrorInvalidDevice);  // one device: no pair of distinct devices
}

CUDART_EXPORT cudaError_t cudaDeviceGetP2PAtomicCapabilities(unsigned int* capabilities,
                                                             const cudaAtomicOperation* operations, unsigned int count,
                                                             int, int) {
  Runtime& rt = Runtime::Get();
  if (!capabilities || !operations || count == 0) return rt.Fail(cudaErrorInvalidValue);
  return rt.Fail(cudaErrorInvalidDevice);
}

CUDART_EXPORT cudaError_t cudaDeviceGetHostAtomicCapabilities(unsigned int* capabilities,
                                                              const cudaAtomicOperation* operations,
                                                              unsigned int count, int device) {
  Runtime& rt = Runtime::Get();
  if (device != 0) return rt.Fail(cudaErrorInvalidDevice);
  if (!capabilities || !operations || count == 0) return rt.Fail(cudaErrorInvalidValue);
  for (unsigned i = 0; i < count; ++i) {
    if (!KnownOperation(operations[i])) return rt.Fail(cudaErrorInvalidValue);
  }
  for (unsigned i = 0; i < count; ++i) capabilities[i] = HostCapabilities(operations[i]);
  return cudaSuccess;
}

// Accepts the id with or without the domain, in either case ("00:00.0").
CUDART_EXPORT cudaError_t cudaDeviceGetByPCIBusId(int* device, const char* bus_id) {
  Runtime& rt = Runtime::Get();
  if (!device || !bus_id) return rt.Fail(cudaErrorInvalidValue);
  unsigned domain = 0, bus = 0, dev = 0, function = 0;
  const bool parsed = std::sscanf(bus_id, "%x:%x:%x.%x", &domain, &bus, &dev, &function) == 4 ||
                      (domain = 0, std::sscanf(bus_id, "%x:%x.%x", &bus, &dev, &function) == 3);
  if (!parsed) return rt.Fail(cudaErrorInvalidValue);
  unsigned want_domain = 0, want_bus = 0, want_dev = 0, want_function = 0;
  std::sscanf(kBusId, "%x:%x:%x.%x", &want_domain, &want_bus, &want_dev, &want_function);
  if (domain != want_domain || bus != want_bus || dev != want_dev) return rt.Fail(cudaErrorInvalidDevice);
  *device = 0;
  return cudaSuccess;
}

CUDART_EXPORT cudaError_t cudaSetValidDevices(int* devices, int len) {
  Runtime& rt = Runtime::Get();
  if (len < 0 || (len > 0 && !devices)) return rt.Fail(cudaErrorInvalidValue);
  for (int i = 0; i < len; ++i) {
    if (devices[i] != 0) return rt.Fail(cudaErrorInvalidDevice);
  }
  return cudaSuccess;  // device 0 is the only one there is
}

// Writes by a third-party device into device memory: none reach the emulator.
CUDART_EXPORT cudaError_t cudaDeviceFlushGPUDirectRDMAWrites(cudaFlushGPUDirectRDMAWritesTarget target,
                                                             cudaFlushGPUDirectRDMAWritesScope scope) {
  Runtime& rt = Runtime::Get();
  if (target != cudaFlushGPUDirectRDMAWritesTargetCurrentDevice ||
      (scope != cudaFlushGPUDirectRDMAWritesToOwner && scope != cudaFlushGPUDirectRDMAWritesToAllDevices))
    return rt.Fail(cudaErrorInvalidValue);
  return cudaSuccess;
}

// The linear 1D texture limit in elements of the format (CUDA 13 dropped
// cudaDeviceProp::maxTexture1DLinear for this call); the same for every format.
CUDART_EXPORT cudaError_t cudaDeviceGetTexture1DLinearMaxWidth(size_t* width, const cudaChannelFormatDesc* desc,
                                                               int device) {
  Runtime& rt = Runtime::Get();
  if (!width || !desc) return rt.Fail(cudaErrorInvalidValue);
  if (device != 0) return rt.Fail(cudaErrorInvalidDevice);
  *width = barracuda::cudart::kTexture1DLinearMaxWidth;
  return cudaSuccess;
}
