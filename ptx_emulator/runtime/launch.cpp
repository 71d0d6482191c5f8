// Kernel launch: <<<...>>> configuration stack, kernel handles, the launch
// entry points (plain, _ptsz, cooperative, cudaLaunchKernelExC), function
// attributes and occupancy queries.
//
// A launch runs to completion inside the call (Device::Launch); on a capturing
// stream it becomes a kernel node instead (stream_capture.h), which a graph
// launch runs through the same Launch. A fault is
// reported once on stderr with the emulator's message and returned as the
// cudaError_t a GPU would give; faults that corrupt a GPU context are sticky.
#include <cxxabi.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "ptx_emulator/core/warp_context.h"
#include "ptx_emulator/runtime/host_access_watch.h"
#include "ptx_emulator/runtime/cuda_api.h"
#include "ptx_emulator/ops/mem_access.h"
#include "ptx_emulator/runtime/graph_model.h"
#include "ptx_emulator/runtime/runtime_state.h"
#include "ptx_emulator/runtime/stream_capture.h"
#include "ptx_emulator/runtime/stream_order.h"
#include "ptx_emulator/runtime/stream_work.h"

namespace barracuda::cudart {
namespace {

std::vector<CallConfiguration>& ConfigStack() {
  thread_local std::vector<CallConfiguration> stack;
  return stack;
}

uint32_t DynamicSharedLimit(const RegisteredKernel& k, const emu::Function& f, const emu::DeviceDescription& d) {
  if (k.max_dynamic_shared >= 0) return static_cast<uint32_t>(k.max_dynamic_shared);
  return d.shared_per_block > f.static_shared_bytes ? d.shared_per_block - f.static_shared_bytes : 0;
}

// Resident blocks of `f` per SM for a block size and dynamic shared size.
int ActiveBlocksPerSm(const emu::Function& f, const emu::DeviceDescription& d, int block_size, size_t dynamic_shared) {
  if (block_size <= 0 || static_cast<uint32_t>(block_size) > f.max_threads) return 0;
  return static_cast<int>(
      d.ResidentBlocksPerSm(static_cast<uint32_t>(block_size), uint64_t{f.static_shared_bytes} + dynamic_shared));
}

// The kernel's cluster directives as the occupancy queries need them.
struct KernelClusters {
  emu::Dim3 required{0, 0, 0};  // 0,0,0: none
  bool must_be_set = false;     // .explicitcluster or .reqnctapercluster
  uint64_t max_rank = 0;        // .maxclusterrank; 0: none
};
KernelClusters ClustersOf(const emu::Function& f) {
  const emu::ClusterDirectives d = emu::ClusterDirectivesOf(f.source);
  KernelClusters c;
  c.must_be_set = d.explicit_cluster;
  c.max_rank = d.max_rank;
  if (d.has_required) {
    c.required = {static_cast<uint32_t>(d.required[0]), static_cast<uint32_t>(d.required[1]),
                  static_cast<uint32_t>(d.required[2])};
  }
  return c;
}

std::string Demangled(const std::string& mangled) {
  int status = 0;
  char* text = abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status);
  std::string out = status == 0 && text != nullptr ? std::string(text) : mangled;
  std::free(text);
  return out;
}

// A launch that does not run because of the emulator, not the program: its
// module could not be loaded, or it needs an instruction or feature the
// emulator does not implement. The program gets the error from the launch (a
// GPU whose driver rejected the code would fail it too); the note is printed
// once per kernel, and every such launch is told to the barracuda session,
// whose analysis is then incomplete (the kernel's races cannot be known).
cudaError_t NotRun(RegisteredKernel& k, cudaError_t e, const std::string& reason) {
  Runtime& rt = Runtime::Get();
  bool first = false;
  {
    std::lock_guard<std::mutex> lock(rt.mu());
    first = !k.not_run_noted;
    k.not_run_noted = true;
  }
  // On stderr only: the session gets the structured message below (as a
  // diagnostic too, the report would say it twice).
  if (first)
    std::fprintf(stderr, "barracuda emulator: kernel %s did not run: %s (%s)\n", Demangled(k.name).c_str(),
                 reason.c_str(), cudaGetErrorName(e));
  if (emu::ShmRecordSink* sink = rt.session_sink()) sink->OnLaunchNotRun(static_cast<int32_t>(e), k.name, reason);
  return rt.Fail(e);
}

// The transport form of a launch's memory fault.
transport::MemoryErrorInfo MemoryErrorOf(const emu::Device::FaultReport& f, cudaError_t e, const std::string& kernel,
                                         std::string_view message) {
  static_assert(static_cast<int>(emu::MemoryError::kOutOfBounds) ==
                    static_cast<int>(transport::MemoryErrorKind::kOutOfBounds) &&
                static_cast<int>(emu::MemoryError::kReadOnly) == static_cast<int>(transport::MemoryErrorKind::kReadOnly));
  static_assert(static_cast<int>(emu::mem::Space::kConst) == static_cast<int>(transport::MemorySpace::kConst));
  transport::MemoryErrorInfo m;
  m.cuda_error = static_cast<int32_t>(e);
  m.kind = static_cast<transport::MemoryErrorKind>(f.fault.memory);
  m.write = f.fault.access == emu::AccessKind::kWrite;
  m.space = static_cast<transport::MemorySpace>(f.fault.space);
  m.size = f.fault.size;
  m.address = f.fault.address;
  m.launch_id = f.launch_id;
  m.site = f.fault.site;
  m.ptx_line = f.fault.ptx_line;
  m.block[0] = f.block.x, m.block[1] = f.block.y, m.block[2] = f.block.z;
  m.thread[0] = f.thread.x, m.thread[1] = f.thread.y, m.thread[2] = f.thread.z;
  m.kernel = kernel;
  m.message = std::string(message);
  return m;
}

// Load errors that mean the emulator could not run the kernel's code.
bool LoadErrorOfTheEmulator(cudaError_t e) {
  return e == cudaErrorNotSupported || e == cudaErrorInvalidPtx || e == cudaErrorNoKernelImageForDevice ||
         e == cudaErrorInvalidKernelImage;
}

bool ValidDims(dim3 grid, dim3 block, const emu::Function& f, const emu::DeviceDescription& d) {
  const uint64_t threads = uint64_t{block.x} * block.y * block.z;
  if (threads == 0 || threads > std::min(d.max_threads_per_block, f.max_threads)) return false;
  if (block.x > 1024 || block.y > 1024 || block.z > 64) return false;
  if (grid.x == 0 || grid.y == 0 || grid.z == 0) return false;
  return grid.x <= 0x7fffffffu && grid.y <= 65535 && grid.z <= 65535;
}

// What running a launch and capturing it both check: the kernel is known and
// its module loaded (an emulator refusal is told as a launch that did not
// run), the configuration fits the kernel and the device. Records no last error.
cudaError_t CheckLaunch(const KernelLaunch& l, uint32_t* index) {
  Runtime& rt = Runtime::Get();
  if (cudaError_t s = rt.sticky()) return s;
  RegisteredKernel* k = l.kernel;
  if (!k) return cudaErrorInvalidDeviceFunction;
  if (cudaError_t e = rt.ResolveKernel(k, index, /*quiet=*/true); e != cudaSuccess) {
    if (LoadErrorOfTheEmulator(e)) return NotRun(*k, e, k->module->load_message);
    return e;
  }
  const emu::Function& f = rt.device().function(*index);
  const emu::DeviceDescription& d = rt.device().description();
  if (!ValidDims(l.grid, l.block, f, d)) return cudaErrorInvalidConfiguration;
  if (l.shared > DynamicSharedLimit(*k, f, d)) return cudaErrorInvalidValue;
  if (l.cooperative) {
    const uint64_t resident =
        uint64_t{d.sm_count} * ActiveBlocksPerSm(f, d, static_cast<int>(l.block.x * l.block.y * l.block.z), l.shared);
    if (uint64_t{l.grid.x} * l.grid.y * l.grid.z > resident) return cudaErrorCooperativeLaunchTooLarge;
  }
  return cudaSuccess;
}

// Every launch entry point: a capturing stream gets a kernel node, any other
// runs the launch now.
cudaError_t LaunchOrCapture(const KernelLaunch& l, const void* func, void** args, cudaStream_t stream,
                            bool per_thread) {
  if (auto captured = CaptureWork(stream, per_thread, [&](GraphNode& node) {
        node.type = cudaGraphNodeTypeKernel;
        return MakeKernelNode(l, func, args, nullptr, &node.kernel);
      }))
    return *captured;
  return Launch(l, args, stream, per_thread);
}

}  // namespace

