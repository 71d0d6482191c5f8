// Separate compilation at run time, as NVRTC programs with device libraries do
// it: two CUDA C++ strings compiled by NVRTC with -rdc to PTX (a kernel that
// calls a __device__ function and reads a __device__ variable of the other),
// linked with cuLinkCreate / cuLinkAddData (plus libcudadevrt.a with
// cuLinkAddFile when its path is given, as such programs add it), the linked
// image loaded with cuModuleLoadData, the library's variable set through
// cuModuleGetGlobal, the kernel launched and its result checked against the
// CPU. Linked with libnvrtc and the toolkit's stub libcuda.so; runs on the
// emulator's libcuda.so.1. Prints PASS.
//
//   nvrtc_link [path/to/libcudadevrt.a]
#include <cuda.h>
#include <nvrtc.h>

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

namespace {

constexpr char kLibrary[] = R"(
__device__ float g_scale = 2.0f;
__device__ float scale_add(float a, float b) { return a * b + 1.0f; }
)";

constexpr char kUser[] = R"(
extern __device__ float g_scale;
extern __device__ float scale_add(float a, float b);
extern "C" __global__ void apply(const float* x, float* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = scale_add(x[i], g_scale);
}
)";

bool Ok(CUresult r, const char* what) {
  if (r == CUDA_SUCCESS) return true;
  const char* name = nullptr;
  cuGetErrorName(r, &name);
  std::printf("FAIL: %s = %s\n", what, name ? name : "?");
  return false;
}

// PTX of `source` compiled for relocatable device code, or "" after printing why not.
std::string Compile(const char* source, const char* name) {
  nvrtcProgram program;
  if (nvrtcCreateProgram(&program, source, name, 0, nullptr, nullptr) != NVRTC_SUCCESS) return "";
  const char* options[] = {"--gpu-architecture=compute_75", "--relocatable-device-code=true", "-lineinfo"};
  const nvrtcResult compiled = nvrtcCompileProgram(program, 3, options);
  if (compiled != NVRTC_SUCCESS) {
    size_t log_size = 0;
    nvrtcGetProgramLogSize(program, &log_size);
    std::string log(log_size, '\0');
    nvrtcGetProgramLog(program, log.data());
    std::printf("FAIL: nvrtcCompileProgram %s: %s\n%s\n", name, nvrtcGetErrorString(compiled), log.c_str());
    return "";
  }
  size_t ptx_size = 0;
  nvrtcGetPTXSize(program, &ptx_size);
  std::string ptx(ptx_size, '\0');  // with the terminating NUL, as cuLinkAddData is given it
  nvrtcGetPTX(program, ptx.data());
  nvrtcDestroyProgram(&program);
  return ptx;
}

}  // namespace

int main(int argc, char** argv) {
  std::string library = Compile(kLibrary, "library.cu"), user = Compile(kUser, "user.cu");
  if (library.empty() || user.empty()) return 1;

  CUdevice dev;
  CUcontext ctx;
  if (!Ok(cuInit(0), "cuInit") || !Ok(cuDeviceGet(&dev, 0), "cuDeviceGet") ||
      !Ok(cuDevicePrimaryCtxRetain(&ctx, dev), "cuDevicePrimaryCtxRetain") || !Ok(cuCtxSetCurrent(ctx), "cuCtxSetCurrent"))
    return 1;
  char info_log[2048] = "", error_log[2048] = "";
  CUjit_option options[] = {CU_JIT_INFO_LOG_BUFFER, CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES, CU_JIT_ERROR_LOG_BUFFER,
                            CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES, CU_JIT_LOG_VERBOSE};
  void* values[] = {info_log, reinterpret_cast<void*>(sizeof info_log), error_log,
                    reinterpret_cast<void*>(sizeof error_log), reinterpret_cast<void*>(1)};
  CUlinkState link;
  if (!Ok(cuLinkCreate(5, options, values, &link), "cuLinkCreate")) return 1;
  if (!Ok(cuLinkAddData(link, CU_JIT_INPUT_PTX, user.data(), user.size(), "user.ptx", 0, nullptr, nullptr),
          "cuLinkAddData user") ||
      !Ok(cuLinkAddData(link, CU_JIT_INPUT_PTX, library.data(), library.size(), "library.ptx", 0, nullptr, nullptr),
          "cuLinkAddData library")) {
    std::printf("error log: %s\n", error_log);
    return 1;
  }
  if (argc > 1 && !Ok(cuLinkAddFile(link, CU_JIT_INPUT_LIBRARY, argv[1], 0, nullptr, nullptr), "cuLinkAddFile")) {
    std::printf("error log: %s\n", error_log);
    return 1;
  }
  void* image = nullptr;
  size_t image_size = 0;
  if (!Ok(cuLinkComplete(link, &image, &image_size), "cuLinkComplete")) {
    std::printf("error log: %s\n", error_log);
    return 1;
  }
  CUmodule module;
  if (!Ok(cuModuleLoadData(&module, image), "cuModuleLoadData")) return 1;
  if (!Ok(cuLinkDestroy(link), "cuLinkDestroy")) return 1;
  std::printf("linked %zu bytes; info log: %s", image_size, info_log);

  CUfunction apply;
  CUdeviceptr scale;
  size_t scale_bytes = 0;
  if (!Ok(cuModuleGetFunction(&apply, module, "apply"), "cuModuleGetFunction") ||
      !Ok(cuModuleGetGlobal(&scale, &scale_bytes, module, "g_scale"), "cuModuleGetGlobal"))
    return 1;
  float initial = 0.0f;
  const float three = 3.0f;
  if (!Ok(cuMemcpyDtoH(&initial, scale, sizeof initial), "cuMemcpyDtoH g_scale") || initial != 2.0f) {
    std::printf("FAIL: g_scale = %f before the copy, expected 2\n", initial);
    return 1;
  }
  if (!Ok(cuMemcpyHtoD(scale, &three, sizeof three), "cuMemcpyHtoD g_scale")) return 1;

  const int n = 1000;
  std::vector<float> x(n), out(n);
  for (int i = 0; i < n; ++i) x[i] = 0.25f * static_cast<float>(i % 37) - 3.0f;
  CUdeviceptr dx, dout;
  const size_t bytes = n * sizeof(float);
  if (!Ok(cuMemAlloc(&dx, bytes), "cuMemAlloc") || !Ok(cuMemAlloc(&dout, bytes), "cuMemAlloc") ||
      !Ok(cuMemcpyHtoD(dx, x.data(), bytes), "cuMemcpyHtoD"))
    return 1;
  int count = n;
  void* args[] = {&dx, &dout, &count};
  if (!Ok(cuLaunchKernel(apply, (n + 127) / 128, 1, 1, 128, 1, 1, 0, nullptr, args, nullptr), "cuLaunchKernel") ||
      !Ok(cuCtxSynchronize(), "cuCtxSynchronize") || !Ok(cuMemcpyDtoH(out.data(), dout, bytes), "cuMemcpyDtoH"))
    return 1;
  for (int i = 0; i < n; ++i) {
    const float expect = x[i] * 3.0f + 1.0f;  // exact: quarters times 3, plus 1
    if (out[i] != expect) {
      std::printf("FAIL: out[%d] = %f, expected %f\n", i, out[i], expect);
      return 1;
    }
  }
  cuMemFree(dx);
  cuMemFree(dout);
  cuModuleUnload(module);
  cuDevicePrimaryCtxRelease(dev);
  std::printf("PASS\n");
  return 0;
}
