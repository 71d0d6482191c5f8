// Tests of the replacement libcudart.so.13 through its exported C API, as a
// program sees it: memory, copies, streams, events, errors, device queries,
// registration of hand-built fat binaries, symbol copies, and launches.
//
// The runtime is process-wide state: every test leaves no sticky error behind.
// Symbols are passed as addresses, as cuda_runtime.h's templates pass them in
// nvcc-compiled code (those templates exist only under __CUDACC__).
#include <catch2/catch.hpp>

#include <cstring>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "ptx_emulator/runtime/cuda_api.h"
#include "ptx_emulator/tests/hand_made_fatbin.h"
#include "ptx_rewriter/fatbin/fatbin_format.h"

namespace {

namespace fb = barracuda::fatbin;

using barracuda::test::HandMadeFatbin;

constexpr char kModulePtx[] = R"(.version 8.0
.target sm_75
.address_size 64
.global .align 4 .u32 counter = 7;
.global .align 8 .b8 table[64];
.const .align 4 .u32 coeffs[4] = {1, 2, 3, 4};
.global .attribute(.managed) .align 4 .u32 managed_value = 42;

.visible .entry store_tid(.param .u64 out)
{
  .reg .b32 %r<3>;
  .reg .b64 %rd<5>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  ld.const.u32 %r2, [coeffs+4];
  add.u32 %r1, %r1, %r2;
  mul.wide.u32 %rd2, %r1, 4;
  sub.u64 %rd2, %rd2, 8;
  add.u64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r1;
  ret;
}

.visible .entry bad_store(.param .u64 out)
{
  .reg .b32 %r<2>;
  .reg .b64 %rd<2>;
  mov.u64 %rd1, 16;
  mov.u32 %r1, 1;
  st.global.u32 [%rd1], %r1;
  ret;
}
)";

// Host-side stand-ins for what nvcc would generate: shadows and stub addresses.
uint32_t host_counter = 7;
uint8_t host_table[64];
uint32_t host_coeffs[4];
uint32_t* host_managed_ptr = nullptr;
void StoreTidStub() {}
void BadStoreStub() {}
void NotAKernel() {}

struct RegisteredModule {
  HandMadeFatbin fatbin{kModulePtx, fb::EntryKind::kPtx};
  void** handle = nullptr;
  RegisteredModule() {
    handle = fatbin.Register();
    __cudaRegisterFunction(handle, reinterpret_cast<const char*>(&StoreTidStub), const_cast<char*>("store_tid"),
                           "store_tid", -1, nullptr, nullptr, nullptr, nullptr, nullptr);
    __cudaRegisterFunction(handle, reinterpret_cast<const char*>(&BadStoreStub), const_cast<char*>("bad_store"),
                           "bad_store", -1, nullptr, nullptr, nullptr, nullptr, nullptr);
    __cudaRegisterVar(handle, reinterpret_cast<char*>(&host_counter), const_cast<char*>("counter"), "counter", 0,
                      sizeof(host_counter), 0, 0);
    __cudaRegisterVar(handle, reinterpret_cast<char*>(host_table), const_cast<char*>("table"), "table", 0,
                      sizeof(host_table), 0, 0);
    __cudaRegisterVar(handle, reinterpret_cast<char*>(host_coeffs), const_cast<char*>("coeffs"), "coeffs", 0,
                      sizeof(host_coeffs), 1, 0);
    __cudaRegisterManagedVar(handle, reinterpret_cast<void**>(&host_managed_ptr),
                             const_cast<char*>("managed_value"), "managed_value", 0, sizeof(uint32_t), 0, 0);
    __cudaRegisterFatBinaryEnd(handle);
  }
};

RegisteredModule& Module() {
  static RegisteredModule m;
  return m;
}

}  // namespace

TEST_CASE("runtime: device queries describe one consistent device", "[runtime]") {
  int count = 0;
  REQUIRE(cudaGetDeviceCount(&count) == cudaSuccess);
  CHECK(count == 1);
  cudaDeviceProp prop{};
  REQUIRE(cudaGetDeviceProperties(&prop, 0) == cudaSuccess);
  CHECK(prop.warpSize == 32);
  CHECK(prop.maxThreadsPerBlock == 1024);
  CHECK(prop.sharedMemPerBlock == 48 * 1024);
  CHECK(prop.multiProcessorCount > 0);
  CHECK(prop.major * 10 + prop.minor == 75);
  CHECK(std::string(prop.name).find("emulator") != std::string::npos);
  int v = 0;
  REQUIRE(cudaDeviceGetAttribute(&v, cudaDevAttrMultiProcessorCount, 0) == cudaSuccess);
  CHECK(v == prop.multiProcessorCount);
  REQUIRE(cudaDeviceGetAttribute(&v, cudaDevAttrMaxSharedMemoryPerBlockOptin, 0) == cudaSuccess);
  CHECK(static_cast<size_t>(v) == prop.sharedMemPerBlockOptin);
  REQUIRE(cudaDeviceGetAttribute(&v, cudaDevAttrComputeCapabilityMajor, 0) == cudaSuccess);
  CHECK(v == prop.major);
  CHECK(cudaGetDeviceProperties(&prop, 1) == cudaErrorInvalidDevice);
  CHECK(cudaGetLastError() == cudaErrorInvalidDevice);
  CHECK(cudaGetLastError() == cudaSuccess);
  CHECK(cudaSetDevice(0) == cudaSuccess);
  CHECK(cudaSetDevice(3) == cudaErrorInvalidDevice);
  CHECK(cudaGetLastError() == cudaErrorInvalidDevice);
  REQUIRE(cudaRuntimeGetVersion(&v) == cudaSuccess);
  CHECK(v == 13000);
  REQUIRE(cudaDriverGetVersion(&v) == cudaSuccess);
  CHECK(v == 13000);
  size_t limit = 0;
  REQUIRE(cudaDeviceSetLimit(cudaLimitMallocHeapSize, 1 << 24) == cudaSuccess);
  REQUIRE(cudaDeviceGetLimit(&limit, cudaLimitMallocHeapSize) == cudaSuccess);
  CHECK(limit == (1u << 24));
}

TEST_CASE("runtime: error names and strings cover every value", "[runtime]") {
  CHECK(std::string(cudaGetErrorName(cudaSuccess)) == "cudaSuccess");
  CHECK(std::string(cudaGetErrorString(cudaSuccess)) == "no error");
  CHECK(std::string(cudaGetErrorName(cudaErrorIllegalAddress)) == "cudaErrorIllegalAddress");
  CHECK(std::string(cudaGetErrorString(cudaErrorIllegalAddress)) == "an illegal memory access was encountered");
  CHECK(std::string(cudaGetErrorString(cudaErrorAssert)) == "device-side assert triggered");
  CHECK(std::string(cudaGetErrorName(cudaErrorNotSupported)) == "cudaErrorNotSupported");
  CHECK(std::string(cudaGetErrorName(cudaErrorApiFailureBase)) == "cudaErrorApiFailureBase");
  CHECK(std::string(cudaGetErrorName(static_cast<cudaError_t>(12345))) == "unrecognized error code");
  // Every enumerator has a name of its own and a description.
  for (int e : {2, 3, 9, 13, 17, 98, 200, 209, 218, 222, 400, 500, 600, 700, 710, 719, 801, 999}) {
    const std::string name = cudaGetErrorName(static_cast<cudaError_t>(e));
    CHECK(name.rfind("cudaError", 0) == 0);
    CHECK(std::string(cudaGetErrorString(static_cast<cudaError_t>(e))).size() > 3);
  }
}

