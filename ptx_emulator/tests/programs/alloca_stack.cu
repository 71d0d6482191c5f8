// Runtime program: device-side dynamic stack allocation (PTX alloca,
// stacksave, stackrestore). alloca() in a kernel with lane-dependent sizes; in
// a __noinline__ function whose caller then calls another function (its frame
// must sit above the caller's allocations); in a loop with stacksave /
// stackrestore (the loop must not run the stack out: 4096 iterations of 64
// bytes are 256 KiB, far past the 16 KiB window, unless each iteration frees
// its buffer); and (argument `overflow`) one too large for cudaLimitStackSize,
// which must fail the launch (the hardware's stack error) rather than write
// past the window.
#include <cstdio>
#include <string_view>

// The PTX stacksave/stackrestore pair around an alloca, as LLVM emits it for
// a scoped variable-length array.
__device__ __forceinline__ unsigned long long StackSave() {
  unsigned long long sp;
  asm volatile("stacksave.u64 %0;" : "=l"(sp));
  return sp;
}
__device__ __forceinline__ void StackRestore(unsigned long long sp) { asm volatile("stackrestore.u64 %0;" ::"l"(sp)); }

__device__ __noinline__ int Clobber(int seed) {
  // A callee's own frame: must not land on the caller's allocation.
  volatile int local[16];
  for (int i = 0; i < 16; ++i) local[i] = seed * 1000 + i;
  int s = 0;
  for (int i = 0; i < 16; ++i) s += local[i];
  return s;
}

__device__ __noinline__ int SumOfSquares(int n) {
  int* buf = static_cast<int*>(alloca(n * sizeof(int)));
  for (int i = 0; i < n; ++i) buf[i] = i * i;
  const int c = Clobber(n);  // called with the allocation live
  int s = 0;
  for (int i = 0; i < n; ++i) s += buf[i];
  return s + (c - (n * 1000 * 16 + 120));
}

__global__ void Kernel(int* out, int* loop_out) {
  const int t = threadIdx.x;
  const int n = 1 + (t % 7);  // lanes allocate different sizes
  char* bytes = static_cast<char*>(alloca(n));
  int* ints = static_cast<int*>(alloca(n * sizeof(int)));
  for (int i = 0; i < n; ++i) bytes[i] = static_cast<char>(t + i), ints[i] = t * i;
  int s = 0;
  for (int i = 0; i < n; ++i) s += bytes[i] + ints[i];
  out[t] = s + SumOfSquares(n);
  int acc = 0;
  for (int it = 0; it < 4096; ++it) {
    const unsigned long long sp = StackSave();
    int* tmp = static_cast<int*>(alloca(64));
    tmp[t % 16] = it;
    acc += tmp[t % 16];
    StackRestore(sp);
  }
  loop_out[t] = acc;
}

__global__ void TooLarge(int* out, int n) {
  volatile int* buf = static_cast<int*>(alloca(n));
  buf[n / 4 - 1] = 1;
  out[0] = buf[n / 4 - 1];
}

int main(int argc, char** argv) {
  const int threads = 64;
  int *out = nullptr, *loop_out = nullptr;
  if (cudaMalloc(&out, threads * sizeof(int)) != cudaSuccess) return 2;
  if (cudaMalloc(&loop_out, threads * sizeof(int)) != cudaSuccess) return 2;
  if (argc > 1 && std::string_view(argv[1]) == "overflow") {
    size_t stack = 0;
    cudaDeviceGetLimit(&stack, cudaLimitStackSize);
    TooLarge<<<1, 1>>>(out, static_cast<int>(stack) * 2);
    const cudaError_t e = cudaDeviceSynchronize();
    if (e == cudaSuccess) {
      std::printf("FAIL: an alloca of twice the stack size succeeded\n");
      return 1;
    }
    std::printf("too large: %s\n", cudaGetErrorString(e));
    return 0;
  }
  Kernel<<<1, threads>>>(out, loop_out);
  if (cudaDeviceSynchronize() != cudaSuccess) {
    std::printf("FAIL: the alloca kernel failed: %s\n", cudaGetErrorString(cudaGetLastError()));
    return 1;
  }
  int h[threads], hl[threads];
  cudaMemcpy(h, out, sizeof(h), cudaMemcpyDeviceToHost);
  cudaMemcpy(hl, loop_out, sizeof(hl), cudaMemcpyDeviceToHost);
  for (int t = 0; t < threads; ++t) {
    const int n = 1 + (t % 7);
    int want = 0, squares = 0;
    for (int i = 0; i < n; ++i) want += static_cast<char>(t + i) + t * i, squares += i * i;
    want += squares;
    if (h[t] != want || hl[t] != 4095 * 4096 / 2) {
      std::printf("FAIL: thread %d: %d (want %d), loop %d (want %d)\n", t, h[t], want, hl[t], 4095 * 4096 / 2);
      return 1;
    }
  }
  std::printf("PASS\n");
  return 0;
}
