/*@barracuda
{
  "what": "templated kernel (int and double instantiations) reversing through shared memory with __syncthreads",
  "arch": 75,
  "expect": {
    "its": {"verdict": "no-race", "races": []},
    "lockstep": {"verdict": "no-race", "races": []}
  }
}
@*/
// Twin: template_kernel_racy.cu.
#include <cstdio>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("CUDA error: %s (%s:%d)\n", cudaGetErrorString(e_), __FILE__, __LINE__); return 2; } } while (0)

template <typename T, int N>
__global__ void Reverse(const T *in, T *out) {
  __shared__ T s[N];
  int t = threadIdx.x;
  s[t] = in[t];
  __syncthreads();
  out[t] = s[N - 1 - t];
}

int main() {
  int hi[64];
  double hd[64];
  for (int i = 0; i < 64; ++i) { hi[i] = i; hd[i] = i * 0.5; }
  int *di, *dio;
  double *dd, *ddo;
  CK(cudaMalloc(&di, sizeof(hi)));
  CK(cudaMalloc(&dio, sizeof(hi)));
  CK(cudaMalloc(&dd, sizeof(hd)));
  CK(cudaMalloc(&ddo, sizeof(hd)));
  CK(cudaMemcpy(di, hi, sizeof(hi), cudaMemcpyHostToDevice));
  CK(cudaMemcpy(dd, hd, sizeof(hd), cudaMemcpyHostToDevice));
  Reverse<int, 64><<<1, 64>>>(di, dio);
  CK(cudaGetLastError());
  Reverse<double, 64><<<1, 64>>>(dd, ddo);
  CK(cudaGetLastError());
  CK(cudaMemcpy(hi, dio, sizeof(hi), cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(hd, ddo, sizeof(hd), cudaMemcpyDeviceToHost));
  for (int i = 0; i < 64; ++i)
    if (hi[i] != 63 - i || hd[i] != (63 - i) * 0.5) { std::printf("FAIL %d\n", i); return 1; }
  std::printf("PASS\n");
  return 0;
}
