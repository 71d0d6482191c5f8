/*@barracuda
{
  "what": "a producer kernel and a consumer kernel on two streams with no event between them",
  "arch": 75,
  "expect": {
    "its": {
      "verdict": "race",
      "races": [],
      "stream_order_races": [
        {
          "lines": [
            40,
            42
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
            40,
            42
          ]
        }
      ]
    }
  }
}
@*/
// Twin: producer_consumer_no_event_ok.cu. A producer kernel on one stream
// fills a buffer that a consumer kernel on another stream reads; nothing
// orders the two streams (the cudaEventRecord / cudaStreamWaitEvent pair is
// missing), so on a GPU the consumer may run before or during the producer.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void Produce(int* buf) { buf[blockIdx.x * blockDim.x + threadIdx.x] = threadIdx.x + 1; }

__global__ void Consume(const int* buf, int* sum) { atomicAdd(sum, buf[blockIdx.x * blockDim.x + threadIdx.x]); }

int main() {
  int *buf = nullptr, *sum = nullptr;
  if (cudaMalloc(&buf, 256 * sizeof(int)) != cudaSuccess || cudaMalloc(&sum, sizeof(int)) != cudaSuccess) return 2;
  cudaMemset(sum, 0, sizeof(int));
  cudaStream_t producer, consumer;
  cudaStreamCreate(&producer);
  cudaStreamCreate(&consumer);
  Produce<<<2, 128, 0, producer>>>(buf);
  Consume<<<2, 128, 0, consumer>>>(buf, sum);
  cudaDeviceSynchronize();
  std::printf("done\n");
  return 0;
}
