#include "host_detector/gpu_agent/agent.h"

#include <dlfcn.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>

#include "absl/strings/str_cat.h"
#include "device_logger/gpu_queue.h"
#include "device_logger/logger_abi.h"
#include "device_logger/logger_ptx.h"
#include "host_detector/gpu_agent/module_instrumenter.h"
#include "host_detector/gpu_agent/real_runtime.h"
#include "ptx_rewriter/fatbin/fatbin_reader.h"
#include "ptx_rewriter/fatbin/fatbin_writer.h"
#include "ptx_rewriter/parser.h"

namespace barracuda::gpu_agent {
namespace {

// Compute capability of device 0 from the driver, without the runtime (this
// runs inside __cudaRegisterFatBinary); 0 when there is no driver.
uint32_t DriverComputeCapability() {
  void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (lib == nullptr) return 0;
  using Init = int (*)(unsigned);
  using DeviceGet = int (*)(int*, int);
  using Attribute = int (*)(int*, int, int);
  auto init = reinterpret_cast<Init>(dlsym(lib, "cuInit"));
  auto get = reinterpret_cast<DeviceGet>(dlsym(lib, "cuDeviceGet"));
  auto attribute = reinterpret_cast<Attribute>(dlsym(lib, "cuDeviceGetAttribute"));
  int device = 0, major = 0, minor = 0;
  constexpr int kMajor = 75, kMinor = 76;  // CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR / MINOR
  if (init == nullptr || get == nullptr || attribute == nullptr || init(0) != 0 || get(&device, 0) != 0 ||
      attribute(&major, kMajor, device) != 0 || attribute(&minor, kMinor, device) != 0)
    return 0;
  return static_cast<uint32_t>(major * 10 + minor);
}

// The runtime could not load or run the kernel's code (the driver's JIT or
// the emulator rejected it): the kernel did not run, so its races are unknown.
// A fault while the kernel ran (the context is lost: later launches fail
// too), as opposed to a launch the runtime refused before running anything
// (701 out of resources, 720 cooperative launch too large, ...).
bool DeviceFault(cudaError_t e) {
  switch (static_cast<int>(e)) {
    case 700:  // cudaErrorIllegalAddress
    case 702:  // cudaErrorLaunchTimeout
    case 710:  // cudaErrorAssert
    case 714:  // cudaErrorHardwareStackError
    case 715:  // cudaErrorIllegalInstruction
    case 716:  // cudaErrorMisalignedAddress
    case 717:  // cudaErrorInvalidAddressSpace
    case 718:  // cudaErrorInvalidPc
    case 719:  // cudaErrorLaunchFailure
      return true;
    default:
      return false;
  }
}

bool CodeRejected(cudaError_t e) {
  return e == cudaErrorInvalidPtx || e == cudaErrorNotSupported || e == cudaErrorNoKernelImageForDevice ||
         e == cudaErrorInvalidKernelImage || e == cudaErrorUnsupportedPtxVersion;
}

std::string ErrorText(cudaError_t e) {
  static auto* name = Real<decltype(cudaGetErrorName)>("cudaGetErrorName");
  static auto* text = Real<decltype(cudaGetErrorString)>("cudaGetErrorString");
  return absl::StrCat(name ? name(e) : "error", " (", text ? text(e) : "", ")");
}

void DetachAtExit() { Agent::Get().Detach(0); }

}  // namespace

Agent& Agent::Get() {
  // Never destroyed: the app's modules unregister from atexit handlers that
  // may run after this library's static destructors would have.
  static Agent* agent = new Agent();
  return *agent;
}

Agent::Agent() : config_(AgentConfig::FromEnvironment()) {
  if (config_.session.empty()) {
    std::fprintf(stderr, "barracuda gpu agent: %s is not set; the program runs untraced\n", transport::kSessionEnv);
    return;
  }
  auto logger = ptx::ParseModule(device_logger::LoggerPtx(), "barracuda_logger.ptx");
  if (!logger.ok()) {
    std::fprintf(stderr, "barracuda gpu agent: the embedded device logger does not parse (%s); running untraced\n",
                 std::string(logger.status().message()).c_str());
    return;
  }
  logger_ = std::make_unique<ptx::Module>(std::move(*logger));
  auto producer = transport::Producer::Attach(config_.session);
  if (!producer.ok()) {
    std::fprintf(stderr, "barracuda gpu agent: cannot attach to the analysis session %s (%s); running untraced\n",
                 config_.session.c_str(), std::string(producer.status().message()).c_str());
    return;
  }
  producer_ = std::move(*producer);
  producer_->SendHello();
  target_sm_ = config_.target_sm != 0 ? config_.target_sm : DriverComputeCapability();
  if (target_sm_ == 0) target_sm_ = 75;  // no driver (the emulator plays the GPU): as the emulator chooses
  std::atexit(DetachAtExit);
}

void Agent::Note(const std::string& text) {
  std::fprintf(stderr, "barracuda gpu agent: %s\n", text.c_str());
  if (producer_ && !detached_) producer_->SendDiagnostic(text);
}

// ---------------------------------------------------------------- registration

void** Agent::RegisterFatbin(void* wrapper) {
  static auto* real = Real<decltype(__cudaRegisterFatBinary)>("__cudaRegisterFatBinary");
  static auto* real_var = Real<decltype(__cudaRegisterVar)>("__cudaRegisterVar");
  if (real == nullptr) std::abort();  // no CUDA runtime behind us: nothing sensible to return
  if (!producer_) return real(wrapper);
  std::lock_guard<std::mutex> lock(mu_);
  auto owned = std::make_unique<Module>();
  Module& m = *owned;
  m.id = static_cast<uint32_t>(modules_.size());
  void* to_register = wrapper;
  absl::StatusOr<fatbin::RegisteredFatbin> parsed = fatbin::ParseRegisteredFatbin(wrapper);
  if (!parsed.ok()) {
    m.skip_reason = absl::StrCat("its fat binary cannot be read: ", parsed.status().message());
  } else {
    ModuleInstrumentOptions options;
    options.target_sm = target_sm_;
    options.site_base = next_site_base_;
    options.prune = config_.prune;
    absl::StatusOr<InstrumentedModule> inst = InstrumentRegisteredFatbin(*parsed, *logger_, options);
    if (!inst.ok()) {
      m.skip_reason = std::string(inst.status().message());
    } else {
      m.name = inst->name;
      m.fatbin = std::move(inst->fatbin);
      m.cluster_dims = std::move(inst->cluster_dims);
      m.unchecked_by_kernel = std::move(inst->unchecked_by_kernel);
      m.wrapper = std::make_unique<fatbin::WrapperRaw>(fatbin::MakeWrapper(m.fatbin.data()));
      to_register = m.wrapper.get();
      own_images_.insert(m.wrapper.get());
      own_images_.insert(m.fatbin.data());
      producer_->SendModule(m.id, next_site_base_, m.name, inst->sites.ToJson().dump());
      next_site_base_ += static_cast<uint32_t>(inst->sites.sites.size());
      if (config_.verbose)
        std::fprintf(stderr, "barracuda gpu agent: module %u %s (sm_%u target):\n%s", m.id, m.name.c_str(),
                     target_sm_, ptx::FormatStats(inst->stats).c_str());
      if (!config_.dump_dir.empty()) {
        const std::string path = absl::StrCat(config_.dump_dir, "/module", m.id, ".instrumented.ptx");
        std::ofstream(path, std::ios::binary) << inst->ptx;
      }
    }
  }
  if (!m.skip_reason.empty()) {
    // Name the file: a closed library (cuBLAS ships machine code only for many
    // kernels) is what the user has to recognise.
    Dl_info info{};
    const std::string origin = dladdr(wrapper, &info) != 0 && info.dli_fname != nullptr
                                   ? absl::StrCat(" of ", info.dli_fname) : std::string();
    Note(absl::StrCat("module ", m.id, origin, " is not analysed (its kernels run uninstrumented): ", m.skip_reason));
  }
  m.handle = real(to_register);
  if (m.skip_reason.empty() && real_var != nullptr) {
    m.queue_set_shadow = std::make_unique<uint64_t>(0);
    char* symbol = const_cast<char*>(logger_abi::kQueueSetSymbol);
    real_var(m.handle, reinterpret_cast<char*>(m.queue_set_shadow.get()), symbol, symbol, 0, sizeof(uint64_t), 0, 0);
  }
  module_by_handle_[m.handle] = &m;
  modules_.push_back(std::move(owned));
  return m.handle;
}

Agent::Module* Agent::ModuleOf(void** handle) {
  auto it = module_by_handle_.find(handle);
  return it == module_by_handle_.end() ? nullptr : it->second;
}

void Agent::RegisterFunction(void** handle, const void* host_function, const char* name) {
  if (!producer_ || host_function == nullptr || name == nullptr) return;
  std::lock_guard<std::mutex> lock(mu_);
  Module* m = ModuleOf(handle);
  if (m == nullptr) return;
  auto k = std::make_unique<Kernel>();
  k->module = m;
  k->host_function = host_function;
  k->name = name;
  kernel_by_host_[host_function] = k.get();
  kernels_.push_back(std::move(k));
}

void Agent::RegisterVar(void** handle, const void* host_symbol, const char* name, size_t size) {
  if (!producer_ || host_symbol == nullptr || name == nullptr) return;
  std::lock_guard<std::mutex> lock(mu_);
  if (Module* m = ModuleOf(handle)) m->vars.push_back(Module::Var{host_symbol, name, size});
}

void Agent::KernelHandle(cudaKernel_t kernel, const void* host_function) {
  if (!producer_ || kernel == nullptr) return;
  std::lock_guard<std::mutex> lock(mu_);
  host_by_kernel_handle_[kernel] = host_function;
}

const void* Agent::HostFunctionOf(cudaKernel_t kernel) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = host_by_kernel_handle_.find(kernel);
  return it == host_by_kernel_handle_.end() ? static_cast<const void*>(kernel) : it->second;
}