TEST_CASE("runtime: device memory round trip, sets and direction checks", "[runtime]") {
  int* d = nullptr;
  REQUIRE(cudaMalloc(reinterpret_cast<void**>(&d), 256 * sizeof(int)) == cudaSuccess);
  REQUIRE(d != nullptr);
  std::vector<int> in(256), out(256, -1);
  for (int i = 0; i < 256; ++i) in[i] = i * 3;
  REQUIRE(cudaMemcpy(d, in.data(), 1024, cudaMemcpyHostToDevice) == cudaSuccess);
  REQUIRE(cudaMemcpy(out.data(), d, 1024, cudaMemcpyDeviceToHost) == cudaSuccess);
  CHECK(out == in);
  REQUIRE(cudaMemset(d, 0xff, 16) == cudaSuccess);
  REQUIRE(cudaMemcpy(out.data(), d, 1024, cudaMemcpyDefault) == cudaSuccess);
  CHECK(out[0] == -1);
  CHECK(out[3] == -1);
  CHECK(out[4] == 12);
  // A host pointer where the direction says device: rejected like on a GPU.
  CHECK(cudaMemcpy(in.data(), out.data(), 16, cudaMemcpyHostToDevice) == cudaErrorInvalidValue);
  CHECK(cudaGetLastError() == cudaErrorInvalidValue);
  CHECK(cudaMemcpy(out.data(), d, 2048, cudaMemcpyDeviceToHost) == cudaErrorInvalidValue);  // past the end
  // 7: inside the enum's range of values, but not a direction.
  CHECK(cudaMemcpy(out.data(), d, 4, static_cast<cudaMemcpyKind>(7)) == cudaErrorInvalidMemcpyDirection);
  CHECK(cudaMemset(in.data(), 0, 4) == cudaErrorInvalidValue);
  int* d2 = nullptr;
  REQUIRE(cudaMalloc(reinterpret_cast<void**>(&d2), 1024) == cudaSuccess);
  REQUIRE(cudaMemcpyAsync(d2, d, 1024, cudaMemcpyDeviceToDevice, nullptr) == cudaSuccess);
  REQUIRE(cudaMemcpy(out.data(), d2, 1024, cudaMemcpyDeviceToHost) == cudaSuccess);
  CHECK(out[4] == 12);
  CHECK(cudaFree(d2) == cudaSuccess);
  CHECK(cudaFree(d2) == cudaErrorInvalidDevicePointer);  // double free
  CHECK(cudaFree(in.data()) == cudaErrorInvalidDevicePointer);
  CHECK(cudaFree(nullptr) == cudaSuccess);
  CHECK(cudaFree(d) == cudaSuccess);
  cudaGetLastError();
}

TEST_CASE("runtime: pitched 2D and 3D copies and sets", "[runtime]") {
  char* d = nullptr;
  size_t pitch = 0;
  REQUIRE(cudaMallocPitch(reinterpret_cast<void**>(&d), &pitch, 100, 8) == cudaSuccess);
  CHECK(pitch >= 100);
  CHECK(pitch % 256 == 0);
  std::vector<char> host(100 * 8), back(100 * 8, 0);
  for (size_t i = 0; i < host.size(); ++i) host[i] = static_cast<char>(i * 7);
  REQUIRE(cudaMemcpy2D(d, pitch, host.data(), 100, 100, 8, cudaMemcpyHostToDevice) == cudaSuccess);
  REQUIRE(cudaMemcpy2D(back.data(), 100, d, pitch, 100, 8, cudaMemcpyDeviceToHost) == cudaSuccess);
  CHECK(back == host);
  CHECK(cudaMemcpy2D(d, 50, host.data(), 100, 100, 8, cudaMemcpyHostToDevice) == cudaErrorInvalidPitchValue);
  REQUIRE(cudaMemset2D(d, pitch, 1, 10, 8) == cudaSuccess);
  REQUIRE(cudaMemcpy2D(back.data(), 100, d, pitch, 100, 8, cudaMemcpyDeviceToHost) == cudaSuccess);
  CHECK(back[7 * 100 + 9] == 1);
  CHECK(back[7 * 100 + 10] == host[7 * 100 + 10]);

  cudaPitchedPtr p{};
  REQUIRE(cudaMalloc3D(&p, make_cudaExtent(16, 4, 3)) == cudaSuccess);
  std::vector<char> cube(16 * 4 * 3), cube_back(cube.size(), 0);
  for (size_t i = 0; i < cube.size(); ++i) cube[i] = static_cast<char>(i);
  cudaMemcpy3DParms up{};
  up.srcPtr = make_cudaPitchedPtr(cube.data(), 16, 16, 4);
  up.dstPtr = p;
  up.extent = make_cudaExtent(16, 4, 3);
  up.kind = cudaMemcpyHostToDevice;
  REQUIRE(cudaMemcpy3D(&up) == cudaSuccess);
  cudaMemcpy3DParms down{};
  down.srcPtr = p;
  down.dstPtr = make_cudaPitchedPtr(cube_back.data(), 16, 16, 4);
  down.extent = up.extent;
  down.kind = cudaMemcpyDeviceToHost;
  REQUIRE(cudaMemcpy3DAsync(&down, nullptr) == cudaSuccess);
  CHECK(cube_back == cube);
  REQUIRE(cudaMemset3D(p, 0, make_cudaExtent(16, 4, 3)) == cudaSuccess);
  REQUIRE(cudaMemcpy3D(&down) == cudaSuccess);
  CHECK(cube_back == std::vector<char>(cube.size(), 0));
  CHECK(cudaFree(p.ptr) == cudaSuccess);
  CHECK(cudaFree(d) == cudaSuccess);
}

TEST_CASE("runtime: managed, host-mapped memory and pointer attributes", "[runtime]") {
  int* m = nullptr;
  REQUIRE(cudaMallocManaged(reinterpret_cast<void**>(&m), 64 * sizeof(int), cudaMemAttachGlobal) == cudaSuccess);
  for (int i = 0; i < 64; ++i) m[i] = i;  // host access to managed memory
  int* h = nullptr;
  REQUIRE(cudaHostAlloc(reinterpret_cast<void**>(&h), 64 * sizeof(int), cudaHostAllocMapped) == cudaSuccess);
  void* dh = nullptr;
  REQUIRE(cudaHostGetDevicePointer(&dh, h, 0) == cudaSuccess);
  CHECK(dh == h);
  REQUIRE(cudaMemcpy(dh, m, 64 * sizeof(int), cudaMemcpyDeviceToDevice) == cudaSuccess);
  CHECK(h[63] == 63);
  int local = 0;
  CHECK(cudaHostGetDevicePointer(&dh, &local, 0) == cudaErrorInvalidValue);

  cudaPointerAttributes a{};
  REQUIRE(cudaPointerGetAttributes(&a, m) == cudaSuccess);
  CHECK(a.type == cudaMemoryTypeManaged);
  REQUIRE(cudaPointerGetAttributes(&a, h) == cudaSuccess);
  CHECK(a.type == cudaMemoryTypeHost);
  CHECK(a.hostPointer == h);
  REQUIRE(cudaPointerGetAttributes(&a, &local) == cudaSuccess);
  CHECK(a.type == cudaMemoryTypeUnregistered);
  void* d = nullptr;
  REQUIRE(cudaMalloc(&d, 100) == cudaSuccess);
  REQUIRE(cudaPointerGetAttributes(&a, static_cast<char*>(d) + 10) == cudaSuccess);
  CHECK(a.type == cudaMemoryTypeDevice);
  CHECK(a.hostPointer == nullptr);

  size_t free_before = 0, total = 0, free_after = 0;
  REQUIRE(cudaMemGetInfo(&free_before, &total) == cudaSuccess);
  void* big = nullptr;
  REQUIRE(cudaMalloc(&big, 1 << 20) == cudaSuccess);
  REQUIRE(cudaMemGetInfo(&free_after, &total) == cudaSuccess);
  CHECK(free_before - free_after >= (1u << 20));
  CHECK(cudaFree(big) == cudaSuccess);
  CHECK(cudaFree(d) == cudaSuccess);
  CHECK(cudaFree(h) == cudaErrorInvalidDevicePointer);  // host allocations need cudaFreeHost
  CHECK(cudaFreeHost(h) == cudaSuccess);
  CHECK(cudaFree(m) == cudaSuccess);
  cudaGetLastError();
}

