// barracuda-corpus: lineinfo-only its -G PTX is 2.5-10 MB per target (ptxas ~10-20 s each in corpus_check); device_radix_sort and the block-level CUB sources keep -G
// cub::DeviceScan: ExclusiveSum, InclusiveSum and an inclusive max-scan over
// 4000 ints. The single-pass scan publishes tile prefixes through global
// memory (decoupled look-back), so blocks wait on one another. Part of the PTX
// corpus; it checks its own results so that it can also run on the emulator.
#include <cstdio>
#include <vector>

#include <cub/device/device_scan.cuh>
#include <cuda/functional>

#define CHECK_CUDA(call)                                                    \
  do {                                                                      \
    cudaError_t err_ = (call);                                              \
    if (err_ != cudaSuccess) {                                              \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,    \
                   cudaGetErrorString(err_));                               \
      return 1;                                                             \
    }                                                                       \
  } while (0)

constexpr int kN = 4000;

int main() {
  std::vector<int> in(kN);
  unsigned seed = 31337u;
  for (int& v : in) {
    seed = seed * 1664525u + 1013904223u;
    v = static_cast<int>(seed >> 22) - 512;
  }
  int *d_in, *d_excl, *d_incl, *d_max;
  CHECK_CUDA(cudaMalloc(&d_in, kN * sizeof(int)));
  CHECK_CUDA(cudaMalloc(&d_excl, kN * sizeof(int)));
  CHECK_CUDA(cudaMalloc(&d_incl, kN * sizeof(int)));
  CHECK_CUDA(cudaMalloc(&d_max, kN * sizeof(int)));
  CHECK_CUDA(cudaMemcpy(d_in, in.data(), kN * sizeof(int), cudaMemcpyHostToDevice));

  size_t bytes = 0, need = 0;
  CHECK_CUDA(cub::DeviceScan::ExclusiveSum(nullptr, need, d_in, d_excl, kN));
  bytes = need > bytes ? need : bytes;
  CHECK_CUDA(cub::DeviceScan::InclusiveSum(nullptr, need, d_in, d_incl, kN));
  bytes = need > bytes ? need : bytes;
  CHECK_CUDA(cub::DeviceScan::InclusiveScan(nullptr, need, d_in, d_max, cuda::maximum<>{}, kN));
  bytes = need > bytes ? need : bytes;
  void* d_temp;
  CHECK_CUDA(cudaMalloc(&d_temp, bytes));
  need = bytes;
  CHECK_CUDA(cub::DeviceScan::ExclusiveSum(d_temp, need, d_in, d_excl, kN));
  need = bytes;
  CHECK_CUDA(cub::DeviceScan::InclusiveSum(d_temp, need, d_in, d_incl, kN));
  need = bytes;
  CHECK_CUDA(cub::DeviceScan::InclusiveScan(d_temp, need, d_in, d_max, cuda::maximum<>{}, kN));
  CHECK_CUDA(cudaDeviceSynchronize());

  std::vector<int> excl(kN), incl(kN), max(kN);
  CHECK_CUDA(cudaMemcpy(excl.data(), d_excl, kN * sizeof(int), cudaMemcpyDeviceToHost));
  CHECK_CUDA(cudaMemcpy(incl.data(), d_incl, kN * sizeof(int), cudaMemcpyDeviceToHost));
  CHECK_CUDA(cudaMemcpy(max.data(), d_max, kN * sizeof(int), cudaMemcpyDeviceToHost));

  int failures = 0, running = 0, running_max = in[0];
  for (int i = 0; i < kN; ++i) {
    const int want_excl = running;
    running += in[i];
    running_max = in[i] > running_max ? in[i] : running_max;
    if (excl[i] != want_excl || incl[i] != running || max[i] != running_max) {
      if (failures < 10)
        std::fprintf(stderr, "element %d: exclusive %d inclusive %d max %d (want %d %d %d)\n", i,
                     excl[i], incl[i], max[i], want_excl, running, running_max);
      ++failures;
    }
  }
  CHECK_CUDA(cudaFree(d_temp));
  CHECK_CUDA(cudaFree(d_in));
  CHECK_CUDA(cudaFree(d_excl));
  CHECK_CUDA(cudaFree(d_incl));
  CHECK_CUDA(cudaFree(d_max));
  std::printf("device_scan: %s\n", failures ? "FAIL" : "PASS");
  return failures ? 1 : 0;
}
