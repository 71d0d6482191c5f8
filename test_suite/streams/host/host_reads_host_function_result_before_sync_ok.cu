/*@barracuda
{
  "what": "the host reads what a host function writes after cudaStreamSynchronize",
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
// Race-free twin of host_reads_host_function_result_before_sync_racy.cu: the
// host synchronises with the stream before reading the word the host function
// wrote.
#include <cstdio>
#include <cuda_runtime.h>

void CUDART_CB Publish(void* p) { static_cast<int*>(p)[0] = 42; }

int main() {
  int* result = nullptr;
  if (cudaHostAlloc(&result, sizeof(int), cudaHostAllocMapped) != cudaSuccess) return 2;
  result[0] = 0;
  cudaStream_t s;
  cudaStreamCreate(&s);
  cudaLaunchHostFunc(s, Publish, result);
  cudaStreamSynchronize(s);
  const int seen = result[0];
  cudaDeviceSynchronize();
  std::printf("seen %d\n", seen);
  std::printf(seen == 42 ? "PASS\n" : "FAIL\n");
  std::printf("done\n");
  cudaFreeHost(result);
  return 0;
}
