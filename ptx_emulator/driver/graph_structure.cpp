// Graph structure and executable graphs through the runtime (graph_api.cpp of
// the replacement libcudart.so.13): CUgraph, CUgraphNode, CUgraphExec,
// CUstream and CUevent are the runtime's handles, CUgraphNodeType,
// CUgraphEdgeData, CUDA_HOST_NODE_PARAMS and CUDA_GRAPH_INSTANTIATE_PARAMS
// have the runtime's values and layouts (checked below). Nodes with
// driver-only parameter structures (kernel nodes by CUfunction, memcpy nodes
// by CUDA_MEMCPY3D) are not here.
#include "ptx_emulator/driver/driver_api.h"

using barracuda::cuda_driver::PerThread;
using barracuda::cuda_driver::Run;
using barracuda::cuda_driver::Stream;

namespace {

static_assert(sizeof(CUgraphEdgeData) == sizeof(cudaGraphEdgeData) &&
              sizeof(CUDA_HOST_NODE_PARAMS) == sizeof(cudaHostNodeParams) &&
              sizeof(CUDA_GRAPH_INSTANTIATE_PARAMS) == sizeof(cudaGraphInstantiateParams));
static_assert(static_cast<int>(CU_GRAPH_NODE_TYPE_EMPTY) == cudaGraphNodeTypeEmpty &&
              static_cast<int>(CU_GRAPH_NODE_TYPE_EVENT_RECORD) == cudaGraphNodeTypeEventRecord &&
              static_cast<int>(CU_GRAPH_NODE_TYPE_MEM_FREE) == cudaGraphNodeTypeMemFree);
static_assert(static_cast<int>(CUDA_GRAPH_INSTANTIATE_ERROR) == cudaGraphInstantiateError);

const cudaGraphEdgeData* Edges(const CUgraphEdgeData* e) { return reinterpret_cast<const cudaGraphEdgeData*>(e); }

}  // namespace

