// Tests of the replacement libcuda.so.1 through its exported C API, as a
// driver-API program calls it (linked against the built library): init and
// contexts, modules from PTX text, launches with kernelParams and with the
// `extra` buffer (and their refusals), memory, sets, 2D copies, pointer
// attributes, streams and events, CUresult names, cuGetProcAddress, stubs,
// and the runtime's cudaGetDriverEntryPoint reaching the driver.
//
// The first test case runs before any cuInit when the binary runs whole; ctest
// runs each case in its own process, where it is first too.
#include <catch2/catch.hpp>

#include <dlfcn.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include <cuda.h>
#include <cuda_runtime_api.h>

namespace {

constexpr char kPtx[] = R"(.version 8.0
.target sm_75
.address_size 64
.global .align 4 .u32 bias = 1000;

.visible .entry fill(.param .u64 out, .param .u32 base, .param .align 16 .b8 tail[16])
{
  .reg .b32 %r<6>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  ld.param.u32 %r1, [base];
  ld.param.u32 %r5, [tail+12];
  mov.u32 %r2, %tid.x;
  ld.global.u32 %r3, [bias];
  add.u32 %r4, %r1, %r2;
  add.u32 %r4, %r4, %r3;
  add.u32 %r4, %r4, %r5;
  mul.wide.u32 %rd2, %r2, 4;
  add.u64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r4;
  ret;
}
)";

struct Tail {
  alignas(16) unsigned words[4];
};

CUmodule LoadModule() {
  REQUIRE(cuInit(0) == CUDA_SUCCESS);
  CUmodule module = nullptr;
  REQUIRE(cuModuleLoadData(&module, kPtx) == CUDA_SUCCESS);
  return module;
}

std::vector<unsigned> Read(CUdeviceptr d, size_t n) {
  std::vector<unsigned> host(n);
  REQUIRE(cuMemcpyDtoH(host.data(), d, n * sizeof(unsigned)) == CUDA_SUCCESS);
  return host;
}

}  // namespace

TEST_CASE("driver: calls before cuInit fail with CUDA_ERROR_NOT_INITIALIZED", "[driver]") {
  int count = 0;
  CUdeviceptr d = 0;
  // Unless an earlier case of this process already initialised the driver.
  if (cuDeviceGetCount(&count) == CUDA_ERROR_NOT_INITIALIZED) {
    CHECK(cuMemAlloc(&d, 16) == CUDA_ERROR_NOT_INITIALIZED);
    CUmodule m;
    CHECK(cuModuleLoadData(&m, kPtx) == CUDA_ERROR_NOT_INITIALIZED);
  }
  CHECK(cuInit(1) == CUDA_ERROR_INVALID_VALUE);
  REQUIRE(cuInit(0) == CUDA_SUCCESS);
  REQUIRE(cuDeviceGetCount(&count) == CUDA_SUCCESS);
  CHECK(count == 1);
  int version = 0;
  REQUIRE(cuDriverGetVersion(&version) == CUDA_SUCCESS);
  CHECK(version == 13000);
}

TEST_CASE("driver: device queries and contexts", "[driver]") {
  REQUIRE(cuInit(0) == CUDA_SUCCESS);
  CUdevice dev = -1;
  REQUIRE(cuDeviceGet(&dev, 0) == CUDA_SUCCESS);
  CHECK(dev == 0);
  CHECK(cuDeviceGet(&dev, 1) == CUDA_ERROR_INVALID_DEVICE);
  char name[64];
  REQUIRE(cuDeviceGetName(name, sizeof name, 0) == CUDA_SUCCESS);
  CHECK(std::string(name).find("barracuda") != std::string::npos);
  size_t total = 0;
  REQUIRE(cuDeviceTotalMem(&total, 0) == CUDA_SUCCESS);
  CHECK(total > 0);
  int warp = 0, major = 0, minor = 0;
  REQUIRE(cuDeviceGetAttribute(&warp, CU_DEVICE_ATTRIBUTE_WARP_SIZE, 0) == CUDA_SUCCESS);
  CHECK(warp == 32);
  REQUIRE(cuDeviceComputeCapability(&major, &minor, 0) == CUDA_SUCCESS);
  CHECK(major >= 7);
  CUuuid uuid;
  CHECK(cuDeviceGetUuid(&uuid, 0) == CUDA_SUCCESS);

  CUcontext primary = nullptr, again = nullptr;
  REQUIRE(cuDevicePrimaryCtxRetain(&primary, 0) == CUDA_SUCCESS);
  REQUIRE(cuDevicePrimaryCtxRetain(&again, 0) == CUDA_SUCCESS);
  CHECK(primary == again);
  unsigned flags = 0;
  int active = 0;
  REQUIRE(cuDevicePrimaryCtxGetState(0, &flags, &active) == CUDA_SUCCESS);
  CHECK(active == 1);
  REQUIRE(cuCtxSetCurrent(primary) == CUDA_SUCCESS);
  CUcontext current = nullptr;
  REQUIRE(cuCtxGetCurrent(&current) == CUDA_SUCCESS);
  CHECK(current == primary);

  CUcontext created = nullptr;
  REQUIRE(cuCtxCreate(&created, nullptr, CU_CTX_SCHED_AUTO, 0) == CUDA_SUCCESS);
  REQUIRE(cuCtxGetCurrent(&current) == CUDA_SUCCESS);
  CHECK(current == created);  // created contexts are pushed
  CUcontext popped = nullptr;
  REQUIRE(cuCtxPopCurrent(&popped) == CUDA_SUCCESS);
  CHECK(popped == created);
  REQUIRE(cuCtxGetCurrent(&current) == CUDA_SUCCESS);
  CHECK(current == primary);
  REQUIRE(cuCtxPushCurrent(created) == CUDA_SUCCESS);
  CUdevice ctx_dev = -1;
  REQUIRE(cuCtxGetDevice(&ctx_dev) == CUDA_SUCCESS);
  CHECK(ctx_dev == 0);
  CHECK(cuCtxSynchronize() == CUDA_SUCCESS);
  REQUIRE(cuCtxDestroy(created) == CUDA_SUCCESS);
  CHECK(cuCtxDestroy(created) == CUDA_ERROR_INVALID_CONTEXT);
  CHECK(cuCtxDestroy(primary) == CUDA_ERROR_INVALID_CONTEXT);  // the primary one is released, not destroyed
  CHECK(cuCtxPushCurrent(created) == CUDA_ERROR_INVALID_CONTEXT);
  REQUIRE(cuCtxGetCurrent(&current) == CUDA_SUCCESS);
  CHECK(current == primary);
  CHECK(cuDevicePrimaryCtxRelease(0) == CUDA_SUCCESS);
  CHECK(cuDevicePrimaryCtxRelease(0) == CUDA_SUCCESS);
  CHECK(cuDevicePrimaryCtxRelease(0) == CUDA_ERROR_INVALID_CONTEXT);
}

