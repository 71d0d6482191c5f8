#include "ptx_emulator/runtime/runtime_state.h"

#include "ptx_emulator/runtime/graph_memory.h"
#include "ptx_emulator/runtime/host_register.h"
#include "ptx_emulator/runtime/linked_image.h"
#include "ptx_emulator/runtime/memory_pools.h"

#include "ptx_emulator/runtime/stream_order.h"

#include <dlfcn.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <span>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "ptx_rewriter/fatbin/fatbin_reader.h"

namespace barracuda::cudart {
namespace {

// The SM whose PTX is preferred when a fat binary holds several:
// BARRACUDA_EMU_SM, else 75 (the oldest target CUDA 13 supports, whose PTX
// uses the fewest newer constructs).
uint32_t PreferredSm() {
  static const uint32_t sm = [] {
    const char* s = std::getenv("BARRACUDA_EMU_SM");
    const long v = s ? std::strtol(s, nullptr, 10) : 0;
    return v > 0 ? static_cast<uint32_t>(v) : 75u;
  }();
  return sm;
}

std::string DescribeEntries(const fatbin::Fatbin& fb) {
  std::vector<std::string> parts;
  for (const auto& e : fb.entries) parts.push_back(absl::StrCat(e.is_ptx() ? "compute_" : "sm_", e.sm_arch()));
  return parts.empty() ? "no entries" : absl::StrJoin(parts, ", ");
}

// Adds the chosen PTX entry of `fb` to `m`, or records why there is none.
void TakePtx(FatbinModule& m, const fatbin::Fatbin& fb, size_t object_index) {
  const auto chosen = fatbin::ChoosePtxEntry(fb, PreferredSm());
  if (!chosen) {
    if (m.no_ptx_reason.empty())
      m.no_ptx_reason = absl::StrCat(m.library ? "library " : "fat binary ", m.id, m.library ? " (a fat binary)" : "",
                                     " object ", object_index,
                                     m.origin.empty() ? "" : absl::StrCat(" of ", m.origin), " holds only ",
                                     DescribeEntries(fb), " and no PTX");
    return;
  }
  const auto& e = fb.entries[*chosen];
  std::string name = e.ident.empty() ? absl::StrCat("module ", m.id, ".", object_index) : e.ident;
  absl::StrAppend(&name, " (sm_", e.sm_arch(), " PTX)");
  if (m.sources.empty()) m.sm_target = e.sm_arch();
  m.sources.push_back(emu::PtxSource{e.ptx, std::move(name)});
}

}  // namespace

void PrintDiagnostic(const std::string& message) {
  std::fprintf(stderr, "barracuda emulator: %s\n", message.c_str());
  std::fflush(stderr);
  if (emu::ShmRecordSink* sink = Runtime::Get().session_sink()) sink->OnDiagnostic(message);
}

Runtime& Runtime::Get() {
  // Never destroyed: registration and atexit-time unregistration of the
  // program's modules may run after this library's static destructors would.
  static Runtime* runtime = new Runtime();
  return *runtime;
}

namespace {

// Counts the records a run produces without keeping them: the emulator's own
// cost of tracing, for benchmarks (BARRACUDA_EMU_TRACE=count).
class CountingSink : public emu::RecordSink {
 public:
  void OnLaunchBegin(const protocol::Record&, uint32_t) override {}
  void Emit(uint32_t, const protocol::Record&) override { records.fetch_add(1, std::memory_order_relaxed); }
  void OnLaunchEnd(const protocol::Record&) override {}
  static std::atomic<uint64_t> records;
};
std::atomic<uint64_t> CountingSink::records{0};

// BARRACUDA_EMU_STATS=1: one machine-readable line on stderr at exit.
void PrintStatistics() {
  const emu::Device::Statistics s = Runtime::Get().device().statistics();
  std::fprintf(stderr,
               "barracuda emulator stats: launches=%llu warp_instructions=%llu thread_instructions=%llu "
               "rounds=%llu serial_instructions=%llu records=%llu\n",
               static_cast<unsigned long long>(s.launches), static_cast<unsigned long long>(s.warp_instructions),
               static_cast<unsigned long long>(s.thread_instructions), static_cast<unsigned long long>(s.rounds),
               static_cast<unsigned long long>(s.serial_instructions),
               static_cast<unsigned long long>(CountingSink::records.load()));
}

}  // namespace

Runtime::Runtime()
    : session_sink_(emu::ShmRecordSink::FromEnvironment()), device_(std::make_unique<emu::Device>()) {
  if (session_sink_) {
    device_->SetSink(session_sink_.get());
    const emu::ScheduleOptions& schedule = device_->schedule();
    session_sink_->OnSchedule(emu::PolicyName(schedule.policy), schedule.seed, emu::ScheduleArguments(schedule));
  } else if (const char* trace = std::getenv("BARRACUDA_EMU_TRACE"); trace != nullptr && std::string(trace) == "count") {
    counting_sink_ = std::make_unique<CountingSink>();
    device_->SetSink(counting_sink_.get());
  }
  if (const char* stats = std::getenv("BARRACUDA_EMU_STATS"); stats != nullptr && stats[0] == '1') {
    std::atexit(PrintStatistics);
  }
}

cudaError_t& Runtime::LastError() {
  thread_local cudaError_t last = cudaSuccess;
  return last;
}

cudaError_t Runtime::Fail(cudaError_t e) {
  if (e != cudaSuccess) LastError() = e;
  return e;
}

void Runtime::SetSticky(cudaError_t e) {
  cudaError_t expected = cudaSuccess;
  sticky_.compare_exchange_strong(expected, e, std::memory_order_acq_rel);
}

// ---------------------------------------------------------------- registration

FatbinModule* Runtime::RegisterFatbin(const void* wrapper) {
  auto m = std::make_unique<FatbinModule>();
  FatbinModule* raw = m.get();
  std::lock_guard<std::mutex> lock(mu_);
  raw->handle_slot = raw;
  raw->id = static_cast<uint32_t>(modules_.size());
  // Which file registered it: a closed library that ships machine code only
  // (cuBLAS, for many kernels) is named in the message, not "fat binary N".
  if (Dl_info info{}; dladdr(wrapper, &info) != 0 && info.dli_fname != nullptr) raw->origin = info.dli_fname;
  modules_.push_back(std::move(m));
  auto parsed = fatbin::ParseRegisteredFatbin(wrapper);
  if (!parsed.ok()) {
    raw->parse_error = std::string(parsed.status().message());
    return raw;
  }
  raw->wrapper_version = parsed->wrapper_version;
  if (parsed->wrapper_version == fatbin::kWrapperLinkVersion && !parsed->prelinked.empty()) {
    // -rdc: one link unit of every object's PTX; the wrapper's own fat binary
    // is the device-linked cubin.
    for (size_t i = 0; i < parsed->prelinked.size(); ++i) TakePtx(*raw, parsed->prelinked[i], i);
  } else {
    TakePtx(*raw, parsed->fatbin, 0);
  }
  AdaptDevice(*raw);
  return raw;
}

// mu_ held. The first module with PTX sets the compute capability the device
// reports (ReportedSm) and the limits that go with it.
void Runtime::AdaptDevice(const FatbinModule& m) {
  if (device_adapted_ || m.sm_target == 0) return;
  device_adapted_ = true;
  device().SetComputeCapability(m.sm_target);
}

FatbinModule* Runtime::FromHandle(void** handle) {
  return handle ? static_cast<FatbinModule*>(*handle) : nullptr;
}

void Runtime::RegisterKernel(FatbinModule* module, const void* host_function, const char* name) {
  auto k = std::make_unique<RegisteredKernel>();
  k->module = module;
  k->host_function = host_function;
  k->name = name ? name : "";
  std::lock_guard<std::mutex> lock(mu_);
  module->kernels.push_back(k.get());
  kernel_by_host_[host_function] = k.get();
  kernel_handles_.insert(k.get());
  kernels_.push_back(std::move(k));
}

void Runtime::RegisterVar(FatbinModule* module, RegisteredVar var) {
  auto v = std::make_unique<RegisteredVar>(std::move(var));
  v->module = module;
  std::lock_guard<std::mutex> lock(mu_);
  module->vars.push_back(v.get());
  var_by_symbol_[v->host_symbol] = v.get();
  vars_.push_back(std::move(v));
}

void Runtime::Unregister(FatbinModule* module) {
  // Kept in the tables: static destructors of the program may still launch.
  std::lock_guard<std::mutex> lock(mu_);
  module->unregistered = true;
}

// ---------------------------------------------------------------- libraries

FatbinModule* Runtime::AddLibrary(const void* code) {
  auto m = std::make_unique<FatbinModule>();
  FatbinModule* raw = m.get();
  std::lock_guard<std::mutex> lock(mu_);
  raw->handle_slot = raw;
  raw->id = static_cast<uint32_t>(modules_.size());
  raw->library = true;
  modules_.push_back(std::move(m));
  library_handles_.insert(raw);
  uint32_t magic = 0;
  std::memcpy(&magic, code, sizeof magic);
  const auto* bytes = static_cast<const uint8_t*>(code);
  if (IsLinkedImage(code)) {
    // cuLinkComplete's image: every input's PTX in one link unit.
    auto inputs = DecodeLinkedImage(code);
    if (!inputs) raw->parse_error = "a linker image whose fields do not add up";
    for (size_t i = 0; inputs && i < inputs->size(); ++i) {
      LinkedInput& in = (*inputs)[i];
      const std::string name = in.name.empty() ? absl::StrCat("library ", raw->id, " input ", i) : in.name;
      if (in.kind == LinkedInputKind::kFatbin) {
        auto parsed = fatbin::ParseFatbin(
            std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(in.data.data()), in.data.size()));
        if (!parsed.ok()) raw->parse_error = absl::StrCat(name, ": ", parsed.status().message());
        else TakePtx(*raw, *parsed, i);
        continue;
      }
      const size_t target = in.data.find(".target sm_");
      if (raw->sources.empty() && target != std::string::npos)
        raw->sm_target = static_cast<uint32_t>(std::strtoul(in.data.c_str() + target + 11, nullptr, 10));
      raw->sources.push_back(emu::PtxSource{std::move(in.data), absl::StrCat(name, " (PTX text)")});
    }
  } else if (magic == fatbin::kWrapperMagic) {
    auto parsed = fatbin::ParseRegisteredFatbin(code);
    if (!parsed.ok()) raw->parse_error = std::string(parsed.status().message());
    else TakePtx(*raw, parsed->fatbin, 0);
  } else if (magic == fatbin::kFatbinMagic) {
    // A bare fat binary states its own size in its header.
    auto size = fatbin::PeekFatbinSize(std::span<const uint8_t>(bytes, sizeof(fatbin::FatbinHeaderRaw)));
    auto parsed = size.ok() && *size <= fatbin::kMaxInProcessFatbinSize
                      ? fatbin::ParseFatbin(std::span<const uint8_t>(bytes, *size))
                      : absl::StatusOr<fatbin::Fatbin>(size.ok() ? absl::InvalidArgumentError("fat binary too large")
                                                                 : size.status());
    if (!parsed.ok()) raw->parse_error = std::string(parsed.status().message());
    else TakePtx(*raw, *parsed, 0);
  } else if (std::memcmp(code, "\x7f" "ELF", 4) == 0) {
    raw->no_ptx_reason = absl::StrCat("library ", raw->id, " is an ELF cubin");
  } else {
    // Anything else is taken as PTX text; the loader says what is wrong with it.
    std::string text(static_cast<const char*>(code));
    const size_t target = text.find(".target sm_");
    if (target != std::string::npos)
      raw->sm_target = static_cast<uint32_t>(std::strtoul(text.c_str() + target + 11, nullptr, 10));
    raw->sources.push_back(emu::PtxSource{std::move(text), absl::StrCat("library ", raw->id, " (PTX text)")});
  }
  AdaptDevice(*raw);
  return raw;
}