RegisteredKernel* FindKernel(const void* func) {
  Runtime& rt = Runtime::Get();
  if (RegisteredKernel* k = rt.KernelByHostFunction(func)) return k;
  return rt.KernelByHandle(func);
}

// The host-accessible regions this launch is passed pointers into are
// watched until the host synchronises with it (host_access_watch.h): every
// aligned 8-byte word of its parameters, structs' pointer members included.
static void ArmHostAccessWatch(const emu::Function& f, void* const* args) {
  if (args == nullptr) return;
  std::vector<uint64_t> words;
  for (size_t i = 0; i < f.params.size(); ++i) {
    const auto& p = f.params[i];
    if (args[i] == nullptr) continue;
    for (uint32_t off = 0; off + 8 <= p.size; off += 8) {
      uint64_t w;
      std::memcpy(&w, static_cast<const char*>(args[i]) + off, 8);
      words.push_back(w);
    }
  }
  host_access::ArmReferenced(words.data(), words.size());
}

// A fault inside a kernel, told to the session in the structured form: a
// memory error of the program (memcheck: reported as an error, the launch's
// analysis stops at it) or a launch that did not run to its end.
static void TellFault(Runtime& rt, const std::string& kernel, cudaError_t e, const absl::Status& status) {
  emu::ShmRecordSink* sink = rt.session_sink();
  if (sink == nullptr) return;
  if (const auto& f = rt.device().last_fault(); f && f->fault.memory != emu::MemoryError::kNone)
    sink->OnMemoryError(MemoryErrorOf(*f, e, kernel, std::string(status.message())));
  else
    sink->OnLaunchNotRun(static_cast<int32_t>(e), kernel, std::string(status.message()));
}

