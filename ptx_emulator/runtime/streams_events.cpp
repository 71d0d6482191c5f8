// Streams and events. Work runs to completion when issued, so streams only
// need identity (for launch records), queries always say "complete", waits are
// immediate, and an event's time is the host wall clock when it was recorded.
// On a capturing stream, records, waits and host functions are captured
// instead (stream_capture.h); graphs run them through the same functions.
#include <chrono>
#include <mutex>

#include "absl/functional/function_ref.h"

#include "ptx_emulator/runtime/host_access_watch.h"
#include "ptx_emulator/runtime/cuda_api.h"
#include "ptx_emulator/runtime/graph_model.h"
#include "ptx_emulator/runtime/runtime_state.h"
#include "ptx_emulator/runtime/stream_capture.h"
#include "ptx_emulator/runtime/stream_order.h"
#include "ptx_emulator/runtime/stream_work.h"

namespace barracuda::cudart {
namespace {
cudaError_t Sync(cudaStream_t stream) {
  Runtime& rt = Runtime::Get();
  if (cudaError_t s = rt.sticky()) return rt.Fail(s);
  return rt.ValidStream(stream) ? cudaSuccess : rt.Fail(cudaErrorInvalidResourceHandle);
}
}  // namespace

cudaError_t RecordEvent(cudaEvent_t event, cudaStream_t stream, bool per_thread) {
  Runtime& rt = Runtime::Get();
  if (cudaError_t s = rt.sticky()) return rt.Fail(s);
  EventState* e = rt.FindEvent(event);
  if (!e || !rt.ValidStream(stream)) return rt.Fail(cudaErrorInvalidResourceHandle);
  e->recorded = true;
  e->time = std::chrono::steady_clock::now();
  StreamOrder::Get().RecordEvent(event, rt.StreamId(stream, per_thread), rt.NonBlocking(stream));
  return cudaSuccess;
}

cudaError_t WaitEvent(cudaStream_t stream, cudaEvent_t event, bool per_thread) {
  Runtime& rt = Runtime::Get();
  if (!rt.FindEvent(event)) return rt.Fail(cudaErrorInvalidResourceHandle);
  if (cudaError_t e = Sync(stream)) return e;
  StreamOrder::Get().WaitEvent(rt.StreamId(stream, per_thread), event);
  return cudaSuccess;
}

// Everything issued before has completed: the function runs at once. While
// stream-order races are checked, its accesses to watched memory (managed,
// mapped pinned, registered) become operations of its stream (or graph node):
// host_access_watch.h, StreamOrder::HostFunctionRan.
cudaError_t RunHostFunction(cudaStream_t stream, bool per_thread, absl::FunctionRef<void()> fn) {
  Runtime& rt = Runtime::Get();
  {
    host_access::Pause pause;
    if (cudaError_t e = Sync(stream)) return e;
  }
  if (!StreamOpsTraced()) {
    host_access::Pause pause;
    fn();
    return cudaSuccess;
  }
  StreamOrder& order = StreamOrder::Get();
  const std::string enqueued_at = HostCallSite();
  order.FlushHostAccesses();  // the host thread's accesses before: the host's
  {
    host_access::HostFunctionScope scope;
    fn();
  }
  order.HostFunctionRan(rt.StreamId(stream, per_thread), rt.NonBlocking(stream), enqueued_at);
  return cudaSuccess;
}

cudaError_t CallHostFunction(cudaStream_t stream, bool per_thread, cudaHostFn_t fn, void* user_data) {
  if (!fn) return Runtime::Get().Fail(cudaErrorInvalidValue);
  return RunHostFunction(stream, per_thread, [&] { fn(user_data); });
}

}  // namespace barracuda::cudart

namespace rt = barracuda::cudart;
using barracuda::cudart::EventState;
using barracuda::cudart::Runtime;

namespace {
cudaError_t Record(cudaEvent_t event, cudaStream_t stream, bool per_thread, unsigned flags) {
  if (auto captured = rt::CaptureEventRecord(event, stream, per_thread, flags)) return *captured;
  return rt::RecordEvent(event, stream, per_thread);
}

// cudaStreamSynchronize / cudaStreamQuery: a capturing stream cannot be waited for.
cudaError_t SyncStream(cudaStream_t stream, bool per_thread) {
  if (cudaError_t e = rt::CheckStreamSync(stream, per_thread)) return e;
  if (cudaError_t e = rt::Sync(stream)) return e;
  // The emulator's work is done: a query that says so orders it like a wait.
  rt::StreamOrder::Get().HostWaitStream(Runtime::Get().StreamId(stream, per_thread));
  return cudaSuccess;
}

cudaError_t WaitEventOrCapture(cudaStream_t stream, cudaEvent_t event, unsigned flags, bool per_thread) {
  if (auto captured = rt::CaptureEventWait(stream, per_thread, event, flags)) return *captured;
  return rt::WaitEvent(stream, event, per_thread);
}

cudaError_t HostFunc(cudaStream_t stream, cudaHostFn_t fn, void* user_data, bool per_thread) {
  if (!fn) return Runtime::Get().Fail(cudaErrorInvalidValue);
  if (auto captured = rt::CaptureWork(stream, per_thread, [&](rt::GraphNode& node) {
        node.type = cudaGraphNodeTypeHost;
        node.host = cudaHostNodeParams{fn, user_data};
        return cudaSuccess;
      }))
    return *captured;
  return rt::CallHostFunction(stream, per_thread, fn, user_data);
}
}  // namespace

