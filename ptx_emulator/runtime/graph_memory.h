// Graph memory nodes (CUDA programming guide, "Graph Memory Nodes"; runtime
// API cudaGraphAddMemAllocNode / cudaGraphAddMemFreeNode): an allocation that
// a graph makes and frees in graph order. Made by the explicit API or by
// capturing cudaMallocAsync / cudaMallocFromPoolAsync / cudaFreeAsync.
//
// The virtual address is fixed when the alloc node is made (params->dptr) and
// stays the graph allocation's for every launch; here it is a DeviceMemory
// allocation made at once. Running the alloc node makes the allocation live
// (counted in cudaGraphMemAttrUsedMemCurrent; reserved memory grows to cover
// it), running its free node, cudaFree or cudaFreeAsync of the address ends
// it (the bytes stay reserved until cudaDeviceGraphMemTrim). Launching a
// graph whose allocation is still live from an earlier launch fails with
// cudaErrorInvalidValue, as the documentation requires the allocation to be
// freed first. Not modelled: accesses outside the alloc-to-free order are not
// reported (the memory stays addressable between launches), and the
// restrictions on cloning, child graphs and multiple instantiation of graphs
// with memory nodes are not enforced.
#ifndef BARRACUDA_PTX_EMULATOR_RUNTIME_GRAPH_MEMORY_H_
#define BARRACUDA_PTX_EMULATOR_RUNTIME_GRAPH_MEMORY_H_

#include "ptx_emulator/runtime/cuda_api.h"

namespace barracuda::cudart {

struct GraphNode;
struct Graph;

// Node makers (the explicit API and stream capture): validate, allocate the
// address (params->dptr is set), fill `n`.
cudaError_t MakeMemAllocNode(GraphNode& n, cudaMemAllocNodeParams* params);
cudaError_t MakeMemFreeNode(GraphNode& n, void* dptr);
// Graph execution.
cudaError_t RunMemAllocNode(const GraphNode& n);
cudaError_t RunMemFreeNode(const GraphNode& n);
// cudaFree / cudaFreeAsync of `ptr`: true when it is a graph allocation (its
// address stays the graph's; the allocation ends).
bool ReleaseGraphAllocation(void* ptr);
// cudaGraphInstantiateFlagAutoFreeOnLaunch: before a launch, the allocations
// of `graph`'s alloc nodes (child graphs' too) that are still live end.
void AutoFreeBeforeLaunch(const Graph& graph);
// cudaDeviceReset: the arena and every graph allocation in it are gone (an
// alloc node made before now runs with cudaErrorInvalidValue); the counters
// start again from 0.
void ForgetGraphAllocations();

}  // namespace barracuda::cudart

#endif  // BARRACUDA_PTX_EMULATOR_RUNTIME_GRAPH_MEMORY_H_
