/*@barracuda
{
  "what": "the host reads registered memory a kernel writes before the event after the kernel completes",
  "arch": 75,
  "expect": {
    "its": {
      "verdict": "race",
      "races": [],
      "stream_order_races": [
        {
          "lines": [
            42,
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
            42,
            56
          ]
        }
      ]
    }
  }
}
@*/
// Seeded bug; twin: host_reads_registered_before_event_ok.cu. Page-aligned host
// memory registered with cudaHostRegister (mapped): a kernel on a stream writes
// it through the device alias and the host reads the results without
// synchronising first (an event recorded after the kernel and synchronised
// orders them).
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

__global__ void Square(int* data) { data[threadIdx.x] = threadIdx.x * threadIdx.x; }

int main() {
  int* data = static_cast<int*>(std::aligned_alloc(4096, 4096));  // pages of its own
  int* data_dev = nullptr;
  if (cudaHostRegister(data, 64 * sizeof(int), cudaHostRegisterMapped) != cudaSuccess) return 2;
  if (cudaHostGetDevicePointer(&data_dev, data, 0) != cudaSuccess) return 2;
  cudaStream_t s;
  cudaEvent_t done;
  cudaStreamCreate(&s);
  cudaEventCreate(&done);
  Square<<<1, 64, 0, s>>>(data_dev);
  cudaEventRecord(done, s);
  long sum = 0;
  for (int i = 0; i < 64; ++i) sum += data[i];
  cudaStreamSynchronize(s);
  std::printf("sum %ld\n", sum);
  std::printf(sum == 85344 ? "PASS\n" : "FAIL\n");
  std::printf("done\n");
  cudaHostUnregister(data);
  std::free(data);
  return 0;
}
