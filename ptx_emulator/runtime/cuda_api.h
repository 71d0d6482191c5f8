// The CUDA 13 runtime API as the toolkit declares it, with default visibility
// so that the definitions in this library are exported (the library is built
// with -fvisibility=hidden; the version script libcudart.map lists the names).
//
// Every runtime source includes this instead of cuda_runtime_api.h: the types,
// signatures and cudaDeviceProp layout are exactly CUDA 13's.
#ifndef BARRACUDA_PTX_EMULATOR_RUNTIME_CUDA_API_H_
#define BARRACUDA_PTX_EMULATOR_RUNTIME_CUDA_API_H_

#pragma GCC visibility push(default)
#include <cuda_runtime.h>  // cuda_runtime_api.h, driver_types.h, make_cudaExtent & co.
#pragma GCC visibility pop

// Exported definitions that the toolkit headers declare only through macros
// (per-thread default stream variants) or in internal headers (registration).
#define CUDART_EXPORT extern "C" __attribute__((visibility("default")))

struct uint3;
extern "C" {
#pragma GCC visibility push(default)
void** __cudaRegisterFatBinary(void* fat_cubin);
void __cudaRegisterFatBinaryEnd(void** handle);
void __cudaUnregisterFatBinary(void** handle);
void __cudaRegisterFunction(void** handle, const char* host_fun, char* device_fun, const char* device_name,
                            int thread_limit, uint3* tid, uint3* bid, dim3* block_dim, dim3* grid_dim,
                            int* warp_size);
void __cudaRegisterVar(void** handle, char* host_var, char* device_address, const char* device_name, int ext,
                       size_t size, int constant, int global);
void __cudaRegisterManagedVar(void** handle, void** host_var_ptr_address, char* device_address,
                              const char* device_name, int ext, size_t size, int constant, int global);
char __cudaInitModule(void** handle);
unsigned __cudaPushCallConfiguration(dim3 grid, dim3 block, size_t shared_mem, struct CUstream_st* stream);
cudaError_t __cudaPopCallConfiguration(dim3* grid, dim3* block, size_t* shared_mem, void* stream);
cudaError_t __cudaGetKernel(cudaKernel_t* kernel, const void* host_fun);
cudaError_t __cudaLaunchKernel(cudaKernel_t kernel, dim3 grid, dim3 block, void** args, size_t shared_mem,
                               cudaStream_t stream);
cudaError_t __cudaLaunchKernel_ptsz(cudaKernel_t kernel, dim3 grid, dim3 block, void** args, size_t shared_mem,
                                    cudaStream_t stream);
#pragma GCC visibility pop
}

#endif  // BARRACUDA_PTX_EMULATOR_RUNTIME_CUDA_API_H_