TEST_CASE("driver: module launch with kernelParams and with the extra buffer", "[driver]") {
  CUmodule module = LoadModule();
  CUfunction fill = nullptr;
  REQUIRE(cuModuleGetFunction(&fill, module, "fill") == CUDA_SUCCESS);
  CHECK(cuModuleGetFunction(&fill, module, "missing") == CUDA_ERROR_NOT_FOUND);
  REQUIRE(cuModuleGetFunction(&fill, module, "fill") == CUDA_SUCCESS);
  CUdeviceptr out = 0;
  REQUIRE(cuMemAlloc(&out, 32 * sizeof(unsigned)) == CUDA_SUCCESS);

  unsigned base = 5;
  Tail tail{{0, 0, 0, 20000}};
  void* params[] = {&out, &base, &tail};
  REQUIRE(cuLaunchKernel(fill, 1, 1, 1, 32, 1, 1, 0, nullptr, params, nullptr) == CUDA_SUCCESS);
  std::vector<unsigned> host = Read(out, 32);
  for (unsigned i = 0; i < 32; ++i) CHECK(host[i] == 5 + i + 1000 + 20000);

  // The `extra` form: offsets from cuFuncGetParamInfo (0, 8, 16).
  size_t offset = 0, size = 0;
  REQUIRE(cuFuncGetParamInfo(fill, 2, &offset, &size) == CUDA_SUCCESS);
  CHECK(offset == 16);
  CHECK(size == 16);
  CHECK(cuFuncGetParamInfo(fill, 3, &offset, &size) == CUDA_ERROR_INVALID_VALUE);
  alignas(16) unsigned char buffer[32] = {};
  base = 7;
  std::memcpy(buffer, &out, 8);
  std::memcpy(buffer + 8, &base, 4);
  std::memcpy(buffer + 16, &tail, 16);
  size_t buffer_size = sizeof buffer;
  void* extra[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, buffer, CU_LAUNCH_PARAM_BUFFER_SIZE, &buffer_size,
                   CU_LAUNCH_PARAM_END};
  REQUIRE(cuLaunchKernel(fill, 1, 1, 1, 32, 1, 1, 0, nullptr, nullptr, extra) == CUDA_SUCCESS);
  CHECK(Read(out, 32)[31] == 7 + 31 + 1000 + 20000);

  // Wrong parameters: both forms, neither, a buffer too small, no size, an unknown key.
  CHECK(cuLaunchKernel(fill, 1, 1, 1, 32, 1, 1, 0, nullptr, params, extra) == CUDA_ERROR_INVALID_VALUE);
  CHECK(cuLaunchKernel(fill, 1, 1, 1, 32, 1, 1, 0, nullptr, nullptr, nullptr) == CUDA_ERROR_INVALID_VALUE);
  size_t small = 20;
  void* short_extra[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, buffer, CU_LAUNCH_PARAM_BUFFER_SIZE, &small,
                         CU_LAUNCH_PARAM_END};
  CHECK(cuLaunchKernel(fill, 1, 1, 1, 32, 1, 1, 0, nullptr, nullptr, short_extra) == CUDA_ERROR_INVALID_VALUE);
  void* no_size[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, buffer, CU_LAUNCH_PARAM_END};
  CHECK(cuLaunchKernel(fill, 1, 1, 1, 32, 1, 1, 0, nullptr, nullptr, no_size) == CUDA_ERROR_INVALID_VALUE);
  void* bad_key[] = {reinterpret_cast<void*>(7), buffer, CU_LAUNCH_PARAM_END};
  CHECK(cuLaunchKernel(fill, 1, 1, 1, 32, 1, 1, 0, nullptr, nullptr, bad_key) == CUDA_ERROR_INVALID_VALUE);
  // A block too large, a null function.
  CHECK(cuLaunchKernel(fill, 1, 1, 1, 2048, 1, 1, 0, nullptr, params, nullptr) == CUDA_ERROR_INVALID_VALUE);
  CHECK(cuLaunchKernel(nullptr, 1, 1, 1, 32, 1, 1, 0, nullptr, params, nullptr) == CUDA_ERROR_INVALID_HANDLE);

  // cuLaunchKernelEx and the cooperative launch run the same kernel.
  CUlaunchAttribute coop{};
  coop.id = CU_LAUNCH_ATTRIBUTE_COOPERATIVE;
  coop.value.cooperative = 1;
  CUlaunchConfig config{};
  config.gridDimX = config.gridDimY = config.gridDimZ = 1;
  config.blockDimX = 32, config.blockDimY = config.blockDimZ = 1;
  config.attrs = &coop;
  config.numAttrs = 1;
  base = 9;
  REQUIRE(cuLaunchKernelEx(&config, fill, params, nullptr) == CUDA_SUCCESS);
  CHECK(Read(out, 32)[0] == 9 + 1000 + 20000);
  base = 11;
  REQUIRE(cuLaunchCooperativeKernel(fill, 1, 1, 1, 32, 1, 1, 0, nullptr, params) == CUDA_SUCCESS);
  CHECK(Read(out, 32)[1] == 11 + 1 + 1000 + 20000);

  // The module global.
  CUdeviceptr bias = 0;
  size_t bias_size = 0;
  REQUIRE(cuModuleGetGlobal(&bias, &bias_size, module, "bias") == CUDA_SUCCESS);
  CHECK(bias_size == 4);
  CHECK(Read(bias, 1)[0] == 1000);
  CHECK(cuModuleGetGlobal(&bias, &bias_size, module, "nope") == CUDA_ERROR_NOT_FOUND);

  int value = 0;
  REQUIRE(cuFuncGetAttribute(&value, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, fill) == CUDA_SUCCESS);
  CHECK(value == 1024);
  REQUIRE(cuFuncSetAttribute(fill, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, 2048) == CUDA_SUCCESS);
  REQUIRE(cuFuncGetAttribute(&value, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, fill) == CUDA_SUCCESS);
  CHECK(value == 2048);
  CHECK(cuFuncSetCacheConfig(fill, CU_FUNC_CACHE_PREFER_SHARED) == CUDA_SUCCESS);

  // Libraries are modules: the same handles.
  CUlibrary library = nullptr;
  REQUIRE(cuLibraryLoadData(&library, kPtx, nullptr, nullptr, 0, nullptr, nullptr, 0) == CUDA_SUCCESS);
  CUkernel kernel = nullptr;
  REQUIRE(cuLibraryGetKernel(&kernel, library, "fill") == CUDA_SUCCESS);
  CUfunction from_kernel = nullptr;
  REQUIRE(cuKernelGetFunction(&from_kernel, kernel) == CUDA_SUCCESS);
  base = 13;
  REQUIRE(cuLaunchKernel(from_kernel, 1, 1, 1, 32, 1, 1, 0, nullptr, params, nullptr) == CUDA_SUCCESS);
  CHECK(Read(out, 32)[2] == 13 + 2 + 1000 + 20000);
  CUmodule library_module = nullptr;
  REQUIRE(cuLibraryGetModule(&library_module, library) == CUDA_SUCCESS);
  unsigned count = 0;
  REQUIRE(cuModuleGetFunctionCount(&count, library_module) == CUDA_SUCCESS);
  CHECK(count == 1);
  REQUIRE(cuLibraryUnload(library) == CUDA_SUCCESS);

  REQUIRE(cuMemFree(out) == CUDA_SUCCESS);
  REQUIRE(cuModuleUnload(module) == CUDA_SUCCESS);
  CHECK(cuModuleUnload(module) == CUDA_ERROR_INVALID_HANDLE);
  CHECK(cuLaunchKernel(fill, 1, 1, 1, 32, 1, 1, 0, nullptr, params, nullptr) == CUDA_ERROR_INVALID_HANDLE);
  cudaGetLastError();
}

