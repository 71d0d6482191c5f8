// barracuda-corpus: lineinfo-only its -G PTX is 2.5-10 MB per target (ptxas ~10-20 s each in corpus_check); device_radix_sort and the block-level CUB sources keep -G
// cub::DeviceSelect (If, Flagged, Unique) and cub::DevicePartition::If over
// 3500 ints. Selection is a single-pass scan with decoupled look-back plus a
// device-side count of selected items. Part of the PTX corpus; it checks its
// own results so that it can also run on the emulator.
#include <cstdio>
#include <vector>

#include <cub/device/device_partition.cuh>
#include <cub/device/device_select.cuh>

#define CHECK_CUDA(call)                                                    \
  do {                                                                      \
    cudaError_t err_ = (call);                                              \
    if (err_ != cudaSuccess) {                                              \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,    \
                   cudaGetErrorString(err_));                               \
      return 1;                                                             \
    }                                                                       \
  } while (0)

constexpr int kN = 3500;

struct IsMultipleOf3 {
  __host__ __device__ bool operator()(int v) const { return v % 3 == 0; }
};

int main() {
  std::vector<int> in(kN);
  std::vector<char> flags(kN);
  unsigned seed = 6502u;
  for (int i = 0; i < kN; ++i) {
    seed = seed * 1664525u + 1013904223u;
    in[i] = static_cast<int>(seed >> 26);  // 0..63: runs of equal values for Unique
    if (i % 4 != 0 && i > 0) in[i] = in[i - 1];
    flags[i] = static_cast<char>((seed >> 7) & 1);
  }
  int *d_in, *d_if, *d_flagged, *d_unique, *d_part, *d_counts;
  char* d_flags;
  CHECK_CUDA(cudaMalloc(&d_in, kN * sizeof(int)));
  CHECK_CUDA(cudaMalloc(&d_if, kN * sizeof(int)));
  CHECK_CUDA(cudaMalloc(&d_flagged, kN * sizeof(int)));
  CHECK_CUDA(cudaMalloc(&d_unique, kN * sizeof(int)));
  CHECK_CUDA(cudaMalloc(&d_part, kN * sizeof(int)));
  CHECK_CUDA(cudaMalloc(&d_counts, 4 * sizeof(int)));
  CHECK_CUDA(cudaMalloc(&d_flags, kN));
  CHECK_CUDA(cudaMemcpy(d_in, in.data(), kN * sizeof(int), cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemcpy(d_flags, flags.data(), kN, cudaMemcpyHostToDevice));

  size_t bytes = 0, need = 0;
  CHECK_CUDA(cub::DeviceSelect::If(nullptr, need, d_in, d_if, d_counts + 0, kN, IsMultipleOf3{}));
  bytes = need > bytes ? need : bytes;
  CHECK_CUDA(cub::DeviceSelect::Flagged(nullptr, need, d_in, d_flags, d_flagged, d_counts + 1, kN));
  bytes = need > bytes ? need : bytes;
  CHECK_CUDA(cub::DeviceSelect::Unique(nullptr, need, d_in, d_unique, d_counts + 2, kN));
  bytes = need > bytes ? need : bytes;
  CHECK_CUDA(cub::DevicePartition::If(nullptr, need, d_in, d_part, d_counts + 3, kN,
                                      IsMultipleOf3{}));
  bytes = need > bytes ? need : bytes;
  void* d_temp;
  CHECK_CUDA(cudaMalloc(&d_temp, bytes));
  need = bytes;
  CHECK_CUDA(cub::DeviceSelect::If(d_temp, need, d_in, d_if, d_counts + 0, kN, IsMultipleOf3{}));
  need = bytes;
  CHECK_CUDA(cub::DeviceSelect::Flagged(d_temp, need, d_in, d_flags, d_flagged, d_counts + 1, kN));
  need = bytes;
  CHECK_CUDA(cub::DeviceSelect::Unique(d_temp, need, d_in, d_unique, d_counts + 2, kN));
  need = bytes;
  CHECK_CUDA(cub::DevicePartition::If(d_temp, need, d_in, d_part, d_counts + 3, kN,
                                      IsMultipleOf3{}));
  CHECK_CUDA(cudaDeviceSynchronize());

  std::vector<int> got_if(kN), got_flagged(kN), got_unique(kN), got_part(kN), counts(4);
  CHECK_CUDA(cudaMemcpy(got_if.data(), d_if, kN * sizeof(int), cudaMemcpyDeviceToHost));
  CHECK_CUDA(cudaMemcpy(got_flagged.data(), d_flagged, kN * sizeof(int), cudaMemcpyDeviceToHost));
  CHECK_CUDA(cudaMemcpy(got_unique.data(), d_unique, kN * sizeof(int), cudaMemcpyDeviceToHost));
  CHECK_CUDA(cudaMemcpy(got_part.data(), d_part, kN * sizeof(int), cudaMemcpyDeviceToHost));
  CHECK_CUDA(cudaMemcpy(counts.data(), d_counts, 4 * sizeof(int), cudaMemcpyDeviceToHost));

  std::vector<int> want_if, want_flagged, want_unique, rejected;
  for (int i = 0; i < kN; ++i) {
    if (IsMultipleOf3{}(in[i])) want_if.push_back(in[i]); else rejected.push_back(in[i]);
    if (flags[i]) want_flagged.push_back(in[i]);
    if (i == 0 || in[i] != in[i - 1]) want_unique.push_back(in[i]);
  }
  // DevicePartition::If: selected items in order, then the rejected ones in
  // reverse order at the end of the output.
  std::vector<int> want_part = want_if;
  want_part.insert(want_part.end(), rejected.rbegin(), rejected.rend());

  int failures = 0;
  // count: what the device reported; want: the whole expected output, whose
  // first want_count items are the selected ones.
  auto check = [&failures](const char* what, int count, size_t want_count,
                           const std::vector<int>& got, const std::vector<int>& want) {
    if (count != static_cast<int>(want_count)) {
      std::fprintf(stderr, "%s: %d selected, want %zu\n", what, count, want_count);
      ++failures;
      return;
    }
    for (size_t i = 0; i < want.size(); ++i) {
      if (got[i] != want[i]) {
        std::fprintf(stderr, "%s[%zu] = %d, want %d\n", what, i, got[i], want[i]);
        ++failures;
        return;
      }
    }
  };
  check("DeviceSelect::If", counts[0], want_if.size(), got_if, want_if);
  check("DeviceSelect::Flagged", counts[1], want_flagged.size(), got_flagged, want_flagged);
  check("DeviceSelect::Unique", counts[2], want_unique.size(), got_unique, want_unique);
  check("DevicePartition::If", counts[3], want_if.size(), got_part, want_part);
  CHECK_CUDA(cudaFree(d_temp));
  CHECK_CUDA(cudaFree(d_in));
  CHECK_CUDA(cudaFree(d_if));
  CHECK_CUDA(cudaFree(d_flagged));
  CHECK_CUDA(cudaFree(d_unique));
  CHECK_CUDA(cudaFree(d_part));
  CHECK_CUDA(cudaFree(d_counts));
  CHECK_CUDA(cudaFree(d_flags));
  std::printf("device_select: %s\n", failures ? "FAIL" : "PASS");
  return failures ? 1 : 0;
}
