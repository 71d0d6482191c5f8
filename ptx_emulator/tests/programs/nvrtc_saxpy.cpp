// A run-time-compiled kernel, as NVRTC programs (PyTorch's JIT, CuPy, jitify)
// do it: a CUDA C++ string compiled to PTX by NVRTC, loaded with
// cuModuleLoadDataEx (JIT log options given, as such programs pass them) and
// launched with cuLaunchKernel; the result is checked against the CPU.
// Linked with libnvrtc and the toolkit's stub libcuda.so; runs on the
// emulator's libcuda.so.1. Prints PASS.
#include <cuda.h>
#include <nvrtc.h>

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

namespace {

constexpr char kSource[] = R"(
template <typename T>
__device__ T fused(T a, T x, T y) { return a * x + y; }

extern "C" __global__ void saxpy(float a, const float* x, const float* y, float* out, size_t n) {
  for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += size_t(blockDim.x) * gridDim.x)
    out[i] = fused(a, x[i], y[i]) + sinf(x[i]);
}
)";

bool Ok(CUresult r, const char* what) {
  if (r == CUDA_SUCCESS) return true;
  const char* name = nullptr;
  cuGetErrorName(r, &name);
  std::printf("FAIL: %s = %s\n", what, name ? name : "?");
  return false;
}

}  // namespace

int main() {
  nvrtcProgram program;
  if (nvrtcCreateProgram(&program, kSource, "saxpy.cu", 0, nullptr, nullptr) != NVRTC_SUCCESS) {
    std::printf("FAIL: nvrtcCreateProgram\n");
    return 1;
  }
  const char* options[] = {"--gpu-architecture=compute_75", "-lineinfo"};
  const nvrtcResult compiled = nvrtcCompileProgram(program, 2, options);
  size_t log_size = 0;
  nvrtcGetProgramLogSize(program, &log_size);
  std::string log(log_size, '\0');
  nvrtcGetProgramLog(program, log.data());
  if (compiled != NVRTC_SUCCESS) {
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
  if (!Ok(cuInit(0), "cuInit") || !Ok(cuDeviceGet(&dev, 0), "cuDeviceGet") ||
      !Ok(cuDevicePrimaryCtxRetain(&ctx, dev), "cuDevicePrimaryCtxRetain") || !Ok(cuCtxSetCurrent(ctx), "cuCtxSetCurrent"))
    return 1;
  char info_log[1024] = "", error_log[1024] = "";
  CUjit_option jit_options[] = {CU_JIT_INFO_LOG_BUFFER, CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES, CU_JIT_ERROR_LOG_BUFFER,
                                CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void* jit_values[] = {info_log, reinterpret_cast<void*>(sizeof info_log), error_log,
                        reinterpret_cast<void*>(sizeof error_log)};
  CUmodule module;
  if (!Ok(cuModuleLoadDataEx(&module, ptx.c_str(), 4, jit_options, jit_values), "cuModuleLoadDataEx")) {
    std::printf("JIT error log: %s\n", error_log);
    return 1;
  }
  CUfunction saxpy;
  if (!Ok(cuModuleGetFunction(&saxpy, module, "saxpy"), "cuModuleGetFunction")) return 1;

  const size_t n = 3000;
  std::vector<float> x(n), y(n), out(n);
  for (size_t i = 0; i < n; ++i) {
    x[i] = 0.001f * static_cast<float>(i);
    y[i] = 2.0f - 0.5f * static_cast<float>(i % 11);
  }
  CUdeviceptr dx, dy, dout;
  const size_t bytes = n * sizeof(float);
  if (!Ok(cuMemAlloc(&dx, bytes), "cuMemAlloc") || !Ok(cuMemAlloc(&dy, bytes), "cuMemAlloc") ||
      !Ok(cuMemAlloc(&dout, bytes), "cuMemAlloc") || !Ok(cuMemcpyHtoD(dx, x.data(), bytes), "cuMemcpyHtoD") ||
      !Ok(cuMemcpyHtoD(dy, y.data(), bytes), "cuMemcpyHtoD"))
    return 1;
  float a = 2.5f;
  size_t count = n;
  void* args[] = {&a, &dx, &dy, &dout, &count};
  // Fewer threads than elements: the grid-stride loop covers the rest.
  if (!Ok(cuLaunchKernel(saxpy, 4, 1, 1, 256, 1, 1, 0, nullptr, args, nullptr), "cuLaunchKernel") ||
      !Ok(cuCtxSynchronize(), "cuCtxSynchronize") || !Ok(cuMemcpyDtoH(out.data(), dout, bytes), "cuMemcpyDtoH"))
    return 1;
  for (size_t i = 0; i < n; ++i) {
    const float expect = a * x[i] + y[i] + std::sin(x[i]);
    if (std::fabs(out[i] - expect) > 1e-4f * (1.0f + std::fabs(expect))) {
      std::printf("FAIL: out[%zu] = %f, expected %f\n", i, out[i], expect);
      return 1;
    }
  }
  cuMemFree(dx);
  cuMemFree(dy);
  cuMemFree(dout);
  cuModuleUnload(module);
  cuDevicePrimaryCtxRelease(dev);
  std::printf("PASS\n");
  return 0;
}