TEST_CASE("runtime: streams and events", "[runtime]") {
  cudaStream_t s = nullptr, hi = nullptr;
  REQUIRE(cudaStreamCreate(&s) == cudaSuccess);
  REQUIRE(cudaStreamCreateWithPriority(&hi, cudaStreamNonBlocking, -3) == cudaSuccess);
  int priority = 0;
  unsigned flags = 0;
  REQUIRE(cudaStreamGetPriority(hi, &priority) == cudaSuccess);
  CHECK(priority == -3);
  REQUIRE(cudaStreamGetFlags(hi, &flags) == cudaSuccess);
  CHECK(flags == cudaStreamNonBlocking);
  cudaEvent_t a = nullptr, b = nullptr, untimed = nullptr;
  REQUIRE(cudaEventCreate(&a) == cudaSuccess);
  REQUIRE(cudaEventCreate(&b) == cudaSuccess);
  REQUIRE(cudaEventCreateWithFlags(&untimed, cudaEventDisableTiming) == cudaSuccess);
  float ms = -1;
  CHECK(cudaEventElapsedTime(&ms, a, b) == cudaErrorInvalidResourceHandle);  // not recorded yet
  REQUIRE(cudaEventRecord(a, s) == cudaSuccess);
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  REQUIRE(cudaEventRecord(b, hi) == cudaSuccess);
  REQUIRE(cudaStreamWaitEvent(s, b, 0) == cudaSuccess);
  REQUIRE(cudaEventSynchronize(b) == cudaSuccess);
  CHECK(cudaEventQuery(b) == cudaSuccess);
  CHECK(cudaStreamQuery(s) == cudaSuccess);
  REQUIRE(cudaEventElapsedTime(&ms, a, b) == cudaSuccess);
  CHECK(ms >= 19.0f);
  CHECK(ms < 5000.0f);
  REQUIRE(cudaEventRecord(untimed, nullptr) == cudaSuccess);
  CHECK(cudaEventElapsedTime(&ms, a, untimed) == cudaErrorInvalidResourceHandle);
  CHECK(cudaStreamSynchronize(s) == cudaSuccess);
  CHECK(cudaStreamSynchronize(cudaStreamPerThread) == cudaSuccess);
  CHECK(cudaDeviceSynchronize() == cudaSuccess);
  int calls = 0;
  REQUIRE(cudaLaunchHostFunc(s, [](void* p) { ++*static_cast<int*>(p); }, &calls) == cudaSuccess);
  CHECK(calls == 1);
  CHECK(cudaStreamDestroy(s) == cudaSuccess);
  CHECK(cudaStreamSynchronize(s) == cudaErrorInvalidResourceHandle);
  CHECK(cudaStreamDestroy(s) == cudaErrorInvalidResourceHandle);
  CHECK(cudaStreamDestroy(hi) == cudaSuccess);
  CHECK(cudaEventDestroy(a) == cudaSuccess);
  CHECK(cudaEventDestroy(b) == cudaSuccess);
  CHECK(cudaEventDestroy(untimed) == cudaSuccess);
  CHECK(cudaEventQuery(a) == cudaErrorInvalidResourceHandle);
  cudaGetLastError();
}

TEST_CASE("runtime: last error is per thread", "[runtime]") {
  CHECK(cudaSetDevice(7) == cudaErrorInvalidDevice);
  cudaError_t other = cudaErrorUnknown;
  std::thread([&] { other = cudaPeekAtLastError(); }).join();
  CHECK(other == cudaSuccess);
  CHECK(cudaPeekAtLastError() == cudaErrorInvalidDevice);
  CHECK(cudaGetLastError() == cudaErrorInvalidDevice);
  CHECK(cudaPeekAtLastError() == cudaSuccess);
}

TEST_CASE("runtime: unimplemented functions return cudaErrorNotSupported", "[runtime]") {
  cudaIpcMemHandle_t handle{};
  CHECK(cudaIpcGetMemHandle(&handle, nullptr) == cudaErrorNotSupported);
  CHECK(cudaGetLastError() == cudaErrorNotSupported);
  CHECK(cudaIpcGetMemHandle(&handle, nullptr) == cudaErrorNotSupported);  // message printed once only
  cudaGetLastError();
}

TEST_CASE("runtime: launch configuration stack nests per thread", "[runtime]") {
  CHECK(__cudaPushCallConfiguration(dim3(2), dim3(32), 0, nullptr) == 0);
  CHECK(__cudaPushCallConfiguration(dim3(3, 4), dim3(8, 8), 128, nullptr) == 0);
  dim3 grid, block;
  size_t shared = 1;
  cudaStream_t stream = reinterpret_cast<cudaStream_t>(0x10);
  REQUIRE(__cudaPopCallConfiguration(&grid, &block, &shared, &stream) == cudaSuccess);
  CHECK(grid.x == 3);
  CHECK(grid.y == 4);
  CHECK(block.y == 8);
  CHECK(shared == 128);
  CHECK(stream == nullptr);
  REQUIRE(__cudaPopCallConfiguration(&grid, &block, &shared, &stream) == cudaSuccess);
  CHECK(grid.x == 2);
  CHECK(block.x == 32);
  CHECK(__cudaPopCallConfiguration(&grid, &block, &shared, &stream) == cudaErrorMissingConfiguration);
  cudaGetLastError();
  cudaKernel_t k = nullptr;
  CHECK(__cudaLaunchKernel(nullptr, dim3(1), dim3(1), nullptr, 0, nullptr) == cudaErrorInvalidDeviceFunction);
  CHECK(__cudaGetKernel(&k, reinterpret_cast<const void*>(&NotAKernel)) == cudaErrorInvalidDeviceFunction);
  cudaGetLastError();
}

TEST_CASE("runtime: symbol copies of registered module variables", "[runtime][loader]") {
  Module();
  uint32_t v = 0;
  REQUIRE(cudaMemcpyFromSymbol(&v, &host_counter, sizeof(v)) == cudaSuccess);
  CHECK(v == 7);  // the PTX initialiser
  const uint32_t nine = 9;
  REQUIRE(cudaMemcpyToSymbol(&host_counter, &nine, sizeof(nine)) == cudaSuccess);
  REQUIRE(cudaMemcpyFromSymbol(&v, &host_counter, sizeof(v), 0, cudaMemcpyDeviceToHost) == cudaSuccess);
  CHECK(v == 9);
  uint8_t bytes[8] = {1, 2, 3, 4, 5, 6, 7, 8}, back[8] = {};
  REQUIRE(cudaMemcpyToSymbolAsync(host_table, bytes, 8, 56, cudaMemcpyHostToDevice, nullptr) == cudaSuccess);
  REQUIRE(cudaMemcpyFromSymbol(back, host_table, 8, 56) == cudaSuccess);
  CHECK(std::memcmp(back, bytes, 8) == 0);
  CHECK(cudaMemcpyToSymbol(host_table, bytes, 8, 60) == cudaErrorInvalidValue);  // past the end
  CHECK(cudaMemcpyToSymbol(host_table, bytes, 8, 0, cudaMemcpyDeviceToHost) == cudaErrorInvalidMemcpyDirection);
  int unregistered = 0;
  CHECK(cudaMemcpyToSymbol(&unregistered, bytes, 4) == cudaErrorInvalidSymbol);
  uint32_t coeffs[4] = {};
  REQUIRE(cudaMemcpyFromSymbol(coeffs, host_coeffs, sizeof(coeffs)) == cudaSuccess);
  CHECK(coeffs[3] == 4);

  void* address = nullptr;
  size_t size = 0;
  REQUIRE(cudaGetSymbolAddress(&address, host_table) == cudaSuccess);
  REQUIRE(cudaGetSymbolSize(&size, host_table) == cudaSuccess);
  CHECK(size == 64);
  CHECK(static_cast<uint8_t*>(address)[57] == 2);
  cudaPointerAttributes a{};
  REQUIRE(cudaPointerGetAttributes(&a, address) == cudaSuccess);
  CHECK(a.type == cudaMemoryTypeDevice);

  // A managed variable: __cudaInitModule fills the host pointer.
  REQUIRE(__cudaInitModule(Module().handle) == 1);
  REQUIRE(host_managed_ptr != nullptr);
  CHECK(*host_managed_ptr == 42);
  *host_managed_ptr = 43;
  REQUIRE(cudaMemcpyFromSymbol(&v, host_managed_ptr, sizeof(v)) == cudaSuccess);
  CHECK(v == 43);
  cudaGetLastError();
}

