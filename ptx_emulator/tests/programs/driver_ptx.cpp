// A CUDA driver-API program, as written for a GPU: PTX text (nvcc -ptx of
// driver_kernels.cu, path in argv[1]) loaded with cuModuleLoadData, launched
// with kernelParams and with the `extra` parameter buffer, on a created
// context and a stream, with events, a module global, memsets and
// cuGetProcAddress. Built with g++ against the toolkit's cuda.h and its stub
// libcuda.so; run on the emulator's libcuda.so.1 (LD_LIBRARY_PATH). Prints PASS.
#include <cuda.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#define CHECK(call)                                                              \
  do {                                                                           \
    CUresult r_ = (call);                                                        \
    if (r_ != CUDA_SUCCESS) {                                                    \
      const char* name_ = nullptr;                                               \
      cuGetErrorName(r_, &name_);                                                \
      std::printf("FAIL: %s = %s (line %d)\n", #call, name_ ? name_ : "?", __LINE__); \
      return 1;                                                                  \
    }                                                                            \
  } while (0)

struct Float4 {
  float x, y, z, w;
};

int main(int argc, char** argv) {
  if (argc < 2) {
    std::printf("FAIL: usage: driver_ptx KERNELS.ptx\n");
    return 2;
  }
  std::ifstream file(argv[1]);
  std::stringstream text;
  text << file.rdbuf();
  const std::string ptx = text.str();
  if (ptx.empty()) {
    std::printf("FAIL: cannot read %s\n", argv[1]);
    return 2;
  }

  CHECK(cuInit(0));
  int version = 0;
  CHECK(cuDriverGetVersion(&version));
  CUdevice dev;
  CHECK(cuDeviceGet(&dev, 0));
  char name[128];
  CHECK(cuDeviceGetName(name, sizeof name, dev));
  int major = 0, minor = 0, sms = 0;
  CHECK(cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev));
  CHECK(cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev));
  CHECK(cuDeviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev));
  std::printf("device %s, sm_%d%d, %d SMs, driver %d\n", name, major, minor, sms, version);
  CUcontext ctx;
  CHECK(cuCtxCreate(&ctx, nullptr, 0, dev));

  CUmodule module;
  CHECK(cuModuleLoadData(&module, ptx.c_str()));
  CUfunction scale_add, block_sum;
  CHECK(cuModuleGetFunction(&scale_add, module, "scale_add"));
  CHECK(cuModuleGetFunction(&block_sum, module, "block_sum"));
  if (cuModuleGetFunction(&block_sum, module, "no_such_kernel") != CUDA_ERROR_NOT_FOUND) {
    std::printf("FAIL: an unknown kernel name was found\n");
    return 1;
  }

  // cuGetProcAddress gives the ABI the header maps the name to (cuMemAlloc_v2).
  using MemAlloc = CUresult (*)(CUdeviceptr*, size_t);
  void* fn = nullptr;
  CUdriverProcAddressQueryResult status;
  CHECK(cuGetProcAddress("cuMemAlloc", &fn, 13000, CU_GET_PROC_ADDRESS_DEFAULT, &status));
  if (status != CU_GET_PROC_ADDRESS_SUCCESS || fn == nullptr) {
    std::printf("FAIL: cuGetProcAddress(cuMemAlloc)\n");
    return 1;
  }

  const int n = 1000;
  std::vector<float> in(n), out(n);
  for (int i = 0; i < n; ++i) in[i] = static_cast<float>(i) * 0.5f;
  CUdeviceptr d_in, d_out;
  CHECK(reinterpret_cast<MemAlloc>(fn)(&d_in, n * sizeof(float)));
  CHECK(cuMemAlloc(&d_out, n * sizeof(float)));
  CUstream stream;
  CHECK(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING));
  CUevent start, stop;
  CHECK(cuEventCreate(&start, CU_EVENT_DEFAULT));
  CHECK(cuEventCreate(&stop, CU_EVENT_DEFAULT));
  CHECK(cuMemcpyHtoDAsync(d_in, in.data(), n * sizeof(float), stream));
  CHECK(cuMemsetD32Async(d_out, 0x7fc00000u, n, stream));  // NaN: every element must be written

  // 1. kernelParams.
  float a = 3.0f;
  Float4 bias{1, 2, 3, 4};
  int count = n;
  void* params[] = {&d_out, &d_in, &a, &bias, &count};
  CHECK(cuEventRecord(start, stream));
  CHECK(cuLaunchKernel(scale_add, (n + 127) / 128, 1, 1, 128, 1, 1, 0, stream, params, nullptr));
  CHECK(cuEventRecord(stop, stream));
  CHECK(cuMemcpyDtoHAsync(out.data(), d_out, n * sizeof(float), stream));
  CHECK(cuStreamSynchronize(stream));
  float ms = -1;
  CHECK(cuEventElapsedTime(&ms, start, stop));
  const float b[4] = {1, 2, 3, 4};
  for (int i = 0; i < n; ++i) {
    if (std::fabs(out[i] - (3.0f * in[i] + b[i % 4])) > 1e-4f) {
      std::printf("FAIL: kernelParams launch: out[%d] = %f\n", i, out[i]);
      return 1;
    }
  }

  // 2. The `extra` buffer, laid out with the kernel's parameter offsets.
  size_t offsets[5], sizes[5];
  for (int i = 0; i < 5; ++i) CHECK(cuFuncGetParamInfo(scale_add, i, &offsets[i], &sizes[i]));
  if (sizes[3] != sizeof(Float4) || offsets[3] % 16 != 0) {
    std::printf("FAIL: parameter 3 at %zu, %zu bytes\n", offsets[3], sizes[3]);
    return 1;
  }
  alignas(16) unsigned char buffer[64] = {};
  a = -1.0f;
  std::memcpy(buffer + offsets[0], &d_out, sizes[0]);
  std::memcpy(buffer + offsets[1], &d_in, sizes[1]);
  std::memcpy(buffer + offsets[2], &a, sizes[2]);
  std::memcpy(buffer + offsets[3], &bias, sizes[3]);
  std::memcpy(buffer + offsets[4], &count, sizes[4]);
  size_t buffer_size = offsets[4] + sizes[4];
  void* extra[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, buffer, CU_LAUNCH_PARAM_BUFFER_SIZE, &buffer_size,
                   CU_LAUNCH_PARAM_END};
  CHECK(cuLaunchKernel(scale_add, (n + 127) / 128, 1, 1, 128, 1, 1, 0, nullptr, nullptr, extra));
  CHECK(cuMemcpyDtoH(out.data(), d_out, n * sizeof(float)));
  for (int i = 0; i < n; ++i) {
    if (std::fabs(out[i] - (-in[i] + b[i % 4])) > 1e-4f) {
      std::printf("FAIL: extra launch: out[%d] = %f\n", i, out[i]);
      return 1;
    }
  }

  // 3. A shared-memory reduction, launched through cuLaunchKernelEx.
  const int blocks = 4, threads = 128;
  std::vector<int> values(blocks * threads), sums(blocks);
  for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<int>(i % 7);
  CUdeviceptr d_values, d_sums;
  CHECK(cuMemAlloc(&d_values, values.size() * sizeof(int)));
  CHECK(cuMemAlloc(&d_sums, blocks * sizeof(int)));
  CHECK(cuMemcpyHtoD(d_values, values.data(), values.size() * sizeof(int)));
  CUlaunchConfig config{};
  config.gridDimX = blocks, config.gridDimY = 1, config.gridDimZ = 1;
  config.blockDimX = threads, config.blockDimY = 1, config.blockDimZ = 1;
  config.hStream = stream;
  void* sum_params[] = {&d_values, &d_sums};
  CHECK(cuLaunchKernelEx(&config, block_sum, sum_params, nullptr));
  CHECK(cuCtxSynchronize());
  CHECK(cuMemcpyDtoH(sums.data(), d_sums, blocks * sizeof(int)));
  for (int blk = 0; blk < blocks; ++blk) {
    int expect = 0;
    for (int t = 0; t < threads; ++t) expect += values[blk * threads + t];
    if (sums[blk] != expect) {
      std::printf("FAIL: block_sum[%d] = %d, expected %d\n", blk, sums[blk], expect);
      return 1;
    }
  }

  // The module global counted the two scale_add launches.
  CUdeviceptr d_seen;
  size_t seen_size = 0;
  CHECK(cuModuleGetGlobal(&d_seen, &seen_size, module, "launches_seen"));
  int seen = 0;
  CHECK(cuMemcpyDtoH(&seen, d_seen, sizeof seen));
  if (seen_size != sizeof(int) || seen != 2) {
    std::printf("FAIL: launches_seen = %d (%zu bytes), expected 2\n", seen, seen_size);
    return 1;
  }

  int max_threads = 0;
  CHECK(cuFuncGetAttribute(&max_threads, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, block_sum));
  int active = 0;
  CHECK(cuOccupancyMaxActiveBlocksPerMultiprocessor(&active, block_sum, threads, 0));
  if (max_threads <= 0 || active <= 0) {
    std::printf("FAIL: attributes: max threads %d, active blocks %d\n", max_threads, active);
    return 1;
  }

  CHECK(cuEventDestroy(start));
  CHECK(cuEventDestroy(stop));
  CHECK(cuStreamDestroy(stream));
  CHECK(cuMemFree(d_in));
  CHECK(cuMemFree(d_out));
  CHECK(cuMemFree(d_values));
  CHECK(cuMemFree(d_sums));
  CHECK(cuModuleUnload(module));
  CHECK(cuCtxDestroy(ctx));
  std::printf("PASS\n");
  return 0;
}
