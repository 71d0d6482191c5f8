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
