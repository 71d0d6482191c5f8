/*@barracuda
{
  "what": "the host reads registered memory after cudaEventSynchronize of an event recorded after the kernel",
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
// Race-free twin of host_reads_registered_before_event_racy.cu. Page-aligned
// host memory registered with cudaHostRegister (mapped): a kernel on a stream
// writes it through the device alias and the host reads the results after
// synchronising (an event recorded after the kernel and synchronised orders
// them).
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
  cudaEventSynchronize(done);
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