// Dynamic parallelism: the grids that the launch's kernels (and theirs, in
// turn) launched from device code, run now that it ended
// (core/device_launches.h), on its stream, in launcher order. A child that
// cannot run, or faults, is told to the session as a parent's would be; an
// invalid configuration fails that child only (on a GPU the device-side
// launch would have returned the error to its launcher).
static cudaError_t RunDeviceLaunches(Runtime& rt, const emu::LaunchConfig& parent, bool non_blocking) {
  emu::DeviceLaunches& queue = rt.device().device_launches();
  cudaError_t result = cudaSuccess;
  for (std::vector<emu::DeviceLaunch> batch = queue.Take(); !batch.empty(); batch = queue.Take()) {
    // Once per process, in the report: what the analysis of such grids covers.
    static std::once_flag told;
    std::call_once(told, [&] {
      if (emu::ShmRecordSink* sink = rt.session_sink())
        sink->OnDiagnostic(
            "dynamic parallelism: grids launched from device code run after the grid that launched them and are "
            "analysed as launches of their own (races inside each such grid, and with later work, are "
            "reported); races between a grid and the grids it launched, or between those grids, are not checked");
    });
    for (emu::DeviceLaunch& c : batch) {
      const emu::Function& f = rt.device().function(c.kernel);
      emu::LaunchConfig config = parent;
      config.grid = {c.grid[0], c.grid[1], c.grid[2]};
      config.block = {c.block[0], c.block[1], c.block[2]};
      config.dynamic_shared_bytes = c.shared_bytes;
      config.cooperative = false;
      std::vector<void*> args(f.params.size());
      for (size_t i = 0; i < f.params.size(); ++i)
        args[i] = f.params[i].offset < c.params.size() ? c.params.data() + f.params[i].offset : nullptr;
      absl::Status status;
      if (result == cudaSuccess) {
        NoteKernelOp(config.stream_id, non_blocking, rt.device().launches() + 1);
        status = rt.device().LaunchCluster(c.kernel, config, {1, 1, 1}, args.data());
      }
      (void)rt.device().memory().Free(reinterpret_cast<void*>(c.buffer));
      if (status.ok() || result != cudaSuccess) continue;
      bool sticky = false;
      const cudaError_t e = LaunchErrorFromStatus(status, &sticky);
      const std::string what = absl::StrCat("kernel ", Demangled(f.name), " (launched from device code)");
      std::fprintf(stderr, "barracuda emulator: %s %s: %s (%s)\n", what.c_str(),
                   sticky ? "faulted" : "did not run", std::string(status.message()).c_str(), cudaGetErrorName(e));
      emu::ShmRecordSink* sink = rt.session_sink();
      if (sticky) {
        TellFault(rt, f.name, e, status);
        rt.SetSticky(e);
        result = e;  // later children are not run: the context is lost, as on a GPU
      } else if (e == cudaErrorNotSupported && sink != nullptr) {
        sink->OnLaunchNotRun(static_cast<int32_t>(e), f.name, std::string(status.message()));
      }
    }
  }
  for (uint64_t b : queue.TakeUnlaunchedBuffers()) (void)rt.device().memory().Free(reinterpret_cast<void*>(b));
  return result;
}

// The grids a failed launch recorded, and its parameter buffers: forgotten.
static void DropDeviceLaunches(Runtime& rt) {
  emu::DeviceLaunches& queue = rt.device().device_launches();
  for (const emu::DeviceLaunch& c : queue.Take()) (void)rt.device().memory().Free(reinterpret_cast<void*>(c.buffer));
  for (uint64_t b : queue.TakeUnlaunchedBuffers()) (void)rt.device().memory().Free(reinterpret_cast<void*>(b));
}

