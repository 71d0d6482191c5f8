/*@barracuda
{
  "what": "a templated kernel instantiated for int and double; both instantiations exchange through shared memory without __syncthreads (same source lines)",
  "arch": 75,
  "expect": {
    "its": {"verdict": "race", "races": [
      {"kind": "RAW", "space": "shared", "class": "intra-block", "lines": [25, 26]}
    ]},
    "lockstep": {"verdict": "race", "races": [
      {"kind": "RAW", "space": "shared", "class": "intra-block", "lines": [25, 26]}
    ]}
  }
}
@*/
// Twin: template_kernel_ok.cu. Both instantiations race at the same source lines, so
// they are one distinct race (same kind, space, class and line pair).
#include <cstdio>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("CUDA error: %s (%s:%d)\n", cudaGetErrorString(e_), __FILE__, __LINE__); return 2; } } while (0)

template <typename T, int N>
__global__ void Reverse(const T *in, T *out) {
  __shared__ T s[N];
  int t = threadIdx.x;
  s[t] = in[t];  // @w
  out[t] = s[N - 1 - t];  // @r
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
  std::printf("out[0]=%d (racy)\n", hi[0]);
  return 0;
}
