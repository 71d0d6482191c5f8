// Runtime program (a): streams, events, managed memory, __constant__ and
// __device__ variables through cudaMemcpyToSymbol / FromSymbol and
// cudaGetSymbolAddress. Checks its own results; prints PASS.
#include <cstdio>
#include <cstdlib>

#define CHECK(call)                                                                     \
  do {                                                                                  \
    cudaError_t e_ = (call);                                                            \
    if (e_ != cudaSuccess) {                                                            \
      std::printf("FAIL: %s: %s (%s:%d)\n", #call, cudaGetErrorString(e_), __FILE__, __LINE__); \
      std::exit(1);                                                                     \
    }                                                                                   \
  } while (0)

__constant__ float scale[4];
__device__ int total;
__device__ int offsets[8] = {0, 1, 2, 3, 4, 5, 6, 7};
__managed__ int launches = 0;

__global__ void scale_add(const float* in, float* out, int n, int which) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    out[i] = in[i] * scale[which] + offsets[i % 8];
    atomicAdd(&total, 1);
  }
  if (i == 0) atomicAdd(&launches, 1);  // two streams run this kernel at once (a stream-order race as += 1)
}

__global__ void count_up(int* counter) { atomicAdd(counter, 1); }

int main() {
  const int n = 1000;
  const float h_scale[4] = {1.0f, 2.0f, 0.5f, -1.0f};
  CHECK(cudaMemcpyToSymbol(scale, h_scale, sizeof(h_scale)));
  float readback[4] = {};
  CHECK(cudaMemcpyFromSymbol(readback, scale, sizeof(readback)));
  for (int k = 0; k < 4; ++k)
    if (readback[k] != h_scale[k]) { std::printf("FAIL: constant readback %d\n", k); return 1; }

  float *in = nullptr, *out[2] = {};
  CHECK(cudaMallocManaged(&in, n * sizeof(float)));
  for (int i = 0; i < n; ++i) in[i] = static_cast<float>(i);
  cudaStream_t streams[2];
  cudaEvent_t start, stop;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));
  for (int s = 0; s < 2; ++s) {
    CHECK(cudaStreamCreateWithFlags(&streams[s], cudaStreamNonBlocking));
    CHECK(cudaMalloc(&out[s], n * sizeof(float)));
  }
  CHECK(cudaEventRecord(start, streams[0]));
  for (int s = 0; s < 2; ++s) {
    scale_add<<<(n + 127) / 128, 128, 0, streams[s]>>>(in, out[s], n, s + 1);
    CHECK(cudaGetLastError());
  }
  CHECK(cudaEventRecord(stop, streams[1]));
  CHECK(cudaStreamWaitEvent(streams[0], stop, 0));
  CHECK(cudaEventSynchronize(stop));
  float ms = -1;
  CHECK(cudaEventElapsedTime(&ms, start, stop));
  if (ms < 0) { std::printf("FAIL: elapsed time %f\n", ms); return 1; }

  float* host = static_cast<float*>(std::malloc(n * sizeof(float)));
  for (int s = 0; s < 2; ++s) {
    CHECK(cudaMemcpyAsync(host, out[s], n * sizeof(float), cudaMemcpyDeviceToHost, streams[s]));
    CHECK(cudaStreamSynchronize(streams[s]));
    for (int i = 0; i < n; ++i) {
      const float want = i * h_scale[s + 1] + (i % 8);
      if (host[i] != want) { std::printf("FAIL: stream %d out[%d] = %f, want %f\n", s, i, host[i], want); return 1; }
    }
  }
  int h_total = 0;
  CHECK(cudaMemcpyFromSymbol(&h_total, total, sizeof(int)));
  if (h_total != 2 * n) { std::printf("FAIL: total = %d, want %d\n", h_total, 2 * n); return 1; }
  if (launches != 2) { std::printf("FAIL: managed launches = %d, want 2\n", launches); return 1; }

  // A kernel argument that is a module variable's device address.
  int* d_total = nullptr;
  CHECK(cudaGetSymbolAddress(reinterpret_cast<void**>(&d_total), total));
  count_up<<<4, 64>>>(d_total);
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaMemcpyFromSymbol(&h_total, total, sizeof(int)));
  if (h_total != 2 * n + 256) { std::printf("FAIL: total after count_up = %d\n", h_total); return 1; }
  size_t size = 0;
  CHECK(cudaGetSymbolSize(&size, offsets));
  if (size != sizeof(int) * 8) { std::printf("FAIL: symbol size %zu\n", size); return 1; }

  // Occupancy through the header template (cudaFuncGetAttributes, device
  // attributes, cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags).
  int min_grid = 0, block = 0;
  CHECK(cudaOccupancyMaxPotentialBlockSize(&min_grid, &block, scale_add, 0, 0));
  if (block <= 0 || block > 1024 || block % 32 != 0 || min_grid <= 0) {
    std::printf("FAIL: cudaOccupancyMaxPotentialBlockSize gave grid %d block %d\n", min_grid, block);
    return 1;
  }
  cudaFuncAttributes attr;
  CHECK(cudaFuncGetAttributes(&attr, scale_add));
  if (attr.maxThreadsPerBlock != 1024 || attr.ptxVersion != 75) {
    std::printf("FAIL: attributes: maxThreadsPerBlock %d ptxVersion %d\n", attr.maxThreadsPerBlock, attr.ptxVersion);
    return 1;
  }

  for (int s = 0; s < 2; ++s) {
    CHECK(cudaStreamDestroy(streams[s]));
    CHECK(cudaFree(out[s]));
  }
  CHECK(cudaEventDestroy(start));
  CHECK(cudaEventDestroy(stop));
  CHECK(cudaFree(in));
  std::free(host);
  std::printf("PASS\n");
  return 0;
}
