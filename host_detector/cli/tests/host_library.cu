// A program that calls a CUDA host library (cuRAND's host API) which carries
// its own copy of NVIDIA's CUDA runtime: on the emulator the library's calls
// fail and nothing it launches runs, so barracuda must call the analysis
// incomplete (exit 118), never "0 races" about kernels it never saw. The
// program's own kernel still runs and is analysed.
#include <cstdio>
#include <curand.h>

__global__ void Scale(float* v, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) v[i] = 2.0f * static_cast<float>(i);
}

int main() {
  const int n = 256;
  float* v = nullptr;
  cudaMalloc(&v, n * sizeof(float));
  Scale<<<2, 128>>>(v, n);
  float h[2] = {0, 0};
  cudaMemcpy(h, v + 1, sizeof h, cudaMemcpyDeviceToHost);
  std::printf("own kernel: %s\n", h[0] == 2.0f && h[1] == 4.0f ? "ok" : "wrong");
  curandGenerator_t gen;
  const curandStatus_t s = curandCreateGenerator(&gen, CURAND_RNG_PSEUDO_DEFAULT);
  std::printf("curandCreateGenerator: %d\n", static_cast<int>(s));
  if (s == CURAND_STATUS_SUCCESS) {
    curandGenerateUniform(gen, v, n);
    curandDestroyGenerator(gen);
  }
  cudaFree(v);
  return 0;  // the library's failure is not checked: barracuda must still say
}