TEST_CASE("driver: code the emulator cannot run is refused at load", "[driver]") {
  REQUIRE(cuInit(0) == CUDA_SUCCESS);
  CUmodule module = nullptr;
  const char elf[] = "\x7f" "ELF\x02\x01\x01 a cubin";
  CHECK(cuModuleLoadData(&module, elf) == CUDA_ERROR_NO_BINARY_FOR_GPU);
  char log[64] = "stale";
  CUjit_option options[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void* values[] = {log, reinterpret_cast<void*>(sizeof log)};
  CHECK(cuModuleLoadDataEx(&module, ".version 8.0\n.target sm_75\n.address_size 64\n.visible .entry k(\n", 2,
                           options, values) == CUDA_ERROR_INVALID_PTX);
  CHECK(log[0] == '\0');
  CHECK(cuModuleLoad(&module, "/nonexistent/module.ptx") == CUDA_ERROR_FILE_NOT_FOUND);
  CHECK(cuModuleLoadData(nullptr, kPtx) == CUDA_ERROR_INVALID_VALUE);
  cudaGetLastError();
}

// Two modules linked as NVRTC programs do: a kernel calling a function and
// reading a global of another module (checked with ptxas -c and nvlink).
constexpr char kLibPtx[] = R"(.version 8.0
.target sm_75
.address_size 64
.visible .global .align 4 .u32 scale = 3;
.visible .func (.param .b32 r) add_scaled(.param .b32 x)
{
  .reg .b32 %r<4>;
  ld.param.b32 %r1, [x];
  ld.global.u32 %r2, [scale];
  mad.lo.s32 %r3, %r1, %r2, 7;
  st.param.b32 [r], %r3;
  ret;
}
)";
constexpr char kUserPtx[] = R"(.version 8.0
.target sm_75
.address_size 64
.extern .func (.param .b32 r) add_scaled(.param .b32 x);
.visible .entry use_lib(.param .u64 out)
{
  .reg .b32 %r<4>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  {
    .param .b32 p0;
    .param .b32 ret0;
    st.param.b32 [p0], %r1;
    call.uni (ret0), add_scaled, (p0);
    ld.param.b32 %r2, [ret0];
  }
  mul.wide.u32 %rd2, %r1, 4;
  add.u64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r2;
  ret;
}
)";

TEST_CASE("driver: the JIT linker links PTX modules into one loadable image", "[driver][link]") {
  REQUIRE(cuInit(0) == CUDA_SUCCESS);
  char info[512] = "stale", error[512] = "stale";
  CUjit_option options[] = {CU_JIT_INFO_LOG_BUFFER, CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES, CU_JIT_ERROR_LOG_BUFFER,
                            CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES, CU_JIT_OPTIMIZATION_LEVEL};
  void* values[] = {info, reinterpret_cast<void*>(sizeof info), error, reinterpret_cast<void*>(sizeof error),
                    reinterpret_cast<void*>(uintptr_t{3})};
  CUlinkState link = nullptr;
  REQUIRE(cuLinkCreate(5, options, values, &link) == CUDA_SUCCESS);
  CHECK(info[0] == '\0');
  CHECK(error[0] == '\0');
  // The kernel's module as data (NUL included, as nvrtcGetPTXSize counts it),
  // the library's from a file.
  REQUIRE(cuLinkAddData(link, CU_JIT_INPUT_PTX, const_cast<char*>(kUserPtx), sizeof kUserPtx, "user.ptx", 0, nullptr,
                        nullptr) == CUDA_SUCCESS);
  const std::string path = "/tmp/barracuda_driver_link_" + std::to_string(getpid()) + ".ptx";
  {
    std::ofstream out(path);
    out << kLibPtx;
  }
  REQUIRE(cuLinkAddFile(link, CU_JIT_INPUT_PTX, path.c_str(), 0, nullptr, nullptr) == CUDA_SUCCESS);
  std::remove(path.c_str());
  CHECK(cuLinkAddFile(link, CU_JIT_INPUT_PTX, "/nonexistent/lib.ptx", 0, nullptr, nullptr) ==
        CUDA_ERROR_FILE_NOT_FOUND);
  // Machine code: a library (libcudadevrt.a) is skipped with a note, a cubin refused.
  char archive[] = "!<arch>\n";
  CHECK(cuLinkAddData(link, CU_JIT_INPUT_LIBRARY, archive, sizeof archive, "libcudadevrt.a", 0, nullptr, nullptr) ==
        CUDA_SUCCESS);
  CHECK_THAT(std::string(info), Catch::Contains("libcudadevrt.a: a library of machine code, skipped"));
  char cubin[] = "\x7f" "ELF";
  CHECK(cuLinkAddData(link, CU_JIT_INPUT_CUBIN, cubin, sizeof cubin, "k.cubin", 0, nullptr, nullptr) ==
        CUDA_ERROR_NOT_SUPPORTED);
  CHECK_THAT(std::string(error), Catch::Contains("k.cubin: cannot link a cubin: the emulator runs PTX only"));
  CHECK(reinterpret_cast<uintptr_t>(values[3]) == std::strlen(error) + 1);  // the bytes written, back in the option

  void* image = nullptr;
  size_t size = 0;
  REQUIRE(cuLinkComplete(link, &image, &size) == CUDA_SUCCESS);
  REQUIRE(image != nullptr);
  CHECK(size >= sizeof kUserPtx + sizeof kLibPtx);
  CUmodule module = nullptr;
  REQUIRE(cuModuleLoadData(&module, image) == CUDA_SUCCESS);
  REQUIRE(cuLinkDestroy(link) == CUDA_SUCCESS);  // the module keeps its code
  CHECK(cuLinkDestroy(link) == CUDA_ERROR_INVALID_HANDLE);
  CUfunction use_lib = nullptr;
  REQUIRE(cuModuleGetFunction(&use_lib, module, "use_lib") == CUDA_SUCCESS);
  CUdeviceptr scale = 0;
  size_t scale_bytes = 0;
  REQUIRE(cuModuleGetGlobal(&scale, &scale_bytes, module, "scale") == CUDA_SUCCESS);  // the library module's
  CHECK(scale_bytes == 4);
  const unsigned five = 5;
  REQUIRE(cuMemcpyHtoD(scale, &five, sizeof five) == CUDA_SUCCESS);
  CUdeviceptr out = 0;
  REQUIRE(cuMemAlloc(&out, 32 * sizeof(unsigned)) == CUDA_SUCCESS);
  void* params[] = {&out};
  REQUIRE(cuLaunchKernel(use_lib, 1, 1, 1, 32, 1, 1, 0, nullptr, params, nullptr) == CUDA_SUCCESS);
  const std::vector<unsigned> host = Read(out, 32);
  for (unsigned i = 0; i < 32; ++i) CHECK(host[i] == 5 * i + 7);
  CHECK(cuMemFree(out) == CUDA_SUCCESS);
  CHECK(cuModuleUnload(module) == CUDA_SUCCESS);
}

