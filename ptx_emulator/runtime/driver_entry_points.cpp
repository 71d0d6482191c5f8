// cudaGetDriverEntryPoint{,ByVersion}{,_ptsz}: the driver functions a
// program may fetch through the runtime. The emulator has no CUDA driver, so
// the table holds the emulator's own implementations: the TMA tensor-map
// functions (cuTensorMapEncodeTiled, cuTensorMapEncodeIm2col,
// cuTensorMapReplaceAddress), whose maps
// only the emulator's cp.async.bulk.tensor understands (ops/tensor_map.h),
// and cuGetErrorString / cuGetErrorName, which programs fetch beside them to
// print the CUresults these return.
// Any other symbol comes from the emulator's libcuda.so.1 (ptx_emulator/driver)
// when the process has loaded it (a program linked with -lcuda, or one that
// dlopened it): its cuGetProcAddress, after its cuInit as the real runtime
// initialises the driver. Without it, or when it does not know the name,
// the answer is the real runtime's for an unknown symbol: cudaSuccess, a
// null pointer and cudaDriverEntryPointSymbolNotFound.
#include <dlfcn.h>

#include <cstring>

#include <cuda.h>

#include "ptx_emulator/ops/tensor_map.h"
#include "ptx_emulator/runtime/cuda_api.h"
#include "ptx_emulator/runtime/runtime_state.h"

using barracuda::cudart::Runtime;
namespace tmap = barracuda::emu::tmap;