CUresult cuGraphAddEmptyNode(CUgraphNode* phGraphNode, CUgraph hGraph, const CUgraphNode* dependencies,
                             size_t numDependencies) {
  return Run([&] { return cudaGraphAddEmptyNode(phGraphNode, hGraph, dependencies, numDependencies); });
}
CUresult cuGraphAddChildGraphNode(CUgraphNode* phGraphNode, CUgraph hGraph, const CUgraphNode* dependencies,
                                  size_t numDependencies, CUgraph childGraph) {
  return Run([&] { return cudaGraphAddChildGraphNode(phGraphNode, hGraph, dependencies, numDependencies, childGraph); });
}
CUresult cuGraphAddEventRecordNode(CUgraphNode* phGraphNode, CUgraph hGraph, const CUgraphNode* dependencies,
                                   size_t numDependencies, CUevent event) {
  return Run([&] { return cudaGraphAddEventRecordNode(phGraphNode, hGraph, dependencies, numDependencies, event); });
}
CUresult cuGraphAddEventWaitNode(CUgraphNode* phGraphNode, CUgraph hGraph, const CUgraphNode* dependencies,
                                 size_t numDependencies, CUevent event) {
  return Run([&] { return cudaGraphAddEventWaitNode(phGraphNode, hGraph, dependencies, numDependencies, event); });
}
CUresult cuGraphAddHostNode(CUgraphNode* phGraphNode, CUgraph hGraph, const CUgraphNode* dependencies,
                            size_t numDependencies, const CUDA_HOST_NODE_PARAMS* nodeParams) {
  return Run([&] {
    return cudaGraphAddHostNode(phGraphNode, hGraph, dependencies, numDependencies,
                                reinterpret_cast<const cudaHostNodeParams*>(nodeParams));
  });
}
CUresult cuGraphNodeGetType(CUgraphNode hNode, CUgraphNodeType* type) {
  return Run([&] { return cudaGraphNodeGetType(hNode, reinterpret_cast<cudaGraphNodeType*>(type)); });
}
CUresult cuGraphGetNodes(CUgraph hGraph, CUgraphNode* nodes, size_t* numNodes) {
  return Run([&] { return cudaGraphGetNodes(hGraph, nodes, numNodes); });
}
CUresult cuGraphGetRootNodes(CUgraph hGraph, CUgraphNode* rootNodes, size_t* numRootNodes) {
  return Run([&] { return cudaGraphGetRootNodes(hGraph, rootNodes, numRootNodes); });
}
CUresult cuGraphGetEdges(CUgraph hGraph, CUgraphNode* from, CUgraphNode* to, CUgraphEdgeData* edgeData,
                         size_t* numEdges) {
  return Run([&] {
    return cudaGraphGetEdges(hGraph, from, to, reinterpret_cast<cudaGraphEdgeData*>(edgeData), numEdges);
  });
}
CUresult cuGraphAddDependencies(CUgraph hGraph, const CUgraphNode* from, const CUgraphNode* to,
                                const CUgraphEdgeData* edgeData, size_t numDependencies) {
  return Run([&] { return cudaGraphAddDependencies(hGraph, from, to, Edges(edgeData), numDependencies); });
}
CUresult cuGraphRemoveDependencies(CUgraph hGraph, const CUgraphNode* from, const CUgraphNode* to,
                                   const CUgraphEdgeData* edgeData, size_t numDependencies) {
  return Run([&] { return cudaGraphRemoveDependencies(hGraph, from, to, Edges(edgeData), numDependencies); });
}
CUresult cuGraphNodeGetDependencies(CUgraphNode hNode, CUgraphNode* dependencies, CUgraphEdgeData* edgeData,
                                    size_t* numDependencies) {
  return Run([&] {
    return cudaGraphNodeGetDependencies(hNode, dependencies, reinterpret_cast<cudaGraphEdgeData*>(edgeData),
                                        numDependencies);
  });
}
CUresult cuGraphNodeGetDependentNodes(CUgraphNode hNode, CUgraphNode* dependentNodes, CUgraphEdgeData* edgeData,
                                      size_t* numDependentNodes) {
  return Run([&] {
    return cudaGraphNodeGetDependentNodes(hNode, dependentNodes, reinterpret_cast<cudaGraphEdgeData*>(edgeData),
                                          numDependentNodes);
  });
}
CUresult cuGraphClone(CUgraph* phGraphClone, CUgraph originalGraph) {
  return Run([&] { return cudaGraphClone(phGraphClone, originalGraph); });
}
CUresult cuGraphDestroyNode(CUgraphNode hNode) { return Run([&] { return cudaGraphDestroyNode(hNode); }); }
CUresult cuGraphDebugDotPrint(CUgraph hGraph, const char* path, unsigned int flags) {
  return Run([&] { return cudaGraphDebugDotPrint(hGraph, path, flags); });
}

// ---------------------------------------------------------------- executable graphs