Agent::Kernel* Agent::KernelOf(const void* function) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = kernel_by_host_.find(function);
  if (it != kernel_by_host_.end()) return it->second;
  // cudaLaunchKernel also takes a cudaKernel_t (cudaGetKernel) for `func`.
  if (auto h = host_by_kernel_handle_.find(function); h != host_by_kernel_handle_.end())
    if (auto k = kernel_by_host_.find(h->second); k != kernel_by_host_.end()) return k->second;
  return nullptr;
}

// ---------------------------------------------------------------- queues and launches

absl::Status Agent::EnsureQueues() {
  if (drainer_) return absl::OkStatus();
  absl::StatusOr<DeviceBackend::DeviceInfo> device = backend_->Device();
  if (!device.ok()) return device.status();
  const QueueGeometry g =
      ChooseQueueGeometry(config_, static_cast<uint32_t>(device->sms), device->total_bytes, producer_->rings());
  void* host = nullptr;
  uint64_t device_address = 0;
  if (absl::Status s = backend_->AllocMapped(g.bytes, &host, &device_address); !s.ok()) {
    if (s.code() != absl::StatusCode::kResourceExhausted) return s;
    return absl::ResourceExhaustedError(
        absl::StrCat("cannot allocate ", g.bytes >> 20, " MiB of mapped pinned memory for the record queues: ",
                     s.message(), " (BARRACUDA_GPU_QUEUE_MB sets the size)"));
  }
  gpu_queue::InitQueueSet(host, g.queues, g.slots);
  auto* set = static_cast<gpu_queue::QueueSet*>(host);
  // Where the program's shared memory begins in a block's window (gpu_queue.h):
  // after the driver's reserved bytes (BARRACUDA_GPU_SHARED_BASE overrides).
  set->shared_base = config_.shared_base >= 0 ? static_cast<uint32_t>(config_.shared_base)
                                              : static_cast<uint32_t>(device->reserved_shared);
  if (config_.stamp_locks) AllocateRmwLocks(*set);
  tensor_maps_.Attach(set);
  queue_host_ = host;
  queue_device_ = device_address;
  drainer_ = std::make_unique<QueueDrainer>(set, producer_.get());
  if (config_.verbose)
    std::fprintf(stderr,
                 "barracuda gpu agent: %u queues x %u records (%llu MiB mapped pinned memory, through the %s) "
                 "for %d SMs; shared memory from window offset %u\n",
                 g.queues, g.slots, static_cast<unsigned long long>(g.bytes >> 20), backend_->name(), device->sms,
                 set->shared_base);
  return absl::OkStatus();
}