namespace {

// The emulator's encoding takes the driver's enumerators by value (compared
// as ints: two enum types).
template <typename A, typename B>
constexpr bool SameValue(A a, B b) {
  return static_cast<long long>(a) == static_cast<long long>(b);
}
static_assert(SameValue(tmap::kUint8, CU_TENSOR_MAP_DATA_TYPE_UINT8) &&
              SameValue(tmap::kBfloat16, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16) &&
              SameValue(tmap::k16U6Align16B, CU_TENSOR_MAP_DATA_TYPE_16U6_ALIGN16B));
static_assert(SameValue(tmap::kInterleave32B, CU_TENSOR_MAP_INTERLEAVE_32B));
static_assert(SameValue(tmap::kSwizzle128B, CU_TENSOR_MAP_SWIZZLE_128B) &&
              SameValue(tmap::kSwizzle128BAtom64B, CU_TENSOR_MAP_SWIZZLE_128B_ATOM_64B));
static_assert(SameValue(tmap::kL2_256B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B));
static_assert(SameValue(tmap::kOobFillNanRequestZeroFma, CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA));
static_assert(sizeof(CUtensorMap) == tmap::kBytes);

// The driver (and runtime) version the emulator reports (cudaDriverGetVersion).
constexpr unsigned kDriverVersion = 13000;

// What cuTensorMapEncodeTiled and cuTensorMapEncodeIm2col both take.
tmap::TiledArgs Common(CUtensorMapDataType tensorDataType, cuuint32_t tensorRank, void* globalAddress,
                       const cuuint64_t* globalDim, const cuuint64_t* globalStrides,
                       const cuuint32_t* elementStrides, CUtensorMapInterleave interleave,
                       CUtensorMapSwizzle swizzle, CUtensorMapL2promotion l2Promotion,
                       CUtensorMapFloatOOBfill oobFill) {
  tmap::TiledArgs a;
  a.data_type = static_cast<uint32_t>(tensorDataType);
  a.rank = tensorRank;
  a.global_address = globalAddress;
  a.global_dim = globalDim;
  a.global_strides = globalStrides;
  a.element_strides = elementStrides;
  a.interleave = static_cast<uint32_t>(interleave);
  a.swizzle = static_cast<uint32_t>(swizzle);
  a.l2_promotion = static_cast<uint32_t>(l2Promotion);
  a.oob_fill = static_cast<uint32_t>(oobFill);
  return a;
}

CUresult CUDAAPI EncodeTiled(CUtensorMap* tensorMap, CUtensorMapDataType tensorDataType, cuuint32_t tensorRank,
                             void* globalAddress, const cuuint64_t* globalDim, const cuuint64_t* globalStrides,
                             const cuuint32_t* boxDim, const cuuint32_t* elementStrides,
                             CUtensorMapInterleave interleave, CUtensorMapSwizzle swizzle,
                             CUtensorMapL2promotion l2Promotion, CUtensorMapFloatOOBfill oobFill) {
  tmap::TiledArgs a = Common(tensorDataType, tensorRank, globalAddress, globalDim, globalStrides, elementStrides,
                             interleave, swizzle, l2Promotion, oobFill);
  a.box_dim = boxDim;
  return tmap::EncodeTiled(tensorMap, a).ok() ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

CUresult CUDAAPI EncodeIm2col(CUtensorMap* tensorMap, CUtensorMapDataType tensorDataType, cuuint32_t tensorRank,
                              void* globalAddress, const cuuint64_t* globalDim, const cuuint64_t* globalStrides,
                              const int* pixelBoxLowerCorner, const int* pixelBoxUpperCorner,
                              cuuint32_t channelsPerPixel, cuuint32_t pixelsPerColumn,
                              const cuuint32_t* elementStrides, CUtensorMapInterleave interleave,
                              CUtensorMapSwizzle swizzle, CUtensorMapL2promotion l2Promotion,
                              CUtensorMapFloatOOBfill oobFill) {
  tmap::Im2colArgs a;
  static_cast<tmap::TiledArgs&>(a) = Common(tensorDataType, tensorRank, globalAddress, globalDim, globalStrides,
                                            elementStrides, interleave, swizzle, l2Promotion, oobFill);
  a.pixel_box_lower_corner = pixelBoxLowerCorner;
  a.pixel_box_upper_corner = pixelBoxUpperCorner;
  a.channels_per_pixel = channelsPerPixel;
  a.pixels_per_column = pixelsPerColumn;
  return tmap::EncodeIm2col(tensorMap, a).ok() ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

CUresult CUDAAPI ReplaceAddress(CUtensorMap* tensorMap, void* globalAddress) {
  return tmap::ReplaceAddress(tensorMap, globalAddress).ok() ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

// The CUresults a program may see from these functions and the common ones
// it may pass to cuGetErrorString / cuGetErrorName (descriptions as the
// driver gives them). Others: CUDA_ERROR_INVALID_VALUE and a null string, as
// the driver API documents for an unrecognised value.
struct ResultText {
  CUresult code;
  const char* name;
  const char* text;
};
constexpr ResultText kResults[] = {
    {CUDA_SUCCESS, "CUDA_SUCCESS", "no error"},
    {CUDA_ERROR_INVALID_VALUE, "CUDA_ERROR_INVALID_VALUE", "invalid argument"},
    {CUDA_ERROR_OUT_OF_MEMORY, "CUDA_ERROR_OUT_OF_MEMORY", "out of memory"},
    {CUDA_ERROR_NOT_INITIALIZED, "CUDA_ERROR_NOT_INITIALIZED", "initialization error"},
    {CUDA_ERROR_DEINITIALIZED, "CUDA_ERROR_DEINITIALIZED", "driver shutting down"},
    {CUDA_ERROR_NO_DEVICE, "CUDA_ERROR_NO_DEVICE", "no CUDA-capable device is detected"},
    {CUDA_ERROR_INVALID_DEVICE, "CUDA_ERROR_INVALID_DEVICE", "invalid device ordinal"},
    {CUDA_ERROR_INVALID_IMAGE, "CUDA_ERROR_INVALID_IMAGE", "device kernel image is invalid"},
    {CUDA_ERROR_INVALID_CONTEXT, "CUDA_ERROR_INVALID_CONTEXT", "invalid device context"},
    {CUDA_ERROR_INVALID_PTX, "CUDA_ERROR_INVALID_PTX", "a PTX JIT compilation failed"},
    {CUDA_ERROR_INVALID_HANDLE, "CUDA_ERROR_INVALID_HANDLE", "invalid resource handle"},
    {CUDA_ERROR_NOT_FOUND, "CUDA_ERROR_NOT_FOUND", "named symbol not found"},
    {CUDA_ERROR_ILLEGAL_ADDRESS, "CUDA_ERROR_ILLEGAL_ADDRESS", "an illegal memory access was encountered"},
    {CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES, "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES",
     "too many resources requested for launch"},
    {CUDA_ERROR_LAUNCH_TIMEOUT, "CUDA_ERROR_LAUNCH_TIMEOUT", "the launch timed out and was terminated"},
    {CUDA_ERROR_LAUNCH_FAILED, "CUDA_ERROR_LAUNCH_FAILED", "unspecified launch failure"},
    {CUDA_ERROR_NOT_SUPPORTED, "CUDA_ERROR_NOT_SUPPORTED", "operation not supported"},
    {CUDA_ERROR_UNKNOWN, "CUDA_ERROR_UNKNOWN", "unknown error"},
};

template <bool kName>
CUresult CUDAAPI ResultString(CUresult error, const char** out) {
  if (out == nullptr) return CUDA_ERROR_INVALID_VALUE;
  // Any int may come in: read its bits, not the enum (a value outside the
  // enumerators is no CUresult to load).
  int code;
  static_assert(sizeof code == sizeof error);
  std::memcpy(&code, &error, sizeof code);
  for (const ResultText& r : kResults) {
    if (static_cast<int>(r.code) != code) continue;
    *out = kName ? r.name : r.text;
    return CUDA_SUCCESS;
  }
  *out = nullptr;
  return CUDA_ERROR_INVALID_VALUE;
}

struct Entry {
  const char* symbol;
  unsigned introduced;  // the CUDA version that introduced it
  void* fn;
};
const Entry kEntries[] = {
    {"cuTensorMapEncodeTiled", 12000, reinterpret_cast<void*>(&EncodeTiled)},
    {"cuTensorMapEncodeIm2col", 12000, reinterpret_cast<void*>(&EncodeIm2col)},
    {"cuTensorMapReplaceAddress", 12000, reinterpret_cast<void*>(&ReplaceAddress)},
    {"cuGetErrorString", 6000, reinterpret_cast<void*>(&ResultString<false>)},
    {"cuGetErrorName", 6000, reinterpret_cast<void*>(&ResultString<true>)},
};

// The loaded libcuda.so.1's cuGetProcAddress_v2 (initialised), or nullptr. Not
// loaded here: a runtime program gets no driver it did not ask for (and on a
// machine with a GPU driver, LD_LIBRARY_PATH might find NVIDIA's).
using GetProcAddress = CUresult (*)(const char*, void**, int, cuuint64_t, CUdriverProcAddressQueryResult*);
GetProcAddress LoadedDriver() {
  void* library = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_NOLOAD);
  if (library == nullptr) return nullptr;
  auto get = reinterpret_cast<GetProcAddress>(dlsym(library, "cuGetProcAddress_v2"));
  auto init = reinterpret_cast<CUresult (*)(unsigned)>(dlsym(library, "cuInit"));
  dlclose(library);  // still loaded: NOLOAD took a reference to a library already there
  if (get == nullptr || init == nullptr || init(0) != CUDA_SUCCESS) return nullptr;
  return get;
}

cudaError_t Lookup(const char* symbol, void** funcPtr, unsigned version, unsigned long long flags,
                   cudaDriverEntryPointQueryResult* status) {
  if (symbol == nullptr || funcPtr == nullptr) return Runtime::Get().Fail(cudaErrorInvalidValue);
  // cudaEnableDefault, cudaEnableLegacyStream, cudaEnablePerThreadDefaultStream:
  // none of the table's functions has a per-thread variant, so all answer alike.
  if (flags > (cudaEnableLegacyStream | cudaEnablePerThreadDefaultStream))
    return Runtime::Get().Fail(cudaErrorInvalidValue);
  if (version > kDriverVersion) return Runtime::Get().Fail(cudaErrorInvalidValue);
  *funcPtr = nullptr;
  cudaDriverEntryPointQueryResult result = cudaDriverEntryPointSymbolNotFound;
  for (const Entry& e : kEntries) {
    if (std::strcmp(e.symbol, symbol) != 0) continue;
    if (version < e.introduced) {
      result = cudaDriverEntryPointVersionNotSufficent;
    } else {
      *funcPtr = e.fn;
      result = cudaDriverEntryPointSuccess;
    }
  }
  if (result == cudaDriverEntryPointSymbolNotFound) {
    // cudaEnable* flags and the query results have the driver's values.
    static_assert(static_cast<int>(cudaEnablePerThreadDefaultStream) ==
                      static_cast<int>(CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM) &&
                  static_cast<int>(cudaDriverEntryPointVersionNotSufficent) ==
                      static_cast<int>(CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT));
    if (GetProcAddress get = LoadedDriver()) {
      CUdriverProcAddressQueryResult driver = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
      get(symbol, funcPtr, static_cast<int>(version), flags, &driver);
      result = static_cast<cudaDriverEntryPointQueryResult>(driver);
    }
  }
  if (status != nullptr) *status = result;
  return cudaSuccess;
}

}  // namespace

CUDART_EXPORT cudaError_t cudaGetDriverEntryPointByVersion(const char* symbol, void** funcPtr,
                                                           unsigned int cudaVersion, unsigned long long flags,
                                                           cudaDriverEntryPointQueryResult* driverStatus) {
  return Lookup(symbol, funcPtr, cudaVersion, flags, driverStatus);
}

CUDART_EXPORT cudaError_t cudaGetDriverEntryPointByVersion_ptsz(const char* symbol, void** funcPtr,
                                                                unsigned int cudaVersion, unsigned long long flags,
                                                                cudaDriverEntryPointQueryResult* driverStatus) {
  return Lookup(symbol, funcPtr, cudaVersion, flags, driverStatus);
}

// The deprecated form looks symbols up at the runtime's own version (CUDART_VERSION).
CUDART_EXPORT cudaError_t cudaGetDriverEntryPoint(const char* symbol, void** funcPtr, unsigned long long flags,
                                                  cudaDriverEntryPointQueryResult* driverStatus) {
  return Lookup(symbol, funcPtr, CUDART_VERSION, flags, driverStatus);
}

CUDART_EXPORT cudaError_t cudaGetDriverEntryPoint_ptsz(const char* symbol, void** funcPtr, unsigned long long flags,
                                                       cudaDriverEntryPointQueryResult* driverStatus) {
  return Lookup(symbol, funcPtr, CUDART_VERSION, flags, driverStatus);
}
