// What the agent asks of CUDA to run its queues, behind one interface with
// two implementations: the CUDA runtime's (programs that launch through the
// runtime) and the driver's (programs that use only the driver API, which on
// NVIDIA's driver never load libcudart.so.13). Agent::LaunchKernel picks one
// at the first launch (SelectDeviceBackend) and keeps it for the process.
#ifndef BARRACUDA_HOST_DETECTOR_GPU_AGENT_DEVICE_BACKEND_H_
#define BARRACUDA_HOST_DETECTOR_GPU_AGENT_DEVICE_BACKEND_H_

#include <cstddef>
#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "host_detector/gpu_agent/agent_config.h"

namespace barracuda::gpu_agent {

class DeviceBackend {
 public:
  struct DeviceInfo {
    int sms = 0;
    size_t total_bytes = 0;
    int reserved_shared = 0;  // the driver's reserved shared bytes per block
  };
  virtual ~DeviceBackend() = default;
  virtual const char* name() const = 0;  // "CUDA runtime", "CUDA driver"
  // Of the current device (runtime) or the current context's (driver).
  virtual absl::StatusOr<DeviceInfo> Device() = 0;
  // Mapped pinned memory and its device address.
  virtual absl::Status AllocMapped(size_t bytes, void** host, uint64_t* device) = 0;
  virtual void FreeMapped(void* host) = 0;
  // Zeroed device memory; nullptr when there is none.
  virtual void* AllocZeroedDevice(size_t bytes) = 0;
  virtual void FreeDevice(void* p) = 0;
  // Waits for the launch to finish. A cudaError_t or CUresult value: the
  // codes the agent tells apart (faults 700-799, code rejections) are equal.
  virtual int Synchronize() = 0;
  virtual bool Capturing(void* stream) = 0;  // the stream is capturing a graph
  virtual std::string ErrorText(int code) = 0;
};

DeviceBackend& RuntimeDeviceBackend();
DeviceBackend& DriverDeviceBackend();

// UseDriverQueues (agent_config.h) with the process's state: is a
// libcudart.so.13 loaded (dlopen(RTLD_NOLOAD))?
DeviceBackend& SelectDeviceBackend(const AgentConfig& config, bool driver_launch);

}  // namespace barracuda::gpu_agent

#endif  // BARRACUDA_HOST_DETECTOR_GPU_AGENT_DEVICE_BACKEND_H_
