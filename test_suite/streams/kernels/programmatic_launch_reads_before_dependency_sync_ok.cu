/*@barracuda
{
  "what": "a programmatic dependent launch reads the previous kernel's output after cudaGridDependencySynchronize",
  "arch": 90,
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
// Race-free twin of programmatic_launch_reads_before_dependency_sync_racy.cu.
// Produce and Consume run on one stream, Consume launched with programmatic
// stream serialisation (programmatic dependent launch, sm_90): it may start
// once every block of Produce has called
// cudaTriggerProgrammaticLaunchCompletion, and only
// cudaGridDependencySynchronize (griddepcontrol.wait) waits for Produce to
// complete and its memory to be visible. Consume reads only its own input
// before that wait and Produce's output after it.
#include <cstdio>
#include <cuda_runtime.h>

constexpr int kBlocks = 4, kThreads = 64, kN = kBlocks * kThreads;

__global__ void Produce(int* data) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  cudaTriggerProgrammaticLaunchCompletion();  // lets Consume start early
  data[i] = 2 * i + 1;
}

__global__ void Consume(const int* data, const int* weights, int* out) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int w = weights[i];  // independent of Produce: fine before the wait
  cudaGridDependencySynchronize();
  const int v = data[kN - 1 - i];  // after the wait: Produce has completed
  out[i] = v * w;
}

int main() {
  int *data, *weights, *out;
  if (cudaMalloc(&data, kN * sizeof(int)) != cudaSuccess || cudaMalloc(&weights, kN * sizeof(int)) != cudaSuccess ||
      cudaMalloc(&out, kN * sizeof(int)) != cudaSuccess)
    return 2;
  int host[kN];
  for (int i = 0; i < kN; ++i) host[i] = 3;
  cudaMemcpy(weights, host, sizeof host, cudaMemcpyHostToDevice);
  cudaStream_t s;
  cudaStreamCreate(&s);
  Produce<<<kBlocks, kThreads, 0, s>>>(data);
  cudaLaunchConfig_t config = {};
  config.gridDim = kBlocks;
  config.blockDim = kThreads;
  config.stream = s;
  cudaLaunchAttribute attribute;
  attribute.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attribute.val.programmaticStreamSerializationAllowed = 1;
  config.attrs = &attribute;
  config.numAttrs = 1;
  if (cudaLaunchKernelEx(&config, Consume, (const int*)data, (const int*)weights, out) != cudaSuccess) return 3;
  cudaMemcpyAsync(host, out, sizeof host, cudaMemcpyDeviceToHost, s);
  cudaStreamSynchronize(s);
  bool ok = true;
  for (int i = 0; i < kN; ++i) ok = ok && host[i] == 3 * (2 * (kN - 1 - i) + 1);
  std::printf(ok ? "PASS\n" : "FAIL\n");
  std::printf("done\n");
  cudaFree(data);
  cudaFree(weights);
  cudaFree(out);
  return 0;
}
