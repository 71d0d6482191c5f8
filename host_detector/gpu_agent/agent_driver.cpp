// The driver-API half of the agent (driver_hooks.cpp calls in here): modules
// the program loads itself (PTX text from nvcc -ptx or NVRTC, fat binaries)
// are instrumented as registered ones are and loaded through the real driver
// instead; their functions and kernels are mapped to the module's site ids
// and launched with the same per-launch framing as runtime launches.
#include <fstream>

#include "absl/strings/str_cat.h"
#include "device_logger/logger_abi.h"
#include "host_detector/gpu_agent/agent.h"
#include "host_detector/gpu_agent/driver_image.h"
#include "host_detector/gpu_agent/real_driver.h"

namespace barracuda::gpu_agent {
namespace {

// The driver could not JIT or run the module's code (the values are the
// runtime's too: CUDA_ERROR_INVALID_PTX == cudaErrorInvalidPtx, ...).
bool DriverCodeRejected(int r) {
  return r == CUDA_ERROR_INVALID_PTX || r == CUDA_ERROR_NOT_SUPPORTED || r == CUDA_ERROR_NO_BINARY_FOR_GPU ||
         r == CUDA_ERROR_INVALID_IMAGE || r == CUDA_ERROR_UNSUPPORTED_PTX_VERSION ||
         r == CUDA_ERROR_INVALID_SOURCE || r == CUDA_ERROR_JIT_COMPILER_NOT_FOUND;
}

std::string DriverErrorText(int r) {
  static auto* name = RealDriver<decltype(cuGetErrorName)>("cuGetErrorName");
  const char* text = nullptr;
  if (name == nullptr || name(static_cast<CUresult>(r), &text) != CUDA_SUCCESS || text == nullptr)
    return absl::StrCat("CUresult ", r);
  return text;
}

}  // namespace

int Agent::LoadDriverModule(const char* api, const void* image, bool library,
                            absl::FunctionRef<int(const void*)> load, absl::FunctionRef<const void*()> loaded) {
  if (!producer_ || image == nullptr) return load(image);
  std::lock_guard<std::mutex> lock(mu_);
  // The agent's own images (a runtime that loads a re-registered module
  // through the driver's exported names): instrumented already.
  if (own_images_.contains(image)) return load(image);
  auto owned = std::make_unique<Module>();
  Module& m = *owned;
  m.id = static_cast<uint32_t>(modules_.size());
  m.driver = true;
  m.driver_library = library;
  const std::string label = absl::StrCat(api, "-module", m.id);
  ModuleInstrumentOptions options;
  options.target_sm = target_sm_;
  options.site_base = next_site_base_;
  options.prune = config_.prune;
  absl::StatusOr<InstrumentedModule> inst = InstrumentDriverImage(image, label, *logger_, options);
  int loaded_with = CUDA_SUCCESS;
  if (inst.ok()) {
    m.name = inst->name;
    loaded_with = load(inst->ptx.c_str());
    if (loaded_with == CUDA_SUCCESS) {
      m.cluster_dims = std::move(inst->cluster_dims);
      m.unchecked_by_kernel = std::move(inst->unchecked_by_kernel);
      m.driver_globals = std::move(inst->globals);
      producer_->SendModule(m.id, next_site_base_, m.name, inst->sites.ToJson().dump());
      next_site_base_ += static_cast<uint32_t>(inst->sites.sites.size());
      if (config_.verbose)
        std::fprintf(stderr, "barracuda gpu agent: module %u %s (%s):\n%s", m.id, m.name.c_str(), api,
                     ptx::FormatStats(inst->stats).c_str());
      if (!config_.dump_dir.empty())
        std::ofstream(absl::StrCat(config_.dump_dir, "/module", m.id, ".instrumented.ptx"), std::ios::binary)
            << inst->ptx;
    } else if (DriverCodeRejected(loaded_with)) {
      // The driver's JIT refused the instrumented PTX: run the program's own
      // so that the program still works, and say its kernels are not analysed.
      m.skip_reason = absl::StrCat("the driver rejected its instrumented PTX (", DriverErrorText(loaded_with),
                                   "; BARRACUDA_GPU_DUMP_PTX=DIR writes it out)");
    } else {
      return loaded_with;  // not about the code (no context, out of memory): the program's error
    }
  } else {
    m.skip_reason = std::string(inst.status().message());
  }
  if (!m.skip_reason.empty()) {
    if (m.name.empty()) m.name = label;
    const int r = load(image);
    if (r != CUDA_SUCCESS) return r;  // the program's own image does not load either: nothing was loaded
    Note(absl::StrCat("module ", m.id, " (", api, ", ", DriverImageKindName(ClassifyDriverImage(image)),
                      ") is not analysed (its kernels run uninstrumented): ", m.skip_reason));
  }
  m.driver_handle = loaded();
  driver_handles_.AddModule(m.driver_handle, m.id);
  modules_.push_back(std::move(owned));
  return CUDA_SUCCESS;
}

void Agent::DriverModuleAlias(const void* alias, const void* module) {
  if (!producer_) return;
  std::lock_guard<std::mutex> lock(mu_);
  driver_handles_.AliasModule(alias, module);
}

void Agent::DriverFunction(const void* function, const void* module, const char* name) {
  if (!producer_ || name == nullptr) return;
  std::lock_guard<std::mutex> lock(mu_);
  if (!driver_handles_.AddFunction(function, module, name)) return;
  const DriverHandles::Function* f = driver_handles_.FunctionOf(function);
  auto [it, inserted] = driver_kernels_.try_emplace(absl::StrCat(f->module, ":", f->name), nullptr);
  if (!inserted) return;
  auto k = std::make_unique<Kernel>();
  k->module = modules_[f->module].get();
  k->host_function = function;
  k->name = f->name;
  it->second = k.get();
  kernels_.push_back(std::move(k));
}

void Agent::DriverFunctionAlias(const void* alias, const void* function) {
  if (!producer_) return;
  std::lock_guard<std::mutex> lock(mu_);
  driver_handles_.AliasFunction(alias, function);
}

void Agent::DriverUnload(const void* module) {
  if (!producer_) return;
  std::lock_guard<std::mutex> lock(mu_);
  driver_handles_.RemoveModule(module);
}

Agent::Kernel* Agent::DriverKernelOf(const void* function) {
  const DriverHandles::Function* f = driver_handles_.FunctionOf(function);
  if (f == nullptr) return nullptr;
  auto it = driver_kernels_.find(absl::StrCat(f->module, ":", f->name));
  return it == driver_kernels_.end() ? nullptr : it->second;
}

int Agent::DriverLaunch(const char* api, const void* function, const LaunchShape& shape,
                        absl::FunctionRef<int()> launch) {
  if (!producer_) return launch();
  Kernel* k = nullptr;
  {
    std::lock_guard<std::mutex> lock(mu_);
    k = DriverKernelOf(function);
  }
  if (k == nullptr) {
    std::lock_guard<std::mutex> lock(launch_mu_);
    if (!detached_)
      Note(absl::StrCat("a kernel launched with ", api,
                        " from a module the agent did not load (or through a handle it did not see) is not analysed"));
    return launch();
  }
  return static_cast<int>(
      LaunchKernel(k, function, shape, [&] { return static_cast<cudaError_t>(launch()); }));
}

uint32_t Agent::DriverStaticSharedBytes(const void* function) {
  static auto* attribute = RealDriver<decltype(cuFuncGetAttribute)>("cuFuncGetAttribute");
  int bytes = 0;
  if (attribute == nullptr ||
      attribute(&bytes, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, static_cast<CUfunction>(const_cast<void*>(function))) !=
          CUDA_SUCCESS)
    return 0;
  return static_cast<uint32_t>(bytes);
}

// The module's __barracuda_queue_set, through the handle the module was
// loaded as (the runtime's cudaMemcpyToSymbol knows nothing of it).
absl::Status Agent::PrepareDriverModule(Module& m) {
  static auto* module_global = RealDriver<decltype(cuModuleGetGlobal_v2)>("cuModuleGetGlobal_v2");
  static auto* library_global = RealDriver<decltype(cuLibraryGetGlobal)>("cuLibraryGetGlobal");
  static auto* copy = RealDriver<decltype(cuMemcpyHtoD_v2)>("cuMemcpyHtoD_v2");
  auto global = [&](const char* name, CUdeviceptr* address, size_t* bytes) -> CUresult {
    if (m.driver_library)
      return library_global != nullptr ? library_global(address, bytes,
                                                        static_cast<CUlibrary>(const_cast<void*>(m.driver_handle)),
                                                        name)
                                       : CUDA_ERROR_NOT_FOUND;
    return module_global != nullptr
               ? module_global(address, bytes, static_cast<CUmodule>(const_cast<void*>(m.driver_handle)), name)
               : CUDA_ERROR_NOT_FOUND;
  };
  if (!m.queue_set_written) {
    CUdeviceptr address = 0;
    size_t bytes = 0;
    CUresult r = global(logger_abi::kQueueSetSymbol, &address, &bytes);
    if (r == CUDA_SUCCESS && bytes != sizeof queue_device_) r = CUDA_ERROR_INVALID_VALUE;
    if (r == CUDA_SUCCESS)
      r = copy != nullptr ? copy(address, &queue_device_, sizeof queue_device_) : CUDA_ERROR_NOT_FOUND;
    if (r != CUDA_SUCCESS)
      return absl::FailedPreconditionError(absl::StrCat("the queue pointer of module ", m.id, " (", m.name,
                                                        ") could not be written: ", DriverErrorText(r)));
    m.queue_set_written = true;
  }
  if (!m.globals_reported) {
    // The module's variables, so that a race on one names it in the report.
    for (const std::string& name : m.driver_globals) {
      CUdeviceptr address = 0;
      size_t bytes = 0;
      if (global(name.c_str(), &address, &bytes) == CUDA_SUCCESS)
        producer_->SendAllocation(address, bytes, transport::AllocationKind::kModuleGlobal, name);
    }
    m.globals_reported = true;
  }
  return absl::OkStatus();
}

}  // namespace barracuda::gpu_agent
