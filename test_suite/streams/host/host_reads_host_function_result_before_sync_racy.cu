/*@barracuda
{
  "what": "the host reads what a host function it enqueued writes, before synchronising with the function's stream",
  "arch": 75,
  "expect": {
    "its": {
      "verdict": "race",
      "races": [],
      "stream_order_races": [
        {
          "lines": [
            40,
            49
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
            49
          ]
        }
      ]
    }
  }
}
@*/
// Seeded bug; twin: host_reads_host_function_result_before_sync_ok.cu. The
// host enqueues a host function that writes a page-locked word and reads the
// word at once: cudaLaunchHostFunc returns before the function has run (it
// runs when its stream gets to it), so the host may read the old value.
#include <cstdio>
#include <cuda_runtime.h>

void CUDART_CB Publish(void* p) { static_cast<int*>(p)[0] = 42; }  // the race's first side

int main() {
  int* result = nullptr;
  if (cudaHostAlloc(&result, sizeof(int), cudaHostAllocMapped) != cudaSuccess) return 2;
  result[0] = 0;
  cudaStream_t s;
  cudaStreamCreate(&s);
  cudaLaunchHostFunc(s, Publish, result);
  const int seen = result[0];  // its second side
  cudaDeviceSynchronize();
  std::printf("seen %d\n", seen);
  std::printf(seen == 42 ? "PASS\n" : "FAIL\n");
  std::printf("done\n");
  cudaFreeHost(result);
  return 0;
}
