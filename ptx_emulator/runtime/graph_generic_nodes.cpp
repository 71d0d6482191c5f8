// The generic graph-node calls (CUDA 12.2+): cudaGraphAddNode,
// cudaGraphNodeSetParams and cudaGraphExecNodeSetParams take a
// cudaGraphNodeParams whose `type` selects one member of a union. Each is the
// typed call of that node type (graph_api.cpp, graph_memory.cpp), so a node
// made either way is the same node, checked the same way. The node types the
// emulator has no typed call for (external semaphores) are refused with
// cudaErrorNotSupported; conditional nodes have no typed call and are made
// here (AddConditionalNode, graph_model.h); as are edges other than full-completion
// ones (programmatic ports) and child graphs moved rather than cloned into
// their parent.
#include <cstring>

#include "ptx_emulator/runtime/cuda_api.h"
#include "ptx_emulator/runtime/graph_model.h"
#include "ptx_emulator/runtime/runtime_state.h"

namespace {

using barracuda::cudart::Fail;
using barracuda::cudart::Runtime;

// The reserved fields must be zero (the runtime documents them so).
bool ReservedZero(const cudaGraphNodeParams& p) {
  return p.reserved0[0] == 0 && p.reserved0[1] == 0 && p.reserved0[2] == 0 && p.reserved2 == 0;
}

cudaKernelNodeParams Kernel(const cudaKernelNodeParamsV2& k) {
  return {k.func, k.gridDim, k.blockDim, k.sharedMemBytes, k.kernelParams, k.extra};
}
cudaMemsetParams Memset(const cudaMemsetParamsV2& m) {
  return {m.dst, m.pitch, m.value, m.elementSize, m.width, m.height};
}
cudaHostNodeParams Host(const cudaHostNodeParamsV2& h) { return {h.fn, h.userData}; }

}  // namespace

CUDART_EXPORT cudaError_t cudaGraphAddNode(cudaGraphNode_t* node, cudaGraph_t graph, const cudaGraphNode_t* deps,
                                           const cudaGraphEdgeData* edge_data, size_t num_deps,
                                           cudaGraphNodeParams* params) {
  if (!params || !ReservedZero(*params)) return Fail(cudaErrorInvalidValue);
  for (size_t i = 0; edge_data && i < num_deps; ++i) {
    const cudaGraphEdgeData& e = edge_data[i];
    if (e.from_port || e.to_port || e.type) return Fail(cudaErrorNotSupported);  // programmatic edges
  }
  switch (params->type) {
    case cudaGraphNodeTypeKernel: {
      const cudaKernelNodeParams k = Kernel(params->kernel);
      return cudaGraphAddKernelNode(node, graph, deps, num_deps, &k);
    }
    case cudaGraphNodeTypeMemcpy:
      if (params->memcpy.flags != 0) return Fail(cudaErrorInvalidValue);
      return cudaGraphAddMemcpyNode(node, graph, deps, num_deps, &params->memcpy.copyParams);
    case cudaGraphNodeTypeMemset: {
      const cudaMemsetParams m = Memset(params->memset);
      return cudaGraphAddMemsetNode(node, graph, deps, num_deps, &m);
    }
    case cudaGraphNodeTypeHost: {
      const cudaHostNodeParams h = Host(params->host);
      return cudaGraphAddHostNode(node, graph, deps, num_deps, &h);
    }
    case cudaGraphNodeTypeGraph:
      if (params->graph.ownership != cudaGraphChildGraphOwnershipClone) return Fail(cudaErrorNotSupported);
      return cudaGraphAddChildGraphNode(node, graph, deps, num_deps, params->graph.graph);
    case cudaGraphNodeTypeEmpty:
      return cudaGraphAddEmptyNode(node, graph, deps, num_deps);
    case cudaGraphNodeTypeWaitEvent:
      return cudaGraphAddEventWaitNode(node, graph, deps, num_deps, params->eventWait.event);
    case cudaGraphNodeTypeEventRecord:
      return cudaGraphAddEventRecordNode(node, graph, deps, num_deps, params->eventRecord.event);
    case cudaGraphNodeTypeMemAlloc: {
      cudaMemAllocNodeParamsV2& a = params->alloc;
      cudaMemAllocNodeParams v1{a.poolProps, a.accessDescs, a.accessDescCount, a.bytesize, nullptr};
      const cudaError_t e = cudaGraphAddMemAllocNode(node, graph, deps, num_deps, &v1);
      if (e == cudaSuccess) a.dptr = v1.dptr;  // out: the allocation's address
      return e;
    }
    case cudaGraphNodeTypeMemFree:
      return cudaGraphAddMemFreeNode(node, graph, deps, num_deps, params->free.dptr);
    case cudaGraphNodeTypeConditional:
      return barracuda::cudart::AddConditionalNode(node, graph, deps, num_deps, &params->conditional);
    default:
      return Fail(cudaErrorNotSupported);  // external semaphores
  }
}