CUDART_EXPORT cudaError_t cudaStreamCreate(cudaStream_t* stream) {
  if (!stream) return Runtime::Get().Fail(cudaErrorInvalidValue);
  *stream = Runtime::Get().CreateStream(cudaStreamDefault, 0);
  return cudaSuccess;
}

CUDART_EXPORT cudaError_t cudaStreamCreateWithFlags(cudaStream_t* stream, unsigned int flags) {
  if (!stream || (flags & ~cudaStreamNonBlocking)) return Runtime::Get().Fail(cudaErrorInvalidValue);
  *stream = Runtime::Get().CreateStream(flags, 0);
  return cudaSuccess;
}

CUDART_EXPORT cudaError_t cudaStreamCreateWithPriority(cudaStream_t* stream, unsigned int flags, int priority) {
  if (!stream || (flags & ~cudaStreamNonBlocking)) return Runtime::Get().Fail(cudaErrorInvalidValue);
  // Clamped to the range cudaDeviceGetStreamPriorityRange reports, as on a GPU.
  *stream = Runtime::Get().CreateStream(flags, priority > 0 ? 0 : (priority < -5 ? -5 : priority));
  return cudaSuccess;
}

CUDART_EXPORT cudaError_t cudaDeviceGetStreamPriorityRange(int* least, int* greatest) {
  if (least) *least = 0;
  if (greatest) *greatest = -5;
  return cudaSuccess;
}

CUDART_EXPORT cudaError_t cudaStreamDestroy(cudaStream_t stream) {
  Runtime& rt = Runtime::Get();
  const uint64_t id = rt.StreamId(stream, false);
  if (stream == nullptr || stream == cudaStreamLegacy || stream == cudaStreamPerThread || !rt.DestroyStream(stream))
    return rt.Fail(cudaErrorInvalidResourceHandle);
  rt::ForgetStream(id);
  rt::ForgetStreamAttributes(id);
  return cudaSuccess;
}

CUDART_EXPORT cudaError_t cudaStreamSynchronize(cudaStream_t stream) { return SyncStream(stream, false); }
CUDART_EXPORT cudaError_t cudaStreamSynchronize_ptsz(cudaStream_t stream) { return SyncStream(stream, true); }
CUDART_EXPORT cudaError_t cudaStreamQuery(cudaStream_t stream) { return SyncStream(stream, false); }
CUDART_EXPORT cudaError_t cudaStreamQuery_ptsz(cudaStream_t stream) { return SyncStream(stream, true); }

CUDART_EXPORT cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event, unsigned int flags) {
  return WaitEventOrCapture(stream, event, flags, false);
}
CUDART_EXPORT cudaError_t cudaStreamWaitEvent_ptsz(cudaStream_t stream, cudaEvent_t event, unsigned int flags) {
  return WaitEventOrCapture(stream, event, flags, true);
}

CUDART_EXPORT cudaError_t cudaStreamGetFlags(cudaStream_t stream, unsigned int* flags) {
  Runtime& rt = Runtime::Get();
  if (!flags) return rt.Fail(cudaErrorInvalidValue);
  if (!rt.ValidStream(stream)) return rt.Fail(cudaErrorInvalidResourceHandle);
  const bool builtin = stream == nullptr || stream == cudaStreamLegacy || stream == cudaStreamPerThread;
  *flags = builtin ? 0 : reinterpret_cast<barracuda::cudart::StreamState*>(stream)->flags;
  return cudaSuccess;
}
CUDART_EXPORT cudaError_t cudaStreamGetFlags_ptsz(cudaStream_t stream, unsigned int* flags) {
  return cudaStreamGetFlags(stream, flags);
}

CUDART_EXPORT cudaError_t cudaStreamGetPriority(cudaStream_t stream, int* priority) {
  Runtime& rt = Runtime::Get();
  if (!priority) return rt.Fail(cudaErrorInvalidValue);
  if (!rt.ValidStream(stream)) return rt.Fail(cudaErrorInvalidResourceHandle);
  const bool builtin = stream == nullptr || stream == cudaStreamLegacy || stream == cudaStreamPerThread;
  *priority = builtin ? 0 : reinterpret_cast<barracuda::cudart::StreamState*>(stream)->priority;
  return cudaSuccess;
}
CUDART_EXPORT cudaError_t cudaStreamGetPriority_ptsz(cudaStream_t stream, int* priority) {
  return cudaStreamGetPriority(stream, priority);
}

