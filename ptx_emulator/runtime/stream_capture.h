// Stream capture: while a stream captures, the work issued to it becomes nodes
// of a graph instead of running, and calls that would synchronise with the
// capture are refused (the CUDA 13 rules, cudaStreamBeginCapture and
// cudaThreadExchangeStreamCaptureMode in cuda_runtime_api.h).
//
// The API entry points ask here first:
//   - stream-ordered work: CaptureWork() adds the node and returns the call's
//     result, or nullopt when the work is to run now;
//   - synchronous or otherwise unsafe calls: CheckUnsafeCall() /
//     CheckStreamSync() return the error the capture rules give (and
//     invalidate the captures concerned), cudaSuccess when allowed.
// With no capture in progress every check is one atomic load. An error they
// return is already recorded as the thread's last error.
#ifndef BARRACUDA_PTX_EMULATOR_RUNTIME_STREAM_CAPTURE_H_
#define BARRACUDA_PTX_EMULATOR_RUNTIME_STREAM_CAPTURE_H_

#include <cstdint>
#include <optional>

#include "absl/functional/function_ref.h"
#include "ptx_emulator/runtime/cuda_api.h"

namespace barracuda::cudart {

struct GraphNode;

// For work issued to `stream` (`per_thread`: NULL is the thread's default
// stream). When the stream captures, `fill` sets the node's type and
// parameters and the node is added after the stream's current dependencies;
// the result is cudaSuccess or the error (which invalidates the capture).
// Work on the legacy stream while a blocking stream captures is refused with
// cudaErrorStreamCaptureImplicit. nullopt: not capturing, run the work.
// `fill` runs under GraphRegistry::mu() (graphs and captures share that lock)
// and must not take it.
std::optional<cudaError_t> CaptureWork(cudaStream_t stream, bool per_thread,
                                       absl::FunctionRef<cudaError_t(GraphNode&)> fill);
// A call that is not stream-ordered work and is unsafe during capture
// (synchronous copies and sets, allocation, device synchronisation).
// `legacy`: it also synchronises with the legacy stream (a blocking capturing
// stream makes that cudaErrorStreamCaptureImplicit). Otherwise
// cudaErrorStreamCaptureUnsupported when the calling thread's mode forbids it.
cudaError_t CheckUnsafeCall(bool legacy);
// A synchronous copy or set on the default stream: the legacy one, or with
// `per_thread` the thread's own (refused while that one captures).
cudaError_t CheckSynchronousCall(bool per_thread);
// cudaStreamSynchronize / cudaStreamQuery: a capturing stream cannot be waited for.
cudaError_t CheckStreamSync(cudaStream_t stream, bool per_thread);
// cudaEventRecord / cudaStreamWaitEvent on a capturing stream (fork and join):
// nullopt when the stream does not capture and the event is not from a capture.
std::optional<cudaError_t> CaptureEventRecord(cudaEvent_t event, cudaStream_t stream, bool per_thread,
                                              unsigned flags);
std::optional<cudaError_t> CaptureEventWait(cudaStream_t stream, bool per_thread, cudaEvent_t event,
                                            unsigned flags);
// cudaEventQuery / Synchronize / ElapsedTime: cudaErrorCapturedEvent for an
// event last recorded in a capture still in progress.
cudaError_t CheckEventUse(cudaEvent_t event);
// Cleanup when handles die.
void ForgetEvent(cudaEvent_t event);
void ForgetStream(uint64_t stream_id);  // Runtime::StreamId of the destroyed stream
void ResetCaptures();  // cudaDeviceReset

}  // namespace barracuda::cudart

#endif  // BARRACUDA_PTX_EMULATOR_RUNTIME_STREAM_CAPTURE_H_
