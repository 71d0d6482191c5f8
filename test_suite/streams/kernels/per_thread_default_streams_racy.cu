/*@barracuda
{
  "what": "two host threads each launch a kernel on its per-thread default stream, both writing one buffer",
  "arch": 75,
  "expect": {
    "its": {
      "verdict": "race",
      "races": [],
      "stream_order_races": [
        {
          "lines": [
            41,
            41
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
            41,
            41
          ]
        }
      ]
    }
  }
}
@*/
// Seeded bug; twin: per_thread_default_streams_ok.cu. Two host threads launch
// kernels writing the same buffer on their per-thread default streams
// (cudaStreamPerThread) and the program creates no stream: per-thread
// default streams are not ordered with each other.
#include <cstdio>
#include <thread>
#include <cuda_runtime.h>

__global__ void Fill(int* buf, int v) { buf[threadIdx.x] = v; }  // both sides of the race

int main() {
  int* buf = nullptr;
  if (cudaMalloc(&buf, 256 * sizeof(int)) != cudaSuccess) return 2;
  cudaMemset(buf, 0, 256 * sizeof(int));
  cudaDeviceSynchronize();
  // Each host thread launches on its per-thread default stream (what
  // nvcc --default-stream per-thread makes of stream 0): two streams that
  // only the legacy default stream would order.
  std::thread t1([&] { Fill<<<1, 256, 0, cudaStreamPerThread>>>(buf, 1); });
  std::thread t2([&] { Fill<<<1, 256, 0, cudaStreamPerThread>>>(buf, 2); });
  t1.join();
  t2.join();
  cudaDeviceSynchronize();
  int h[256];
  cudaMemcpy(h, buf, sizeof h, cudaMemcpyDeviceToHost);
  bool ok = true;
  for (int i = 0; i < 256; ++i) ok = ok && h[i] == h[0] && (h[0] == 1 || h[0] == 2);
  std::printf(ok ? "PASS\n" : "FAIL\n");
  std::printf("done\n");
  cudaFree(buf);
  return 0;
}
