// The runtime's library management (library_api.cpp) through the built
// libcudart.so.13: PTX text, fat binaries (wrapper and bare), files, kernels
// and globals of a library, launches and attributes through cudaKernel_t, and
// the refusals (ELF cubin, fat binary without PTX, broken PTX, unknown names).
#include <catch2/catch.hpp>

#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "ptx_emulator/runtime/cuda_api.h"
#include "ptx_emulator/tests/hand_made_fatbin.h"
#include "ptx_rewriter/fatbin/fatbin_format.h"

namespace {

namespace fb = barracuda::fatbin;
using barracuda::test::HandMadeFatbin;

constexpr char kLibraryPtx[] = R"(.version 8.0
.target sm_75
.address_size 64
.global .align 4 .u32 offset = 100;
.global .attribute(.managed) .align 4 .u32 managed_total = 5;

.visible .entry add_offset(.param .u64 out, .param .u32 n)
{
  .reg .pred %p<2>;
  .reg .b32 %r<5>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  ld.param.u32 %r1, [n];
  mov.u32 %r2, %tid.x;
  setp.ge.u32 %p1, %r2, %r1;
  @%p1 bra DONE;
  ld.global.u32 %r3, [offset];
  add.u32 %r4, %r2, %r3;
  mul.wide.u32 %rd2, %r2, 4;
  add.u64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r4;
DONE:
  ret;
}

.visible .entry noop()
{
  ret;
}
)";

cudaLibrary_t LoadText(const char* ptx) {
  cudaLibrary_t library = nullptr;
  REQUIRE(cudaLibraryLoadData(&library, ptx, nullptr, nullptr, 0, nullptr, nullptr, 0) == cudaSuccess);
  REQUIRE(library != nullptr);
  return library;
}

// Launches add_offset of `library` on 8 threads and returns what it wrote.
std::vector<uint32_t> RunAddOffset(cudaLibrary_t library) {
  cudaKernel_t kernel = nullptr;
  REQUIRE(cudaLibraryGetKernel(&kernel, library, "add_offset") == cudaSuccess);
  uint32_t* out = nullptr;
  REQUIRE(cudaMalloc(reinterpret_cast<void**>(&out), 8 * sizeof(uint32_t)) == cudaSuccess);
  uint32_t n = 8;
  void* args[] = {&out, &n};
  REQUIRE(cudaLaunchKernel(reinterpret_cast<const void*>(kernel), dim3(1), dim3(8), args, 0, nullptr) ==
          cudaSuccess);
  std::vector<uint32_t> host(8);
  REQUIRE(cudaMemcpy(host.data(), out, 8 * sizeof(uint32_t), cudaMemcpyDeviceToHost) == cudaSuccess);
  cudaFree(out);
  return host;
}

}  // namespace