cudaError_t Launch(const KernelLaunch& l, void** args, cudaStream_t stream, bool per_thread) {
  host_access::Pause pause;  // the emulator and the runtime touch watched memory freely
  Runtime& rt = Runtime::Get();
  if (cudaError_t s = rt.sticky()) return rt.Fail(s);
  if (!l.kernel) return rt.Fail(cudaErrorInvalidDeviceFunction);
  if (!rt.ValidStream(stream)) return rt.Fail(cudaErrorInvalidResourceHandle);
  uint32_t index = 0;
  if (cudaError_t e = CheckLaunch(l, &index)) return rt.Fail(e);
  RegisteredKernel* k = l.kernel;
  emu::LaunchConfig config;
  config.grid = {l.grid.x, l.grid.y, l.grid.z};
  config.block = {l.block.x, l.block.y, l.block.z};
  config.dynamic_shared_bytes = static_cast<uint32_t>(l.shared);
  config.stream_id = rt.StreamId(stream, per_thread);
  config.cooperative = l.cooperative;
  // One launch at a time, from issue to end: host threads launching at once
  // (each on its own stream) run one after the other, which a GPU may also
  // do; the launch's stream operation, its launch id (the device's next) and
  // its records then belong together (the daemon collects a kernel's
  // footprint between its stream operation and its end).
  static std::mutex launch_mu;
  std::lock_guard<std::mutex> serial(launch_mu);
  // A module whose kernels wait on grid dependencies (programmatic dependent
  // launch) activates the stream order from its first launch: the kernel a
  // programmatic launch overlaps is usually launched before it, on the same
  // single stream that would otherwise leave the order inactive.
  if (k->module != nullptr && k->module->waits_on_grid_dependencies < 0) {
    k->module->waits_on_grid_dependencies = 0;
    for (const emu::PtxSource& s : k->module->sources)
      if (s.text.find("griddepcontrol.wait") != std::string::npos) k->module->waits_on_grid_dependencies = 1;
    if (k->module->waits_on_grid_dependencies == 1 && rt.session_sink() != nullptr)
      StreamOrder::Get().NoteStreamCreated();
  }
  NoteKernelOp(config.stream_id, rt.NonBlocking(stream), rt.device().launches() + 1, l.programmatic);
  if (StreamOpsTraced()) ArmHostAccessWatch(rt.device().function(index), args);
  const absl::Status status = rt.device().LaunchCluster(index, config, l.cluster, args);
  if (status.ok()) {
    const cudaError_t children = RunDeviceLaunches(rt, config, rt.NonBlocking(stream));
    return children == cudaSuccess ? cudaSuccess : rt.Fail(children);
  }
  DropDeviceLaunches(rt);  // a grid that did not end launches nothing (else the next launch would run them)
  bool sticky = false;
  const cudaError_t e = LaunchErrorFromStatus(status, &sticky);
  // Not implemented by the emulator (a cluster too large, an instruction
  // reached only at run time): the kernel did not run, or not to its end.
  if (e == cudaErrorNotSupported && !sticky) return NotRun(*k, e, std::string(status.message()));
  if (emu::ShmRecordSink* sink = rt.session_sink(); sink != nullptr && sticky) {
    // A fault inside the kernel (trap, assert, illegal address, deadlock): the
    // rest of the launch, and every later one (the error sticks), is not
    // analysed. The session is told in the structured form, so that the run
    // is reported incomplete with the kernel named; stderr has the note.
    std::fprintf(stderr, "barracuda emulator: kernel %s faulted: %s (%s)\n", Demangled(k->name).c_str(),
                 std::string(status.message()).c_str(), cudaGetErrorName(e));
    TellFault(rt, k->name, e, status);
  } else {
    PrintDiagnostic(absl::StrCat("kernel ", k->name, " failed: ", status.message(), " (", cudaGetErrorName(e), ")"));
  }
  if (sticky) rt.SetSticky(e);
  return rt.Fail(e);
}

// The driver's kernel-argument buffer format (cuLaunchKernel's `extra`).
constexpr uintptr_t kLaunchParamEnd = 0, kLaunchParamBufferPointer = 1, kLaunchParamBufferSize = 2;

cudaError_t MakeKernelNode(const KernelLaunch& l, const void* func, void** args, void** extra,
                           KernelNodeParams* node) {
  uint32_t index = 0;
  if (cudaError_t e = CheckLaunch(l, &index)) return e;
  const emu::Function& f = Runtime::Get().device().function(index);
  const char* buffer = nullptr;
  size_t buffer_size = 0;
  if (!args && extra) {
    for (size_t i = 0; extra[i] != reinterpret_cast<void*>(kLaunchParamEnd); i += 2) {
      const auto key = reinterpret_cast<uintptr_t>(extra[i]);
      if (key == kLaunchParamBufferPointer) buffer = static_cast<const char*>(extra[i + 1]);
      else if (key == kLaunchParamBufferSize) buffer_size = *static_cast<const size_t*>(extra[i + 1]);
      else return cudaErrorInvalidValue;
    }
    if (!buffer || buffer_size < f.param_buffer_bytes) return cudaErrorInvalidValue;
  } else if (!args && !f.params.empty()) {
    return cudaErrorInvalidValue;
  }
  KernelNodeParams out;
  out.func = func;
  out.launch = l;
  for (size_t i = 0; i < f.params.size(); ++i)
    out.args.Add(buffer ? buffer + f.params[i].offset : args[i], f.params[i].size);
  *node = std::move(out);
  return cudaSuccess;
}

}  // namespace barracuda::cudart

using barracuda::cudart::CallConfiguration;
using barracuda::cudart::ConfigStack;
using barracuda::cudart::FindKernel;
using barracuda::cudart::KernelLaunch;
using barracuda::cudart::LaunchOrCapture;
using barracuda::cudart::RegisteredKernel;
using barracuda::cudart::Runtime;

unsigned __cudaPushCallConfiguration(dim3 grid, dim3 block, size_t shared_mem, struct CUstream_st* stream) {
  ConfigStack().push_back(CallConfiguration{grid, block, shared_mem, stream});
  return 0;  // 0: the stub goes on to launch
}