cudaError_t Runtime::LoadLibrary(FatbinModule* m) {
  if (cudaError_t e = EnsureLoaded(m); e != cudaSuccess) return e;
  std::lock_guard<std::mutex> lock(mu_);
  if (m->library_kernels_made) return cudaSuccess;
  m->library_kernels_made = true;
  for (uint32_t i = 0; i < device_->function_count(); ++i) {
    const emu::Function& f = device_->function(i);
    if (!f.is_entry || device_->module(f.module).link_unit != m->link_unit) continue;
    auto k = std::make_unique<RegisteredKernel>();
    k->module = m;
    k->name = f.name;
    k->function = i;
    m->kernels.push_back(k.get());
    kernel_handles_.insert(k.get());
    kernels_.push_back(std::move(k));
  }
  return cudaSuccess;
}

FatbinModule* Runtime::LibraryByHandle(const void* handle) {
  std::lock_guard<std::mutex> lock(mu_);
  return library_handles_.contains(handle) ? static_cast<FatbinModule*>(const_cast<void*>(handle)) : nullptr;
}

bool Runtime::UnloadLibrary(FatbinModule* m) {
  std::lock_guard<std::mutex> lock(mu_);
  if (library_handles_.erase(m) != 1) return false;
  m->unregistered = true;
  for (RegisteredKernel* k : m->kernels) kernel_handles_.erase(k);
  return true;
}

