// cub::WarpReduce: full-warp sum, max over 16-lane logical warps, a partial
// sum where only the first valid_items lanes take part, and a head-flagged
// segmented sum. Part of the PTX corpus; it checks its own results so that it
// can also run on the emulator.
#include <cstdio>
#include <vector>

#include <cub/warp/warp_reduce.cuh>
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

constexpr int kThreads = 128;
constexpr int kBlocks = 3;
constexpr int kWarps = kThreads / 32;
constexpr int kHalfWarps = kThreads / 16;
constexpr int kN = kBlocks * kThreads;
constexpr int kPartialValid = 19;
constexpr int kSegment = 5;  // a segment starts at every lane that is a multiple of 5

// Outputs per block: [warp sums | half-warp maxes | partial sums | segment sums per lane]
struct Out {
  int sum[kBlocks * kWarps];
  int max16[kBlocks * kHalfWarps];
  int partial[kBlocks * kWarps];
  int segmented[kN];  // valid at segment heads only
};

__global__ void WarpReductions(const int* in, Out* out) {
  using Warp = cub::WarpReduce<int>;
  using Half = cub::WarpReduce<int, 16>;
  __shared__ typename Warp::TempStorage warp_storage[kWarps];
  __shared__ typename Half::TempStorage half_storage[kHalfWarps];

  const int tid = blockIdx.x * kThreads + threadIdx.x;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int half = threadIdx.x / 16, hlane = threadIdx.x % 16;
  const int v = in[tid];

  int sum = Warp(warp_storage[warp]).Sum(v);
  int max = Half(half_storage[half]).Reduce(v, cuda::maximum<>{});
  __syncwarp();
  int partial = Warp(warp_storage[warp]).Sum(v, kPartialValid);
  __syncwarp();
  int segmented = Warp(warp_storage[warp]).HeadSegmentedSum(v, lane % kSegment == 0);
  if (lane == 0) {
    out->sum[blockIdx.x * kWarps + warp] = sum;
    out->partial[blockIdx.x * kWarps + warp] = partial;
  }
  if (hlane == 0) out->max16[blockIdx.x * kHalfWarps + half] = max;
  out->segmented[tid] = segmented;
}

int main() {
  std::vector<int> in(kN);
  unsigned seed = 99u;
  for (int& v : in) {
    seed = seed * 1664525u + 1013904223u;
    v = static_cast<int>(seed >> 23) - 256;
  }
  int* d_in;
  Out* d_out;
  CHECK_CUDA(cudaMalloc(&d_in, kN * sizeof(int)));
  CHECK_CUDA(cudaMalloc(&d_out, sizeof(Out)));
  CHECK_CUDA(cudaMemcpy(d_in, in.data(), kN * sizeof(int), cudaMemcpyHostToDevice));
  WarpReductions<<<kBlocks, kThreads>>>(d_in, d_out);
  CHECK_CUDA(cudaGetLastError());
  CHECK_CUDA(cudaDeviceSynchronize());
  static Out out;
  CHECK_CUDA(cudaMemcpy(&out, d_out, sizeof(Out), cudaMemcpyDeviceToHost));

  int failures = 0;
  auto expect = [&failures](const char* what, int index, int got, int want) {
    if (got != want) {
      if (failures < 10) std::fprintf(stderr, "%s[%d] = %d, want %d\n", what, index, got, want);
      ++failures;
    }
  };
  for (int w = 0; w < kBlocks * kWarps; ++w) {
    int sum = 0, partial = 0;
    for (int l = 0; l < 32; ++l) {
      sum += in[w * 32 + l];
      if (l < kPartialValid) partial += in[w * 32 + l];
    }
    expect("warp sum", w, out.sum[w], sum);
    expect("partial sum", w, out.partial[w], partial);
    for (int head = 0; head < 32; head += kSegment) {
      int seg = 0;
      for (int l = head; l < head + kSegment && l < 32; ++l) seg += in[w * 32 + l];
      expect("segmented sum", w * 32 + head, out.segmented[w * 32 + head], seg);
    }
  }
  for (int h = 0; h < kBlocks * kHalfWarps; ++h) {
    int max = in[h * 16];
    for (int l = 1; l < 16; ++l) max = in[h * 16 + l] > max ? in[h * 16 + l] : max;
    expect("half-warp max", h, out.max16[h], max);
  }
  CHECK_CUDA(cudaFree(d_in));
  CHECK_CUDA(cudaFree(d_out));
  std::printf("warp_reduce: %s\n", failures ? "FAIL" : "PASS");
  return failures ? 1 : 0;
}