TEST_CASE("driver: linking nothing, or a kernel without the module it calls, fails", "[driver][link]") {
  REQUIRE(cuInit(0) == CUDA_SUCCESS);
  char error[256] = "stale";
  CUjit_option options[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void* values[] = {error, reinterpret_cast<void*>(sizeof error)};
  CUlinkState link = nullptr;
  CHECK(cuLinkCreate(2, options, values, nullptr) == CUDA_ERROR_INVALID_VALUE);
  REQUIRE(cuLinkCreate(2, options, values, &link) == CUDA_SUCCESS);
  void* image = nullptr;
  size_t size = 0;
  CHECK(cuLinkComplete(link, &image, &size) == CUDA_ERROR_INVALID_IMAGE);
  CHECK_THAT(std::string(error), Catch::Contains("nothing to link"));
  CHECK(cuLinkAddData(link, CU_JIT_INPUT_PTX, nullptr, 0, "x", 0, nullptr, nullptr) == CUDA_ERROR_INVALID_VALUE);
  REQUIRE(cuLinkAddData(link, CU_JIT_INPUT_PTX, const_cast<char*>(kUserPtx), sizeof kUserPtx, nullptr, 0, nullptr,
                        nullptr) == CUDA_SUCCESS);
  REQUIRE(cuLinkComplete(link, &image, &size) == CUDA_SUCCESS);
  CUmodule module = nullptr;
  CHECK(cuModuleLoadData(&module, image) != CUDA_SUCCESS);  // add_scaled is defined nowhere
  CHECK(cuLinkDestroy(link) == CUDA_SUCCESS);
  CHECK(cuLinkAddData(link, CU_JIT_INPUT_PTX, const_cast<char*>(kUserPtx), sizeof kUserPtx, nullptr, 0, nullptr,
                      nullptr) == CUDA_ERROR_INVALID_HANDLE);
  cudaGetLastError();
}

TEST_CASE("driver: memory, sets, 2D copies and pointer attributes", "[driver]") {
  REQUIRE(cuInit(0) == CUDA_SUCCESS);
  CUdeviceptr d = 0;
  REQUIRE(cuMemAlloc(&d, 64 * sizeof(unsigned)) == CUDA_SUCCESS);
  CHECK(cuMemAlloc(&d, 0) == CUDA_ERROR_INVALID_VALUE);
  REQUIRE(cuMemsetD32(d, 0xdeadbeefu, 64) == CUDA_SUCCESS);
  CHECK(Read(d, 64)[63] == 0xdeadbeefu);
  REQUIRE(cuMemsetD16(d, 0x1234, 4) == CUDA_SUCCESS);
  CHECK(Read(d, 2)[1] == 0x12341234u);
  CHECK(Read(d, 3)[2] == 0xdeadbeefu);  // 4 halves: two words
  REQUIRE(cuMemsetD8(d, 0x01, 4) == CUDA_SUCCESS);
  CHECK(Read(d, 1)[0] == 0x01010101u);
  CUstream stream = nullptr;
  REQUIRE(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING) == CUDA_SUCCESS);
  REQUIRE(cuMemsetD32Async(d, 3, 64, stream) == CUDA_SUCCESS);
  REQUIRE(cuStreamSynchronize(stream) == CUDA_SUCCESS);
  CHECK(Read(d, 64)[10] == 3);

  // 2D: a pitched allocation, a 2D set of words, a host-to-device 2D copy.
  CUdeviceptr pitched = 0;
  size_t pitch = 0;
  REQUIRE(cuMemAllocPitch(&pitched, &pitch, 12, 4, 4) == CUDA_SUCCESS);
  CHECK(pitch >= 12);
  REQUIRE(cuMemsetD2D32(pitched, pitch, 0xffffffffu, 3, 4) == CUDA_SUCCESS);
  unsigned rows[4][3];
  for (unsigned r = 0; r < 4; ++r)
    for (unsigned c = 0; c < 3; ++c) rows[r][c] = r * 10 + c;
  CUDA_MEMCPY2D copy{};
  copy.srcMemoryType = CU_MEMORYTYPE_HOST;
  copy.srcHost = rows[1];
  copy.srcPitch = sizeof rows[0];
  copy.dstMemoryType = CU_MEMORYTYPE_DEVICE;
  copy.dstDevice = pitched;
  copy.dstPitch = pitch;
  copy.dstXInBytes = 0;
  copy.dstY = 1;
  copy.WidthInBytes = 8;  // two of the three columns
  copy.Height = 2;
  REQUIRE(cuMemcpy2D(&copy) == CUDA_SUCCESS);
  std::vector<unsigned> back(pitch / 4 * 4);
  REQUIRE(cuMemcpyDtoH(back.data(), pitched, pitch * 4) == CUDA_SUCCESS);
  const size_t stride = pitch / 4;
  CHECK(back[0] == 0xffffffffu);
  CHECK(back[stride + 0] == 10);
  CHECK(back[stride + 1] == 11);
  CHECK(back[stride + 2] == 0xffffffffu);
  CHECK(back[2 * stride + 1] == 21);
  CHECK(back[3 * stride] == 0xffffffffu);
  copy.srcMemoryType = CU_MEMORYTYPE_ARRAY;
  CHECK(cuMemcpy2D(&copy) == CUDA_ERROR_NOT_SUPPORTED);

  unsigned type = 0;
  REQUIRE(cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, d) == CUDA_SUCCESS);
  CHECK(type == CU_MEMORYTYPE_DEVICE);
  void* host = nullptr;
  REQUIRE(cuMemAllocHost(&host, 256) == CUDA_SUCCESS);
  REQUIRE(cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, reinterpret_cast<CUdeviceptr>(host)) ==
          CUDA_SUCCESS);
  CHECK(type == CU_MEMORYTYPE_HOST);
  CUdeviceptr managed = 0;
  REQUIRE(cuMemAllocManaged(&managed, 64, CU_MEM_ATTACH_GLOBAL) == CUDA_SUCCESS);
  int is_managed = 0;
  REQUIRE(cuPointerGetAttribute(&is_managed, CU_POINTER_ATTRIBUTE_IS_MANAGED, managed) == CUDA_SUCCESS);
  CHECK(is_managed == 1);
  int local = 0;
  CHECK(cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, reinterpret_cast<CUdeviceptr>(&local)) ==
        CUDA_ERROR_INVALID_VALUE);
  size_t free_bytes = 0, total = 0;
  REQUIRE(cuMemGetInfo(&free_bytes, &total) == CUDA_SUCCESS);
  CHECK(free_bytes <= total);

  CHECK(cuMemFreeHost(host) == CUDA_SUCCESS);
  CHECK(cuMemFree(managed) == CUDA_SUCCESS);
  CHECK(cuMemFree(pitched) == CUDA_SUCCESS);
  CHECK(cuMemFree(d) == CUDA_SUCCESS);
  CHECK(cuStreamDestroy(stream) == CUDA_SUCCESS);
  cudaGetLastError();
}