absl::Status Agent::PrepareModule(Module& m) {
  static auto* to_symbol = Real<decltype(cudaMemcpyToSymbol)>("cudaMemcpyToSymbol");
  static auto* symbol_address = Real<decltype(cudaGetSymbolAddress)>("cudaGetSymbolAddress");
  static auto* last_error = Real<decltype(cudaGetLastError)>("cudaGetLastError");
  if (!m.queue_set_written) {
    if (!to_symbol) return absl::InternalError("cudaMemcpyToSymbol missing");
    // The first use of the module: the driver JIT-compiles the instrumented PTX here.
    if (cudaError_t e = to_symbol(m.queue_set_shadow.get(), &queue_device_, sizeof queue_device_, 0,
                                  cudaMemcpyHostToDevice);
        e != cudaSuccess) {
      if (last_error) last_error();  // ours, not the app's
      return absl::FailedPreconditionError(absl::StrCat(
          "the instrumented PTX of module ", m.id, " (", m.name, ") could not be loaded: ", ErrorText(e),
          "; BARRACUDA_GPU_DUMP_PTX=DIR writes it out for inspection (ptxas -arch=sm_XX)"));
    }
    m.queue_set_written = true;
  }
  if (!m.globals_reported && symbol_address) {
    for (const Module::Var& v : m.vars) {
      void* address = nullptr;
      if (symbol_address(&address, v.host_symbol) == cudaSuccess)
        producer_->SendAllocation(reinterpret_cast<uint64_t>(address), v.size,
                                  transport::AllocationKind::kModuleGlobal, v.name);
      else if (last_error)
        last_error();
    }
    m.globals_reported = true;
  }
  return absl::OkStatus();
}