TEST_CASE("runtime: function attributes and occupancy", "[runtime][loader]") {
  Module();
  cudaFuncAttributes attr{};
  REQUIRE(cudaFuncGetAttributes(&attr, reinterpret_cast<const void*>(&StoreTidStub)) == cudaSuccess);
  CHECK(attr.maxThreadsPerBlock == 1024);
  CHECK(attr.sharedSizeBytes == 0);
  CHECK(attr.ptxVersion == 75);
  CHECK(attr.numRegs > 0);
  int blocks = 0;
  REQUIRE(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, reinterpret_cast<const void*>(&StoreTidStub), 256,
                                                        0) == cudaSuccess);
  CHECK(blocks == 4);  // the module is sm_75's: 1024 threads per SM / 256
  REQUIRE(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, reinterpret_cast<const void*>(&StoreTidStub), 256,
                                                        40 * 1024) == cudaSuccess);
  CHECK(blocks == 1);  // sm_75: 64 KiB of shared memory per SM / 40 KiB
  CHECK(cudaFuncSetAttribute(reinterpret_cast<const void*>(&StoreTidStub),
                             cudaFuncAttributeMaxDynamicSharedMemorySize, 64 * 1024) == cudaSuccess);
  REQUIRE(cudaFuncGetAttributes(&attr, reinterpret_cast<const void*>(&StoreTidStub)) == cudaSuccess);
  CHECK(attr.maxDynamicSharedSizeBytes == 64 * 1024);
  CHECK(cudaFuncSetAttribute(reinterpret_cast<const void*>(&StoreTidStub),
                             cudaFuncAttributeMaxDynamicSharedMemorySize, 1 << 20) == cudaErrorInvalidValue);
  int local = 0;
  CHECK(cudaFuncGetAttributes(&attr, &local) == cudaErrorInvalidDeviceFunction);
  cudaGetLastError();
}

TEST_CASE("runtime: modules without PTX or with broken PTX are refused at launch", "[runtime][loader]") {
  static HandMadeFatbin elf_only("\x7f" "ELF not really", fb::EntryKind::kElf);
  static int no_ptx_stub = 0;
  void** h = elf_only.Register();
  __cudaRegisterFunction(h, reinterpret_cast<const char*>(&no_ptx_stub), const_cast<char*>("k"), "k", -1, nullptr,
                         nullptr, nullptr, nullptr, nullptr);
  CHECK(cudaLaunchKernel(&no_ptx_stub, dim3(1), dim3(1), nullptr, 0, nullptr) == cudaErrorNoKernelImageForDevice);
  CHECK(cudaGetLastError() == cudaErrorNoKernelImageForDevice);

  // Malformed (the parameter list is not closed): cudaErrorInvalidPtx.
  static HandMadeFatbin broken(".version 8.0\n.target sm_75\n.address_size 64\n.visible .entry k(\n{\n  ret;\n}\n",
                               fb::EntryKind::kPtx);
  static int broken_stub = 0;
  h = broken.Register();
  __cudaRegisterFunction(h, reinterpret_cast<const char*>(&broken_stub), const_cast<char*>("k"), "k", -1, nullptr,
                         nullptr, nullptr, nullptr, nullptr);
  CHECK(cudaLaunchKernel(&broken_stub, dim3(1), dim3(1), nullptr, 0, nullptr) == cudaErrorInvalidPtx);
  CHECK(cudaGetLastError() == cudaErrorInvalidPtx);

  // Valid PTX with an instruction the emulator does not implement: its
  // limitation, cudaErrorNotSupported (as for unimplemented API functions).
  static HandMadeFatbin tensor(
      ".version 8.0\n.target sm_90a\n.address_size 64\n.visible .entry k(.param .u64 p)\n{\n"
      "  .reg .b64 %rd<2>;\n  .reg .b32 %r<5>;\n  .reg .pred %p<2>;\n  ld.param.u64 %rd1, [p];\n"
      "  setp.ne.u64 %p1, %rd1, 0;\n"
      "  wgmma.mma_async.sync.aligned.m64n8k256.s32.b1.b1.and.popc {%r1, %r2, %r3, %r4}, %rd1, %rd1, %p1;\n"
      "  ret;\n}\n",
      fb::EntryKind::kPtx);
  static int tensor_stub = 0;
  h = tensor.Register();
  __cudaRegisterFunction(h, reinterpret_cast<const char*>(&tensor_stub), const_cast<char*>("k"), "k", -1, nullptr,
                         nullptr, nullptr, nullptr, nullptr);
  void* arg = nullptr;
  void* args[] = {&arg};
  CHECK(cudaLaunchKernel(&tensor_stub, dim3(1), dim3(32), args, 0, nullptr) == cudaErrorNotSupported);
  CHECK(cudaPeekAtLastError() == cudaErrorNotSupported);
  CHECK(cudaGetLastError() == cudaErrorNotSupported);
  CHECK(cudaGetLastError() == cudaSuccess);
  CHECK(cudaLaunchKernel(&tensor_stub, dim3(1), dim3(32), args, 0, nullptr) == cudaErrorNotSupported);
  cudaGetLastError();
  // None is sticky: the context stays usable.
  CHECK(cudaDeviceSynchronize() == cudaSuccess);
}

TEST_CASE("runtime: kernel launch through the registered stub", "[runtime][pipeline]") {
  Module();
  uint32_t* out = nullptr;
  REQUIRE(cudaMalloc(reinterpret_cast<void**>(&out), 64 * sizeof(uint32_t)) == cudaSuccess);
  void* args[] = {&out};
  // store_tid writes tid + coeffs[1] at index tid + coeffs[1] - 2 = tid.
  REQUIRE(cudaLaunchKernel(reinterpret_cast<const void*>(&StoreTidStub), dim3(1), dim3(64), args, 0, nullptr) ==
          cudaSuccess);
  std::vector<uint32_t> host(64);
  REQUIRE(cudaMemcpy(host.data(), out, 64 * sizeof(uint32_t), cudaMemcpyDeviceToHost) == cudaSuccess);
  for (uint32_t i = 0; i < 64; ++i) CHECK(host[i] == i + 2);
  // The nvcc stub's path: __cudaGetKernel + __cudaLaunchKernel.
  cudaKernel_t k = nullptr;
  REQUIRE(__cudaGetKernel(&k, reinterpret_cast<const void*>(&StoreTidStub)) == cudaSuccess);
  REQUIRE(cudaMemset(out, 0, 64 * sizeof(uint32_t)) == cudaSuccess);
  REQUIRE(__cudaLaunchKernel_ptsz(k, dim3(1), dim3(32), args, 0, nullptr) == cudaSuccess);
  REQUIRE(cudaMemcpy(host.data(), out, 64 * sizeof(uint32_t), cudaMemcpyDeviceToHost) == cudaSuccess);
  CHECK(host[31] == 33);
  CHECK(host[32] == 0);
  // Bad configurations fail before running.
  CHECK(cudaLaunchKernel(reinterpret_cast<const void*>(&StoreTidStub), dim3(1), dim3(2048), args, 0, nullptr) ==
        cudaErrorInvalidConfiguration);
  CHECK(cudaLaunchKernel(reinterpret_cast<const void*>(&StoreTidStub), dim3(1), dim3(32), args, 1 << 20, nullptr) ==
        cudaErrorInvalidValue);
  CHECK(cudaLaunchCooperativeKernel(reinterpret_cast<const void*>(&StoreTidStub), dim3(100000), dim3(1024), args, 0,
                                    nullptr) == cudaErrorCooperativeLaunchTooLarge);
  cudaGetLastError();
  CHECK(cudaFree(out) == cudaSuccess);
}

