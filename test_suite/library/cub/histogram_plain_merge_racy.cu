/*@barracuda
{
  "what": "per-block cub::BlockHistogram into shared bins, then each block merges its bins into the global histogram with a plain += instead of atomicAdd: inter-block RAW and WAW on the merge line",
  "arch": 75,
  "expect": {
    "its": {"verdict": "race", "races": [
      {"kind": "RAW", "space": "global", "class": "inter-block", "lines": [36, 36]},
      {"kind": "WAW", "space": "global", "class": "inter-block", "lines": [36, 36]}
    ]},
    "lockstep": {"verdict": "race", "races": [
      {"kind": "RAW", "space": "global", "class": "inter-block", "lines": [36, 36]},
      {"kind": "WAW", "space": "global", "class": "inter-block", "lines": [36, 36]}
    ]}
  }
}
@*/
// 4 blocks x 128 threads x 4 samples; the block histogram (BLOCK_HISTO_ATOMIC: shared
// atomics) is correct and followed by __syncthreads; thread b of every block then does
// hist[b] += bins[b] with a plain load and store, racing with thread b of the others.
#include <cub/cub.cuh>
#include <cstdio>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("CUDA error: %s (%s:%d)\n", cudaGetErrorString(e_), __FILE__, __LINE__); return 2; } } while (0)

constexpr int kBins = 16;
using Hist = cub::BlockHistogram<unsigned char, 128, 4, kBins, cub::BLOCK_HISTO_ATOMIC>;

__global__ void Histogram(const unsigned char *in, unsigned *hist) {
  __shared__ typename Hist::TempStorage temp;
  __shared__ unsigned bins[kBins];
  unsigned char samples[4];
  cub::LoadDirectBlocked(threadIdx.x, in + blockIdx.x * 512, samples);
  Hist(temp).Histogram(samples, bins);
  __syncthreads();
  if (threadIdx.x < kBins)
    hist[threadIdx.x] += bins[threadIdx.x];  // BUG: should be atomicAdd
}

int main() {
  unsigned char h[2048];
  for (int i = 0; i < 2048; ++i) h[i] = (i * 37 + i / 7) % kBins;
  unsigned char *d_in;
  unsigned *d_hist, got[kBins];
  CK(cudaMalloc(&d_in, sizeof(h)));
  CK(cudaMalloc(&d_hist, sizeof(got)));
  CK(cudaMemcpy(d_in, h, sizeof(h), cudaMemcpyHostToDevice));
  CK(cudaMemset(d_hist, 0, sizeof(got)));
  Histogram<<<4, 128>>>(d_in, d_hist);
  CK(cudaGetLastError());
  CK(cudaMemcpy(got, d_hist, sizeof(got), cudaMemcpyDeviceToHost));
  unsigned total = 0;
  for (unsigned x : got) total += x;
  std::printf("histogram total %u (want 2048)\n", total);
  return 0;
}