TEST_CASE("library: PTX text loads, its kernels launch through cudaKernel_t", "[runtime][library]") {
  cudaLibrary_t library = LoadText(kLibraryPtx);
  unsigned count = 0;
  REQUIRE(cudaLibraryGetKernelCount(&count, library) == cudaSuccess);
  CHECK(count == 2);
  cudaKernel_t kernels[4] = {};
  REQUIRE(cudaLibraryEnumerateKernels(kernels, 4, library) == cudaSuccess);
  const char* name = nullptr;
  REQUIRE(cudaFuncGetName(&name, reinterpret_cast<const void*>(kernels[0])) == cudaSuccess);
  CHECK(std::string(name) == "add_offset");
  REQUIRE(cudaFuncGetName(&name, reinterpret_cast<const void*>(kernels[1])) == cudaSuccess);
  CHECK(std::string(name) == "noop");

  const std::vector<uint32_t> out = RunAddOffset(library);
  for (uint32_t i = 0; i < 8; ++i) CHECK(out[i] == 100 + i);

  // The global is the one the kernel reads: changing it changes the result.
  void* offset = nullptr;
  size_t bytes = 0;
  REQUIRE(cudaLibraryGetGlobal(&offset, &bytes, library, "offset") == cudaSuccess);
  CHECK(bytes == 4);
  const uint32_t seven = 7;
  REQUIRE(cudaMemcpy(offset, &seven, 4, cudaMemcpyHostToDevice) == cudaSuccess);
  CHECK(RunAddOffset(library)[3] == 10);

  void* managed = nullptr;
  REQUIRE(cudaLibraryGetManaged(&managed, &bytes, library, "managed_total") == cudaSuccess);
  CHECK(*static_cast<uint32_t*>(managed) == 5);  // host-readable: managed
  CHECK(cudaLibraryGetManaged(&managed, &bytes, library, "offset") == cudaErrorSymbolNotFound);
  CHECK(cudaLibraryGetGlobal(&offset, &bytes, library, "missing") == cudaErrorSymbolNotFound);
  cudaGetLastError();

  // Attributes and parameter layout through the kernel handle.
  cudaKernel_t kernel = kernels[0];
  cudaFuncAttributes attr{};
  REQUIRE(cudaFuncGetAttributes(&attr, reinterpret_cast<const void*>(kernel)) == cudaSuccess);
  CHECK(attr.maxThreadsPerBlock == 1024);
  size_t param_offset = 0, param_size = 0;
  REQUIRE(cudaFuncGetParamInfo(reinterpret_cast<const void*>(kernel), 1, &param_offset, &param_size) == cudaSuccess);
  CHECK(param_offset == 8);
  CHECK(param_size == 4);
  CHECK(cudaFuncGetParamInfo(reinterpret_cast<const void*>(kernel), 2, &param_offset, &param_size) ==
        cudaErrorInvalidValue);
  CHECK(cudaKernelSetAttributeForDevice(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, 1024, 0) == cudaSuccess);
  REQUIRE(cudaFuncGetAttributes(&attr, reinterpret_cast<const void*>(kernel)) == cudaSuccess);
  CHECK(attr.maxDynamicSharedSizeBytes == 1024);
  CHECK(cudaKernelSetAttributeForDevice(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, 1024, 1) ==
        cudaErrorInvalidDevice);
  cudaGetLastError();

  // Unloaded: the library and its kernels' handles are no longer valid.
  REQUIRE(cudaLibraryUnload(library) == cudaSuccess);
  CHECK(cudaLibraryUnload(library) == cudaErrorInvalidResourceHandle);
  CHECK(cudaLibraryGetKernelCount(&count, library) == cudaErrorInvalidResourceHandle);
  CHECK(cudaLaunchKernel(reinterpret_cast<const void*>(kernel), dim3(1), dim3(1), nullptr, 0, nullptr) ==
        cudaErrorInvalidDeviceFunction);
  cudaGetLastError();
}

TEST_CASE("library: fat binaries (wrapper and bare) and files", "[runtime][library]") {
  HandMadeFatbin fatbin{kLibraryPtx, fb::EntryKind::kPtx};
  cudaLibrary_t from_wrapper = LoadText(reinterpret_cast<const char*>(&fatbin.wrapper));
  CHECK(RunAddOffset(from_wrapper)[1] == 101);
  cudaLibrary_t bare = LoadText(reinterpret_cast<const char*>(fatbin.storage.data()));
  CHECK(RunAddOffset(bare)[2] == 102);

  char path[] = "/tmp/barracuda_library_XXXXXX";
  const int fd = mkstemp(path);
  REQUIRE(fd >= 0);
  REQUIRE(write(fd, kLibraryPtx, std::strlen(kLibraryPtx)) == static_cast<ssize_t>(std::strlen(kLibraryPtx)));
  close(fd);
  cudaLibrary_t from_file = nullptr;
  REQUIRE(cudaLibraryLoadFromFile(&from_file, path, nullptr, nullptr, 0, nullptr, nullptr, 0) == cudaSuccess);
  std::remove(path);
  CHECK(RunAddOffset(from_file)[0] == 100);
  CHECK(cudaLibraryLoadFromFile(&from_file, "/nonexistent/kernels.ptx", nullptr, nullptr, 0, nullptr, nullptr, 0) ==
        cudaErrorFileNotFound);
  cudaGetLastError();
  for (cudaLibrary_t l : {from_wrapper, bare}) CHECK(cudaLibraryUnload(l) == cudaSuccess);
}