// mu_ held. Each `.entry` of the module's PTX (the module's name when none
// is found) is reported to the session as a kernel that did not run.
void Runtime::NoteLibraryKernelsNotRun(const FatbinModule& m, cudaError_t e) {
  emu::ShmRecordSink* sink = session_sink();
  if (sink == nullptr) return;
  std::vector<std::string> entries;
  for (const emu::PtxSource& src : m.sources) {
    const std::string& text = src.text;
    for (size_t at = text.find(".entry"); at != std::string::npos; at = text.find(".entry", at + 6)) {
      size_t b = text.find_first_not_of(" \t\r\n", at + 6);
      size_t end = b == std::string::npos ? b : text.find_first_of(" \t\r\n(", b);
      if (b != std::string::npos && end != std::string::npos && end > b) entries.push_back(text.substr(b, end - b));
    }
  }
  if (entries.empty()) entries.push_back(absl::StrCat("(the kernels of ", m.sources.front().name, ")"));
  for (const std::string& name : entries) sink->OnLaunchNotRun(static_cast<int32_t>(e), name, m.load_message);
}

cudaError_t Runtime::EnsureLoaded(FatbinModule* m, bool quiet) {
  std::lock_guard<std::mutex> lock(mu_);
  if (m->load_attempted) return m->load_error;
  m->load_attempted = true;
  auto fail = [&](cudaError_t e, std::string message) {
    m->load_error = e;
    m->load_message = std::move(message);
    if (!quiet) PrintDiagnostic(absl::StrCat(m->load_message, " (", cudaGetErrorName(e), ")"));
    return e;
  };
  if (!m->parse_error.empty())
    return fail(cudaErrorInvalidKernelImage,
                absl::StrCat("cannot read registered fat binary ", m->id, ": ", m->parse_error));
  if (!m->no_ptx_reason.empty() || m->sources.empty()) {
    const std::string what =
        m->no_ptx_reason.empty() ? absl::StrCat("fat binary ", m->id, " holds no PTX") : m->no_ptx_reason;
    // A library's code comes from the program at run time (a file, NVRTC, an
    // embedded image): say what to load instead of how to rebuild.
    if (m->library)
      return fail(cudaErrorNoKernelImageForDevice,
                  absl::StrCat(what, ": module has no PTX: the emulator runs PTX only (load PTX text, e.g. from "
                                     "nvcc -ptx or NVRTC, or a fat binary with compute_XX PTX)"));
    return fail(cudaErrorNoKernelImageForDevice,
                absl::StrCat(what, ": the emulator runs PTX only. Rebuild with PTX embedded, e.g. nvcc "
                                   "-gencode arch=compute_75,code=[sm_75,compute_75] (or -arch=compute_75); a "
                                   "closed library's kernels cannot be analysed on the emulator."));
  }
  auto unit = device_->LoadLinkUnit(m->sources, /*fault_unsupported_when_reached=*/true);
  if (!unit.ok()) {
    // An instruction or feature the emulator does not implement is the
    // emulator's limitation (cudaErrorNotSupported, as for unimplemented API
    // functions); anything else is PTX it cannot read (cudaErrorInvalidPtx,
    // what the driver's JIT gives for PTX it rejects). The module is the unit
    // of loading, as for the driver's JIT: none of its kernels will run.
    if (unit.status().code() == absl::StatusCode::kUnimplemented) {
      const cudaError_t e =
          fail(cudaErrorNotSupported,
               absl::StrCat("the PTX of ", m->sources.front().name, " uses what the emulator does not implement: ",
                            unit.status().message(), "; no kernel of this module can run"));
      // A library the program loads itself (cuModuleLoadData, cudaLibraryLoadData):
      // a GPU would have loaded it, so its kernels are kernels that did not
      // run, and the run is incomplete (a registered module's launches say so).
      if (m->library) NoteLibraryKernelsNotRun(*m, e);
      return e;
    }
    return fail(cudaErrorInvalidPtx,
                absl::StrCat("cannot load PTX of ", m->sources.front().name, ": ", unit.status().message()));
  }
  m->link_unit = *unit;
  for (RegisteredVar* v : m->vars) {
    auto g = device_->FindVariable(m->link_unit, v->name);
    if (!g.ok()) {
      PrintDiagnostic(absl::StrCat("variable ", v->name, " registered by the program is not in its PTX: ",
                                   g.status().message()));
      continue;
    }
    v->device_address = g->address;
    if (session_sink_)
      session_sink_->OnAllocation(reinterpret_cast<uint64_t>(g->address), g->size,
                                  transport::AllocationKind::kModuleGlobal, v->name);
    if (v->managed && v->managed_pointer) {
      *v->managed_pointer = g->address;
      NoteHostAccessibleMemory(reinterpret_cast<uint64_t>(g->address), g->size,
                               reinterpret_cast<uint64_t>(g->address), /*always_armed=*/true);
      var_by_symbol_[g->address] = v;  // host code names a managed variable by its address
    }
  }
  for (RegisteredKernel* k : m->kernels) k->function.reset();
  m->load_error = cudaSuccess;
  return cudaSuccess;
}

