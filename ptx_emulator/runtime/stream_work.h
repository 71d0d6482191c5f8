// The work a stream carries (kernel launches, copies, sets, host functions,
// event records and waits), as functions shared by the direct API calls and the
// execution of graph nodes (graph_model.cpp): a graph's kernel is launched,
// checked and traced exactly like a <<<>>> launch on the graph's stream.
//
// Each function runs the work to completion, records a failure as the calling
// thread's last error (Runtime::Fail) and returns it. None looks at stream
// capture: the API entry points divert captured calls (stream_capture.h)
// before they get here.
#ifndef BARRACUDA_PTX_EMULATOR_RUNTIME_STREAM_WORK_H_
#define BARRACUDA_PTX_EMULATOR_RUNTIME_STREAM_WORK_H_

#include <cstddef>

#include "absl/functional/function_ref.h"

#include "ptx_emulator/core/device.h"
#include "ptx_emulator/runtime/cuda_api.h"

namespace barracuda::cudart {

struct RegisteredKernel;
struct KernelNodeParams;
struct GraphNode;

// A kernel launch's configuration (every launch entry point builds one).
struct KernelLaunch {
  KernelLaunch() = default;
  KernelLaunch(RegisteredKernel* k, dim3 g, dim3 b, size_t s, bool coop = false, emu::Dim3 c = {})
      : kernel(k), grid(g), block(b), shared(s), cooperative(coop), cluster(c) {}
  RegisteredKernel* kernel = nullptr;  // nullptr: unknown function (cudaErrorInvalidDeviceFunction)
  dim3 grid, block;
  size_t shared = 0;
  bool cooperative = false;
  emu::Dim3 cluster;  // 1,1,1: the kernel's __cluster_dims__, if any
  // cudaLaunchAttributeProgrammaticStreamSerialization: may start before the
  // previous kernel of its stream ends (stream_order.h, NoteKernelOp).
  bool programmatic = false;
};

// launch.cpp. A host stub address or a cudaKernel_t, nullptr when neither.
RegisteredKernel* FindKernel(const void* func);
// Checks and runs a launch; `per_thread` resolves a NULL stream to the
// thread's default stream (the _ptsz entry points).
cudaError_t Launch(const KernelLaunch& launch, void** args, cudaStream_t stream, bool per_thread);
// The kernel node for `launch`: checks it as a launch would (module loaded,
// configuration) and copies the argument values, from `args` (one pointer
// per parameter) or `extra` (CU_LAUNCH_PARAM_BUFFER_POINTER/SIZE), sized by
// the kernel's PTX parameters. Does not record a last error.
cudaError_t MakeKernelNode(const KernelLaunch& launch, const void* func, void** args, void** extra,
                           KernelNodeParams* node);

// memory.cpp. Linear-memory copy in cudaMemcpy3D's form (1D and 2D copies as
// one-row / one-slice extents).
cudaError_t Copy3D(const cudaMemcpy3DParms* p, cudaStream_t stream);
// Sets `height` rows of `width` elements of `element_size` (1, 2 or 4) bytes,
// rows `pitch` bytes apart, to `value` (cudaMemset*, memset nodes).
cudaError_t SetElements(void* dst, size_t pitch, unsigned value, unsigned element_size, size_t width,
                        size_t height, cudaStream_t stream);

// Node parameters of copies and sets, checked as the direct calls check them
// (cudaErrorInvalidValue, cudaErrorInvalidPitchValue, ...; no last error).
cudaError_t MakeCopyNode(GraphNode& n, void* dst, size_t dpitch, const void* src, size_t spitch, size_t width,
                         size_t height, cudaMemcpyKind kind);
cudaError_t MakeCopy3DNode(GraphNode& n, const cudaMemcpy3DParms* p);
cudaError_t MakeSetNode(GraphNode& n, cudaMemsetParams p);

// streams_events.cpp.
// `per_thread`: stream 0 is the calling thread's per-thread default stream
// (the _ptsz entry points, nvcc --default-stream per-thread).
cudaError_t RecordEvent(cudaEvent_t event, cudaStream_t stream, bool per_thread);
cudaError_t WaitEvent(cudaStream_t stream, cudaEvent_t event, bool per_thread);
// A host function (cudaLaunchHostFunc, a graph host node) or stream callback
// run as the work of `stream` (streams_events.cpp says how it is checked).
cudaError_t RunHostFunction(cudaStream_t stream, bool per_thread, absl::FunctionRef<void()> fn);
cudaError_t CallHostFunction(cudaStream_t stream, bool per_thread, cudaHostFn_t fn, void* user_data);

}  // namespace barracuda::cudart

#endif  // BARRACUDA_PTX_EMULATOR_RUNTIME_STREAM_WORK_H_
