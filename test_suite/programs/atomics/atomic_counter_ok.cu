/*@barracuda
{
  "what": "every thread of two blocks atomicAdds into one global counter and uses the returned ticket: atomics never race with atomics",
  "arch": 75,
  "expect": {
    "its": {"verdict": "no-race", "races": []},
    "lockstep": {"verdict": "no-race", "races": []}
  }
}
@*/
#include <cstdio>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("CUDA error: %s (%s:%d)\n", cudaGetErrorString(e_), __FILE__, __LINE__); return 2; } } while (0)

__global__ void Count(int *counter, int *tickets) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  tickets[i] = atomicAdd(counter, 1);
}

int main() {
  int *dc, *dt;
  CK(cudaMalloc(&dc, sizeof(int)));
  CK(cudaMalloc(&dt, 128 * sizeof(int)));
  CK(cudaMemset(dc, 0, sizeof(int)));
  Count<<<2, 64>>>(dc, dt);
  CK(cudaGetLastError());
  int h, t[128], seen[128] = {0};
  CK(cudaMemcpy(&h, dc, sizeof(int), cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(t, dt, sizeof(t), cudaMemcpyDeviceToHost));
  if (h != 128) { std::printf("FAIL counter=%d\n", h); return 1; }
  for (int i = 0; i < 128; ++i) {
    if (t[i] < 0 || t[i] >= 128 || seen[t[i]]++) { std::printf("FAIL ticket %d\n", t[i]); return 1; }
  }
  std::printf("PASS\n");
  return 0;
}