RegisteredKernel* Runtime::KernelByHostFunction(const void* host_function) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = kernel_by_host_.find(host_function);
  return it == kernel_by_host_.end() ? nullptr : it->second;
}

RegisteredKernel* Runtime::KernelByHandle(const void* handle) {
  std::lock_guard<std::mutex> lock(mu_);
  return kernel_handles_.contains(handle) ? static_cast<RegisteredKernel*>(const_cast<void*>(handle)) : nullptr;
}

RegisteredVar* Runtime::VarBySymbol(const void* host_symbol) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = var_by_symbol_.find(host_symbol);
  return it == var_by_symbol_.end() ? nullptr : it->second;
}

cudaError_t Runtime::ResolveKernel(RegisteredKernel* k, uint32_t* function, bool quiet) {
  if (cudaError_t e = EnsureLoaded(k->module, quiet); e != cudaSuccess) return e;
  std::lock_guard<std::mutex> lock(mu_);
  if (!k->function) {
    auto f = device_->FindKernel(k->module->link_unit, k->name);
    if (!f.ok()) {
      PrintDiagnostic(absl::StrCat("kernel ", k->name, " is not in its module's PTX: ", f.status().message()));
      return cudaErrorInvalidDeviceFunction;
    }
    k->function = *f;
  }
  *function = *k->function;
  return cudaSuccess;
}

