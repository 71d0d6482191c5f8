/*@barracuda
{
  "what": "a host function sums a pinned buffer a kernel on another stream fills, after cudaStreamWaitEvent",
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
// Race-free twin of host_function_reads_other_streams_output_racy.cu: the
// host function's stream waits for an event recorded after the kernel that
// fills the page-locked buffer it sums.
#include <cstdio>
#include <cuda_runtime.h>

struct Job {
  const int* data;
  long sum;
};

__global__ void Fill(int* data) { data[threadIdx.x] = 2 * threadIdx.x; }

void CUDART_CB Sum(void* p) {
  Job* job = static_cast<Job*>(p);
  for (int i = 0; i < 64; ++i) job->sum += job->data[i];
}

int main() {
  int* data = nullptr;
  if (cudaMallocHost(&data, 64 * sizeof(int)) != cudaSuccess) return 2;
  cudaStream_t a, b;
  cudaStreamCreate(&a);
  cudaStreamCreate(&b);
  Job job{data, 0};
  Fill<<<1, 64, 0, a>>>(data);
  cudaEvent_t filled;
  cudaEventCreate(&filled);
  cudaEventRecord(filled, a);
  cudaStreamWaitEvent(b, filled, 0);  // the host function waits for the kernel
  cudaLaunchHostFunc(b, Sum, &job);
  cudaDeviceSynchronize();
  std::printf("sum %ld\n", job.sum);
  std::printf(job.sum == 4032 ? "PASS\n" : "FAIL\n");
  std::printf("done\n");
  cudaFreeHost(data);
  return 0;
}
