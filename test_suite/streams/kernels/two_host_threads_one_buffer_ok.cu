/*@barracuda
{
  "what": "two host threads each launch a kernel writing one buffer; the second one's stream waits for an event recorded after the first",
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
// Race-free twin of two_host_threads_one_buffer_racy.cu: the second thread's
// stream waits for an event the first thread recorded after its kernel.
#include <cstdio>
#include <thread>
#include <cuda_runtime.h>

__global__ void Fill(int* buf, int v) { buf[threadIdx.x] = v; }

int main() {
  int* buf = nullptr;
  if (cudaMalloc(&buf, 256 * sizeof(int)) != cudaSuccess) return 2;
  cudaMemset(buf, 0, 256 * sizeof(int));
  cudaDeviceSynchronize();
  cudaStream_t a, b;
  cudaStreamCreateWithFlags(&a, cudaStreamNonBlocking);
  cudaStreamCreateWithFlags(&b, cudaStreamNonBlocking);
  cudaEvent_t first;
  cudaEventCreate(&first);
  // The second thread starts after the first recorded its event, and its
  // stream waits for the event before its kernel.
  std::thread t1([&] {
    Fill<<<1, 256, 0, a>>>(buf, 1);
    cudaEventRecord(first, a);
  });
  t1.join();
  std::thread t2([&] {
    cudaStreamWaitEvent(b, first, 0);
    Fill<<<1, 256, 0, b>>>(buf, 2);
  });
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
