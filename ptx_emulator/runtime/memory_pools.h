// Stream-ordered memory pools (memory_pools.cpp): the accounting behind
// cudaMallocAsync / cudaMallocFromPoolAsync / cudaFreeAsync, whose memory
// comes from the DeviceMemory arena like cudaMalloc's (memory.cpp).
#ifndef BARRACUDA_PTX_EMULATOR_RUNTIME_MEMORY_POOLS_H_
#define BARRACUDA_PTX_EMULATOR_RUNTIME_MEMORY_POOLS_H_

#include <cstddef>

#include "ptx_emulator/runtime/cuda_api.h"

namespace barracuda::cudart {

// The device's current pool (cudaMallocAsync's).
cudaMemPool_t CurrentMemPool();
// A live pool (created and not destroyed, or the default one).
bool ValidMemPool(cudaMemPool_t pool);
// Before an allocation of `bytes` from `pool`: cudaErrorMemoryAllocation when
// it would pass the pool's maxSize.
cudaError_t CheckPoolLimit(cudaMemPool_t pool, size_t bytes);
// After a successful allocation from `pool` / before freeing `ptr` (a no-op
// for memory that no pool gave).
void NotePoolAllocation(cudaMemPool_t pool, void* ptr, size_t bytes);
void NotePoolFree(void* ptr);
// cudaDeviceReset: created pools are destroyed, the default one emptied.
void ResetMemoryPools();

}  // namespace barracuda::cudart

#endif  // BARRACUDA_PTX_EMULATOR_RUNTIME_MEMORY_POOLS_H_