CUresult cuGraphInstantiateWithParams(CUgraphExec* phGraphExec, CUgraph hGraph,
                                      CUDA_GRAPH_INSTANTIATE_PARAMS* instantiateParams) {
  return Run([&] {
    return cudaGraphInstantiateWithParams(phGraphExec, hGraph,
                                          reinterpret_cast<cudaGraphInstantiateParams*>(instantiateParams));
  });
}
CU_EXPORT CUresult cuGraphInstantiateWithParams_ptsz(CUgraphExec* phGraphExec, CUgraph hGraph,
                                                     CUDA_GRAPH_INSTANTIATE_PARAMS* instantiateParams) {
  // The upload stream NULL means the calling thread's default stream here.
  if (instantiateParams != nullptr && instantiateParams->hUploadStream == nullptr)
    instantiateParams->hUploadStream = reinterpret_cast<CUstream>(cudaStreamPerThread);
  return cuGraphInstantiateWithParams(phGraphExec, hGraph, instantiateParams);
}
CUresult cuGraphUpload(CUgraphExec hGraphExec, CUstream hStream) {
  return Run([&] { return cudaGraphUpload(hGraphExec, Stream(hStream)); });
}
CU_EXPORT CUresult cuGraphUpload_ptsz(CUgraphExec hGraphExec, CUstream hStream) {
  return Run([&] { return cudaGraphUpload(hGraphExec, PerThread(hStream)); });
}
CU_EXPORT CUresult cuGraphLaunch_ptsz(CUgraphExec hGraphExec, CUstream hStream) {
  return Run([&] { return cudaGraphLaunch(hGraphExec, PerThread(hStream)); });
}
CUresult cuGraphExecGetFlags(CUgraphExec hGraphExec, cuuint64_t* flags) {
  return Run([&] { return cudaGraphExecGetFlags(hGraphExec, reinterpret_cast<unsigned long long*>(flags)); });
}
CUresult cuGraphExecEventRecordNodeSetEvent(CUgraphExec hGraphExec, CUgraphNode hNode, CUevent event) {
  return Run([&] { return cudaGraphExecEventRecordNodeSetEvent(hGraphExec, hNode, event); });
}
CUresult cuGraphExecEventWaitNodeSetEvent(CUgraphExec hGraphExec, CUgraphNode hNode, CUevent event) {
  return Run([&] { return cudaGraphExecEventWaitNodeSetEvent(hGraphExec, hNode, event); });
}
CUresult cuGraphExecChildGraphNodeSetParams(CUgraphExec hGraphExec, CUgraphNode hNode, CUgraph childGraph) {
  return Run([&] { return cudaGraphExecChildGraphNodeSetParams(hGraphExec, hNode, childGraph); });
}
CUresult cuGraphExecHostNodeSetParams(CUgraphExec hGraphExec, CUgraphNode hNode,
                                      const CUDA_HOST_NODE_PARAMS* nodeParams) {
  return Run([&] {
    return cudaGraphExecHostNodeSetParams(hGraphExec, hNode, reinterpret_cast<const cudaHostNodeParams*>(nodeParams));
  });
}

// ---------------------------------------------------------------- stream queries

CUresult cuStreamGetId(CUstream hStream, unsigned long long* streamId) {
  return Run([&] { return cudaStreamGetId(Stream(hStream), streamId); });
}
CU_EXPORT CUresult cuStreamGetId_ptsz(CUstream hStream, unsigned long long* streamId) {
  return Run([&] { return cudaStreamGetId(PerThread(hStream), streamId); });
}
CUresult cuStreamGetDevice(CUstream hStream, CUdevice* device) {
  return Run([&] { return cudaStreamGetDevice(Stream(hStream), device); });
}
CU_EXPORT CUresult cuStreamGetDevice_ptsz(CUstream hStream, CUdevice* device) {
  return Run([&] { return cudaStreamGetDevice(PerThread(hStream), device); });
}

// ---------------------------------------------------------------- kernel, memset and memcpy nodes
// The driver's parameter structures, translated: a kernel node's CUfunction
// (or CUkernel) is the runtime's cudaKernel_t, which the runtime's kernel nodes
// accept; a memset node's parameters are the runtime's field for field; a
// memcpy node's CUDA_MEMCPY3D between host, device or unified pointers is a
// cudaMemcpy3DParms of pitched pointers (CUDA arrays are not implemented by
// this driver). The context arguments are the one device's: ignored.