uint64_t Agent::StreamId(cudaStream_t stream) {
  if (stream == nullptr || stream == cudaStreamLegacy) return 0;
  if (stream == cudaStreamPerThread) return 1;
  auto [it, inserted] = stream_ids_.try_emplace(stream, stream_ids_.size() + 16);
  return it->second;
}

cudaError_t Agent::Launch(const void* function, const LaunchShape& shape, absl::FunctionRef<cudaError_t()> launch) {
  if (!producer_) return launch();
  Kernel* k = KernelOf(function);
  if (k == nullptr) {
    std::lock_guard<std::mutex> lock(launch_mu_);
    if (!detached_) Note("a kernel launched through a function the program did not register is not analysed");
    return launch();
  }
  return LaunchKernel(k, k->host_function, shape, launch);
}

uint32_t Agent::StaticSharedBytes(const Kernel& k, const void* function) {
  if (k.module->driver) return DriverStaticSharedBytes(function);
  static auto* attributes = Real<decltype(cudaFuncGetAttributes)>("cudaFuncGetAttributes");
  cudaFuncAttributes attr{};
  if (attributes == nullptr || attributes(&attr, function) != cudaSuccess) return 0;
  return static_cast<uint32_t>(attr.sharedSizeBytes);
}

cudaError_t Agent::LaunchKernel(Kernel* k, const void* function, const LaunchShape& shape,
                                absl::FunctionRef<cudaError_t()> launch) {
  std::lock_guard<std::mutex> lock(launch_mu_);
  if (detached_) return launch();
  if (backend_ == nullptr) backend_ = &SelectDeviceBackend(config_, k->module->driver);
  if (!k->module->skip_reason.empty()) {
    if (!k->skip_noted) Note(absl::StrCat("kernel ", k->name, " is not analysed: ", k->module->skip_reason));
    k->skip_noted = true;
    return ToldIfUnanalysed(*k, launch(), k->module->skip_reason);
  }
  if (backend_->Capturing(shape.stream)) {
    if (!k->skip_noted) Note(absl::StrCat("kernel ", k->name, ": launches captured into CUDA graphs are not analysed"));
    k->skip_noted = true;
    return ToldIfUnanalysed(*k, launch(),
                            "captured into a CUDA graph, whose launches the GPU backend does not analyse (use "
                            "--backend=emu)");
  }
  absl::Status ready = EnsureQueues();
  if (ready.ok()) ready = k->module->driver ? PrepareDriverModule(*k->module) : PrepareModule(*k->module);
  if (!ready.ok()) {
    if (!k->skip_noted) Note(absl::StrCat("kernel ", k->name, " is not analysed: ", ready.message()));
    k->skip_noted = true;
    return ToldIfUnanalysed(*k, launch(), std::string(ready.message()));  // the module's load failed: the launch does too
  }
  if (k->name_id == UINT32_MAX) {
    k->name_id = next_name_id_++;
    producer_->SendKernelName(k->name_id, k->name);
  }
  const uint32_t static_shared = StaticSharedBytes(*k, function);
  const uint64_t launch_id = ++launches_;
  protocol::Record begin{};
  begin.header.op = static_cast<uint8_t>(protocol::Op::kKernelBegin);
  begin.header.site_id = protocol::kNoSite;
  protocol::KernelPayload& p = begin.kernel;
  p.grid[0] = shape.grid.x, p.grid[1] = shape.grid.y, p.grid[2] = shape.grid.z;
  p.block[0] = shape.block.x, p.block[1] = shape.block.y, p.block[2] = shape.block.z;
  p.static_shared_bytes = static_shared;
  p.dynamic_shared_bytes = static_cast<uint32_t>(shape.dynamic_shared);
  p.launch_id = launch_id;
  p.stream_id = StreamId(shape.stream);
  p.name_id = k->name_id;
  p.process_id = static_cast<uint32_t>(getpid());
  std::array<uint32_t, 3> cluster = shape.cluster;
  if (cluster[0] == 0) {
    auto it = k->module->cluster_dims.find(k->name);
    cluster = it != k->module->cluster_dims.end() ? it->second : std::array<uint32_t, 3>{1, 1, 1};
  }
  p.cluster[0] = cluster[0], p.cluster[1] = cluster[1], p.cluster[2] = cluster[2];
  begin.stamp = drainer_->last_stamp();  // the previous launch is over: no stamp in flight
  producer_->SendLaunchBegin(begin, drainer_->rings());
  drainer_->BeginLaunch();
  const auto started = std::chrono::steady_clock::now();
  const cudaError_t launched = launch();
  const cudaError_t finished = launched == cudaSuccess ? static_cast<cudaError_t>(backend_->Synchronize()) : launched;
  protocol::Record end{};
  end.header.op = static_cast<uint8_t>(protocol::Op::kKernelEnd);
  end.header.site_id = protocol::kNoSite;
  end.kernel.launch_id = launch_id;
  if (!drainer_->FinishLaunch(end))
    std::fprintf(stderr, "barracuda gpu agent: the analysis daemon went away; records of launch %llu are lost\n",
                 static_cast<unsigned long long>(launch_id));
  // Launch, run and drain (the instrumented kernel's time, for -v).
  producer_->CountLaunch(static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - started).count()));
  ToldIfNotRun(*k, launched);
  // Analysed in part: the kernel reaches instructions the logger does not
  // log, or made TMA tensor copies through maps the logger could not find
  // (tensor_maps.h).
  if (launched == cudaSuccess) {
    std::string unchecked;
    if (auto it = k->module->unchecked_by_kernel.find(k->name); it != k->module->unchecked_by_kernel.end())
      unchecked = it->second;
    if (const uint32_t copies = tensor_maps_.TakeUnchecked(); copies > 0)
      absl::StrAppend(&unchecked, unchecked.empty() ? "" : "; ", copies, " TMA tensor cop", copies == 1 ? "y" : "ies",
                      " through tensor maps not made by cuTensorMapEncodeTiled or cuTensorMapEncodeIm2col in this "
                      "process (or changed on the device, or of a layout the logger does not walk)");
    if (!unchecked.empty()) producer_->SendLaunchUnchecked(k->name, unchecked);
  }
  // A fault (illegal or misaligned address, trap, assert, ...: DeviceFault),
  // from the launch itself (a synchronous runtime) or from running it: the
  // kernel stopped part-way, so its analysis is incomplete (never "0 races"
  // alone). The GPU does not say which thread or access; the emulator backend
  // reports memory errors memcheck-style. A launch refused before it ran is a
  // note (the program sees the error).
  const cudaError_t failed = launched != cudaSuccess ? launched : finished;
  if (DeviceFault(failed)) {
    if (producer_ && !detached_)
      producer_->SendLaunchNotRun(static_cast<int32_t>(failed), k->name,
                                  absl::StrCat("launch ", launch_id, " faulted on the GPU: ",
                                               backend_->ErrorText(failed),
                                               " (run with --backend=emu for the faulting access and thread)"));
  } else if (launched != cudaSuccess && !CodeRejected(launched)) {
    Note(absl::StrCat("launch ", launch_id, " of ", k->name, " failed: ", backend_->ErrorText(launched)));
  } else if (finished != cudaSuccess) {
    Note(absl::StrCat("launch ", launch_id, " of ", k->name, " failed while running: ",
                      backend_->ErrorText(finished)));
  }
  return launched;
}

