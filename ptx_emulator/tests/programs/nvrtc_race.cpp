// A kernel compiled at run time by NVRTC (with -lineinfo, so its PTX has
// .loc lines in "nvrtc_race.cu") with a seeded shared-memory race, or its
// race-free twin (argv[1] "fixed": -DFIXED adds the barrier), loaded with
// cuModuleLoadDataEx and JIT log options as NVRTC programs do, launched with
// cuLaunchKernel. For the GPU agent's driver-level hooks: the race is the
// read on line 9 of the source below. Prints "checked" when every call
// succeeded.
#include <cuda.h>
#include <nvrtc.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

namespace {

// Line 1 is the empty line after R"(.
constexpr char kSource[] = R"(
extern "C" __global__ void shift(const int* in, int* out) {
  __shared__ int tile[128];
  const unsigned t = threadIdx.x;
  tile[t] = in[blockIdx.x * blockDim.x + t];
#ifdef FIXED
  __syncthreads();
#endif
  out[blockIdx.x * blockDim.x + t] = tile[(t + 32) % blockDim.x];
}
)";

#define CHECK(call)                                                          \
  do {                                                                       \
    if (CUresult r_ = (call); r_ != CUDA_SUCCESS) {                          \
      std::printf("FAIL: %s = %d\n", #call, static_cast<int>(r_));           \
      return 1;                                                              \
    }                                                                        \
  } while (0)

}  // namespace

int main(int argc, char** argv) {
  const bool fixed = argc > 1 && std::strcmp(argv[1], "fixed") == 0;
  nvrtcProgram program;
  if (nvrtcCreateProgram(&program, kSource, "nvrtc_race.cu", 0, nullptr, nullptr) != NVRTC_SUCCESS) {
    std::printf("FAIL: nvrtcCreateProgram\n");
    return 1;
  }
  std::vector<const char*> options = {"--gpu-architecture=compute_75", "-lineinfo"};
  if (fixed) options.push_back("-DFIXED");
  const nvrtcResult compiled = nvrtcCompileProgram(program, static_cast<int>(options.size()), options.data());
  if (compiled != NVRTC_SUCCESS) {
    size_t log_size = 0;
    nvrtcGetProgramLogSize(program, &log_size);
    std::string log(log_size, '\0');
    nvrtcGetProgramLog(program, log.data());
    std::printf("FAIL: nvrtcCompileProgram: %s\n%s\n", nvrtcGetErrorString(compiled), log.c_str());
    return 1;
  }
  size_t ptx_size = 0;
  nvrtcGetPTXSize(program, &ptx_size);
  std::string ptx(ptx_size, '\0');
  nvrtcGetPTX(program, ptx.data());
  nvrtcDestroyProgram(&program);

  CUdevice dev;
  CUcontext ctx;
  CHECK(cuInit(0));
  CHECK(cuDeviceGet(&dev, 0));
  CHECK(cuCtxCreate(&ctx, nullptr, 0, dev));
  char info[1024], error[1024];
  CUjit_option jit[] = {CU_JIT_INFO_LOG_BUFFER, CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES, CU_JIT_ERROR_LOG_BUFFER,
                        CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void* values[] = {info, reinterpret_cast<void*>(sizeof info), error, reinterpret_cast<void*>(sizeof error)};
  CUmodule module;
  CUfunction kernel;
  CHECK(cuModuleLoadDataEx(&module, ptx.c_str(), 4, jit, values));
  CHECK(cuModuleGetFunction(&kernel, module, "shift"));
  const unsigned blocks = 2, threads = 128, n = blocks * threads;
  std::vector<int> host(n, 1);
  CUdeviceptr in, out;
  CHECK(cuMemAlloc(&in, n * sizeof(int)));
  CHECK(cuMemAlloc(&out, n * sizeof(int)));
  CHECK(cuMemcpyHtoD(in, host.data(), n * sizeof(int)));
  void* args[] = {&in, &out};
  CHECK(cuLaunchKernel(kernel, blocks, 1, 1, threads, 1, 1, 0, nullptr, args, nullptr));
  CHECK(cuCtxSynchronize());
  CHECK(cuMemcpyDtoH(host.data(), out, n * sizeof(int)));
  CHECK(cuMemFree(in));
  CHECK(cuMemFree(out));
  CHECK(cuModuleUnload(module));
  CHECK(cuCtxDestroy(ctx));
  std::printf("checked (%s)\n", fixed ? "fixed" : "racy");
  return 0;
}