TEST_CASE("driver: streams and events", "[driver]") {
  REQUIRE(cuInit(0) == CUDA_SUCCESS);
  CUstream stream = nullptr;
  REQUIRE(cuStreamCreateWithPriority(&stream, CU_STREAM_NON_BLOCKING, -1) == CUDA_SUCCESS);
  int priority = 0;
  REQUIRE(cuStreamGetPriority(stream, &priority) == CUDA_SUCCESS);
  CHECK(priority == -1);
  CUevent a = nullptr, b = nullptr;
  REQUIRE(cuEventCreate(&a, CU_EVENT_DEFAULT) == CUDA_SUCCESS);
  REQUIRE(cuEventCreate(&b, CU_EVENT_DEFAULT) == CUDA_SUCCESS);
  REQUIRE(cuEventRecord(a, stream) == CUDA_SUCCESS);
  REQUIRE(cuEventRecord(b, stream) == CUDA_SUCCESS);
  REQUIRE(cuStreamWaitEvent(nullptr, b, 0) == CUDA_SUCCESS);
  REQUIRE(cuEventSynchronize(b) == CUDA_SUCCESS);
  CHECK(cuEventQuery(b) == CUDA_SUCCESS);
  CHECK(cuStreamQuery(stream) == CUDA_SUCCESS);
  float ms = -1;
  REQUIRE(cuEventElapsedTime(&ms, a, b) == CUDA_SUCCESS);
  CHECK(ms >= 0);
  CHECK(cuEventDestroy(a) == CUDA_SUCCESS);
  CHECK(cuEventDestroy(b) == CUDA_SUCCESS);
  CHECK(cuEventDestroy(b) == CUDA_ERROR_INVALID_HANDLE);
  CHECK(cuStreamDestroy(stream) == CUDA_SUCCESS);
  CHECK(cuStreamSynchronize(stream) == CUDA_ERROR_INVALID_HANDLE);
  cudaGetLastError();
}

