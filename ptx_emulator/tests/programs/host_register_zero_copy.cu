// Zero copy through cudaHostRegister: a malloc'd host buffer is registered
// mapped, a kernel reads and writes it through its device pointer, and the
// host checks the results after synchronising (no cudaMemcpy anywhere).
// Then a registered static array, cudaHostUnregister, and the error codes.
#include <cstdio>
#include <cstdlib>
#include <cstring>

#define CHECK(call)                                                                      \
  do {                                                                                   \
    cudaError_t e_ = (call);                                                             \
    if (e_ != cudaSuccess) {                                                             \
      std::printf("FAIL %s:%d %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorName(e_)); \
      return 1;                                                                          \
    }                                                                                    \
  } while (0)
#define EXPECT(cond)                                               \
  do {                                                             \
    if (!(cond)) {                                                 \
      std::printf("FAIL %s:%d %s\n", __FILE__, __LINE__, #cond);   \
      return 1;                                                    \
    }                                                              \
  } while (0)

__global__ void square_plus(const float* in, float* out, int n, float add) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] * in[i] + add;
}

__global__ void count_up(unsigned* counter, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(counter, 1u);
}

static unsigned static_counter[4];

int main() {
  const int n = 100000;
  const size_t bytes = n * sizeof(float);
  float* in = static_cast<float*>(std::malloc(bytes));
  float* out = static_cast<float*>(std::malloc(bytes));
  for (int i = 0; i < n; ++i) {
    in[i] = static_cast<float>(i % 1000) * 0.5f;
    out[i] = -1.0f;
  }
  CHECK(cudaHostRegister(in, bytes, cudaHostRegisterMapped | cudaHostRegisterReadOnly));
  CHECK(cudaHostRegister(out, bytes, cudaHostRegisterMapped));
  float *d_in = nullptr, *d_out = nullptr;
  CHECK(cudaHostGetDevicePointer(reinterpret_cast<void**>(&d_in), in, 0));
  CHECK(cudaHostGetDevicePointer(reinterpret_cast<void**>(&d_out), out, 0));

  cudaPointerAttributes attr{};
  CHECK(cudaPointerGetAttributes(&attr, out));
  EXPECT(attr.type == cudaMemoryTypeHost && attr.devicePointer == d_out && attr.hostPointer == out);

  square_plus<<<(n + 255) / 256, 256>>>(d_in, d_out, n, 1.0f);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  for (int i = 0; i < n; ++i) {
    const float v = static_cast<float>(i % 1000) * 0.5f;
    if (out[i] != v * v + 1.0f) {
      std::printf("FAIL out[%d] = %f, expected %f\n", i, out[i], v * v + 1.0f);
      return 1;
    }
  }
  // The host changes the input in place; a second launch on a stream sees it.
  for (int i = 0; i < n; ++i) in[i] = 2.0f;
  cudaStream_t s;
  CHECK(cudaStreamCreate(&s));
  square_plus<<<(n + 255) / 256, 256, 0, s>>>(d_in, d_out, n, 0.0f);
  CHECK(cudaStreamSynchronize(s));
  EXPECT(out[0] == 4.0f && out[n - 1] == 4.0f);

  // A registered static array used as a device-side counter.
  CHECK(cudaHostRegister(static_counter, sizeof static_counter, cudaHostRegisterDefault));
  unsigned* d_counter = nullptr;
  CHECK(cudaHostGetDevicePointer(reinterpret_cast<void**>(&d_counter), static_counter, 0));
  count_up<<<40, 128, 0, s>>>(d_counter + 2, 5000);
  CHECK(cudaStreamSynchronize(s));
  EXPECT(static_counter[2] == 5000 && static_counter[1] == 0 && static_counter[3] == 0);

  // Errors.
  EXPECT(cudaHostRegister(out, bytes, cudaHostRegisterMapped) == cudaErrorHostMemoryAlreadyRegistered);
  EXPECT(cudaHostRegister(out, 16, 0x80) == cudaErrorInvalidValue);
  EXPECT(cudaHostUnregister(out + 1) == cudaErrorHostMemoryNotRegistered);
  cudaGetLastError();

  CHECK(cudaHostUnregister(static_counter));
  CHECK(cudaHostUnregister(out));
  CHECK(cudaHostUnregister(in));
  EXPECT(cudaHostUnregister(in) == cudaErrorHostMemoryNotRegistered);
  cudaGetLastError();
  // The buffers are plain host memory again, contents kept.
  EXPECT(out[12345] == 4.0f && in[6] == 2.0f);
  CHECK(cudaStreamDestroy(s));
  std::free(in);
  std::free(out);
  std::printf("PASS\n");
  return 0;
}
