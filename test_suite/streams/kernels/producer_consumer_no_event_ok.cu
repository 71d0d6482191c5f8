/*@barracuda
{
  "what": "the consumer stream waits for the producer stream's event",
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
// Twin: producer_consumer_no_event_racy.cu, with the event that orders the
// consumer's stream after the producer.
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
  cudaEvent_t filled;
  cudaEventCreateWithFlags(&filled, cudaEventDisableTiming);
  Produce<<<2, 128, 0, producer>>>(buf);
  cudaEventRecord(filled, producer);
  cudaStreamWaitEvent(consumer, filled, 0);
  Consume<<<2, 128, 0, consumer>>>(buf, sum);
  if (cudaDeviceSynchronize() != cudaSuccess) return 2;
  int got = 0;
  cudaMemcpy(&got, sum, sizeof got, cudaMemcpyDeviceToHost);
  if (got != 2 * (128 * 129 / 2)) {
    std::printf("FAIL: %d\n", got);
    return 1;
  }
  std::printf("PASS\n");
  return 0;
}