namespace {

cudaKernelNodeParams RuntimeKernel(const CUDA_KERNEL_NODE_PARAMS& p) {
  void* f = p.func != nullptr ? static_cast<void*>(p.func) : static_cast<void*>(p.kern);
  return {f, dim3(p.gridDimX, p.gridDimY, p.gridDimZ), dim3(p.blockDimX, p.blockDimY, p.blockDimZ),
          p.sharedMemBytes, p.kernelParams, p.extra};
}

cudaMemsetParams RuntimeMemset(const CUDA_MEMSET_NODE_PARAMS& p) {
  return {reinterpret_cast<void*>(static_cast<uintptr_t>(p.dst)), p.pitch, p.value, p.elementSize, p.width, p.height};
}

// One side of a CUDA_MEMCPY3D as a pitched pointer; false for arrays and
// unknown memory types.
bool PitchedSide(CUmemorytype type, const void* host, CUdeviceptr device, size_t pitch, size_t height, size_t width,
                 cudaPitchedPtr* out) {
  void* p = nullptr;
  switch (type) {
    case CU_MEMORYTYPE_HOST: p = const_cast<void*>(host); break;
    case CU_MEMORYTYPE_DEVICE:
    case CU_MEMORYTYPE_UNIFIED: p = reinterpret_cast<void*>(static_cast<uintptr_t>(device)); break;
    default: return false;
  }
  *out = cudaPitchedPtr{p, pitch ? pitch : width, width, height};
  return true;
}

CUresult RuntimeCopy(const CUDA_MEMCPY3D* c, cudaMemcpy3DParms* out) {
  if (c == nullptr) return CUDA_ERROR_INVALID_VALUE;
  if (c->srcMemoryType == CU_MEMORYTYPE_ARRAY || c->dstMemoryType == CU_MEMORYTYPE_ARRAY) return CUDA_ERROR_NOT_SUPPORTED;
  cudaMemcpy3DParms p{};
  const size_t src_h = c->srcHeight ? c->srcHeight : c->Height, dst_h = c->dstHeight ? c->dstHeight : c->Height;
  if (!PitchedSide(c->srcMemoryType, c->srcHost, c->srcDevice, c->srcPitch, src_h, c->WidthInBytes, &p.srcPtr) ||
      !PitchedSide(c->dstMemoryType, c->dstHost, c->dstDevice, c->dstPitch, dst_h, c->WidthInBytes, &p.dstPtr))
    return CUDA_ERROR_INVALID_VALUE;
  p.srcPos = cudaPos{c->srcXInBytes, c->srcY, c->srcZ};
  p.dstPos = cudaPos{c->dstXInBytes, c->dstY, c->dstZ};
  p.extent = cudaExtent{c->WidthInBytes, c->Height, c->Depth};
  p.kind = cudaMemcpyDefault;
  *out = p;
  return CUDA_SUCCESS;
}

}  // namespace

CUresult cuGraphAddKernelNode(CUgraphNode* phGraphNode, CUgraph hGraph, const CUgraphNode* dependencies,
                              size_t numDependencies, const CUDA_KERNEL_NODE_PARAMS* nodeParams) {
  if (nodeParams == nullptr) return CUDA_ERROR_INVALID_VALUE;
  const cudaKernelNodeParams k = RuntimeKernel(*nodeParams);
  return Run([&] { return cudaGraphAddKernelNode(phGraphNode, hGraph, dependencies, numDependencies, &k); });
}
CUresult cuGraphKernelNodeGetParams(CUgraphNode hNode, CUDA_KERNEL_NODE_PARAMS* nodeParams) {
  if (nodeParams == nullptr) return CUDA_ERROR_INVALID_VALUE;
  cudaKernelNodeParams k{};
  if (CUresult r = Run([&] { return cudaGraphKernelNodeGetParams(hNode, &k); })) return r;
  *nodeParams = CUDA_KERNEL_NODE_PARAMS{};
  nodeParams->func = static_cast<CUfunction>(k.func);
  nodeParams->gridDimX = k.gridDim.x, nodeParams->gridDimY = k.gridDim.y, nodeParams->gridDimZ = k.gridDim.z;
  nodeParams->blockDimX = k.blockDim.x, nodeParams->blockDimY = k.blockDim.y, nodeParams->blockDimZ = k.blockDim.z;
  nodeParams->sharedMemBytes = k.sharedMemBytes;
  nodeParams->kernelParams = k.kernelParams;
  nodeParams->extra = k.extra;
  return CUDA_SUCCESS;
}
CUresult cuGraphKernelNodeSetParams(CUgraphNode hNode, const CUDA_KERNEL_NODE_PARAMS* nodeParams) {
  if (nodeParams == nullptr) return CUDA_ERROR_INVALID_VALUE;
  const cudaKernelNodeParams k = RuntimeKernel(*nodeParams);
  return Run([&] { return cudaGraphKernelNodeSetParams(hNode, &k); });
}
CUresult cuGraphExecKernelNodeSetParams(CUgraphExec hGraphExec, CUgraphNode hNode,
                                        const CUDA_KERNEL_NODE_PARAMS* nodeParams) {
  if (nodeParams == nullptr) return CUDA_ERROR_INVALID_VALUE;
  const cudaKernelNodeParams k = RuntimeKernel(*nodeParams);
  return Run([&] { return cudaGraphExecKernelNodeSetParams(hGraphExec, hNode, &k); });
}

