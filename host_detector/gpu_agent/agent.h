// The GPU agent's process-wide state (libbarracuda_gpu.so, preloaded into the
// app by `barracuda --backend=gpu`; DESIGN.md "Processes and data flow"):
// instrumented modules, kernels, the GPU queues and their drainer, and the
// session producer. cuda_hooks.cpp holds the interposed entry points and
// calls in here.
//
// Per launch (serialised, like the emulator's): kLaunchBegin; the real
// launch; a device synchronisation; the drainer moves the rest of the
// launch's records and sends the end markers with the per-ring counts. The
// synchronisation makes every launch complete before the app continues: the
// price of framing records per launch as the daemon wants them (kernels of
// different streams do not overlap under the agent).
#ifndef BARRACUDA_HOST_DETECTOR_GPU_AGENT_AGENT_H_
#define BARRACUDA_HOST_DETECTOR_GPU_AGENT_AGENT_H_

#include <array>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/functional/function_ref.h"
#include "device_logger/gpu_queue.h"
#include "device_logger/shm_transport.h"
#include "host_detector/gpu_agent/agent_config.h"
#include "absl/container/flat_hash_set.h"
#include "host_detector/gpu_agent/cuda_declarations.h"
#include "host_detector/gpu_agent/device_backend.h"
#include "host_detector/gpu_agent/driver_handles.h"
#include "host_detector/gpu_agent/queue_drainer.h"
#include "host_detector/gpu_agent/tensor_maps.h"
#include "ptx_rewriter/fatbin/fatbin_format.h"
#include "ptx_rewriter/ir.h"

namespace barracuda::gpu_agent {

struct LaunchShape {
  dim3 grid, block;
  size_t dynamic_shared = 0;
  cudaStream_t stream = nullptr;
  std::array<uint32_t, 3> cluster{0, 0, 0};  // from a launch attribute; 0: none given
};

class Agent {
 public:
  static Agent& Get();  // constructed on first use, never destroyed

  // ---- registration (nvcc-generated static constructors)
  void** RegisterFatbin(void* wrapper);
  void RegisterFunction(void** handle, const void* host_function, const char* name);
  void RegisterVar(void** handle, const void* host_symbol, const char* name, size_t size);
  void KernelHandle(cudaKernel_t kernel, const void* host_function);
  const void* HostFunctionOf(cudaKernel_t kernel);

  // ---- runtime calls
  cudaError_t Launch(const void* function, const LaunchShape& shape, absl::FunctionRef<cudaError_t()> launch);

  // ---- driver API (agent_driver.cpp; CUresult values as int: the codes the
  // agent tells apart are the runtime's too)
  // `load` calls the real loader with an image (the instrumented PTX, or the
  // program's own when the module is not analysed); `loaded` reads the handle
  // it wrote. `library`: a CUlibrary (its globals through cuLibraryGetGlobal).
  int LoadDriverModule(const char* api, const void* image, bool library, absl::FunctionRef<int(const void*)> load,
                       absl::FunctionRef<const void*()> loaded);
  void DriverModuleAlias(const void* alias, const void* module);              // cuLibraryGetModule
  void DriverFunction(const void* function, const void* module, const char* name);  // cuModuleGetFunction...
  void DriverFunctionAlias(const void* alias, const void* function);          // cuKernelGetFunction
  void DriverUnload(const void* module);
  int DriverLaunch(const char* api, const void* function, const LaunchShape& shape, absl::FunctionRef<int()> launch);
  void OnAllocation(const void* base, size_t size, transport::AllocationKind kind, const char* api);
  void OnFree(const void* base);
  cudaError_t DeviceReset(absl::FunctionRef<cudaError_t()> reset);
  // cudaGraphLaunch / cuGraphLaunch: a graph's kernel nodes do not pass the
  // launch hooks, so they are not analysed; said once, in the report's notes.
  void OnGraphLaunch();
  // cuTensorMapEncodeTiled / cuTensorMapReplaceAddress succeeded: the map's
  // geometry for the logger (tensor_maps.h).
  void OnTensorMapEncoded(const void* map_bytes, const gpu_queue::TensorMapEntry& entry, std::string why);
  void OnTensorMapAddressReplaced(uint64_t old_key, const void* new_bytes, uint64_t address);
  void Detach(int32_t status);  // at exit