void Agent::OnTensorMapEncoded(const void* map_bytes, const gpu_queue::TensorMapEntry& entry, std::string why) {
  if (!producer_) return;
  std::lock_guard<std::mutex> lock(launch_mu_);
  if (detached_) return;
  NoteUnwalkedLayout(tensor_maps_.Encoded(map_bytes, entry, std::move(why)));
  NoteTableFull();
}

void Agent::NoteUnwalkedLayout(const std::string& why) {
  if (why.empty() || !tensor_layouts_noted_.insert(why).second) return;
  Note(absl::StrCat("a TMA tensor map with ", why,
                    ": the GPU backend does not log the copies through it (--backend=emu checks what it models)"));
}

void Agent::OnTensorMapAddressReplaced(uint64_t old_key, const void* new_bytes, uint64_t address) {
  if (!producer_) return;
  std::lock_guard<std::mutex> lock(launch_mu_);
  if (detached_) return;
  tensor_maps_.AddressReplaced(old_key, new_bytes, address);
  NoteTableFull();
}

void Agent::NoteTableFull() {  // under launch_mu_
  if (tensor_table_full_noted_ || tensor_maps_.overflowed() == 0) return;
  tensor_table_full_noted_ = true;
  Note(absl::StrCat("more than ", gpu_queue::kTensorMapSlots,
                    " TMA tensor maps: copies through the later ones are not logged (the run says so)"));
}

