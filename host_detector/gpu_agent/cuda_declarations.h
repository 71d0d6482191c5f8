// The CUDA 13 runtime API as the toolkit declares it (the exact types and
// signatures the agent interposes), plus the registration and launch entry
// points nvcc-generated code calls, which the toolkit declares only in
// internal headers (../shared/notes/cuda13-runtime-abi.md).
#ifndef BARRACUDA_HOST_DETECTOR_GPU_AGENT_CUDA_DECLARATIONS_H_
#define BARRACUDA_HOST_DETECTOR_GPU_AGENT_CUDA_DECLARATIONS_H_

#pragma GCC visibility push(default)
#include <cuda_runtime_api.h>
#pragma GCC visibility pop

// Interposed definitions: exported under version node libcudart.so.13
// (exports.map); everything else in the agent is hidden.
#define BARRACUDA_AGENT_EXPORT extern "C" __attribute__((visibility("default")))

struct uint3;
extern "C" {
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
cudaError_t __cudaGetKernel(cudaKernel_t* kernel, const void* host_fun);
cudaError_t __cudaLaunchKernel(cudaKernel_t kernel, dim3 grid, dim3 block, void** args, size_t shared_mem,
                               cudaStream_t stream);
cudaError_t __cudaLaunchKernel_ptsz(cudaKernel_t kernel, dim3 grid, dim3 block, void** args, size_t shared_mem,
                                    cudaStream_t stream);
cudaError_t cudaLaunchKernel_ptsz(const void* func, dim3 grid, dim3 block, void** args, size_t shared_mem,
                                  cudaStream_t stream);
cudaError_t cudaLaunchKernelExC_ptsz(const cudaLaunchConfig_t* config, const void* func, void** args);
cudaError_t cudaLaunchCooperativeKernel_ptsz(const void* func, dim3 grid, dim3 block, void** args,
                                             size_t shared_mem, cudaStream_t stream);
cudaError_t cudaMallocAsync_ptsz(void** ptr, size_t size, cudaStream_t stream);
cudaError_t cudaFreeAsync_ptsz(void* ptr, cudaStream_t stream);
cudaError_t cudaGraphLaunch_ptsz(cudaGraphExec_t exec, cudaStream_t stream);
}

#endif  // BARRACUDA_HOST_DETECTOR_GPU_AGENT_CUDA_DECLARATIONS_H_