CUDART_EXPORT cudaError_t cudaGraphNodeSetParams(cudaGraphNode_t node, cudaGraphNodeParams* params) {
  if (!params || !ReservedZero(*params)) return Fail(cudaErrorInvalidValue);
  switch (params->type) {
    case cudaGraphNodeTypeKernel: {
      const cudaKernelNodeParams k = Kernel(params->kernel);
      return cudaGraphKernelNodeSetParams(node, &k);
    }
    case cudaGraphNodeTypeMemcpy:
      if (params->memcpy.flags != 0) return Fail(cudaErrorInvalidValue);
      return cudaGraphMemcpyNodeSetParams(node, &params->memcpy.copyParams);
    case cudaGraphNodeTypeMemset: {
      const cudaMemsetParams m = Memset(params->memset);
      return cudaGraphMemsetNodeSetParams(node, &m);
    }
    case cudaGraphNodeTypeHost: {
      const cudaHostNodeParams h = Host(params->host);
      return cudaGraphHostNodeSetParams(node, &h);
    }
    case cudaGraphNodeTypeWaitEvent:
      return cudaGraphEventWaitNodeSetEvent(node, params->eventWait.event);
    case cudaGraphNodeTypeEventRecord:
      return cudaGraphEventRecordNodeSetEvent(node, params->eventRecord.event);
    case cudaGraphNodeTypeGraph:  // a child graph's topology is set at creation
    case cudaGraphNodeTypeEmpty:
    case cudaGraphNodeTypeMemAlloc:  // allocations cannot change after creation
    case cudaGraphNodeTypeMemFree:
      return Fail(cudaErrorInvalidValue);
    default:
      return Fail(cudaErrorNotSupported);
  }
}

CUDART_EXPORT cudaError_t cudaGraphExecNodeSetParams(cudaGraphExec_t exec, cudaGraphNode_t node,
                                                     cudaGraphNodeParams* params) {
  if (!params || !ReservedZero(*params)) return Fail(cudaErrorInvalidValue);
  switch (params->type) {
    case cudaGraphNodeTypeKernel: {
      const cudaKernelNodeParams k = Kernel(params->kernel);
      return cudaGraphExecKernelNodeSetParams(exec, node, &k);
    }
    case cudaGraphNodeTypeMemcpy:
      if (params->memcpy.flags != 0) return Fail(cudaErrorInvalidValue);
      return cudaGraphExecMemcpyNodeSetParams(exec, node, &params->memcpy.copyParams);
    case cudaGraphNodeTypeMemset: {
      const cudaMemsetParams m = Memset(params->memset);
      return cudaGraphExecMemsetNodeSetParams(exec, node, &m);
    }
    case cudaGraphNodeTypeHost: {
      const cudaHostNodeParams h = Host(params->host);
      return cudaGraphExecHostNodeSetParams(exec, node, &h);
    }
    case cudaGraphNodeTypeGraph:
      return cudaGraphExecChildGraphNodeSetParams(exec, node, params->graph.graph);
    case cudaGraphNodeTypeWaitEvent:
      return cudaGraphExecEventWaitNodeSetEvent(exec, node, params->eventWait.event);
    case cudaGraphNodeTypeEventRecord:
      return cudaGraphExecEventRecordNodeSetEvent(exec, node, params->eventRecord.event);
    case cudaGraphNodeTypeEmpty:
    case cudaGraphNodeTypeMemAlloc:
    case cudaGraphNodeTypeMemFree:
      return Fail(cudaErrorInvalidValue);
    default:
      return Fail(cudaErrorNotSupported);
  }
}