void Agent::OnGraphLaunch() {
  std::lock_guard<std::mutex> lock(launch_mu_);
  if (detached_ || graph_launch_noted_) return;
  graph_launch_noted_ = true;
  Note("kernels run by CUDA graphs (cudaGraphLaunch) are not analysed by the GPU backend: run with --backend=emu "
       "to check them");
}

cudaError_t Agent::ToldIfNotRun(const Kernel& k, cudaError_t launched) {
  if (CodeRejected(launched) && producer_ && !detached_)
    producer_->SendLaunchNotRun(static_cast<int32_t>(launched), k.name,
                                absl::StrCat("the CUDA ", k.module->driver ? "driver" : "runtime",
                                             " rejected its code: ", backend_->ErrorText(launched)));
  return launched;
}

// A launch of a kernel the agent could not instrument: when it ran, it ran
// unwatched, so no verdict about it (the report is incomplete, never
// "0 races" about a kernel nobody watched); cudaSuccess tells the daemon it ran.
cudaError_t Agent::ToldIfUnanalysed(const Kernel& k, cudaError_t launched, const std::string& why) {
  if (launched == cudaSuccess && producer_ && !detached_)
    producer_->SendLaunchNotRun(0, k.name, absl::StrCat("it ran uninstrumented: ", why));
  return ToldIfNotRun(k, launched);
}