TEST_CASE("driver: stream-ordered allocation and memory pools through the runtime", "[driver]") {
  REQUIRE(cuInit(0) == CUDA_SUCCESS);
  CUstream stream = nullptr;
  REQUIRE(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING) == CUDA_SUCCESS);
  // The device's default pool serves cuMemAllocAsync.
  CUmemoryPool def = nullptr, current = nullptr;
  REQUIRE(cuDeviceGetDefaultMemPool(&def, 0) == CUDA_SUCCESS);
  REQUIRE(cuDeviceGetMemPool(&current, 0) == CUDA_SUCCESS);
  CHECK(def == current);
  CUdeviceptr a = 0;
  REQUIRE(cuMemAllocAsync(&a, 4096, stream) == CUDA_SUCCESS);
  REQUIRE(cuMemsetD32Async(a, 0x01020304u, 1024, stream) == CUDA_SUCCESS);
  REQUIRE(cuStreamSynchronize(stream) == CUDA_SUCCESS);
  CHECK(Read(a, 4)[3] == 0x01020304u);
  cuuint64_t used = 0;
  REQUIRE(cuMemPoolGetAttribute(def, CU_MEMPOOL_ATTR_USED_MEM_CURRENT, &used) == CUDA_SUCCESS);
  CHECK(used >= 4096);
  REQUIRE(cuMemFreeAsync(a, stream) == CUDA_SUCCESS);
  REQUIRE(cuStreamSynchronize(stream) == CUDA_SUCCESS);

  // An explicit pool: attributes, access, allocation from it, trim, destroy.
  CUmemPoolProps props{};
  props.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
  props.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  props.location.id = 0;
  CUmemoryPool pool = nullptr;
  REQUIRE(cuMemPoolCreate(&pool, &props) == CUDA_SUCCESS);
  cuuint64_t threshold = 1 << 20, got = 0;
  REQUIRE(cuMemPoolSetAttribute(pool, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, &threshold) == CUDA_SUCCESS);
  REQUIRE(cuMemPoolGetAttribute(pool, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, &got) == CUDA_SUCCESS);
  CHECK(got == threshold);
  CUmemLocation here{CU_MEM_LOCATION_TYPE_DEVICE, 0};
  CUmemAccess_flags flags{};
  REQUIRE(cuMemPoolGetAccess(&flags, pool, &here) == CUDA_SUCCESS);
  CHECK(flags == CU_MEM_ACCESS_FLAGS_PROT_READWRITE);
  CUdeviceptr b = 0;
  REQUIRE(cuMemAllocFromPoolAsync(&b, 256, pool, stream) == CUDA_SUCCESS);
  REQUIRE(cuMemsetD8Async(b, 7, 256, stream) == CUDA_SUCCESS);
  REQUIRE(cuMemFreeAsync(b, stream) == CUDA_SUCCESS);
  REQUIRE(cuStreamSynchronize(stream) == CUDA_SUCCESS);
  CHECK(cuMemPoolTrimTo(pool, 0) == CUDA_SUCCESS);
  CHECK(cuMemAllocFromPoolAsync(&b, 256, nullptr, stream) == CUDA_ERROR_INVALID_VALUE);
  // The device's current pool can be the new one, and back.
  REQUIRE(cuDeviceSetMemPool(0, pool) == CUDA_SUCCESS);
  REQUIRE(cuDeviceGetMemPool(&current, 0) == CUDA_SUCCESS);
  CHECK(current == pool);
  REQUIRE(cuDeviceSetMemPool(0, def) == CUDA_SUCCESS);
  CHECK(cuMemPoolDestroy(pool) == CUDA_SUCCESS);
  CHECK(cuStreamDestroy(stream) == CUDA_SUCCESS);
  cudaGetLastError();
}

TEST_CASE("driver: managed-memory hints and host registration through the runtime", "[driver]") {
  REQUIRE(cuInit(0) == CUDA_SUCCESS);
  CUdeviceptr m = 0;
  REQUIRE(cuMemAllocManaged(&m, 8192, CU_MEM_ATTACH_GLOBAL) == CUDA_SUCCESS);
  const CUmemLocation dev{CU_MEM_LOCATION_TYPE_DEVICE, 0};
  REQUIRE(cuMemAdvise(m, 8192, CU_MEM_ADVISE_SET_READ_MOSTLY, dev) == CUDA_SUCCESS);
  REQUIRE(cuMemPrefetchAsync(m, 4096, dev, 0, nullptr) == CUDA_SUCCESS);
  REQUIRE(cuCtxSynchronize() == CUDA_SUCCESS);
  int read_mostly = 0;
  REQUIRE(cuMemRangeGetAttribute(&read_mostly, sizeof(read_mostly), CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, m, 8192) ==
          CUDA_SUCCESS);
  CHECK(read_mostly == 1);
  int prefetched = -5;
  void* data[] = {&prefetched};
  size_t sizes[] = {sizeof(prefetched)};
  CUmem_range_attribute attrs[] = {CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION};
  REQUIRE(cuMemRangeGetAttributes(data, sizes, attrs, 1, m, 4096) == CUDA_SUCCESS);
  CHECK(prefetched == 0);  // device 0
  REQUIRE(cuMemFree(m) == CUDA_SUCCESS);

  std::vector<unsigned> host(1024, 0);
  REQUIRE(cuMemHostRegister(host.data(), host.size() * sizeof(unsigned), CU_MEMHOSTREGISTER_DEVICEMAP) ==
          CUDA_SUCCESS);
  unsigned flags = 0;
  REQUIRE(cuMemHostGetFlags(&flags, host.data()) == CUDA_SUCCESS);
  CHECK((flags & CU_MEMHOSTALLOC_DEVICEMAP) != 0);
  REQUIRE(cuMemHostUnregister(host.data()) == CUDA_SUCCESS);
  CHECK(cuMemHostUnregister(host.data()) != CUDA_SUCCESS);  // not registered any more
  cudaGetLastError();
}

