// Process-wide state of the replacement CUDA runtime: the emulated device,
// registered fat binaries (modules), kernels and variables by host address,
// streams, events, and error state.
//
// Everything is reached through Runtime::Get(), constructed on first use:
// nvcc-generated registration code runs from the application's static
// constructors, possibly before this library's own would have.
//
// Execution model: every launch and copy runs to completion inside the API call
// that issues it, so work on every stream is trivially ordered, stream and event
// queries always report completion, and events carry host wall-clock time.
#ifndef BARRACUDA_PTX_EMULATOR_RUNTIME_RUNTIME_STATE_H_
#define BARRACUDA_PTX_EMULATOR_RUNTIME_RUNTIME_STATE_H_

#include <chrono>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "ptx_emulator/core/device.h"
#include "ptx_emulator/runtime/cuda_api.h"
#include "ptx_emulator/runtime/shm_sink.h"

namespace barracuda::cudart {

// One registered variable (__cudaRegisterVar / __cudaRegisterManagedVar).
struct FatbinModule;

struct RegisteredVar {
  FatbinModule* module = nullptr;
  std::string name;           // PTX name
  const void* host_symbol = nullptr;  // the host shadow / the managed pointer's address
  uint64_t size = 0;
  bool constant = false;
  bool managed = false;
  void** managed_pointer = nullptr;   // host pointer variable set to the device address
  void* device_address = nullptr;     // once the module is loaded
};

struct FatbinModule;

// One registered kernel: the cudaKernel_t handle handed to the program points here.
struct RegisteredKernel {
  FatbinModule* module = nullptr;
  const void* host_function = nullptr;
  std::string name;           // mangled PTX entry name
  std::optional<uint32_t> function;  // Device function index, once resolved
  int max_dynamic_shared = -1;       // cudaFuncAttributeMaxDynamicSharedMemorySize; -1 = default
  int preferred_carveout = -1;
  // cudaFuncAttributeNonPortableClusterSizeAllowed / ClusterSchedulingPolicyPreference.
  int non_portable_cluster = 0;
  int cluster_scheduling = cudaClusterSchedulingPolicyDefault;
  // The note "kernel K did not run: ..." was printed (once per kernel; every
  // such launch is still told to the barracuda session).
  bool not_run_noted = false;
};

// One __cudaRegisterFatBinary call.
struct FatbinModule {
  // The handle returned to the program is &handle_slot (it stores and passes
  // back a void**); the slot points at this module.
  void* handle_slot = nullptr;
  uint32_t id = 0;
  uint32_t wrapper_version = 0;
  std::vector<emu::PtxSource> sources;  // one chosen PTX per object (several with -rdc)
  uint32_t sm_target = 0;               // SM of the chosen PTX (first source)
  std::string no_ptx_reason;            // non-empty when an object has no PTX entry
  std::string origin;                   // the executable or shared library that registered it
  std::string parse_error;              // the fat binary could not be read
  std::vector<RegisteredKernel*> kernels;
  std::vector<RegisteredVar*> vars;
  bool unregistered = false;
  // Loaded by the program at run time (cudaLibraryLoadData & co., the
  // driver's cuModuleLoad* through them), not registered by nvcc's code: its
  // kernels are every .entry of the PTX, made at the first successful load.
  bool library = false;
  bool library_kernels_made = false;
  absl::flat_hash_set<std::string> reported_globals;  // told to the session once each
  // Lazy load (first launch or symbol access), under Runtime::mu_.
  bool load_attempted = false;
  cudaError_t load_error = cudaSuccess;
  std::string load_message;  // why the load failed: for the notes and the barracuda session
  uint32_t link_unit = 0;
  // Whether its PTX waits on grid dependencies (griddepcontrol.wait, from
  // cudaGridDependencySynchronize); -1: not looked yet (launch.cpp).
  int waits_on_grid_dependencies = -1;
};

// The launch configuration pushed by <<<...>>> (per-thread stack).
struct CallConfiguration {
  dim3 grid, block;
  size_t shared_mem = 0;
  cudaStream_t stream = nullptr;
};

struct StreamState {
  unsigned flags = 0;
  int priority = 0;
  uint64_t id = 0;
};
// Drops what cudaStreamSetAttribute kept for a destroyed stream (stream_attributes.cpp).
void ForgetStreamAttributes(uint64_t stream_id);
// Drops the cudaMemAdvise / prefetch state of a freed managed allocation (managed_advice.cpp).
void ForgetManagedAdvice(uint64_t base, uint64_t bytes);
// Elements of a linear 1D texture, at most (an H100's limit; cudaDevAttrMaxTexture1DLinearWidth).
inline constexpr int kTexture1DLinearMaxWidth = 268435456;

struct EventState {
  unsigned flags = 0;
  bool recorded = false;
  std::chrono::steady_clock::time_point time{};
};

class Runtime {
 public:
  static Runtime& Get();

  emu::Device& device() { return *device_; }
  // The barracuda session's record sink (env BARRACUDA_SESSION), or nullptr
  // when the program runs untraced.
  emu::ShmRecordSink* session_sink() { return session_sink_.get(); }

  // ---- registration
  FatbinModule* RegisterFatbin(const void* wrapper);
  static FatbinModule* FromHandle(void** handle);
  void RegisterKernel(FatbinModule* module, const void* host_function, const char* name);
  void RegisterVar(FatbinModule* module, RegisteredVar var);
  void Unregister(FatbinModule* module);

