/*@barracuda
{
  "what": "an event recorded on the legacy default stream after a copy on a non-blocking stream, synchronised, then the copy's destination read",
  "arch": 75,
  "expect": {
    "its": {
      "verdict": "race",
      "races": [],
      "stream_order_races": [
        {
          "lines": [
            52,
            56
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
            52,
            56
          ]
        }
      ]
    }
  }
}
@*/
// Seeded bug; twin: legacy_stream_event_after_non_blocking_stream_ok.cu. A
// kernel and a device-to-host copy run on a cudaStreamNonBlocking stream; the
// host records an event on the legacy default stream, synchronises with it
// and reads the copy's destination: the legacy stream does not wait for
// non-blocking streams, so the event says nothing about the copy.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void Fill(int* out) { out[threadIdx.x] = 3 * threadIdx.x; }

int main() {
  int *out = nullptr, *host = nullptr;
  if (cudaMalloc(&out, 64 * sizeof(int)) != cudaSuccess || cudaMallocHost(&host, 64 * sizeof(int)) != cudaSuccess)
    return 2;
  cudaStream_t s;
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  cudaEvent_t stop;
  cudaEventCreate(&stop);
  Fill<<<1, 64, 0, s>>>(out);
  cudaMemcpyAsync(host, out, 64 * sizeof(int), cudaMemcpyDeviceToHost, s);  // the race's first side
  cudaEventRecord(stop, 0);  // on the legacy default stream
  cudaEventSynchronize(stop);
  long sum = 0;
  for (int i = 0; i < 64; ++i) sum += host[i];  // its second side
  std::printf(sum == 6048 ? "PASS\n" : "FAIL\n");
  std::printf("done\n");
  cudaFreeHost(host);
  cudaFree(out);
  return 0;
}