TEST_CASE("runtime: a faulting kernel gives a sticky cudaErrorIllegalAddress", "[runtime][pipeline]") {
  Module();
  void* args[] = {nullptr};
  uint64_t unused = 0;
  args[0] = &unused;
  CHECK(cudaLaunchKernel(reinterpret_cast<const void*>(&BadStoreStub), dim3(1), dim3(1), args, 0, nullptr) ==
        cudaErrorIllegalAddress);
  CHECK(cudaDeviceSynchronize() == cudaErrorIllegalAddress);
  void* p = nullptr;
  CHECK(cudaMalloc(&p, 16) == cudaErrorIllegalAddress);
  CHECK(cudaGetLastError() == cudaErrorIllegalAddress);
  CHECK(cudaGetLastError() == cudaErrorIllegalAddress);  // sticky
  REQUIRE(cudaDeviceReset() == cudaSuccess);
  CHECK(cudaDeviceSynchronize() == cudaSuccess);
  CHECK(cudaGetLastError() == cudaSuccess);
  // The module reloads after the reset.
  uint32_t v = 0;
  REQUIRE(cudaMemcpyFromSymbol(&v, &host_counter, sizeof(v)) == cudaSuccess);
  CHECK(v == 7);
}

TEST_CASE("runtime: stream attributes, ids and devices", "[runtime]") {
  cudaStream_t s = nullptr, t = nullptr;
  REQUIRE(cudaStreamCreateWithPriority(&s, cudaStreamDefault, -2) == cudaSuccess);
  REQUIRE(cudaStreamCreate(&t) == cudaSuccess);
  cudaStreamAttrValue v{};
  REQUIRE(cudaStreamGetAttribute(s, cudaStreamAttributePriority, &v) == cudaSuccess);
  CHECK(v.priority == -2);
  REQUIRE(cudaStreamGetAttribute(s, cudaStreamAttributeAccessPolicyWindow, &v) == cudaSuccess);
  CHECK(v.accessPolicyWindow.num_bytes == 0u);  // none set
  int scratch = 0;
  cudaStreamAttrValue w{};
  w.accessPolicyWindow.base_ptr = &scratch;
  w.accessPolicyWindow.num_bytes = sizeof(scratch);
  w.accessPolicyWindow.hitRatio = 0.6f;
  w.accessPolicyWindow.hitProp = cudaAccessPropertyPersisting;
  w.accessPolicyWindow.missProp = cudaAccessPropertyStreaming;
  REQUIRE(cudaStreamSetAttribute(s, cudaStreamAttributeAccessPolicyWindow, &w) == cudaSuccess);
  REQUIRE(cudaStreamGetAttribute(s, cudaStreamAttributeAccessPolicyWindow, &v) == cudaSuccess);
  CHECK(v.accessPolicyWindow.base_ptr == &scratch);
  CHECK(v.accessPolicyWindow.hitRatio == 0.6f);
  w.accessPolicyWindow.hitRatio = 1.5f;
  CHECK(cudaStreamSetAttribute(s, cudaStreamAttributeAccessPolicyWindow, &w) == cudaErrorInvalidValue);
  CHECK(cudaStreamGetAttribute(s, cudaLaunchAttributeCooperative, &v) == cudaErrorInvalidValue);  // not a stream's
  cudaGetLastError();
  // Copy: the window and the priority.
  REQUIRE(cudaStreamCopyAttributes(t, s) == cudaSuccess);
  REQUIRE(cudaStreamGetAttribute(t, cudaStreamAttributeAccessPolicyWindow, &v) == cudaSuccess);
  CHECK(v.accessPolicyWindow.num_bytes == sizeof(scratch));
  int priority = 0;
  REQUIRE(cudaStreamGetPriority(t, &priority) == cudaSuccess);
  CHECK(priority == -2);
  CHECK(cudaCtxResetPersistingL2Cache() == cudaSuccess);
  unsigned long long id_s = 0, id_t = 0, id_legacy = 1;
  REQUIRE(cudaStreamGetId(s, &id_s) == cudaSuccess);
  REQUIRE(cudaStreamGetId(t, &id_t) == cudaSuccess);
  REQUIRE(cudaStreamGetId(cudaStreamLegacy, &id_legacy) == cudaSuccess);
  CHECK(id_s != id_t);
  CHECK(id_legacy != id_s);
  int device = -1;
  REQUIRE(cudaStreamGetDevice(s, &device) == cudaSuccess);
  CHECK(device == 0);
  REQUIRE(cudaStreamDestroy(s) == cudaSuccess);
  CHECK(cudaStreamGetId(s, &id_s) == cudaErrorInvalidResourceHandle);
  cudaGetLastError();
  REQUIRE(cudaStreamDestroy(t) == cudaSuccess);
}

TEST_CASE("runtime: cluster attributes and cluster occupancy", "[runtime][cluster]") {
  // Two kernels: one with __cluster_dims__(2,1,1), one without.
  static HandMadeFatbin fatbin(
      ".version 8.0\n.target sm_90\n.address_size 64\n"
      ".visible .entry fixed() .reqnctapercluster 2, 1, 1\n{\n  ret;\n}\n"
      ".visible .entry free_size()\n{\n  ret;\n}\n",
      fb::EntryKind::kPtx);
  static int fixed_stub = 0, free_stub = 0;
  static const bool registered = [] {
    void** h = fatbin.Register();
    __cudaRegisterFunction(h, reinterpret_cast<const char*>(&fixed_stub), const_cast<char*>("fixed"), "fixed", -1,
                           nullptr, nullptr, nullptr, nullptr, nullptr);
    __cudaRegisterFunction(h, reinterpret_cast<const char*>(&free_stub), const_cast<char*>("free_size"), "free_size",
                           -1, nullptr, nullptr, nullptr, nullptr, nullptr);
    __cudaRegisterFatBinaryEnd(h);
    return true;
  }();
  (void)registered;
  cudaFuncAttributes attr{};
  REQUIRE(cudaFuncGetAttributes(&attr, &fixed_stub) == cudaSuccess);
  CHECK(attr.clusterDimMustBeSet == 1);
  CHECK(attr.requiredClusterWidth == 2);
  CHECK(attr.requiredClusterHeight == 1);
  REQUIRE(cudaFuncGetAttributes(&attr, &free_stub) == cudaSuccess);
  CHECK(attr.clusterDimMustBeSet == 0);
  CHECK(attr.nonPortableClusterSizeAllowed == 0);

  cudaLaunchConfig_t config{};
  config.gridDim = dim3(8);
  config.blockDim = dim3(128);
  int size = 0, clusters = 0;
  REQUIRE(cudaOccupancyMaxPotentialClusterSize(&size, &free_stub, &config) == cudaSuccess);
  CHECK(size == 8);  // portable limit
  REQUIRE(cudaFuncSetAttribute(&free_stub, cudaFuncAttributeNonPortableClusterSizeAllowed, 1) == cudaSuccess);
  REQUIRE(cudaOccupancyMaxPotentialClusterSize(&size, &free_stub, &config) == cudaSuccess);
  CHECK(size == 16);
  REQUIRE(cudaFuncGetAttributes(&attr, &free_stub) == cudaSuccess);
  CHECK(attr.nonPortableClusterSizeAllowed == 1);
  REQUIRE(cudaOccupancyMaxPotentialClusterSize(&size, &fixed_stub, &config) == cudaSuccess);
  CHECK(size == 2);  // the kernel's own

  // Without a cluster size (neither the config nor the kernel): an error.
  CHECK(cudaOccupancyMaxActiveClusters(&clusters, &free_stub, &config) == cudaErrorInvalidClusterSize);
  cudaGetLastError();
  // The kernel's: 16 SMs x 16 resident blocks of 128 threads / 2 per cluster.
  REQUIRE(cudaOccupancyMaxActiveClusters(&clusters, &fixed_stub, &config) == cudaSuccess);
  int per_sm = 0;
  REQUIRE(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, &fixed_stub, 128, 0) == cudaSuccess);
  cudaDeviceProp prop{};
  REQUIRE(cudaGetDeviceProperties(&prop, 0) == cudaSuccess);
  CHECK(clusters == prop.multiProcessorCount * per_sm / 2);
  cudaLaunchAttribute dims{};
  dims.id = cudaLaunchAttributeClusterDimension;
  dims.val.clusterDim.x = 4;
  dims.val.clusterDim.y = 1;
  dims.val.clusterDim.z = 1;
  config.attrs = &dims;
  config.numAttrs = 1;
  REQUIRE(cudaOccupancyMaxActiveClusters(&clusters, &free_stub, &config) == cudaSuccess);
  CHECK(clusters == prop.multiProcessorCount * per_sm / 4);
  CHECK(cudaOccupancyMaxActiveClusters(&clusters, &fixed_stub, &config) == cudaErrorInvalidClusterSize);  // differs
  cudaGetLastError();
  CHECK(cudaFuncSetAttribute(&free_stub, cudaFuncAttributeClusterSchedulingPolicyPreference,
                             cudaClusterSchedulingPolicySpread) == cudaSuccess);
  CHECK(cudaFuncSetAttribute(&free_stub, cudaFuncAttributeNonPortableClusterSizeAllowed, 2) == cudaErrorInvalidValue);
  cudaGetLastError();
}

