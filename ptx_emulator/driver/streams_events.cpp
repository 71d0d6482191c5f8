// Streams, events and the stream-capture / graph-launch subset, as the
// runtime's (CUstream == cudaStream_t, CUevent == cudaEvent_t, CUgraph ==
// cudaGraph_t; the flag values of the two APIs agree: CU_STREAM_NON_BLOCKING
// == cudaStreamNonBlocking, CU_EVENT_DISABLE_TIMING == cudaEventDisableTiming...).
#include "ptx_emulator/driver/driver_api.h"

using barracuda::cuda_driver::PerThread;
using barracuda::cuda_driver::Run;

// ---------------------------------------------------------------- streams

CUresult cuStreamCreate(CUstream* phStream, unsigned int Flags) {
  return Run([&] { return cudaStreamCreateWithFlags(phStream, Flags); });
}

CUresult cuStreamCreateWithPriority(CUstream* phStream, unsigned int flags, int priority) {
  return Run([&] { return cudaStreamCreateWithPriority(phStream, flags, priority); });
}

CUresult cuStreamDestroy_v2(CUstream hStream) {
  return Run([&] { return cudaStreamDestroy(hStream); });
}

CUresult cuStreamSynchronize(CUstream hStream) {
  return Run([&] { return cudaStreamSynchronize(hStream); });
}
CU_EXPORT CUresult cuStreamSynchronize_ptsz(CUstream hStream) {
  return Run([&] { return cudaStreamSynchronize(PerThread(hStream)); });
}

CUresult cuStreamQuery(CUstream hStream) {
  return Run([&] { return cudaStreamQuery(hStream); });
}
CU_EXPORT CUresult cuStreamQuery_ptsz(CUstream hStream) {
  return Run([&] { return cudaStreamQuery(PerThread(hStream)); });
}

CUresult cuStreamWaitEvent(CUstream hStream, CUevent hEvent, unsigned int Flags) {
  return Run([&] { return cudaStreamWaitEvent(hStream, hEvent, Flags); });
}
CU_EXPORT CUresult cuStreamWaitEvent_ptsz(CUstream hStream, CUevent hEvent, unsigned int Flags) {
  return Run([&] { return cudaStreamWaitEvent(PerThread(hStream), hEvent, Flags); });
}

CUresult cuStreamGetPriority(CUstream hStream, int* priority) {
  return Run([&] { return cudaStreamGetPriority(hStream, priority); });
}

CUresult cuStreamGetFlags(CUstream hStream, unsigned int* flags) {
  return Run([&] { return cudaStreamGetFlags(hStream, flags); });
}

// CUstreamCallback and cudaStreamCallback_t have the same ABI (the handle,
// the status as an int-sized enum, the user data).
CUresult cuStreamAddCallback(CUstream hStream, CUstreamCallback callback, void* userData, unsigned int flags) {
  return Run([&] {
    return cudaStreamAddCallback(hStream, reinterpret_cast<cudaStreamCallback_t>(callback), userData, flags);
  });
}

// ---------------------------------------------------------------- events

CUresult cuEventCreate(CUevent* phEvent, unsigned int Flags) {
  return Run([&] { return cudaEventCreateWithFlags(phEvent, Flags); });
}

CUresult cuEventRecord(CUevent hEvent, CUstream hStream) {
  return Run([&] { return cudaEventRecord(hEvent, hStream); });
}
CU_EXPORT CUresult cuEventRecord_ptsz(CUevent hEvent, CUstream hStream) {
  return Run([&] { return cudaEventRecord(hEvent, PerThread(hStream)); });
}

CUresult cuEventRecordWithFlags(CUevent hEvent, CUstream hStream, unsigned int flags) {
  return Run([&] { return cudaEventRecordWithFlags(hEvent, hStream, flags); });
}
CU_EXPORT CUresult cuEventRecordWithFlags_ptsz(CUevent hEvent, CUstream hStream, unsigned int flags) {
  return Run([&] { return cudaEventRecordWithFlags(hEvent, PerThread(hStream), flags); });
}

CUresult cuEventQuery(CUevent hEvent) {
  return Run([&] { return cudaEventQuery(hEvent); });
}

CUresult cuEventSynchronize(CUevent hEvent) {
  return Run([&] { return cudaEventSynchronize(hEvent); });
}

CUresult cuEventElapsedTime_v2(float* pMilliseconds, CUevent hStart, CUevent hEnd) {
  return Run([&] { return cudaEventElapsedTime(pMilliseconds, hStart, hEnd); });
}

CUresult cuEventDestroy_v2(CUevent hEvent) {
  return Run([&] { return cudaEventDestroy(hEvent); });
}

// ---------------------------------------------------------------- capture and graphs

// CUstreamCaptureMode equals cudaStreamCaptureMode.
CUresult cuStreamBeginCapture_v2(CUstream hStream, CUstreamCaptureMode mode) {
  return Run([&] { return cudaStreamBeginCapture(hStream, static_cast<cudaStreamCaptureMode>(mode)); });
}

CUresult cuStreamEndCapture(CUstream hStream, CUgraph* phGraph) {
  return Run([&] { return cudaStreamEndCapture(hStream, phGraph); });
}

CUresult cuStreamIsCapturing(CUstream hStream, CUstreamCaptureStatus* captureStatus) {
  return Run([&] {
    return cudaStreamIsCapturing(hStream, reinterpret_cast<cudaStreamCaptureStatus*>(captureStatus));
  });
}

CUresult cuGraphCreate(CUgraph* phGraph, unsigned int flags) {
  return Run([&] { return cudaGraphCreate(phGraph, flags); });
}

CUresult cuGraphDestroy(CUgraph hGraph) {
  return Run([&] { return cudaGraphDestroy(hGraph); });
}

CUresult cuGraphInstantiateWithFlags(CUgraphExec* phGraphExec, CUgraph hGraph, unsigned long long flags) {
  return Run([&] { return cudaGraphInstantiateWithFlags(phGraphExec, hGraph, flags); });
}

CUresult cuGraphLaunch(CUgraphExec hGraphExec, CUstream hStream) {
  return Run([&] { return cudaGraphLaunch(hGraphExec, hStream); });
}

CUresult cuGraphExecDestroy(CUgraphExec hGraphExec) {
  return Run([&] { return cudaGraphExecDestroy(hGraphExec); });
}