CUDART_EXPORT cudaError_t cudaLaunchHostFunc(cudaStream_t stream, cudaHostFn_t fn, void* user_data) {
  return HostFunc(stream, fn, user_data, false);
}
CUDART_EXPORT cudaError_t cudaLaunchHostFunc_ptsz(cudaStream_t stream, cudaHostFn_t fn, void* user_data) {
  return HostFunc(stream, fn, user_data, true);
}

// Host callbacks run at once: everything issued before them has completed.
// Not capturable (the runtime API says to use cudaLaunchHostFunc instead).
namespace {
cudaError_t AddCallback(cudaStream_t stream, cudaStreamCallback_t callback, void* user_data, unsigned int flags,
                        bool per_thread) {
  Runtime& rt = Runtime::Get();
  if (!callback || flags != 0) return rt.Fail(cudaErrorInvalidValue);
  if (auto captured =
          rt::CaptureWork(stream, per_thread, [](rt::GraphNode&) { return cudaErrorStreamCaptureUnsupported; }))
    return *captured;
  if (!rt.ValidStream(stream)) return rt.Fail(cudaErrorInvalidResourceHandle);
  return rt::RunHostFunction(stream, per_thread, [&] { callback(stream, rt.sticky(), user_data); });
}
}  // namespace

CUDART_EXPORT cudaError_t cudaStreamAddCallback(cudaStream_t stream, cudaStreamCallback_t callback, void* user_data,
                                                unsigned int flags) {
  return AddCallback(stream, callback, user_data, flags, false);
}
CUDART_EXPORT cudaError_t cudaStreamAddCallback_ptsz(cudaStream_t stream, cudaStreamCallback_t callback,
                                                     void* user_data, unsigned int flags) {
  return AddCallback(stream, callback, user_data, flags, true);
}

// ---------------------------------------------------------------- events

CUDART_EXPORT cudaError_t cudaEventCreate(cudaEvent_t* event) {
  if (!event) return Runtime::Get().Fail(cudaErrorInvalidValue);
  *event = Runtime::Get().CreateEvent(cudaEventDefault);
  return cudaSuccess;
}

CUDART_EXPORT cudaError_t cudaEventCreateWithFlags(cudaEvent_t* event, unsigned int flags) {
  constexpr unsigned kKnown = cudaEventBlockingSync | cudaEventDisableTiming | cudaEventInterprocess;
  if (!event || (flags & ~kKnown)) return Runtime::Get().Fail(cudaErrorInvalidValue);
  *event = Runtime::Get().CreateEvent(flags);
  return cudaSuccess;
}

CUDART_EXPORT cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream) {
  return Record(event, stream, false, 0);
}
CUDART_EXPORT cudaError_t cudaEventRecord_ptsz(cudaEvent_t event, cudaStream_t stream) {
  return Record(event, stream, true, 0);
}
CUDART_EXPORT cudaError_t cudaEventRecordWithFlags(cudaEvent_t event, cudaStream_t stream, unsigned int flags) {
  return Record(event, stream, false, flags);
}
CUDART_EXPORT cudaError_t cudaEventRecordWithFlags_ptsz(cudaEvent_t event, cudaStream_t stream, unsigned int flags) {
  return Record(event, stream, true, flags);
}

CUDART_EXPORT cudaError_t cudaEventQuery(cudaEvent_t event) {
  Runtime& rt = Runtime::Get();
  if (cudaError_t s = rt.sticky()) return rt.Fail(s);
  if (!rt.FindEvent(event)) return rt.Fail(cudaErrorInvalidResourceHandle);
  if (cudaError_t e = rt::CheckEventUse(event)) return e;
  rt::StreamOrder::Get().HostWaitEvent(event);  // completed: ordered like a wait
  return cudaSuccess;
}

CUDART_EXPORT cudaError_t cudaEventSynchronize(cudaEvent_t event) { return cudaEventQuery(event); }

CUDART_EXPORT cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t start, cudaEvent_t end) {
  Runtime& rt = Runtime::Get();
  if (!ms) return rt.Fail(cudaErrorInvalidValue);
  if (cudaError_t s = rt.sticky()) return rt.Fail(s);
  EventState* a = rt.FindEvent(start);
  EventState* b = rt.FindEvent(end);
  if (!a || !b || !a->recorded || !b->recorded || ((a->flags | b->flags) & cudaEventDisableTiming))
    return rt.Fail(cudaErrorInvalidResourceHandle);
  if (cudaError_t e = rt::CheckEventUse(start)) return e;
  if (cudaError_t e = rt::CheckEventUse(end)) return e;
  *ms = std::chrono::duration<float, std::milli>(b->time - a->time).count();
  return cudaSuccess;
}

CUDART_EXPORT cudaError_t cudaEventDestroy(cudaEvent_t event) {
  Runtime& rt = Runtime::Get();
  if (!rt.DestroyEvent(event)) return rt.Fail(cudaErrorInvalidResourceHandle);
  rt::ForgetEvent(event);
  return cudaSuccess;
}
