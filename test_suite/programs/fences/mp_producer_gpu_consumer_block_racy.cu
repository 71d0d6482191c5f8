/*@barracuda
{
  "what": "message passing between blocks with __threadfence in the producer and __threadfence_block in the consumer: in the PTX memory model a release and an acquire synchronise only if each one's scope includes the other thread, so a block-scope fence on either side orders nothing across blocks and the data read races (the paper's 'one gpu-scope side suffices', Fig. 4, does not hold)",
  "arch": 75,
  "expect": {
    "its": {"verdict": "race", "races": [
      {"kind": "RAW", "space": "global", "class": "inter-block", "lines": [28, 37]}
    ]},
    "lockstep": {"verdict": "race", "races": [
      {"kind": "RAW", "space": "global", "class": "inter-block", "lines": [28, 37]}
    ]}
  }
}
@*/
// Message passing between two blocks (paper §3.3.3 litmus test "mp"): thread 0 of
// block 0 writes data then sets a volatile flag; thread 0 of block 1 polls the flag,
// then reads data. A fence right before the flag store makes the store a release, a
// fence right after the polling load makes the load an acquire (paper §3.1); the
// scope is the fence's. PTX memory model (wave 2): both scopes must include the other
// thread, so the block-scope side orders nothing across blocks and the data read races.
#include <cstdio>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("CUDA error: %s (%s:%d)\n", cudaGetErrorString(e_), __FILE__, __LINE__); return 2; } } while (0)

__global__ void MessagePass(int *data, volatile int *flag, int *out) {
  if (threadIdx.x != 0) return;
  if (blockIdx.x == 0) {
    data[0] = 42;
    __threadfence();
    *flag = 1;
  } else {
    int f;
    do {
      f = *flag;
      __threadfence_block();
    } while (f == 0);
    out[0] = data[0];
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
  if (h != 42) { std::printf("FAIL out=%d\n", h); return 1; }
  std::printf("PASS\n");
  return 0;
}
