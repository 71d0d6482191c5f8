/*@barracuda
{
  "what": "the host writes a __managed__ variable after cudaDeviceSynchronize",
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
// Race-free twin of host_writes_managed_variable_racy.cu. A __managed__ array
// counted by a kernel on the legacy stream; the host resets one counter after
// cudaDeviceSynchronize: until then the kernel may still be incrementing it.
#include <cstdio>
#include <cuda_runtime.h>

__managed__ int counters[64];

__global__ void Count() { counters[threadIdx.x] += 1; }

int main() {
  Count<<<1, 64>>>();
  cudaDeviceSynchronize();
  counters[0] = 10;
  Count<<<1, 64>>>();
  cudaDeviceSynchronize();
  std::printf("%d %d\n", counters[0], counters[1]);
  std::printf(counters[0] == 11 && counters[1] == 2 ? "PASS\n" : "FAIL\n");
  std::printf("done\n");
  return 0;
}
