/*@barracuda
{
  "what": "the host writes a __managed__ variable a kernel updates before synchronising with the kernel",
  "arch": 75,
  "expect": {
    "its": {
      "verdict": "race",
      "races": [],
      "stream_order_races": [
        {
          "lines": [
            41,
            45
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
            41,
            45
          ]
        }
      ]
    }
  }
}
@*/
// Seeded bug; twin: host_writes_managed_variable_ok.cu. A __managed__ array
// counted by a kernel on the legacy stream; the host resets one counter before
// cudaDeviceSynchronize: until then the kernel may still be incrementing it.
#include <cstdio>
#include <cuda_runtime.h>

__managed__ int counters[64];

__global__ void Count() { counters[threadIdx.x] += 1; }

int main() {
  Count<<<1, 64>>>();
  counters[0] = 10;
  Count<<<1, 64>>>();
  cudaDeviceSynchronize();
  std::printf("%d %d\n", counters[0], counters[1]);
  std::printf(counters[0] == 11 && counters[1] == 2 ? "PASS\n" : "FAIL\n");
  std::printf("done\n");
  return 0;
}