TEST_CASE("runtime: graph memcpy nodes to and from a __device__ variable", "[runtime][graph]") {
  Module();
  uint8_t in[16], out[16] = {};
  for (int i = 0; i < 16; ++i) in[i] = static_cast<uint8_t>(100 + i);
  cudaGraph_t graph = nullptr;
  REQUIRE(cudaGraphCreate(&graph, 0) == cudaSuccess);
  cudaGraphNode_t to = nullptr, from = nullptr;
  REQUIRE(cudaGraphAddMemcpyNodeToSymbol(&to, graph, nullptr, 0, host_table, in, sizeof(in), 8,
                                         cudaMemcpyHostToDevice) == cudaSuccess);
  REQUIRE(cudaGraphAddMemcpyNodeFromSymbol(&from, graph, &to, 1, out, host_table, sizeof(out), 8,
                                           cudaMemcpyDefault) == cudaSuccess);
  // The node holds the variable's address at the offset.
  void* table = nullptr;
  REQUIRE(cudaGetSymbolAddress(&table, host_table) == cudaSuccess);
  cudaMemcpy3DParms p{};
  REQUIRE(cudaGraphMemcpyNodeGetParams(to, &p) == cudaSuccess);
  CHECK(p.dstPtr.ptr == static_cast<char*>(table) + 8);
  cudaGraphExec_t exec = nullptr;
  REQUIRE(cudaGraphInstantiate(&exec, graph, 0) == cudaSuccess);
  REQUIRE(cudaGraphLaunch(exec, nullptr) == cudaSuccess);
  REQUIRE(cudaStreamSynchronize(nullptr) == cudaSuccess);
  CHECK(std::memcmp(in, out, sizeof(in)) == 0);
  // Exec update of the source: the next launch copies the new bytes.
  uint8_t in2[16];
  for (int i = 0; i < 16; ++i) in2[i] = static_cast<uint8_t>(200 + i);
  REQUIRE(cudaGraphExecMemcpyNodeSetParamsToSymbol(exec, to, host_table, in2, sizeof(in2), 8,
                                                   cudaMemcpyHostToDevice) == cudaSuccess);
  REQUIRE(cudaGraphLaunch(exec, nullptr) == cudaSuccess);
  REQUIRE(cudaStreamSynchronize(nullptr) == cudaSuccess);
  CHECK(std::memcmp(in2, out, sizeof(in2)) == 0);
  // Past the variable's end, a wrong direction, not a symbol.
  CHECK(cudaGraphMemcpyNodeSetParamsToSymbol(to, host_table, in, sizeof(in), 56, cudaMemcpyHostToDevice) ==
        cudaErrorInvalidValue);
  CHECK(cudaGraphMemcpyNodeSetParamsFromSymbol(from, out, host_table, sizeof(out), 0, cudaMemcpyHostToDevice) ==
        cudaErrorInvalidMemcpyDirection);
  int not_a_symbol = 0;
  CHECK(cudaGraphMemcpyNodeSetParamsToSymbol(to, &not_a_symbol, in, 4, 0, cudaMemcpyHostToDevice) ==
        cudaErrorInvalidSymbol);
  cudaGetLastError();
  CHECK(cudaGraphExecDestroy(exec) == cudaSuccess);
  CHECK(cudaGraphDestroy(graph) == cudaSuccess);
}

TEST_CASE("runtime: every device attribute of CUDA 13 answers", "[runtime][device]") {
  // The reserved ids and the ids the CUDA 13 header's enum skips (every
  // enumerator there has an explicit value) are no attributes; every other id
  // below cudaDevAttrMax is.
  const std::set<int> reserved = {cudaDevAttrReserved92,  cudaDevAttrReserved93,  cudaDevAttrReserved94,
                                  cudaDevAttrReserved96,  cudaDevAttrReserved122, cudaDevAttrReserved123,
                                  cudaDevAttrReserved124, cudaDevAttrReserved127, cudaDevAttrReserved128,
                                  cudaDevAttrReserved129, cudaDevAttrReserved132, cudaDevAttrReserved141,
                                  cudaDevAttrReserved145, 44, 102, 103, 104, 105, 107, 110, 136, 137, 146};
  std::vector<int> failing;
  for (int id = 1; id < cudaDevAttrMax; ++id) {
    int value = -12345;
    if (reserved.count(id) != 0) continue;
    if (cudaDeviceGetAttribute(&value, static_cast<cudaDeviceAttr>(id), 0) != cudaSuccess) failing.push_back(id);
  }
  cudaGetLastError();
  std::string ids;
  for (int id : failing) ids += " " + std::to_string(id);
  INFO("attribute ids that fail:" << ids);
  CHECK(failing.empty());
  int v = 0;
  REQUIRE(cudaDeviceGetAttribute(&v, cudaDevAttrMaxTexture1DLinearWidth, 0) == cudaSuccess);
  CHECK(v == 268435456);
  REQUIRE(cudaDeviceGetAttribute(&v, cudaDevAttrMaxAccessPolicyWindowSize, 0) == cudaSuccess);
  int major = 0;
  REQUIRE(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, 0) == cudaSuccess);
  CHECK((v > 0) == (major >= 8));  // L2 persistence: sm_80 on
  CHECK(cudaDeviceGetAttribute(&v, cudaDevAttrMax, 0) == cudaErrorInvalidValue);
  cudaGetLastError();
}

