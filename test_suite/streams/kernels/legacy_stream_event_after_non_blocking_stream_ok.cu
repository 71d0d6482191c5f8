/*@barracuda
{
  "what": "an event recorded on the legacy default stream after a copy on a blocking stream orders the copy before the host",
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
// Race-free twin of legacy_stream_event_after_non_blocking_stream_racy.cu (the
// CUDA samples' simpleStreams ending): the copy's stream is a blocking one,
// so the event recorded on the legacy default stream waits for the copy, and
// cudaEventSynchronize orders it before the host's reads.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void Fill(int* out) { out[threadIdx.x] = 3 * threadIdx.x; }

int main() {
  int *out = nullptr, *host = nullptr;
  if (cudaMalloc(&out, 64 * sizeof(int)) != cudaSuccess || cudaMallocHost(&host, 64 * sizeof(int)) != cudaSuccess)
    return 2;
  cudaStream_t s;
  cudaStreamCreateWithFlags(&s, cudaStreamDefault);
  cudaEvent_t stop;
  cudaEventCreate(&stop);
  Fill<<<1, 64, 0, s>>>(out);
  cudaMemcpyAsync(host, out, 64 * sizeof(int), cudaMemcpyDeviceToHost, s);
  cudaEventRecord(stop, 0);  // on the legacy default stream
  cudaEventSynchronize(stop);
  long sum = 0;
  for (int i = 0; i < 64; ++i) sum += host[i];
  std::printf(sum == 6048 ? "PASS\n" : "FAIL\n");
  std::printf("done\n");
  cudaFreeHost(host);
  cudaFree(out);
  return 0;
}
