/*@barracuda
{
  "what": "inter-block message passing through a volatile flag with no fences: the data races; the flag accesses are volatile, i.e. strong (.relaxed.sys in the PTX memory model), so they do not race with each other (the paper counted them as plain)",
  "arch": 75,
  "expect": {
    "its": {"verdict": "race", "races": [
      {"kind": "RAW", "space": "global", "class": "inter-block", "lines": [27, 36]}
    ]},
    "lockstep": {"verdict": "race", "races": [
      {"kind": "RAW", "space": "global", "class": "inter-block", "lines": [27, 36]}
    ]}
  }
}
@*/
// Message passing between two blocks (paper §3.3.3 litmus test "mp"): thread 0 of
// block 0 writes data then sets a volatile flag; thread 0 of block 1 polls the flag,
// then reads data. A fence right before the flag store makes the store a release, a
// fence right after the polling load makes the load an acquire (paper §3.1); the
// scope is the fence's. Here there are no fences: nothing is ordered (the flag is strong).
#include <cstdio>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("CUDA error: %s (%s:%d)\n", cudaGetErrorString(e_), __FILE__, __LINE__); return 2; } } while (0)

__global__ void MessagePass(int *data, volatile int *flag, int *out) {
  if (threadIdx.x != 0) return;
  if (blockIdx.x == 0) {
    data[0] = 42;  // @dw
    // (no fence)
    *flag = 1;  // @fw
  } else {
    int f;
    do {
      f = *flag;  // @fr
      // (no fence)
    } while (f == 0);
    out[0] = data[0];  // @dr
  }
}

int main() {
  int *d_data, *d_flag, *d_out;
  CK(cudaMalloc(&d_data, sizeof(int)));
  CK(cudaMalloc(&d_flag, sizeof(int)));
  CK(cudaMalloc(&d_out, sizeof(int)));
  CK(cudaMemset(d_data, 0, sizeof(int)));
  CK(cudaMemset(d_flag, 0, sizeof(int)));
  MessagePass<<<2, 32>>>(d_data, d_flag, d_out);
  CK(cudaGetLastError());
  int h;
  CK(cudaMemcpy(&h, d_out, sizeof(int), cudaMemcpyDeviceToHost));
  std::printf("out=%d (racy: 0 or 42)\n", h);
  return 0;
}
