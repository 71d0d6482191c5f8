// One kernel (neighbour_sum of driver_race.cu or its fixed twin, PTX text in
// argv[1]) loaded and launched through one of the driver API's routes
// (argv[2]), for the GPU agent's driver-level hooks:
//   module   cuModuleLoadData, cuModuleGetFunction, cuLaunchKernel
//   library  cuLibraryLoadData, cuLibraryGetKernel, cuKernelGetFunction, cuLaunchKernelEx
//   proc     every call through pointers from cuGetProcAddress
//   file     cuModuleLoad of the file, cuLaunchCooperativeKernel
// Prints "checked" and exits 0 when every call succeeded and the result is
// the kernel's (the race does not change it on the emulator's schedule).
#include <cuda.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace {

#define CHECK(call)                                                          \
  do {                                                                       \
    if (CUresult r_ = (call); r_ != CUDA_SUCCESS) {                          \
      std::printf("FAIL: %s = %d\n", #call, static_cast<int>(r_));           \
      return 1;                                                              \
    }                                                                        \
  } while (0)

template <typename Fn>
Fn Proc(const char* name) {
  void* p = nullptr;
  CUdriverProcAddressQueryResult status{};
  if (cuGetProcAddress(name, &p, 13000, CU_GET_PROC_ADDRESS_DEFAULT, &status) != CUDA_SUCCESS) return nullptr;
  return reinterpret_cast<Fn>(p);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) return 2;
  std::ifstream file(argv[1]);
  std::stringstream text;
  text << file.rdbuf();
  const std::string ptx = text.str();
  const std::string route = argv[2];
  CUdevice dev;
  CUcontext ctx;
  CHECK(cuInit(0));
  CHECK(cuDeviceGet(&dev, 0));
  CHECK(cuDevicePrimaryCtxRetain(&ctx, dev));
  CHECK(cuCtxSetCurrent(ctx));
  const unsigned blocks = 2, threads = 64, n = blocks * threads;
  std::vector<int> host(n);
  for (unsigned i = 0; i < n; ++i) host[i] = static_cast<int>(i);
  CUdeviceptr in = 0, out = 0;
  if (route == "proc") {
    auto load = Proc<decltype(&cuModuleLoadData)>("cuModuleLoadData");
    auto get = Proc<decltype(&cuModuleGetFunction)>("cuModuleGetFunction");
    auto alloc = Proc<decltype(&cuMemAlloc_v2)>("cuMemAlloc");
    auto launch = Proc<decltype(&cuLaunchKernel)>("cuLaunchKernel");
    auto free_memory = Proc<decltype(&cuMemFree_v2)>("cuMemFree");
    if (!load || !get || !alloc || !launch || !free_memory) {
      std::printf("FAIL: cuGetProcAddress\n");
      return 1;
    }
    CUmodule module;
    CUfunction kernel;
    CHECK(load(&module, ptx.c_str()));
    CHECK(get(&kernel, module, "neighbour_sum"));
    CHECK(alloc(&in, n * sizeof(int)));
    CHECK(alloc(&out, n * sizeof(int)));
    CHECK(cuMemcpyHtoD(in, host.data(), n * sizeof(int)));
    void* args[] = {&in, &out};
    CHECK(launch(kernel, blocks, 1, 1, threads, 1, 1, 0, nullptr, args, nullptr));
    CHECK(cuCtxSynchronize());
    CHECK(cuMemcpyDtoH(host.data(), out, n * sizeof(int)));
    CHECK(free_memory(in));
    CHECK(free_memory(out));
  } else {
    CHECK(cuMemAlloc(&in, n * sizeof(int)));
    CHECK(cuMemAlloc(&out, n * sizeof(int)));
    CHECK(cuMemcpyHtoD(in, host.data(), n * sizeof(int)));
    void* args[] = {&in, &out};
    if (route == "module" || route == "file") {
      CUmodule module;
      CUfunction kernel;
      if (route == "module")
        CHECK(cuModuleLoadData(&module, ptx.c_str()));
      else
        CHECK(cuModuleLoad(&module, argv[1]));
      CHECK(cuModuleGetFunction(&kernel, module, "neighbour_sum"));
      if (route == "module")
        CHECK(cuLaunchKernel(kernel, blocks, 1, 1, threads, 1, 1, 0, nullptr, args, nullptr));
      else
        CHECK(cuLaunchCooperativeKernel(kernel, blocks, 1, 1, threads, 1, 1, 0, nullptr, args));
      CHECK(cuCtxSynchronize());
      CHECK(cuModuleUnload(module));
    } else if (route == "library") {
      CUlibrary library;
      CUkernel kernel;
      CUfunction function;
      CHECK(cuLibraryLoadData(&library, ptx.c_str(), nullptr, nullptr, 0, nullptr, nullptr, 0));
      CHECK(cuLibraryGetKernel(&kernel, library, "neighbour_sum"));
      CHECK(cuKernelGetFunction(&function, kernel));
      CUlaunchConfig config{};
      config.gridDimX = blocks, config.gridDimY = 1, config.gridDimZ = 1;
      config.blockDimX = threads, config.blockDimY = 1, config.blockDimZ = 1;
      CHECK(cuLaunchKernelEx(&config, function, args, nullptr));
      CHECK(cuCtxSynchronize());
      CHECK(cuLibraryUnload(library));
    } else {
      std::printf("FAIL: unknown route %s\n", route.c_str());
      return 2;
    }
    CHECK(cuMemcpyDtoH(host.data(), out, n * sizeof(int)));
    CHECK(cuMemFree(in));
    CHECK(cuMemFree(out));
  }
  // out[i] = in[i] + in[next]: checked where the schedule cannot matter.
  for (unsigned b = 0; b < blocks; ++b) {
    const unsigned i = b * threads;
    if (host[i] != static_cast<int>(i + i + 1)) {
      std::printf("FAIL: out[%u] = %d\n", i, host[i]);
      return 1;
    }
  }
  cuDevicePrimaryCtxRelease(dev);
  std::printf("checked (%s)\n", route.c_str());
  return 0;
}