  // Loads `module` if not yet done; cudaSuccess or the load error, whose
  // message is kept in module->load_message. The error is printed once here
  // unless `quiet` (a launch prints it itself, naming the kernel):
  // cudaErrorInvalidKernelImage (fat binary unreadable),
  // cudaErrorNoKernelImageForDevice (no PTX), cudaErrorNotSupported (PTX with
  // an instruction or feature the emulator does not implement),
  // cudaErrorInvalidPtx (PTX the emulator cannot parse or link).
  cudaError_t EnsureLoaded(FatbinModule* module, bool quiet = false);

  // ---- libraries (library_api.cpp): modules the program loads itself
  // `code`: NUL-terminated PTX text, a fat binary wrapper (__fatBinC_Wrapper_t)
  // or a bare fat binary (its header states its size); an ELF cubin or a fat
  // binary without PTX makes a module whose load fails with
  // cudaErrorNoKernelImageForDevice. Not loaded yet.
  FatbinModule* AddLibrary(const void* code);
  // Loads the library (EnsureLoaded, printing its error) and makes one kernel
  // per .entry of its PTX, in PTX order.
  cudaError_t LoadLibrary(FatbinModule* library);
  // A live library handle, or nullptr.
  FatbinModule* LibraryByHandle(const void* handle);
  // Its kernel handles stop being valid; its globals stay allocated (the
  // emulator's device memory has no per-module release).
  bool UnloadLibrary(FatbinModule* library);

  // ---- lookups (nullptr when unknown)
  RegisteredKernel* KernelByHostFunction(const void* host_function);
  RegisteredKernel* KernelByHandle(const void* handle);
  RegisteredVar* VarBySymbol(const void* host_symbol);
  // Resolves a kernel to its device function index, loading the module first
  // (`quiet`: as for EnsureLoaded).
  cudaError_t ResolveKernel(RegisteredKernel* kernel, uint32_t* function, bool quiet = false);
  // Device address of a variable, loading its module first.
  cudaError_t ResolveVar(RegisteredVar* var, void** address);
  // Compute capability to report: SM of the first registered PTX, else 7.5.
  uint32_t ReportedSm();

  // ---- streams and events (handles are pointers to these states)
  cudaStream_t CreateStream(unsigned flags, int priority);
  bool DestroyStream(cudaStream_t stream);
  // Valid: NULL, cudaStreamLegacy, cudaStreamPerThread or a live stream.
  bool ValidStream(cudaStream_t stream);
  // The stream id recorded in launches. `per_thread` resolves NULL to the
  // calling thread's default stream (the _ptsz entry points).
  uint64_t StreamId(cudaStream_t stream, bool per_thread);
  // Created with cudaStreamNonBlocking: not synchronised with the legacy stream.
  bool NonBlocking(cudaStream_t stream);
  cudaEvent_t CreateEvent(unsigned flags);
  bool DestroyEvent(cudaEvent_t event);
  EventState* FindEvent(cudaEvent_t event);

  // ---- errors
  // Records `e` as the calling thread's last error (unless cudaSuccess) and
  // returns it; a sticky error is returned instead while one is pending.
  cudaError_t Fail(cudaError_t e);
  // The sticky error (a launch that corrupted the context), or cudaSuccess.
  cudaError_t sticky() const { return sticky_.load(std::memory_order_acquire); }
  void SetSticky(cudaError_t e);
  static cudaError_t& LastError();  // per thread

  // ---- device state
  void Reset();  // cudaDeviceReset
  std::mutex& mu() { return mu_; }
  unsigned device_flags = 0;
  size_t limits[16] = {};
  int current_device = 0;

 private:
  Runtime();
  std::unique_ptr<emu::ShmRecordSink> session_sink_;
  // BARRACUDA_EMU_TRACE=count (no session): every record is produced and counted.
  std::unique_ptr<emu::RecordSink> counting_sink_;
  void AdaptDevice(const FatbinModule& m);  // mu_ held
  void NoteLibraryKernelsNotRun(const FatbinModule& m, cudaError_t e);  // mu_ held
  bool device_adapted_ = false;
  std::unique_ptr<emu::Device> device_;
  std::mutex mu_;
  std::deque<std::unique_ptr<FatbinModule>> modules_;
  std::deque<std::unique_ptr<RegisteredKernel>> kernels_;
  std::deque<std::unique_ptr<RegisteredVar>> vars_;
  absl::flat_hash_map<const void*, RegisteredKernel*> kernel_by_host_;
  absl::flat_hash_set<const void*> kernel_handles_;
  absl::flat_hash_set<const void*> library_handles_;
  absl::flat_hash_map<const void*, RegisteredVar*> var_by_symbol_;
  absl::flat_hash_map<const void*, std::unique_ptr<StreamState>> streams_;
  absl::flat_hash_map<const void*, std::unique_ptr<EventState>> events_;
  uint64_t next_stream_id_ = 16;
  std::atomic<cudaError_t> sticky_{cudaSuccess};
};

// Runtime::Get().Fail(e), for entry points that hold no Runtime reference.
inline cudaError_t Fail(cudaError_t e) { return Runtime::Get().Fail(e); }

// Maps a failed Device::Launch to the cudaError_t a GPU gives (see launch_errors.cpp).
cudaError_t LaunchErrorFromStatus(const absl::Status& status, bool* sticky);

// Prints "barracuda emulator: <message>" to stderr.
void PrintDiagnostic(const std::string& message);

}  // namespace barracuda::cudart

#endif  // BARRACUDA_PTX_EMULATOR_RUNTIME_RUNTIME_STATE_H_
