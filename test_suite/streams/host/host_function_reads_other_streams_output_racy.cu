/*@barracuda
{
  "what": "a host function on one stream sums a pinned buffer a kernel on another stream fills, with no event between them",
  "arch": 75,
  "expect": {
    "its": {
      "verdict": "race",
      "races": [],
      "stream_order_races": [
        {
          "lines": [
            45,
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
            45,
            49
          ]
        }
      ]
    }
  }
}
@*/
// Seeded bug; twin: host_function_reads_other_streams_output_ok.cu. A kernel
// on stream a fills a page-locked buffer and a host function enqueued on
// stream b (cudaLaunchHostFunc) sums it: nothing orders stream b after stream
// a, so on a GPU the host function may run while the kernel still writes.
#include <cstdio>
#include <cuda_runtime.h>

struct Job {
  const int* data;
  long sum;
};

__global__ void Fill(int* data) { data[threadIdx.x] = 2 * threadIdx.x; }  // the race's first side

void CUDART_CB Sum(void* p) {
  Job* job = static_cast<Job*>(p);
  for (int i = 0; i < 64; ++i) job->sum += job->data[i];  // its second side
}

int main() {
  int* data = nullptr;
  if (cudaMallocHost(&data, 64 * sizeof(int)) != cudaSuccess) return 2;
  cudaStream_t a, b;
  cudaStreamCreate(&a);
  cudaStreamCreate(&b);
  Job job{data, 0};
  Fill<<<1, 64, 0, a>>>(data);
  cudaLaunchHostFunc(b, Sum, &job);
  cudaDeviceSynchronize();
  std::printf("sum %ld\n", job.sum);
  std::printf(job.sum == 4032 ? "PASS\n" : "FAIL\n");
  std::printf("done\n");
  cudaFreeHost(data);
  return 0;
}
