/*@barracuda
{
  "what": "the host waits for a flag that a host function on the copy's stream sets, then reads the copy's destination",
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
// Race-free twin of host_waits_for_callback_on_other_stream_racy.cu (the CUDA
// samples' simpleCallback pattern): the host function that sets the flag is
// enqueued on the copy's stream, so it runs after the copy, and the host
// reads the destination only after seeing the flag.
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
  cudaMemcpyAsync(host, out, 64 * sizeof(int), cudaMemcpyDeviceToHost, s);
  cudaLaunchHostFunc(s, Notify, nullptr);
  while (!ready.load(std::memory_order_acquire)) {
  }
  long sum = 0;
  for (int i = 0; i < 64; ++i) sum += host[i];
  std::printf(sum == 6048 ? "PASS\n" : "FAIL\n");
  std::printf("done\n");
  cudaDeviceSynchronize();
  cudaFreeHost(host);
  cudaFree(out);
  return 0;
}