 private:
  struct Module {
    uint32_t id = 0;
    void** handle = nullptr;  // the real runtime's
    std::string name;
    std::string skip_reason;  // non-empty: registered as is, not analysed
    std::vector<uint8_t> fatbin;
    std::unique_ptr<fatbin::WrapperRaw> wrapper;
    std::unique_ptr<uint64_t> queue_set_shadow;  // host shadow of __barracuda_queue_set
    bool queue_set_written = false;
    bool globals_reported = false;
    absl::flat_hash_map<std::string, std::array<uint32_t, 3>> cluster_dims;
    // Kernel -> instructions it reaches that the logger does not log
    // (unchecked_kernels.h); each launch tells the session (kLaunchUnchecked).
    absl::flat_hash_map<std::string, std::string> unchecked_by_kernel;
    struct Var {
      const void* host_symbol;
      std::string name;
      size_t size;
    };
    std::vector<Var> vars;
    // Loaded through the driver API: the CUmodule or CUlibrary it was loaded as.
    bool driver = false;
    bool driver_library = false;
    const void* driver_handle = nullptr;
    std::vector<std::string> driver_globals;  // reported at the first launch, as `vars` are
  };
  struct Kernel {
    Module* module = nullptr;
    const void* host_function = nullptr;
    std::string name;
    uint32_t name_id = UINT32_MAX;
    bool skip_noted = false;
  };

  Agent();
  void Note(const std::string& text);  // stderr + the report's diagnostics
  bool graph_launch_noted_ = false;
  Module* ModuleOf(void** handle);
  Kernel* KernelOf(const void* function);
  Kernel* DriverKernelOf(const void* function);  // under mu_
  absl::Status PrepareDriverModule(Module& m);   // under launch_mu_
  uint32_t StaticSharedBytes(const Kernel& k, const void* function);
  static uint32_t DriverStaticSharedBytes(const void* function);
  cudaError_t LaunchKernel(Kernel* k, const void* function, const LaunchShape& shape,
                           absl::FunctionRef<cudaError_t()> launch);
  // The launch's own status; when the runtime rejected the kernel's code
  // (module not loadable, unsupported instruction) the kernel did not run and
  // the session is told (kLaunchNotRun: the analysis is incomplete).
  cudaError_t ToldIfNotRun(const Kernel& k, cudaError_t launched);
  cudaError_t ToldIfUnanalysed(const Kernel& k, cudaError_t launched, const std::string& why);
  absl::Status EnsureQueues();   // under launch_mu_
  absl::Status PrepareModule(Module& m);  // under launch_mu_
  uint64_t StreamId(cudaStream_t stream);
  void ReleaseQueues();
  void AllocateRmwLocks(gpu_queue::QueueSet& set);

  AgentConfig config_;
  TensorMapRegistry tensor_maps_;
  bool tensor_table_full_noted_ = false;
  absl::flat_hash_set<std::string> tensor_layouts_noted_;
  void NoteTableFull();
  void NoteUnwalkedLayout(const std::string& why);  // under launch_mu_
  std::unique_ptr<transport::Producer> producer_;
  std::unique_ptr<ptx::Module> logger_;
  std::mutex mu_;  // modules, kernels, handles
  std::deque<std::unique_ptr<Module>> modules_;
  absl::flat_hash_map<void**, Module*> module_by_handle_;
  std::deque<std::unique_ptr<Kernel>> kernels_;
  absl::flat_hash_map<const void*, Kernel*> kernel_by_host_;
  absl::flat_hash_map<const void*, const void*> host_by_kernel_handle_;
  uint32_t next_site_base_ = 0;
  DriverHandles driver_handles_;
  absl::flat_hash_map<std::string, Kernel*> driver_kernels_;  // "module id:name"
  // Images the agent itself hands a loader (re-registered fat binaries,
  // instrumented PTX): a loader hook that meets one forwards it untouched.
  absl::flat_hash_set<const void*> own_images_;
  uint32_t target_sm_ = 0;

  std::mutex launch_mu_;  // one launch at a time; queues
  // Chosen at the first launch (SelectDeviceBackend), kept for the process:
  // the queues are set up, synchronised and freed through it.
  DeviceBackend* backend_ = nullptr;
  void* queue_host_ = nullptr;
  uint64_t queue_device_ = 0;
  void* rmw_locks_ = nullptr;  // device memory: QueueSet::rmw_locks
  std::unique_ptr<QueueDrainer> drainer_;
  uint64_t launches_ = 0;
  uint32_t next_name_id_ = 0;
  absl::flat_hash_map<const void*, uint64_t> stream_ids_;
  bool detached_ = false;
};

}  // namespace barracuda::gpu_agent

#endif  // BARRACUDA_HOST_DETECTOR_GPU_AGENT_AGENT_H_
