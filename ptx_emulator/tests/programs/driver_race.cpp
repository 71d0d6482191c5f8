// A driver-API program with a seeded shared-memory race (driver_race.cu,
// PTX path in argv[1]): loaded with cuModuleLoadData, launched with
// cuLaunchKernel. barracuda must report the race. Exits 0 when every call
// succeeded (the race does not change that).
#include <cuda.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

int main(int argc, char** argv) {
  if (argc < 2) return 2;
  std::ifstream file(argv[1]);
  std::stringstream text;
  text << file.rdbuf();
  const std::string ptx = text.str();
  CUdevice dev;
  CUcontext ctx;
  CUmodule module;
  CUfunction kernel;
  if (cuInit(0) || cuDeviceGet(&dev, 0) || cuCtxCreate(&ctx, nullptr, 0, dev) ||
      cuModuleLoadData(&module, ptx.c_str()) || cuModuleGetFunction(&kernel, module, "neighbour_sum")) {
    std::printf("setup failed\n");
    return 1;
  }
  const int blocks = 2, threads = 64, n = blocks * threads;
  std::vector<int> host(n, 1);
  CUdeviceptr in, out;
  if (cuMemAlloc(&in, n * sizeof(int)) || cuMemAlloc(&out, n * sizeof(int)) ||
      cuMemcpyHtoD(in, host.data(), n * sizeof(int)))
    return 1;
  void* args[] = {&in, &out};
  if (cuLaunchKernel(kernel, blocks, 1, 1, threads, 1, 1, 0, nullptr, args, nullptr) || cuCtxSynchronize() ||
      cuMemcpyDtoH(host.data(), out, n * sizeof(int)))
    return 1;
  std::printf("done: out[0] = %d\n", host[0]);
  cuMemFree(in);
  cuMemFree(out);
  cuModuleUnload(module);
  cuCtxDestroy(ctx);
  return 0;
}