TEST_CASE("driver: graph structure and executable graphs through the runtime", "[driver]") {
  REQUIRE(cuInit(0) == CUDA_SUCCESS);
  static int calls = 0;
  calls = 0;
  CUgraph g = nullptr;
  REQUIRE(cuGraphCreate(&g, 0) == CUDA_SUCCESS);
  CUgraphNode root = nullptr, host = nullptr, tail = nullptr;
  REQUIRE(cuGraphAddEmptyNode(&root, g, nullptr, 0) == CUDA_SUCCESS);
  CUDA_HOST_NODE_PARAMS hp{};
  hp.fn = [](void* p) { ++*static_cast<int*>(p); };
  hp.userData = &calls;
  REQUIRE(cuGraphAddHostNode(&host, g, &root, 1, &hp) == CUDA_SUCCESS);
  REQUIRE(cuGraphAddEmptyNode(&tail, g, nullptr, 0) == CUDA_SUCCESS);
  REQUIRE(cuGraphAddDependencies(g, &host, &tail, nullptr, 1) == CUDA_SUCCESS);
  CUgraphNodeType type{};
  REQUIRE(cuGraphNodeGetType(host, &type) == CUDA_SUCCESS);
  CHECK(type == CU_GRAPH_NODE_TYPE_HOST);
  size_t n = 0;
  REQUIRE(cuGraphGetNodes(g, nullptr, &n) == CUDA_SUCCESS);
  CHECK(n == 3);
  REQUIRE(cuGraphGetRootNodes(g, nullptr, &n) == CUDA_SUCCESS);
  CHECK(n == 1);
  CUgraphNode from[4], to[4];
  n = 4;
  REQUIRE(cuGraphGetEdges(g, from, to, nullptr, &n) == CUDA_SUCCESS);
  CHECK(n == 2);
  n = 4;
  REQUIRE(cuGraphNodeGetDependencies(tail, from, nullptr, &n) == CUDA_SUCCESS);
  CHECK((n == 1 && from[0] == host));
  n = 4;
  REQUIRE(cuGraphNodeGetDependentNodes(root, to, nullptr, &n) == CUDA_SUCCESS);
  CHECK((n == 1 && to[0] == host));
  CUgraph clone = nullptr;
  REQUIRE(cuGraphClone(&clone, g) == CUDA_SUCCESS);
  REQUIRE(cuGraphRemoveDependencies(g, &host, &tail, nullptr, 1) == CUDA_SUCCESS);
  REQUIRE(cuGraphDestroyNode(tail) == CUDA_SUCCESS);
  REQUIRE(cuGraphGetNodes(g, nullptr, &n) == CUDA_SUCCESS);
  CHECK(n == 2);

  // Instantiated with parameters (uploaded on a stream), launched twice.
  CUstream stream = nullptr;
  REQUIRE(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING) == CUDA_SUCCESS);
  CUDA_GRAPH_INSTANTIATE_PARAMS ip{};
  ip.flags = CUDA_GRAPH_INSTANTIATE_FLAG_UPLOAD;
  ip.hUploadStream = stream;
  CUgraphExec exec = nullptr;
  REQUIRE(cuGraphInstantiateWithParams(&exec, clone, &ip) == CUDA_SUCCESS);
  CHECK(ip.result_out == CUDA_GRAPH_INSTANTIATE_SUCCESS);
  cuuint64_t exec_flags = 0;
  REQUIRE(cuGraphExecGetFlags(exec, &exec_flags) == CUDA_SUCCESS);
  CHECK(exec_flags == CUDA_GRAPH_INSTANTIATE_FLAG_UPLOAD);
  REQUIRE(cuGraphUpload(exec, stream) == CUDA_SUCCESS);
  REQUIRE(cuGraphLaunch(exec, stream) == CUDA_SUCCESS);
  REQUIRE(cuGraphLaunch(exec, stream) == CUDA_SUCCESS);
  REQUIRE(cuStreamSynchronize(stream) == CUDA_SUCCESS);
  CHECK(calls == 2);
  unsigned long long id_a = 0, id_b = 0;
  REQUIRE(cuStreamGetId(stream, &id_a) == CUDA_SUCCESS);
  REQUIRE(cuStreamGetId(nullptr, &id_b) == CUDA_SUCCESS);
  CHECK(id_a != id_b);
  CUdevice dev = -1;
  REQUIRE(cuStreamGetDevice(stream, &dev) == CUDA_SUCCESS);
  CHECK(dev == 0);
  CHECK(cuGraphExecDestroy(exec) == CUDA_SUCCESS);
  CHECK(cuGraphDestroy(clone) == CUDA_SUCCESS);
  CHECK(cuGraphDestroy(g) == CUDA_SUCCESS);
  CHECK(cuStreamDestroy(stream) == CUDA_SUCCESS);
  cudaGetLastError();
}

TEST_CASE("driver: kernel memset and memcpy graph nodes with the driver's parameter structures", "[driver]") {
  CUmodule module = LoadModule();
  CUfunction fill = nullptr;
  REQUIRE(cuModuleGetFunction(&fill, module, "fill") == CUDA_SUCCESS);
  CUdeviceptr out = 0;
  REQUIRE(cuMemAlloc(&out, 64 * sizeof(unsigned)) == CUDA_SUCCESS);
  std::vector<unsigned> host(32, 0);
  // memset out[32..63] to 9 -> kernel writes out[0..31] -> copy out[0..31] to host.
  CUgraph g = nullptr;
  REQUIRE(cuGraphCreate(&g, 0) == CUDA_SUCCESS);
  CUDA_MEMSET_NODE_PARAMS ms{};
  ms.dst = out + 32 * sizeof(unsigned);
  ms.value = 9;
  ms.elementSize = 4;
  ms.width = 32;
  ms.height = 1;
  CUgraphNode set = nullptr, kernel = nullptr, copy = nullptr;
  REQUIRE(cuGraphAddMemsetNode(&set, g, nullptr, 0, &ms, nullptr) == CUDA_SUCCESS);
  unsigned base = 5;
  Tail tail{{0, 0, 0, 20000}};
  void* params[] = {&out, &base, &tail};
  CUDA_KERNEL_NODE_PARAMS kp{};
  kp.func = fill;
  kp.gridDimX = kp.gridDimY = kp.gridDimZ = 1;
  kp.blockDimX = 32;
  kp.blockDimY = kp.blockDimZ = 1;
  kp.kernelParams = params;
  REQUIRE(cuGraphAddKernelNode(&kernel, g, &set, 1, &kp) == CUDA_SUCCESS);
  CUDA_MEMCPY3D cp{};
  cp.srcMemoryType = CU_MEMORYTYPE_DEVICE;
  cp.srcDevice = out;
  cp.dstMemoryType = CU_MEMORYTYPE_HOST;
  cp.dstHost = host.data();
  cp.WidthInBytes = 32 * sizeof(unsigned);
  cp.Height = cp.Depth = 1;
  REQUIRE(cuGraphAddMemcpyNode(&copy, g, &kernel, 1, &cp, nullptr) == CUDA_SUCCESS);
  CUDA_KERNEL_NODE_PARAMS back{};
  REQUIRE(cuGraphKernelNodeGetParams(kernel, &back) == CUDA_SUCCESS);
  CHECK(back.func == fill);
  CHECK(back.blockDimX == 32);
  CUDA_MEMSET_NODE_PARAMS ms_back{};
  REQUIRE(cuGraphMemsetNodeGetParams(set, &ms_back) == CUDA_SUCCESS);
  CHECK(ms_back.value == 9);
  CUDA_MEMCPY3D array_copy = cp;
  array_copy.srcMemoryType = CU_MEMORYTYPE_ARRAY;
  CUgraphNode bad = nullptr;
  CHECK(cuGraphAddMemcpyNode(&bad, g, nullptr, 0, &array_copy, nullptr) == CUDA_ERROR_NOT_SUPPORTED);

  CUgraphExec exec = nullptr;
  REQUIRE(cuGraphInstantiate(&exec, g, 0) == CUDA_SUCCESS);
  REQUIRE(cuGraphLaunch(exec, nullptr) == CUDA_SUCCESS);
  REQUIRE(cuCtxSynchronize() == CUDA_SUCCESS);
  for (unsigned i = 0; i < 32; ++i) CHECK(host[i] == 5 + i + 1000 + 20000);
  CHECK(Read(out + 32 * sizeof(unsigned), 32)[7] == 9u);
  // The exec's kernel node with another base (its parameters are read at the
  // call), and its memset node with another value.
  base = 100;
  REQUIRE(cuGraphExecKernelNodeSetParams(exec, kernel, &kp) == CUDA_SUCCESS);
  ms.value = 11;
  REQUIRE(cuGraphExecMemsetNodeSetParams(exec, set, &ms, nullptr) == CUDA_SUCCESS);
  REQUIRE(cuGraphLaunch(exec, nullptr) == CUDA_SUCCESS);
  REQUIRE(cuCtxSynchronize() == CUDA_SUCCESS);
  CHECK(host[3] == 100 + 3 + 1000 + 20000);
  CHECK(Read(out + 32 * sizeof(unsigned), 32)[0] == 11u);
  CHECK(cuGraphExecDestroy(exec) == CUDA_SUCCESS);
  CHECK(cuGraphDestroy(g) == CUDA_SUCCESS);
  CHECK(cuMemFree(out) == CUDA_SUCCESS);
  cudaGetLastError();
}

