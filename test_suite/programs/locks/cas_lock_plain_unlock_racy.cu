/*@barracuda
{
  "what": "the hashtable bug from paper \u00a76.3: atomicCAS lock without fence, released by a plain (weak, non-volatile) store without fence: the critical sections race and so do the unlocking store and the other blocks' CAS (atomic vs plain); the unlocking stores of different blocks all store 0: a same-value warning between them",
  "arch": 75,
  "expect": {
    "its": {"verdict": "race", "races": [
      {"kind": "RAW", "space": "global", "class": "inter-block", "lines": [31, 30]},
      {"kind": "WAW", "space": "global", "class": "inter-block", "lines": [31, 31]},
      {"kind": "ATOMIC_PLAIN", "space": "global", "class": "inter-block", "lines": [28, 32]},
      {"kind": "SAME_VALUE", "space": "global", "class": "inter-block", "lines": [32, 32]}
    ]},
    "lockstep": {"verdict": "race", "races": [
      {"kind": "RAW", "space": "global", "class": "inter-block", "lines": [31, 30]},
      {"kind": "WAW", "space": "global", "class": "inter-block", "lines": [31, 31]},
      {"kind": "ATOMIC_PLAIN", "space": "global", "class": "inter-block", "lines": [28, 32]},
      {"kind": "SAME_VALUE", "space": "global", "class": "inter-block", "lines": [32, 32]}
    ]}
  }
}
@*/
// Twin: cas_lock_volatile_store_unlock_ok.cu (a fence, then a volatile = strong store).
#include <cstdio>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("CUDA error: %s (%s:%d)\n", cudaGetErrorString(e_), __FILE__, __LINE__); return 2; } } while (0)

__global__ void Increment(int *counter, int *mutex) {
  if (threadIdx.x != 0) return;
  while (atomicCAS(mutex, 0, 1) != 0) {  // @cas
  }
  int v = *counter;  // @r
  *counter = v + 1;  // @w
  *mutex = 0;  // @unlock
}

int main() {
  int *dc, *dm;
  CK(cudaMalloc(&dc, sizeof(int)));
  CK(cudaMalloc(&dm, sizeof(int)));
  CK(cudaMemset(dc, 0, sizeof(int)));
  CK(cudaMemset(dm, 0, sizeof(int)));
  Increment<<<4, 32>>>(dc, dm);
  CK(cudaGetLastError());
  int h;
  CK(cudaMemcpy(&h, dc, sizeof(int), cudaMemcpyDeviceToHost));
  std::printf("counter=%d (want 4; racy)\n", h);
  return 0;
}

// Correction (2026-11-21; at the end so the header's line numbers stay): the first header listed three races and missed a fourth that
// the design implies: the unlocking stores of two blocks are plain writes to `mutex` with
// nothing ordering them (the next block's CAS that reads the 0 is an atomic without
// acquire, so it orders nothing), a WAW between two executions of line 30. barracuda
// reported it from the start, mislabelled as WAR until kept writes were told apart from
// reads in the shadow (host_detector/detector/SEMANTICS.md, reader kinds).