cudaError_t __cudaPopCallConfiguration(dim3* grid, dim3* block, size_t* shared_mem, void* stream) {
  auto& stack = ConfigStack();
  if (stack.empty()) return Runtime::Get().Fail(cudaErrorMissingConfiguration);
  const CallConfiguration c = stack.back();
  stack.pop_back();
  if (grid) *grid = c.grid;
  if (block) *block = c.block;
  if (shared_mem) *shared_mem = c.shared_mem;
  if (stream) *static_cast<cudaStream_t*>(stream) = c.stream;
  return cudaSuccess;
}

cudaError_t __cudaGetKernel(cudaKernel_t* kernel, const void* host_fun) {
  Runtime& rt = Runtime::Get();
  if (!kernel) return rt.Fail(cudaErrorInvalidValue);
  RegisteredKernel* k = rt.KernelByHostFunction(host_fun);
  if (!k) return rt.Fail(cudaErrorInvalidDeviceFunction);
  *kernel = reinterpret_cast<cudaKernel_t>(k);
  return cudaSuccess;
}

CUDART_EXPORT cudaError_t cudaGetKernel(cudaKernel_t* kernel, const void* entry) { return __cudaGetKernel(kernel, entry); }

// The driver handle of a kernel: the emulator's libcuda.so.1 takes the same
// handle as a CUfunction as the runtime takes as a cudaKernel_t.
CUDART_EXPORT cudaError_t cudaGetFuncBySymbol(cudaFunction_t* function, const void* symbol) {
  if (!function) return Runtime::Get().Fail(cudaErrorInvalidValue);
  cudaKernel_t kernel = nullptr;
  if (cudaError_t e = __cudaGetKernel(&kernel, symbol)) return e;
  *function = reinterpret_cast<cudaFunction_t>(kernel);
  return cudaSuccess;
}

// The stub calls this with a NULL handle when __cudaGetKernel failed.
cudaError_t __cudaLaunchKernel(cudaKernel_t kernel, dim3 grid, dim3 block, void** args, size_t shared_mem,
                               cudaStream_t stream) {
  return LaunchOrCapture(KernelLaunch{Runtime::Get().KernelByHandle(kernel), grid, block, shared_mem}, kernel, args,
                         stream, false);
}

cudaError_t __cudaLaunchKernel_ptsz(cudaKernel_t kernel, dim3 grid, dim3 block, void** args, size_t shared_mem,
                                    cudaStream_t stream) {
  return LaunchOrCapture(KernelLaunch{Runtime::Get().KernelByHandle(kernel), grid, block, shared_mem}, kernel, args,
                         stream, true);
}

CUDART_EXPORT cudaError_t cudaLaunchKernel(const void* func, dim3 grid, dim3 block, void** args, size_t shared_mem,
                                           cudaStream_t stream) {
  return LaunchOrCapture(KernelLaunch{FindKernel(func), grid, block, shared_mem, false}, func, args, stream, false);
}

CUDART_EXPORT cudaError_t cudaLaunchKernel_ptsz(const void* func, dim3 grid, dim3 block, void** args,
                                                size_t shared_mem, cudaStream_t stream) {
  return LaunchOrCapture(KernelLaunch{FindKernel(func), grid, block, shared_mem, false}, func, args, stream, true);
}

CUDART_EXPORT cudaError_t cudaLaunchCooperativeKernel(const void* func, dim3 grid, dim3 block, void** args,
                                                      size_t shared_mem, cudaStream_t stream) {
  return LaunchOrCapture(KernelLaunch{FindKernel(func), grid, block, shared_mem, true}, func, args, stream, false);
}

CUDART_EXPORT cudaError_t cudaLaunchCooperativeKernel_ptsz(const void* func, dim3 grid, dim3 block, void** args,
                                                           size_t shared_mem, cudaStream_t stream) {
  return LaunchOrCapture(KernelLaunch{FindKernel(func), grid, block, shared_mem, true}, func, args, stream, true);
}

namespace {
cudaError_t LaunchEx(const cudaLaunchConfig_t* config, const void* func, void** args, bool per_thread) {
  Runtime& rt = Runtime::Get();
  if (!config) return rt.Fail(cudaErrorInvalidValue);
  bool cooperative = false, programmatic = false;
  barracuda::emu::Dim3 cluster;  // 1,1,1: the kernel's __cluster_dims__, if any
  for (unsigned i = 0; i < config->numAttrs; ++i) {
    const cudaLaunchAttribute& a = config->attrs[i];
    switch (a.id) {
      case cudaLaunchAttributeCooperative: cooperative = a.val.cooperative != 0; break;
      case cudaLaunchAttributeClusterDimension:
        // Checked by the launch (grid divisible, at most 16 CTAs, agrees with __cluster_dims__).
        if (a.val.clusterDim.x == 0 || a.val.clusterDim.y == 0 || a.val.clusterDim.z == 0)
          return rt.Fail(cudaErrorInvalidValue);
        cluster = {a.val.clusterDim.x, a.val.clusterDim.y, a.val.clusterDim.z};
        break;
      // Scheduling hints with no meaning when every launch runs to completion in order.
      case cudaLaunchAttributeIgnore:
      case cudaLaunchAttributeAccessPolicyWindow:
      case cudaLaunchAttributeSynchronizationPolicy:
      case cudaLaunchAttributePriority: break;
      // Runs after the previous kernel here too; the stream-order check
      // treats its accesses before griddepcontrol.wait as unordered with it.
      case cudaLaunchAttributeProgrammaticStreamSerialization:
        programmatic = a.val.programmaticStreamSerializationAllowed != 0;
        break;
      default:
        barracuda::cudart::PrintDiagnostic(absl::StrCat("cudaLaunchKernelExC: launch attribute ",
                                                        static_cast<int>(a.id), " is not supported by the emulator backend"));
        return rt.Fail(cudaErrorNotSupported);
    }
  }
  KernelLaunch launch{FindKernel(func), config->gridDim, config->blockDim, config->dynamicSmemBytes, cooperative, cluster};
  launch.programmatic = programmatic;
  return LaunchOrCapture(launch, func, args, config->stream, per_thread);
}
}  // namespace