TEST_CASE("runtime: peers, host atomics, PCI bus ids, valid devices, RDMA flushes, 1D linear widths",
          "[runtime][device]") {
  int value = 0;
  CHECK(cudaDeviceGetP2PAttribute(&value, cudaDevP2PAttrAccessSupported, 0, 0) == cudaErrorInvalidDevice);
  const cudaAtomicOperation ops[] = {cudaAtomicOperationIntegerAdd, cudaAtomicOperationCAS,
                                     cudaAtomicOperationFloatAdd};
  unsigned caps[3] = {};
  CHECK(cudaDeviceGetP2PAtomicCapabilities(caps, ops, 3, 0, 0) == cudaErrorInvalidDevice);
  REQUIRE(cudaDeviceGetHostAtomicCapabilities(caps, ops, 3, 0) == cudaSuccess);
  CHECK((caps[0] & cudaAtomicCapabilityScalar64) != 0);
  CHECK((caps[1] & cudaAtomicCapabilityScalar128) != 0);
  CHECK((caps[2] & cudaAtomicCapabilitySigned) == 0);
  // 15: no operation, yet a value the enum can hold (UBSan checks enum loads).
  const cudaAtomicOperation bad[] = {static_cast<cudaAtomicOperation>(15)};
  CHECK(cudaDeviceGetHostAtomicCapabilities(caps, bad, 1, 0) == cudaErrorInvalidValue);
  char bus[32] = {};
  REQUIRE(cudaDeviceGetPCIBusId(bus, sizeof(bus), 0) == cudaSuccess);
  int device = -1;
  REQUIRE(cudaDeviceGetByPCIBusId(&device, bus) == cudaSuccess);
  CHECK(device == 0);
  CHECK(cudaDeviceGetByPCIBusId(&device, "0000:3b:00.0") == cudaErrorInvalidDevice);
  CHECK(cudaDeviceGetByPCIBusId(&device, "not a bus id") == cudaErrorInvalidValue);
  int only[] = {0}, two[] = {0, 1};
  CHECK(cudaSetValidDevices(only, 1) == cudaSuccess);
  CHECK(cudaSetValidDevices(two, 2) == cudaErrorInvalidDevice);
  CHECK(cudaDeviceFlushGPUDirectRDMAWrites(cudaFlushGPUDirectRDMAWritesTargetCurrentDevice,
                                           cudaFlushGPUDirectRDMAWritesToOwner) == cudaSuccess);
  size_t width = 0;
  const cudaChannelFormatDesc desc = cudaCreateChannelDesc(32, 0, 0, 0, cudaChannelFormatKindFloat);
  REQUIRE(cudaDeviceGetTexture1DLinearMaxWidth(&width, &desc, 0) == cudaSuccess);
  CHECK(width == 268435456u);
  cudaGetLastError();
}

TEST_CASE("runtime: cudaGetFuncBySymbol gives the kernel's driver handle", "[runtime]") {
  Module();
  cudaFunction_t f = nullptr;
  cudaKernel_t k = nullptr;
  REQUIRE(cudaGetFuncBySymbol(&f, reinterpret_cast<const void*>(&StoreTidStub)) == cudaSuccess);
  REQUIRE(cudaGetKernel(&k, reinterpret_cast<const void*>(&StoreTidStub)) == cudaSuccess);
  CHECK(f != nullptr);
  CHECK(reinterpret_cast<void*>(f) == reinterpret_cast<void*>(k));
  int not_a_kernel = 0;
  CHECK(cudaGetFuncBySymbol(&f, &not_a_kernel) == cudaErrorInvalidDeviceFunction);
  CHECK(cudaGetFuncBySymbol(nullptr, reinterpret_cast<const void*>(&StoreTidStub)) == cudaErrorInvalidValue);
  cudaGetLastError();
}

TEST_CASE("runtime: managed-memory advice and prefetches read back through cudaMemRangeGetAttribute(s)",
          "[runtime][managed]") {
  char* m = nullptr;
  const size_t bytes = 4 * 4096;
  REQUIRE(cudaMallocManaged(&m, bytes) == cudaSuccess);
  const cudaMemLocation device{cudaMemLocationTypeDevice, 0}, host{cudaMemLocationTypeHost, 0};
  int v = 7;
  REQUIRE(cudaMemRangeGetAttribute(&v, sizeof(v), cudaMemRangeAttributeReadMostly, m, bytes) == cudaSuccess);
  CHECK(v == 0);
  REQUIRE(cudaMemRangeGetAttribute(&v, sizeof(v), cudaMemRangeAttributePreferredLocation, m, bytes) == cudaSuccess);
  CHECK(v == cudaInvalidDeviceId);
  // Read-mostly on the first two pages: the whole range is not read-mostly, they are.
  REQUIRE(cudaMemAdvise(m, 2 * 4096, cudaMemAdviseSetReadMostly, device) == cudaSuccess);
  REQUIRE(cudaMemRangeGetAttribute(&v, sizeof(v), cudaMemRangeAttributeReadMostly, m, bytes) == cudaSuccess);
  CHECK(v == 0);
  REQUIRE(cudaMemRangeGetAttribute(&v, sizeof(v), cudaMemRangeAttributeReadMostly, m, 2 * 4096) == cudaSuccess);
  CHECK(v == 1);
  // Preferred location and accessed-by on the whole range.
  REQUIRE(cudaMemAdvise(m, bytes, cudaMemAdviseSetPreferredLocation, device) == cudaSuccess);
  REQUIRE(cudaMemAdvise(m, bytes, cudaMemAdviseSetAccessedBy, host) == cudaSuccess);
  REQUIRE(cudaMemAdvise(m, bytes, cudaMemAdviseSetAccessedBy, device) == cudaSuccess);
  int accessed[4] = {};
  int preferred = -7, type = -7;
  void* data[] = {&preferred, accessed, &type};
  size_t sizes[] = {sizeof(preferred), sizeof(accessed), sizeof(type)};
  cudaMemRangeAttribute attrs[] = {cudaMemRangeAttributePreferredLocation, cudaMemRangeAttributeAccessedBy,
                                   cudaMemRangeAttributePreferredLocationType};
  REQUIRE(cudaMemRangeGetAttributes(data, sizes, attrs, 3, m, bytes) == cudaSuccess);
  CHECK(preferred == 0);
  CHECK(type == cudaMemLocationTypeDevice);
  CHECK(accessed[0] == 0);
  CHECK(accessed[1] == cudaCpuDeviceId);
  CHECK(accessed[2] == cudaInvalidDeviceId);
  // The last prefetch, on part of the range: agreed there, invalid over all.
  REQUIRE(cudaMemPrefetchAsync(m + 4096, 4096, host, 0, nullptr) == cudaSuccess);
  REQUIRE(cudaMemRangeGetAttribute(&v, sizeof(v), cudaMemRangeAttributeLastPrefetchLocation, m + 4096, 4096) ==
          cudaSuccess);
  CHECK(v == cudaCpuDeviceId);
  REQUIRE(cudaMemRangeGetAttribute(&v, sizeof(v), cudaMemRangeAttributeLastPrefetchLocation, m, bytes) ==
          cudaSuccess);
  CHECK(v == cudaInvalidDeviceId);
  // A __managed__ variable takes advice as managed memory does.
  REQUIRE(__cudaInitModule(Module().handle) == 1);
  REQUIRE(host_managed_ptr != nullptr);
  REQUIRE(cudaMemAdvise(host_managed_ptr, sizeof(uint32_t), cudaMemAdviseSetReadMostly, device) == cudaSuccess);
  REQUIRE(cudaMemRangeGetAttribute(&v, sizeof(v), cudaMemRangeAttributeReadMostly, host_managed_ptr,
                                   sizeof(uint32_t)) == cudaSuccess);
  CHECK(v == 1);
  // Not managed memory; a device id that does not exist.
  void* d = nullptr;
  REQUIRE(cudaMalloc(&d, 4096) == cudaSuccess);
  CHECK(cudaMemAdvise(d, 4096, cudaMemAdviseSetReadMostly, device) == cudaErrorInvalidValue);
  CHECK(cudaMemRangeGetAttribute(&v, sizeof(v), cudaMemRangeAttributeReadMostly, d, 4096) == cudaErrorInvalidValue);
  CHECK(cudaMemAdvise(m, bytes, cudaMemAdviseSetPreferredLocation, cudaMemLocation{cudaMemLocationTypeDevice, 3}) ==
        cudaErrorInvalidDevice);
  cudaGetLastError();
  CHECK(cudaFree(d) == cudaSuccess);
  CHECK(cudaFree(m) == cudaSuccess);
}

