/*@barracuda
{
  "what": "a host function on one stream fills a pinned buffer that a kernel launched later on another stream reads, with no event between them",
  "arch": 75,
  "expect": {
    "its": {
      "verdict": "race",
      "races": [],
      "stream_order_races": [
        {
          "lines": [
            43,
            46
          ]
        }
      ]
    },
    "lockstep": {
      "verdict": "race",
      "races": [],
      "stream_order_races": [
        {
          "lines": [
            43,
            46
          ]
        }
      ]
    }
  }
}
@*/
// Seeded bug; twin: host_function_fills_input_of_other_stream_ok.cu. A host
// function enqueued on stream a fills a page-locked input buffer, and a
// kernel launched afterwards on stream b reads it: the launch comes later in
// the program, but nothing orders stream b after stream a, so on a GPU the
// kernel may run before or while the host function writes.
#include <cstdio>
#include <cuda_runtime.h>

void CUDART_CB Prepare(void* p) {
  int* in = static_cast<int*>(p);
  for (int i = 0; i < 64; ++i) in[i] = i;  // the race's first side
}

__global__ void Square(const int* in, int* out) { out[threadIdx.x] = in[threadIdx.x] * in[threadIdx.x]; }  // its second side

int main() {
  int *in = nullptr, *out = nullptr;
  if (cudaMallocHost(&in, 64 * sizeof(int)) != cudaSuccess || cudaMalloc(&out, 64 * sizeof(int)) != cudaSuccess)
    return 2;
  cudaStream_t a, b;
  cudaStreamCreate(&a);
  cudaStreamCreate(&b);
  cudaLaunchHostFunc(a, Prepare, in);
  Square<<<1, 64, 0, b>>>(in, out);
  int result[64];
  cudaMemcpy(result, out, sizeof result, cudaMemcpyDeviceToHost);
  bool ok = true;
  for (int i = 0; i < 64; ++i) ok = ok && result[i] == i * i;
  std::printf(ok ? "PASS\n" : "FAIL\n");
  std::printf("done\n");
  cudaFreeHost(in);
  cudaFree(out);
  return 0;
}