CUDART_EXPORT cudaError_t cudaLaunchKernelExC(const cudaLaunchConfig_t* config, const void* func, void** args) {
  return LaunchEx(config, func, args, false);
}

CUDART_EXPORT cudaError_t cudaLaunchKernelExC_ptsz(const cudaLaunchConfig_t* config, const void* func, void** args) {
  return LaunchEx(config, func, args, true);
}

// ---------------------------------------------------------------- function attributes

namespace {
// Resolves `func` to its decoded Function (loading the module).
cudaError_t ResolveFunction(const void* func, RegisteredKernel** kernel, const barracuda::emu::Function** function) {
  Runtime& rt = Runtime::Get();
  RegisteredKernel* k = FindKernel(func);
  if (!k) return cudaErrorInvalidDeviceFunction;
  uint32_t index = 0;
  if (cudaError_t e = rt.ResolveKernel(k, &index); e != cudaSuccess) return e;
  *kernel = k;
  *function = &rt.device().function(index);
  return cudaSuccess;
}
}  // namespace

CUDART_EXPORT cudaError_t cudaFuncGetAttributes(cudaFuncAttributes* attr, const void* func) {
  Runtime& rt = Runtime::Get();
  if (!attr) return rt.Fail(cudaErrorInvalidValue);
  RegisteredKernel* k = nullptr;
  const barracuda::emu::Function* f = nullptr;
  if (cudaError_t e = ResolveFunction(func, &k, &f); e != cudaSuccess) return rt.Fail(e);
  const auto& d = rt.device().description();
  *attr = cudaFuncAttributes{};
  attr->sharedSizeBytes = f->static_shared_bytes;
  attr->constSizeBytes = 0;
  attr->localSizeBytes = f->frame_bytes;
  attr->maxThreadsPerBlock = static_cast<int>(std::min(f->max_threads, d.max_threads_per_block));
  // PTX virtual registers, capped at the hardware's per-thread limit; the
  // emulator itself never limits occupancy by registers.
  attr->numRegs = static_cast<int>(std::min<uint32_t>(f->num_registers, 255));
  const uint32_t sm = rt.device().module(f->module).sm_target;
  attr->ptxVersion = static_cast<int>(sm ? sm : rt.ReportedSm());
  attr->binaryVersion = attr->ptxVersion;
  attr->maxDynamicSharedSizeBytes = static_cast<int>(barracuda::cudart::DynamicSharedLimit(*k, *f, d));
  attr->preferredShmemCarveout = k->preferred_carveout;
  const barracuda::cudart::KernelClusters c = barracuda::cudart::ClustersOf(*f);
  attr->clusterDimMustBeSet = c.must_be_set ? 1 : 0;
  attr->requiredClusterWidth = static_cast<int>(c.required.x);
  attr->requiredClusterHeight = static_cast<int>(c.required.y);
  attr->requiredClusterDepth = static_cast<int>(c.required.z);
  attr->clusterSchedulingPolicyPreference = k->cluster_scheduling;
  attr->nonPortableClusterSizeAllowed = k->non_portable_cluster;
  return cudaSuccess;
}

