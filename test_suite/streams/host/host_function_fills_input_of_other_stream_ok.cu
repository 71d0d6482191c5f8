/*@barracuda
{
  "what": "a host function fills a pinned buffer that a kernel on another stream reads after cudaStreamWaitEvent",
  "arch": 75,
  "expect": {
    "its": {
      "verdict": "no-race",
      "races": []
    },
    "lockstep": {
      "verdict": "no-race",
      "races": []
    }
  }
}
@*/
// Race-free twin of host_function_fills_input_of_other_stream_racy.cu: the
// kernel's stream waits for an event recorded after the host function.
#include <cstdio>
#include <cuda_runtime.h>

void CUDART_CB Prepare(void* p) {
  int* in = static_cast<int*>(p);
  for (int i = 0; i < 64; ++i) in[i] = i;
}

__global__ void Square(const int* in, int* out) { out[threadIdx.x] = in[threadIdx.x] * in[threadIdx.x]; }

int main() {
  int *in = nullptr, *out = nullptr;
  if (cudaMallocHost(&in, 64 * sizeof(int)) != cudaSuccess || cudaMalloc(&out, 64 * sizeof(int)) != cudaSuccess)
    return 2;
  cudaStream_t a, b;
  cudaStreamCreate(&a);
  cudaStreamCreate(&b);
  cudaLaunchHostFunc(a, Prepare, in);
  cudaEvent_t ready;
  cudaEventCreate(&ready);
  cudaEventRecord(ready, a);
  cudaStreamWaitEvent(b, ready, 0);  // the kernel waits for the host function
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