TEST_CASE("runtime: cudaMemcpy3DBatchAsync copies pitched boxes and array regions", "[runtime][managed]") {
  cudaStream_t s = nullptr;
  REQUIRE(cudaStreamCreate(&s) == cudaSuccess);
  // Host rows of 8 ints; a 3-int wide, 2-row box from (1, 1) into a device
  // buffer with rows of 4 ints, and the same box into a 4x4 int array at (0, 2).
  int host[4][8];
  for (int y = 0; y < 4; ++y)
    for (int x = 0; x < 8; ++x) host[y][x] = 10 * y + x;
  int* d = nullptr;
  REQUIRE(cudaMalloc(&d, 4 * 4 * sizeof(int)) == cudaSuccess);
  REQUIRE(cudaMemset(d, 0, 4 * 4 * sizeof(int)) == cudaSuccess);
  const cudaChannelFormatDesc desc = cudaCreateChannelDesc<int>();
  cudaArray_t array = nullptr;
  REQUIRE(cudaMallocArray(&array, &desc, 4, 4) == cudaSuccess);
  cudaMemcpy3DBatchOp ops[2] = {};
  ops[0].src.type = cudaMemcpyOperandTypePointer;
  ops[0].src.op.ptr.ptr = &host[1][1];
  ops[0].src.op.ptr.rowLength = 8 * sizeof(int);  // elements of 1 byte: pointer to pointer
  ops[0].dst.type = cudaMemcpyOperandTypePointer;
  ops[0].dst.op.ptr.ptr = d;
  ops[0].dst.op.ptr.rowLength = 4 * sizeof(int);
  ops[0].extent = make_cudaExtent(3 * sizeof(int), 2, 1);
  ops[0].srcAccessOrder = cudaMemcpySrcAccessOrderStream;
  ops[1].src = ops[0].src;
  ops[1].src.op.ptr.rowLength = 8;  // elements of the array: ints
  ops[1].dst.type = cudaMemcpyOperandTypeArray;
  ops[1].dst.op.array.array = array;
  ops[1].dst.op.array.offset = {0, 2, 0};
  ops[1].extent = make_cudaExtent(3, 2, 1);
  ops[1].srcAccessOrder = cudaMemcpySrcAccessOrderDuringApiCall;
  REQUIRE(cudaMemcpy3DBatchAsync(2, ops, 0, s) == cudaSuccess);
  REQUIRE(cudaStreamSynchronize(s) == cudaSuccess);
  int back[4][4] = {};
  REQUIRE(cudaMemcpy(back, d, sizeof(back), cudaMemcpyDeviceToHost) == cudaSuccess);
  CHECK(back[0][0] == 11);
  CHECK(back[0][2] == 13);
  CHECK(back[1][0] == 21);
  CHECK(back[1][3] == 0);  // outside the box
  CHECK(back[2][0] == 0);
  int arr[4][4] = {};
  REQUIRE(cudaMemcpy2DFromArray(arr, 4 * sizeof(int), array, 0, 0, 4 * sizeof(int), 4, cudaMemcpyDeviceToHost) ==
          cudaSuccess);
  CHECK(arr[2][0] == 11);
  CHECK(arr[3][2] == 23);
  CHECK(arr[1][0] == 0);
  CHECK(arr[2][3] == 0);
  // Refused: flags, the legacy stream, a zero extent, a row shorter than the
  // copy, an invalid access order.
  CHECK(cudaMemcpy3DBatchAsync(2, ops, 1, s) == cudaErrorInvalidValue);
  CHECK(cudaMemcpy3DBatchAsync(2, ops, 0, cudaStreamLegacy) == cudaErrorInvalidValue);
  cudaMemcpy3DBatchOp bad = ops[0];
  bad.extent.depth = 0;
  CHECK(cudaMemcpy3DBatchAsync(1, &bad, 0, s) == cudaErrorInvalidValue);
  bad = ops[0];
  bad.dst.op.ptr.rowLength = 2;
  CHECK(cudaMemcpy3DBatchAsync(1, &bad, 0, s) == cudaErrorInvalidValue);
  bad = ops[0];
  bad.srcAccessOrder = cudaMemcpySrcAccessOrderInvalid;
  CHECK(cudaMemcpy3DBatchAsync(1, &bad, 0, s) == cudaErrorInvalidValue);
  cudaGetLastError();
  CHECK(cudaFreeArray(array) == cudaSuccess);
  CHECK(cudaFree(d) == cudaSuccess);
  CHECK(cudaStreamDestroy(s) == cudaSuccess);
}

TEST_CASE("runtime: batched copies and managed-memory batches", "[runtime][managed]") {
  cudaStream_t s = nullptr;
  REQUIRE(cudaStreamCreate(&s) == cudaSuccess);
  int a[4] = {1, 2, 3, 4}, b[4] = {5, 6, 7, 8}, back[8] = {};
  int* d = nullptr;
  REQUIRE(cudaMalloc(&d, 8 * sizeof(int)) == cudaSuccess);
  void* dsts[] = {d, d + 4};
  const void* srcs[] = {a, b};
  size_t sizes[] = {sizeof(a), sizeof(b)};
  cudaMemcpyAttributes attr{};
  attr.srcAccessOrder = cudaMemcpySrcAccessOrderStream;
  size_t idx = 0;
  REQUIRE(cudaMemcpyBatchAsync(dsts, srcs, sizes, 2, &attr, &idx, 1, s) == cudaSuccess);
  REQUIRE(cudaStreamSynchronize(s) == cudaSuccess);
  REQUIRE(cudaMemcpy(back, d, sizeof(back), cudaMemcpyDeviceToHost) == cudaSuccess);
  CHECK(back[0] == 1);
  CHECK(back[7] == 8);
  // The legacy stream, a first attribute entry not at 0, an unknown access order.
  CHECK(cudaMemcpyBatchAsync(dsts, srcs, sizes, 2, &attr, &idx, 1, cudaStreamLegacy) == cudaErrorInvalidValue);
  size_t late = 1;
  CHECK(cudaMemcpyBatchAsync(dsts, srcs, sizes, 2, &attr, &late, 1, s) == cudaErrorInvalidValue);
  attr.srcAccessOrder = static_cast<cudaMemcpySrcAccessOrder>(77);
  CHECK(cudaMemcpyBatchAsync(dsts, srcs, sizes, 2, &attr, &idx, 1, s) == cudaErrorInvalidValue);
  cudaGetLastError();

  char* m = nullptr;
  REQUIRE(cudaMallocManaged(&m, 2 * 4096) == cudaSuccess);
  void* ptrs[] = {m, m + 4096};
  size_t lens[] = {4096, 4096};
  cudaMemLocation locs[] = {{cudaMemLocationTypeHost, 0}, {cudaMemLocationTypeDevice, 0}};
  size_t loc_idxs[] = {0, 1};
  REQUIRE(cudaMemPrefetchBatchAsync(ptrs, lens, 2, locs, loc_idxs, 2, 0, s) == cudaSuccess);
  int where = 5;
  REQUIRE(cudaMemRangeGetAttribute(&where, sizeof(where), cudaMemRangeAttributeLastPrefetchLocation, m, 4096) ==
          cudaSuccess);
  CHECK(where == cudaCpuDeviceId);
  REQUIRE(cudaMemRangeGetAttribute(&where, sizeof(where), cudaMemRangeAttributeLastPrefetchLocation, m + 4096, 4096) ==
          cudaSuccess);
  CHECK(where == 0);
  REQUIRE(cudaMemDiscardBatchAsync(ptrs, lens, 2, 0, s) == cudaSuccess);
  void* device_ptrs[] = {d};
  size_t device_len[] = {sizeof(int)};
  CHECK(cudaMemDiscardBatchAsync(device_ptrs, device_len, 1, 0, s) == cudaErrorInvalidValue);  // managed only
  REQUIRE(cudaMemDiscardAndPrefetchBatchAsync(ptrs, lens, 2, locs, loc_idxs, 2, 0, s) == cudaSuccess);
  cudaGetLastError();
  CHECK(cudaFree(m) == cudaSuccess);
  CHECK(cudaFree(d) == cudaSuccess);
  CHECK(cudaStreamDestroy(s) == cudaSuccess);
}