CUDART_EXPORT cudaError_t cudaFuncSetAttribute(const void* func, cudaFuncAttribute attr, int value) {
  Runtime& rt = Runtime::Get();
  RegisteredKernel* k = nullptr;
  const barracuda::emu::Function* f = nullptr;
  if (cudaError_t e = ResolveFunction(func, &k, &f); e != cudaSuccess) return rt.Fail(e);
  const auto& d = rt.device().description();
  switch (attr) {
    case cudaFuncAttributeMaxDynamicSharedMemorySize:
      if (value < 0 || static_cast<uint64_t>(value) + f->static_shared_bytes > d.shared_per_block_optin)
        return rt.Fail(cudaErrorInvalidValue);
      k->max_dynamic_shared = value;
      return cudaSuccess;
    case cudaFuncAttributePreferredSharedMemoryCarveout:
      if (value < -1 || value > 100) return rt.Fail(cudaErrorInvalidValue);
      k->preferred_carveout = value;
      return cudaSuccess;
    case cudaFuncAttributeNonPortableClusterSizeAllowed:  // clusters of up to 16 CTAs (occupancy queries)
      if (value != 0 && value != 1) return rt.Fail(cudaErrorInvalidValue);
      k->non_portable_cluster = value;
      return cudaSuccess;
    case cudaFuncAttributeClusterSchedulingPolicyPreference:  // a hint: kept, reported
      if (value != cudaClusterSchedulingPolicyDefault && value != cudaClusterSchedulingPolicySpread &&
          value != cudaClusterSchedulingPolicyLoadBalancing)
        return rt.Fail(cudaErrorInvalidValue);
      k->cluster_scheduling = value;
      return cudaSuccess;
    case cudaFuncAttributeRequiredClusterWidth:
    case cudaFuncAttributeRequiredClusterHeight:
    case cudaFuncAttributeRequiredClusterDepth:
      // Fixed at compile time (__cluster_dims__) on the emulator; setting one
      // at run time is not modelled.
      barracuda::cudart::PrintDiagnostic(
          "cudaFuncSetAttribute: a required cluster size set at run time is not supported by the emulator backend "
          "(use __cluster_dims__ or cudaLaunchAttributeClusterDimension)");
      return rt.Fail(cudaErrorNotSupported);
    default: return rt.Fail(cudaErrorInvalidValue);
  }
}

// Where parameter `paramIndex` lies in the kernel's parameter buffer: what a
// driver-API caller needs to lay out cuLaunchKernel's `extra` buffer (and
// what the replacement libcuda.so.1 uses to unpack it).
CUDART_EXPORT cudaError_t cudaFuncGetParamInfo(const void* func, size_t paramIndex, size_t* paramOffset,
                                               size_t* paramSize) {
  Runtime& rt = Runtime::Get();
  RegisteredKernel* k = nullptr;
  const barracuda::emu::Function* f = nullptr;
  if (cudaError_t e = ResolveFunction(func, &k, &f); e != cudaSuccess) return rt.Fail(e);
  if (paramIndex >= f->params.size()) return rt.Fail(cudaErrorInvalidValue);
  if (paramOffset) *paramOffset = f->params[paramIndex].offset;
  if (paramSize) *paramSize = f->params[paramIndex].size;
  return cudaSuccess;
}

CUDART_EXPORT cudaError_t cudaFuncSetCacheConfig(const void* func, cudaFuncCache) {
  return FindKernel(func) ? cudaSuccess : Runtime::Get().Fail(cudaErrorInvalidDeviceFunction);
}

CUDART_EXPORT cudaError_t cudaFuncSetSharedMemConfig(const void* func, cudaSharedMemConfig) {
  return FindKernel(func) ? cudaSuccess : Runtime::Get().Fail(cudaErrorInvalidDeviceFunction);
}

CUDART_EXPORT cudaError_t cudaFuncGetName(const char** name, const void* func) {
  Runtime& rt = Runtime::Get();
  if (!name) return rt.Fail(cudaErrorInvalidValue);
  RegisteredKernel* k = FindKernel(func);
  if (!k) return rt.Fail(cudaErrorInvalidDeviceFunction);
  *name = k->name.c_str();
  return cudaSuccess;
}

// ---------------------------------------------------------------- occupancy

CUDART_EXPORT cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int* num_blocks, const void* func,
                                                                                 int block_size,
                                                                                 size_t dynamic_shared,
                                                                                 unsigned int /*flags*/) {
  Runtime& rt = Runtime::Get();
  if (!num_blocks) return rt.Fail(cudaErrorInvalidValue);
  RegisteredKernel* k = nullptr;
  const barracuda::emu::Function* f = nullptr;
  if (cudaError_t e = ResolveFunction(func, &k, &f); e != cudaSuccess) return rt.Fail(e);
  *num_blocks = barracuda::cudart::ActiveBlocksPerSm(*f, rt.device().description(), block_size, dynamic_shared);
  return cudaSuccess;
}

CUDART_EXPORT cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int* num_blocks, const void* func,
                                                                        int block_size, size_t dynamic_shared) {
  return cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(num_blocks, func, block_size, dynamic_shared, 0);
}

