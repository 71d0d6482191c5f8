/*@barracuda
{
  "what": "two host threads each launch a kernel on its own stream, both writing one buffer, with nothing ordering the streams",
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
// Seeded bug; twin: two_host_threads_one_buffer_ok.cu. Two host threads
// launch, at the same time, kernels on two non-blocking streams that write
// the same buffer: nothing orders the streams, so on a GPU the kernels may
// run at once. (The emulator runs one launch at a time, in either order.)
#include <cstdio>
#include <thread>
#include <cuda_runtime.h>

__global__ void Fill(int* buf, int v) { buf[threadIdx.x] = v; }  // both sides of the race

int main() {
  int* buf = nullptr;
  if (cudaMalloc(&buf, 256 * sizeof(int)) != cudaSuccess) return 2;
  cudaMemset(buf, 0, 256 * sizeof(int));
  cudaDeviceSynchronize();
  cudaStream_t a, b;
  cudaStreamCreateWithFlags(&a, cudaStreamNonBlocking);
  cudaStreamCreateWithFlags(&b, cudaStreamNonBlocking);
  // Each host thread launches on its own stream, at the same time.
  std::thread t1([&] { Fill<<<1, 256, 0, a>>>(buf, 1); });
  std::thread t2([&] { Fill<<<1, 256, 0, b>>>(buf, 2); });
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
