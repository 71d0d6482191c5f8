// barracuda-corpus: lineinfo-only its -G PTX is 2.5-10 MB per target (ptxas ~10-20 s each in corpus_check); device_radix_sort and the block-level CUB sources keep -G
// cub::DeviceReduce: Sum, Max and ArgMin over 5000 ints, and Reduce with a
// user-defined operator and initial value, each with the two-phase temporary-storage
// protocol (query the size, allocate, run). Part of the PTX corpus; it checks
// its own results so that it can also run on the emulator.
#include <cstdio>
#include <vector>

#include <cub/device/device_reduce.cuh>

#define CHECK_CUDA(call)                                                    \
  do {                                                                      \
    cudaError_t err_ = (call);                                              \
    if (err_ != cudaSuccess) {                                              \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,    \
                   cudaGetErrorString(err_));                               \
      return 1;                                                             \
    }                                                                       \
  } while (0)

constexpr int kN = 5000;

// A user-defined reduction operator (associative and commutative, so any
// reduction order CUB picks gives the same result).
struct Xor {
  __host__ __device__ int operator()(int a, int b) const { return a ^ b; }
};

int main() {
  std::vector<int> in(kN);
  unsigned seed = 2024u;
  for (int i = 0; i < kN; ++i) {
    seed = seed * 1664525u + 1013904223u;
    in[i] = static_cast<int>(seed >> 20) - 2048;
  }
  int *d_in, *d_sum, *d_max, *d_min, *d_xor;
  cuda::std::int64_t* d_argmin;
  CHECK_CUDA(cudaMalloc(&d_in, kN * sizeof(int)));
  CHECK_CUDA(cudaMalloc(&d_sum, sizeof(int)));
  CHECK_CUDA(cudaMalloc(&d_max, sizeof(int)));
  CHECK_CUDA(cudaMalloc(&d_min, sizeof(int)));
  CHECK_CUDA(cudaMalloc(&d_xor, sizeof(int)));
  CHECK_CUDA(cudaMalloc(&d_argmin, sizeof(cuda::std::int64_t)));
  CHECK_CUDA(cudaMemcpy(d_in, in.data(), kN * sizeof(int), cudaMemcpyHostToDevice));

  // One temporary buffer sized for the largest of the four algorithms.
  size_t bytes = 0, need = 0;
  CHECK_CUDA(cub::DeviceReduce::Sum(nullptr, need, d_in, d_sum, kN));
  bytes = need > bytes ? need : bytes;
  CHECK_CUDA(cub::DeviceReduce::Max(nullptr, need, d_in, d_max, kN));
  bytes = need > bytes ? need : bytes;
  CHECK_CUDA(cub::DeviceReduce::ArgMin(nullptr, need, d_in, d_min, d_argmin, kN));
  bytes = need > bytes ? need : bytes;
  CHECK_CUDA(cub::DeviceReduce::Reduce(nullptr, need, d_in, d_xor, kN, Xor{}, 0));
  bytes = need > bytes ? need : bytes;
  void* d_temp;
  CHECK_CUDA(cudaMalloc(&d_temp, bytes));

  need = bytes;
  CHECK_CUDA(cub::DeviceReduce::Sum(d_temp, need, d_in, d_sum, kN));
  need = bytes;
  CHECK_CUDA(cub::DeviceReduce::Max(d_temp, need, d_in, d_max, kN));
  need = bytes;
  CHECK_CUDA(cub::DeviceReduce::ArgMin(d_temp, need, d_in, d_min, d_argmin, kN));
  need = bytes;
  CHECK_CUDA(cub::DeviceReduce::Reduce(d_temp, need, d_in, d_xor, kN, Xor{}, 0));
  CHECK_CUDA(cudaDeviceSynchronize());

  int sum, max, min, xor_all;
  cuda::std::int64_t argmin;
  CHECK_CUDA(cudaMemcpy(&sum, d_sum, sizeof(int), cudaMemcpyDeviceToHost));
  CHECK_CUDA(cudaMemcpy(&max, d_max, sizeof(int), cudaMemcpyDeviceToHost));
  CHECK_CUDA(cudaMemcpy(&min, d_min, sizeof(int), cudaMemcpyDeviceToHost));
  CHECK_CUDA(cudaMemcpy(&xor_all, d_xor, sizeof(int), cudaMemcpyDeviceToHost));
  CHECK_CUDA(cudaMemcpy(&argmin, d_argmin, sizeof(argmin), cudaMemcpyDeviceToHost));

  int want_sum = 0, want_max = in[0], want_min = in[0], want_xor = 0;
  long long want_argmin = 0;
  for (int i = 0; i < kN; ++i) {
    want_sum += in[i];
    want_xor ^= in[i];
    if (in[i] > want_max) want_max = in[i];
    if (in[i] < want_min) {  // strict: ArgMin returns the first minimum
      want_min = in[i];
      want_argmin = i;
    }
  }
  int failures = 0;
  if (sum != want_sum) { std::fprintf(stderr, "sum %d, want %d\n", sum, want_sum); ++failures; }
  if (max != want_max) { std::fprintf(stderr, "max %d, want %d\n", max, want_max); ++failures; }
  if (min != want_min || argmin != want_argmin) {
    std::fprintf(stderr, "argmin %d at %lld, want %d at %lld\n", min,
                 static_cast<long long>(argmin), want_min, want_argmin);
    ++failures;
  }
  if (xor_all != want_xor) {
    std::fprintf(stderr, "xor %d, want %d\n", xor_all, want_xor);
    ++failures;
  }
  CHECK_CUDA(cudaFree(d_temp));
  CHECK_CUDA(cudaFree(d_in));
  CHECK_CUDA(cudaFree(d_sum));
  CHECK_CUDA(cudaFree(d_max));
  CHECK_CUDA(cudaFree(d_min));
  CHECK_CUDA(cudaFree(d_xor));
  CHECK_CUDA(cudaFree(d_argmin));
  std::printf("device_reduce: %s\n", failures ? "FAIL" : "PASS");
  return failures ? 1 : 0;
}