CUresult cuGraphAddMemsetNode(CUgraphNode* phGraphNode, CUgraph hGraph, const CUgraphNode* dependencies,
                              size_t numDependencies, const CUDA_MEMSET_NODE_PARAMS* memsetParams, CUcontext) {
  if (memsetParams == nullptr) return CUDA_ERROR_INVALID_VALUE;
  const cudaMemsetParams m = RuntimeMemset(*memsetParams);
  return Run([&] { return cudaGraphAddMemsetNode(phGraphNode, hGraph, dependencies, numDependencies, &m); });
}
CUresult cuGraphMemsetNodeGetParams(CUgraphNode hNode, CUDA_MEMSET_NODE_PARAMS* nodeParams) {
  if (nodeParams == nullptr) return CUDA_ERROR_INVALID_VALUE;
  cudaMemsetParams m{};
  if (CUresult r = Run([&] { return cudaGraphMemsetNodeGetParams(hNode, &m); })) return r;
  *nodeParams = {static_cast<CUdeviceptr>(reinterpret_cast<uintptr_t>(m.dst)), m.pitch, m.value, m.elementSize,
                 m.width, m.height};
  return CUDA_SUCCESS;
}
CUresult cuGraphMemsetNodeSetParams(CUgraphNode hNode, const CUDA_MEMSET_NODE_PARAMS* nodeParams) {
  if (nodeParams == nullptr) return CUDA_ERROR_INVALID_VALUE;
  const cudaMemsetParams m = RuntimeMemset(*nodeParams);
  return Run([&] { return cudaGraphMemsetNodeSetParams(hNode, &m); });
}
CUresult cuGraphExecMemsetNodeSetParams(CUgraphExec hGraphExec, CUgraphNode hNode,
                                        const CUDA_MEMSET_NODE_PARAMS* memsetParams, CUcontext) {
  if (memsetParams == nullptr) return CUDA_ERROR_INVALID_VALUE;
  const cudaMemsetParams m = RuntimeMemset(*memsetParams);
  return Run([&] { return cudaGraphExecMemsetNodeSetParams(hGraphExec, hNode, &m); });
}

CUresult cuGraphAddMemcpyNode(CUgraphNode* phGraphNode, CUgraph hGraph, const CUgraphNode* dependencies,
                              size_t numDependencies, const CUDA_MEMCPY3D* copyParams, CUcontext) {
  cudaMemcpy3DParms p{};
  if (CUresult r = RuntimeCopy(copyParams, &p)) return r;
  return Run([&] { return cudaGraphAddMemcpyNode(phGraphNode, hGraph, dependencies, numDependencies, &p); });
}
CUresult cuGraphMemcpyNodeSetParams(CUgraphNode hNode, const CUDA_MEMCPY3D* nodeParams) {
  cudaMemcpy3DParms p{};
  if (CUresult r = RuntimeCopy(nodeParams, &p)) return r;
  return Run([&] { return cudaGraphMemcpyNodeSetParams(hNode, &p); });
}
CUresult cuGraphExecMemcpyNodeSetParams(CUgraphExec hGraphExec, CUgraphNode hNode, const CUDA_MEMCPY3D* copyParams,
                                        CUcontext) {
  cudaMemcpy3DParms p{};
  if (CUresult r = RuntimeCopy(copyParams, &p)) return r;
  return Run([&] { return cudaGraphExecMemcpyNodeSetParams(hGraphExec, hNode, &p); });
}
