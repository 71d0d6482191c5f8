/*@barracuda
{
  "what": "the host waits for a flag that a host function on another stream sets, then reads what a copy on the first stream writes",
  "arch": 75,
  "expect": {
    "its": {
      "verdict": "race",
      "races": [],
      "stream_order_races": [
        {
          "lines": [
            55,
            60
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
            55,
            60
          ]
        }
      ]
    }
  }
}
@*/
// Seeded bug; twin: host_waits_for_callback_on_other_stream_ok.cu. The host
// enqueues a device-to-host copy on stream s, and a host function that sets
// a flag on stream t, waits for the flag and reads the copy's destination:
// the host function runs whenever t gets to it, not after the copy, so the
// flag says nothing about the copy.
#include <atomic>
#include <cstdio>
#include <cuda_runtime.h>

__global__ void Fill(int* out) { out[threadIdx.x] = 3 * threadIdx.x; }

std::atomic<bool> ready{false};
void CUDART_CB Notify(void*) { ready.store(true, std::memory_order_release); }

int main() {
  int *out = nullptr, *host = nullptr;
  if (cudaMalloc(&out, 64 * sizeof(int)) != cudaSuccess || cudaMallocHost(&host, 64 * sizeof(int)) != cudaSuccess)
    return 2;
  cudaStream_t s, t;
  cudaStreamCreate(&s);
  cudaStreamCreateWithFlags(&t, cudaStreamNonBlocking);
  Fill<<<1, 64, 0, s>>>(out);
  cudaMemcpyAsync(host, out, 64 * sizeof(int), cudaMemcpyDeviceToHost, s);  // the race's first side
  cudaLaunchHostFunc(t, Notify, nullptr);  // on the wrong stream
  while (!ready.load(std::memory_order_acquire)) {
  }
  long sum = 0;
  for (int i = 0; i < 64; ++i) sum += host[i];  // its second side
  std::printf(sum == 6048 ? "PASS\n" : "FAIL\n");
  std::printf("done\n");
  cudaDeviceSynchronize();
  cudaFreeHost(host);
  cudaFree(out);
  return 0;
}
