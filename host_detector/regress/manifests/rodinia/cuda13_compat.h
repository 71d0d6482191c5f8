// Rodinia 3.1 (2015) on CUDA 13: the runtime API the benchmarks use that CUDA
// 12 and 13 removed, mapped onto what remains. Force-included by the nvcc
// wrapper of build_rodinia.sh (`-include cuda13_compat.h`).
//
//  - cudaThread* (deprecated since CUDA 4, removed in 12): the cudaDevice* twins.
//  - Texture references (removed in 12): `texture<T, 1, cudaReadModeElementType>`
//    bound to linear device memory with cudaBindTexture and read with
//    tex1Dfetch, the form Rodinia uses most (kmeans, bfs-like codes), become a
//    __device__ pointer read with a plain load. Under barracuda those reads are
//    ordinary global loads: a texture read of memory written in the same
//    launch is undefined behaviour on a GPU, and barracuda reports it as the
//    race it is. 2-D textures on CUDA arrays (tex2D, cudaBindTextureToArray)
//    and normalised-float reads are not mapped: such a benchmark fails to
//    compile with the missing name, rather than run with wrong values.
#ifndef BARRACUDA_RODINIA_CUDA13_COMPAT_H_
#define BARRACUDA_RODINIA_CUDA13_COMPAT_H_
#if defined(__cplusplus) && defined(__CUDACC__)
#include <climits>
#include <cuda_runtime.h>

#define cudaThreadSynchronize cudaDeviceSynchronize
#define cudaThreadExit cudaDeviceReset
#define cudaThreadSetCacheConfig cudaDeviceSetCacheConfig
#define cudaThreadGetCacheConfig cudaDeviceGetCacheConfig
#define cudaThreadSetLimit cudaDeviceSetLimit
#define cudaThreadGetLimit cudaDeviceGetLimit

namespace barracuda_compat {

template <class T, int Dim = 1, enum cudaTextureReadMode Mode = cudaReadModeElementType>
struct texture_ref {
  static_assert(Dim == 1, "cuda13_compat.h maps only 1-D texture references (tex1Dfetch)");
  static_assert(Mode == cudaReadModeElementType, "cuda13_compat.h maps only cudaReadModeElementType textures");
  const T* ptr;  // first: cudaBindTexture writes it
  // Fields programs set before binding; kept so that the code compiles, not used.
  int normalized;
  enum cudaTextureFilterMode filterMode;
  enum cudaTextureAddressMode addressMode[3];
  struct cudaChannelFormatDesc channelDesc;
};

}  // namespace barracuda_compat

template <class T, int Dim, enum cudaTextureReadMode Mode>
static __host__ cudaError_t cudaBindTexture(size_t* offset, const barracuda_compat::texture_ref<T, Dim, Mode>& tex,
                                           const void* dev_ptr, size_t size = UINT_MAX) {
  (void)size;
  if (offset != nullptr) *offset = 0;
  return cudaMemcpyToSymbol(tex, &dev_ptr, sizeof(dev_ptr));
}

template <class T, int Dim, enum cudaTextureReadMode Mode>
static __host__ cudaError_t cudaBindTexture(size_t* offset, const barracuda_compat::texture_ref<T, Dim, Mode>& tex,
                                           const void* dev_ptr, const struct cudaChannelFormatDesc& desc,
                                           size_t size = UINT_MAX) {
  (void)desc;
  return cudaBindTexture(offset, tex, dev_ptr, size);
}

template <class T, int Dim, enum cudaTextureReadMode Mode>
static __host__ cudaError_t cudaUnbindTexture(const barracuda_compat::texture_ref<T, Dim, Mode>& tex) {
  const void* none = nullptr;
  return cudaMemcpyToSymbol(tex, &none, sizeof(none));
}

template <class T, enum cudaTextureReadMode Mode>
static __device__ T tex1Dfetch(const barracuda_compat::texture_ref<T, 1, Mode>& tex, int x) {
  return tex.ptr[x];
}

// `texture<float, 1, cudaReadModeElementType> t;` at file scope declares a
// device variable, as a texture reference did.
#define texture __device__ ::barracuda_compat::texture_ref

#endif  // __cplusplus && __CUDACC__
#endif  // BARRACUDA_RODINIA_CUDA13_COMPAT_H_