// Thread-block clusters (sm_90): the emulator's device is one GPC of all its
// SMs (16), so a cluster fits when its CTAs fit in the resident-block slots of
// all SMs together. Portable clusters are of at most 8 CTAs, 16 with
// cudaFuncAttributeNonPortableClusterSizeAllowed (the emulator's limit too).
namespace {
// The cluster size of a launch configuration: its cluster dimension
// attribute, else the kernel's __cluster_dims__; 0 when neither (an error for
// cudaOccupancyMaxActiveClusters), cudaErrorInvalidClusterSize when they differ.
cudaError_t ConfigCluster(const cudaLaunchConfig_t& config, const barracuda::cudart::KernelClusters& c,
                          uint64_t* ctas) {
  uint64_t from_config = 0;
  for (unsigned i = 0; i < config.numAttrs; ++i) {
    const cudaLaunchAttribute& a = config.attrs[i];
    if (a.id != cudaLaunchAttributeClusterDimension) continue;
    if (a.val.clusterDim.x == 0 || a.val.clusterDim.y == 0 || a.val.clusterDim.z == 0) return cudaErrorInvalidClusterSize;
    if (c.required.x != 0 &&
        (a.val.clusterDim.x != c.required.x || a.val.clusterDim.y != c.required.y || a.val.clusterDim.z != c.required.z))
      return cudaErrorInvalidClusterSize;
    from_config = uint64_t{a.val.clusterDim.x} * a.val.clusterDim.y * a.val.clusterDim.z;
  }
  *ctas = from_config != 0 ? from_config : uint64_t{c.required.x} * c.required.y * c.required.z;
  return cudaSuccess;
}

// Resident-block slots of the whole device for this configuration.
cudaError_t ClusterSlots(const void* func, const cudaLaunchConfig_t* config, RegisteredKernel** k,
                         barracuda::cudart::KernelClusters* clusters, uint64_t* slots) {
  Runtime& rt = Runtime::Get();
  const barracuda::emu::Function* f = nullptr;
  if (!config) return cudaErrorInvalidValue;
  if (cudaError_t e = ResolveFunction(func, k, &f); e != cudaSuccess) return e;
  const auto& d = rt.device().description();
  const uint64_t threads = uint64_t{config->blockDim.x} * config->blockDim.y * config->blockDim.z;
  if (threads == 0 || threads > d.max_threads_per_block) return cudaErrorInvalidValue;
  *clusters = barracuda::cudart::ClustersOf(*f);
  *slots = uint64_t{d.sm_count} *
           barracuda::cudart::ActiveBlocksPerSm(*f, d, static_cast<int>(threads), config->dynamicSmemBytes);
  return cudaSuccess;
}
}  // namespace

CUDART_EXPORT cudaError_t cudaOccupancyMaxPotentialClusterSize(int* cluster_size, const void* func,
                                                               const cudaLaunchConfig_t* config) {
  Runtime& rt = Runtime::Get();
  if (!cluster_size) return rt.Fail(cudaErrorInvalidValue);
  RegisteredKernel* k = nullptr;
  barracuda::cudart::KernelClusters c;
  uint64_t slots = 0;
  if (cudaError_t e = ClusterSlots(func, config, &k, &c, &slots); e != cudaSuccess) return rt.Fail(e);
  uint64_t limit = k->non_portable_cluster ? barracuda::emu::kMaxClusterCtas : 8;
  if (c.required.x != 0) limit = uint64_t{c.required.x} * c.required.y * c.required.z;  // the kernel's own
  if (c.max_rank != 0) limit = std::min(limit, c.max_rank);
  *cluster_size = static_cast<int>(std::min(limit, slots));
  return cudaSuccess;
}

CUDART_EXPORT cudaError_t cudaOccupancyMaxActiveClusters(int* clusters, const void* func,
                                                         const cudaLaunchConfig_t* config) {
  Runtime& rt = Runtime::Get();
  if (!clusters) return rt.Fail(cudaErrorInvalidValue);
  RegisteredKernel* k = nullptr;
  barracuda::cudart::KernelClusters c;
  uint64_t slots = 0, ctas = 0;
  if (cudaError_t e = ClusterSlots(func, config, &k, &c, &slots); e != cudaSuccess) return rt.Fail(e);
  if (cudaError_t e = ConfigCluster(*config, c, &ctas); e != cudaSuccess) return rt.Fail(e);
  const uint64_t limit = k->non_portable_cluster ? barracuda::emu::kMaxClusterCtas : 8;
  if (ctas == 0 || ctas > limit || (c.max_rank != 0 && ctas > c.max_rank)) return rt.Fail(cudaErrorInvalidClusterSize);
  *clusters = static_cast<int>(slots / ctas);
  return cudaSuccess;
}

CUDART_EXPORT cudaError_t cudaOccupancyAvailableDynamicSMemPerBlock(size_t* dynamic_shared, const void* func,
                                                                    int num_blocks, int block_size) {
  Runtime& rt = Runtime::Get();
  if (!dynamic_shared || num_blocks <= 0) return rt.Fail(cudaErrorInvalidValue);
  RegisteredKernel* k = nullptr;
  const barracuda::emu::Function* f = nullptr;
  if (cudaError_t e = ResolveFunction(func, &k, &f); e != cudaSuccess) return rt.Fail(e);
  const auto& d = rt.device().description();
  if (barracuda::cudart::ActiveBlocksPerSm(*f, d, block_size, 0) < num_blocks) {
    *dynamic_shared = 0;
    return cudaSuccess;
  }
  const uint64_t per_block = std::min<uint64_t>(d.shared_per_sm / static_cast<uint64_t>(num_blocks),
                                                d.shared_per_block_optin);
  *dynamic_shared = per_block > f->static_shared_bytes ? per_block - f->static_shared_bytes : 0;
  return cudaSuccess;
}