TEST_CASE("driver: CUresult names and strings", "[driver]") {
  const char* s = nullptr;
  REQUIRE(cuGetErrorName(CUDA_ERROR_INVALID_PTX, &s) == CUDA_SUCCESS);
  CHECK(std::string(s) == "CUDA_ERROR_INVALID_PTX");
  REQUIRE(cuGetErrorString(CUDA_ERROR_ILLEGAL_ADDRESS, &s) == CUDA_SUCCESS);
  CHECK(std::string(s) == "an illegal memory access was encountered");
  REQUIRE(cuGetErrorString(CUDA_ERROR_CONTEXT_ALREADY_CURRENT, &s) == CUDA_SUCCESS);  // no runtime twin
  CHECK(std::string(s).find("context") != std::string::npos);
  // No such value (inside the enumeration's range: outside it, the load alone is undefined).
  CHECK(cuGetErrorName(static_cast<CUresult>(1000), &s) == CUDA_ERROR_INVALID_VALUE);
  CHECK(s == nullptr);
}

TEST_CASE("driver: cuGetProcAddress resolves the ABI variant of a name", "[driver]") {
  REQUIRE(cuInit(0) == CUDA_SUCCESS);
  void* self = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_NOLOAD);
  REQUIRE(self != nullptr);
  void* fn = nullptr;
  CUdriverProcAddressQueryResult status = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
  REQUIRE(cuGetProcAddress("cuMemAlloc", &fn, 13000, CU_GET_PROC_ADDRESS_DEFAULT, &status) == CUDA_SUCCESS);
  CHECK(status == CU_GET_PROC_ADDRESS_SUCCESS);
  CHECK(fn == dlsym(self, "cuMemAlloc_v2"));
  REQUIRE(cuGetProcAddress("cuCtxCreate", &fn, 13000, CU_GET_PROC_ADDRESS_DEFAULT, &status) == CUDA_SUCCESS);
  CHECK(fn == dlsym(self, "cuCtxCreate_v4"));
  // An older CUDA version gets the variant of its time.
  REQUIRE(cuGetProcAddress("cuCtxCreate", &fn, 12000, CU_GET_PROC_ADDRESS_DEFAULT, &status) == CUDA_SUCCESS);
  CHECK(fn == dlsym(self, "cuCtxCreate_v3"));
  REQUIRE(cuGetProcAddress("cuCtxCreate", &fn, 11000, CU_GET_PROC_ADDRESS_DEFAULT, &status) == CUDA_SUCCESS);
  CHECK(fn == dlsym(self, "cuCtxCreate_v2"));
  // Per-thread default stream: the _ptsz / _ptds variants.
  REQUIRE(cuGetProcAddress("cuLaunchKernel", &fn, 13000, CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM, &status) ==
          CUDA_SUCCESS);
  CHECK(fn == dlsym(self, "cuLaunchKernel_ptsz"));
  REQUIRE(cuGetProcAddress("cuMemcpyHtoD", &fn, 13000, CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM, &status) ==
          CUDA_SUCCESS);
  CHECK(fn == dlsym(self, "cuMemcpyHtoD_v2_ptds"));
  REQUIRE(cuGetProcAddress("cuInit", &fn, 13000, CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM, &status) ==
          CUDA_SUCCESS);
  CHECK(fn == dlsym(self, "cuInit"));
  // Unknown names and versions before a function existed.
  CHECK(cuGetProcAddress("cuNoSuchFunction", &fn, 13000, CU_GET_PROC_ADDRESS_DEFAULT, &status) ==
        CUDA_ERROR_NOT_FOUND);
  CHECK(status == CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND);
  CHECK(fn == nullptr);
  CHECK(cuGetProcAddress("cuCtxCreate_v4", &fn, 12000, CU_GET_PROC_ADDRESS_DEFAULT, &status) == CUDA_ERROR_NOT_FOUND);
  CHECK(status == CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT);
  CHECK(cuGetProcAddress("cuInit", &fn, 13000, 8, &status) == CUDA_ERROR_INVALID_VALUE);

  // An unimplemented function resolves to its stub, which says so.
  REQUIRE(cuGetProcAddress("cuArrayCreate", &fn, 13000, CU_GET_PROC_ADDRESS_DEFAULT, &status) == CUDA_SUCCESS);
  CHECK(fn == dlsym(self, "cuArrayCreate_v2"));
  CUarray array = nullptr;
  CUDA_ARRAY_DESCRIPTOR desc{};
  CHECK(reinterpret_cast<CUresult (*)(CUarray*, const CUDA_ARRAY_DESCRIPTOR*)>(fn)(&array, &desc) ==
        CUDA_ERROR_NOT_SUPPORTED);
  const void* table = &table;
  CUuuid id{};
  CHECK(cuGetExportTable(&table, &id) == CUDA_ERROR_NOT_SUPPORTED);

  // The runtime's cudaGetDriverEntryPoint reaches the driver for what its own table lacks.
  cudaDriverEntryPointQueryResult rt_status = cudaDriverEntryPointSymbolNotFound;
  REQUIRE(cudaGetDriverEntryPointByVersion("cuModuleLoadData", &fn, 13000, cudaEnableDefault, &rt_status) ==
          cudaSuccess);
  CHECK(rt_status == cudaDriverEntryPointSuccess);
  CHECK(fn == dlsym(self, "cuModuleLoadData"));
  REQUIRE(cudaGetDriverEntryPointByVersion("cuNoSuchFunction", &fn, 13000, cudaEnableDefault, &rt_status) ==
          cudaSuccess);
  CHECK(rt_status == cudaDriverEntryPointSymbolNotFound);
  dlclose(self);
}