cudaError_t Runtime::ResolveVar(RegisteredVar* v, void** address) {
  if (cudaError_t e = EnsureLoaded(v->module); e != cudaSuccess) return e;
  if (!v->device_address) return cudaErrorInvalidSymbol;
  *address = v->device_address;
  return cudaSuccess;
}

uint32_t Runtime::ReportedSm() {
  std::lock_guard<std::mutex> lock(mu_);
  for (const auto& m : modules_)
    if (m->sm_target != 0) return m->sm_target;
  return 75;
}

// ---------------------------------------------------------------- streams, events

cudaStream_t Runtime::CreateStream(unsigned flags, int priority) {
  auto s = std::make_unique<StreamState>();
  s->flags = flags;
  s->priority = priority;
  std::lock_guard<std::mutex> lock(mu_);
  s->id = next_stream_id_++;
  auto* handle = reinterpret_cast<cudaStream_t>(s.get());
  streams_[handle] = std::move(s);
  StreamOrder::Get().NoteStreamCreated();
  return handle;
}

bool Runtime::DestroyStream(cudaStream_t stream) {
  std::lock_guard<std::mutex> lock(mu_);
  return streams_.erase(stream) == 1;
}

bool Runtime::ValidStream(cudaStream_t stream) {
  if (stream == nullptr || stream == cudaStreamLegacy || stream == cudaStreamPerThread) return true;
  std::lock_guard<std::mutex> lock(mu_);
  return streams_.contains(stream);
}

