/*@barracuda
{
  "what": "two host threads launch on their per-thread default streams; the first synchronises with its stream before the second starts",
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
// Race-free twin of per_thread_default_streams_racy.cu: the first thread
// synchronises with its per-thread default stream before the second thread
// starts.
#include <cstdio>
#include <thread>
#include <cuda_runtime.h>

__global__ void Fill(int* buf, int v) { buf[threadIdx.x] = v; }

int main() {
  int* buf = nullptr;
  if (cudaMalloc(&buf, 256 * sizeof(int)) != cudaSuccess) return 2;
  cudaMemset(buf, 0, 256 * sizeof(int));
  cudaDeviceSynchronize();
  // The first thread waits for its per-thread default stream before the
  // second thread starts.
  std::thread t1([&] {
    Fill<<<1, 256, 0, cudaStreamPerThread>>>(buf, 1);
    cudaStreamSynchronize(cudaStreamPerThread);
  });
  t1.join();
  std::thread t2([&] { Fill<<<1, 256, 0, cudaStreamPerThread>>>(buf, 2); });
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