void Agent::OnAllocation(const void* base, size_t size, transport::AllocationKind kind, const char* api) {
  if (!producer_ || detached_ || base == nullptr) return;
  producer_->SendAllocation(reinterpret_cast<uint64_t>(base), size, kind, api);
}

void Agent::OnFree(const void* base) {
  if (!producer_ || detached_ || base == nullptr) return;
  producer_->SendFree(reinterpret_cast<uint64_t>(base));
}

// The strong writes' stamp locks (gpu_queue.h QueueSet::rmw_locks) in device
// memory. Without them the logger stamps as before (less precise, never wrong
// about what ran), and -v says so.
void Agent::AllocateRmwLocks(gpu_queue::QueueSet& set) {
  void* locks = backend_->AllocZeroedDevice(size_t{gpu_queue::kRmwLocks} * sizeof(uint32_t));
  if (locks == nullptr) {
    if (config_.verbose) std::fprintf(stderr, "barracuda gpu agent: no device memory for the stamp locks\n");
    return;
  }
  rmw_locks_ = locks;
  set.rmw_locks = reinterpret_cast<uint64_t>(locks);
  set.rmw_lock_count = gpu_queue::kRmwLocks;
}

void Agent::ReleaseQueues() {
  drainer_.reset();
  tensor_maps_.Attach(nullptr);
  if (backend_ != nullptr) {  // none chosen: nothing was set up
    backend_->FreeDevice(rmw_locks_);
    backend_->FreeMapped(queue_host_);
  }
  rmw_locks_ = nullptr;
  queue_host_ = nullptr;
  queue_device_ = 0;
  std::lock_guard<std::mutex> lock(mu_);
  for (auto& m : modules_) m->queue_set_written = m->globals_reported = false;
}

cudaError_t Agent::DeviceReset(absl::FunctionRef<cudaError_t()> reset) {
  if (!producer_) return reset();
  std::lock_guard<std::mutex> lock(launch_mu_);
  // Every launch was drained when it ended; the reset frees the queues' memory
  // and the modules' variables, so both are set up again at the next launch.
  ReleaseQueues();
  return reset();
}

void Agent::Detach(int32_t status) {
  if (!producer_) return;
  std::lock_guard<std::mutex> lock(launch_mu_);
  if (detached_) return;
  if (drainer_ && drainer_->unframed() != 0)
    Note(absl::StrCat(drainer_->unframed(), " records of launches the agent did not see (CUDA graphs, driver-API "
                      "launches of modules it did not load) were not analysed"));
  // Not ReleaseQueues: at exit the runtime may already have torn its memory
  // down; the idle drainer does not touch the queues.
  drainer_.reset();
  detached_ = true;
  producer_->Detach(status);
}

}  // namespace barracuda::gpu_agent