uint64_t Runtime::StreamId(cudaStream_t stream, bool per_thread) {
  if (stream == nullptr) stream = per_thread ? cudaStreamPerThread : cudaStreamLegacy;
  if (stream == cudaStreamLegacy) return 0;
  if (stream == cudaStreamPerThread) {
    // Ids 1..15 are never given to created streams; per-thread default streams
    // get ids above 2^32 from a thread counter.
    // Its first use makes the stream order active (as creating a stream
    // does): another thread's per-thread stream is not ordered with it.
    static std::atomic<uint64_t> next{1};
    thread_local uint64_t id = [] {
      StreamOrder::Get().NoteStreamCreated();
      return (uint64_t{1} << 32) + next.fetch_add(1);
    }();
    return id;
  }
  std::lock_guard<std::mutex> lock(mu_);
  auto it = streams_.find(stream);
  return it == streams_.end() ? 0 : it->second->id;
}

bool Runtime::NonBlocking(cudaStream_t stream) {
  if (stream == nullptr || stream == cudaStreamLegacy || stream == cudaStreamPerThread) return false;
  std::lock_guard<std::mutex> lock(mu_);
  auto it = streams_.find(stream);
  return it != streams_.end() && (it->second->flags & cudaStreamNonBlocking) != 0;
}

cudaEvent_t Runtime::CreateEvent(unsigned flags) {
  auto e = std::make_unique<EventState>();
  e->flags = flags;
  std::lock_guard<std::mutex> lock(mu_);
  auto* handle = reinterpret_cast<cudaEvent_t>(e.get());
  events_[handle] = std::move(e);
  return handle;
}

bool Runtime::DestroyEvent(cudaEvent_t event) {
  std::lock_guard<std::mutex> lock(mu_);
  return events_.erase(event) == 1;
}

EventState* Runtime::FindEvent(cudaEvent_t event) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = events_.find(event);
  return it == events_.end() ? nullptr : it->second.get();
}

// ---------------------------------------------------------------- reset

void Runtime::Reset() {
  StreamOrder::Get().Reset();
  ForgetHostRegistrations();  // their aliases go with the arena
  ResetMemoryPools();         // allocations of every pool go with it too
  ForgetGraphAllocations();   // and graph memory nodes' addresses
  std::lock_guard<std::mutex> lock(mu_);
  emu::RecordSink* sink = device_->sink();
  // A fresh device: all allocations, module globals and loaded code go; the
  // registered modules reload on their next use, as after a real reset.
  device_ = std::make_unique<emu::Device>();
  device_->SetSink(sink);
  for (const auto& m : modules_) {
    m->load_attempted = false;
    m->load_error = cudaSuccess;
    m->load_message.clear();
    m->reported_globals.clear();  // a library's globals get new addresses at the reload
    for (RegisteredVar* v : m->vars) {
      if (v->managed && v->device_address) var_by_symbol_.erase(v->device_address);
      v->device_address = nullptr;
    }
    for (RegisteredKernel* k : m->kernels) k->function.reset();
  }
  streams_.clear();
  events_.clear();
  device_flags = 0;
  sticky_.store(cudaSuccess, std::memory_order_release);
}

}  // namespace barracuda::cudart