TEST_CASE("library: what the emulator cannot run is refused at load", "[runtime][library]") {
  cudaLibrary_t library = nullptr;
  // An ELF cubin, bare or in a fat binary: no PTX to run.
  const char elf[] = "\x7f" "ELF\x02\x01\x01 not really a cubin";
  CHECK(cudaLibraryLoadData(&library, elf, nullptr, nullptr, 0, nullptr, nullptr, 0) ==
        cudaErrorNoKernelImageForDevice);
  HandMadeFatbin elf_only("\x7f" "ELF not really", fb::EntryKind::kElf);
  CHECK(cudaLibraryLoadData(&library, &elf_only.wrapper, nullptr, nullptr, 0, nullptr, nullptr, 0) ==
        cudaErrorNoKernelImageForDevice);
  CHECK(cudaGetLastError() == cudaErrorNoKernelImageForDevice);
  // PTX the loader rejects (the parameter list is not closed).
  CHECK(cudaLibraryLoadData(&library, ".version 8.0\n.target sm_75\n.address_size 64\n.visible .entry k(\n{\n}\n",
                            nullptr, nullptr, 0, nullptr, nullptr, 0) == cudaErrorInvalidPtx);
  CHECK(cudaLibraryLoadData(&library, nullptr, nullptr, nullptr, 0, nullptr, nullptr, 0) == cudaErrorInvalidValue);
  CHECK(cudaLibraryLoadData(nullptr, kLibraryPtx, nullptr, nullptr, 0, nullptr, nullptr, 0) == cudaErrorInvalidValue);

  // Unknown names and handles.
  library = LoadText(kLibraryPtx);
  cudaKernel_t kernel = nullptr;
  CHECK(cudaLibraryGetKernel(&kernel, library, "no_such_kernel") == cudaErrorSymbolNotFound);
  CHECK(cudaLibraryGetKernel(nullptr, library, "noop") == cudaErrorInvalidValue);
  int not_a_library = 0;
  CHECK(cudaLibraryGetKernel(&kernel, reinterpret_cast<cudaLibrary_t>(&not_a_library), "noop") ==
        cudaErrorInvalidResourceHandle);
  // A kernel without parameters launches with no argument array.
  REQUIRE(cudaLibraryGetKernel(&kernel, library, "noop") == cudaSuccess);
  CHECK(cudaLaunchKernel(reinterpret_cast<const void*>(kernel), dim3(1), dim3(1), nullptr, 0, nullptr) ==
        cudaSuccess);
  CHECK(cudaLibraryUnload(library) == cudaSuccess);
  cudaGetLastError();
  CHECK(cudaDeviceSynchronize() == cudaSuccess);
}

TEST_CASE("library: kernels in graphs, and after a device reset", "[runtime][library]") {
  cudaLibrary_t library = LoadText(kLibraryPtx);
  cudaKernel_t kernel = nullptr;
  REQUIRE(cudaLibraryGetKernel(&kernel, library, "add_offset") == cudaSuccess);
  uint32_t* out = nullptr;
  REQUIRE(cudaMalloc(reinterpret_cast<void**>(&out), 8 * sizeof(uint32_t)) == cudaSuccess);
  uint32_t n = 8;
  void* args[] = {&out, &n};
  // A kernel node of a library kernel.
  cudaGraph_t graph = nullptr;
  REQUIRE(cudaGraphCreate(&graph, 0) == cudaSuccess);
  cudaKernelNodeParams params{};
  params.func = reinterpret_cast<void*>(kernel);
  params.gridDim = dim3(1);
  params.blockDim = dim3(8);
  params.kernelParams = args;
  cudaGraphNode_t node = nullptr;
  REQUIRE(cudaGraphAddKernelNode(&node, graph, nullptr, 0, &params) == cudaSuccess);
  cudaGraphExec_t exec = nullptr;
  REQUIRE(cudaGraphInstantiate(&exec, graph, 0) == cudaSuccess);
  REQUIRE(cudaGraphLaunch(exec, nullptr) == cudaSuccess);
  std::vector<uint32_t> host(8);
  REQUIRE(cudaMemcpy(host.data(), out, sizeof(uint32_t) * 8, cudaMemcpyDeviceToHost) == cudaSuccess);
  CHECK(host[5] == 105);
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);

  // A reset takes the loaded code and globals; the library reloads on its
  // next use, its kernel handles still valid, its globals initialised again.
  REQUIRE(cudaDeviceReset() == cudaSuccess);
  void* offset = nullptr;
  size_t bytes = 0;
  REQUIRE(cudaLibraryGetGlobal(&offset, &bytes, library, "offset") == cudaSuccess);
  const std::vector<uint32_t> after = RunAddOffset(library);
  CHECK(after[4] == 104);
  CHECK(cudaLibraryUnload(library) == cudaSuccess);
}
