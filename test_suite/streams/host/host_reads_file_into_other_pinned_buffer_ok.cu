/*@barracuda
{
  "what": "a pipeline: while a kernel works on one pinned buffer, the host read(2)s the next input into another pinned buffer",
  "arch": 75,
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
// Race-free: the kernel of each round is passed only the buffer it works on,
// and the host fills the other one with a system call (read(2) from a pipe)
// before it synchronises. The host-access watch must not touch the buffer the
// kernel was not given: a protected page would make read(2) fail with EFAULT
// (a legitimate program broken by the tool). The buffers are 64 KiB and the
// read lands 8 KiB into one: pages are watched whole, so bytes on a page the
// two buffers share would be protected with the other's.
#include <cstdio>
#include <cstring>
#include <unistd.h>
#include <cuda_runtime.h>

__global__ void Sum(const int* in, int* sum) { atomicAdd(sum, in[threadIdx.x]); }

int main() {
  int* buf[2] = {nullptr, nullptr};
  int* sum = nullptr;
  for (int b = 0; b < 2; ++b)
    if (cudaHostAlloc(reinterpret_cast<void**>(&buf[b]), 16384 * sizeof(int), cudaHostAllocMapped) != cudaSuccess)
      return 2;
  if (cudaMalloc(&sum, sizeof(int)) != cudaSuccess) return 2;
  cudaMemset(sum, 0, sizeof(int));
  int fds[2];
  if (pipe(fds) != 0) return 2;
  for (int i = 0; i < 64; ++i) buf[0][i] = 1;
  int expected = 0, bad_reads = 0;
  for (int round = 0; round < 4; ++round) {
    const int cur = round % 2, next = 1 - cur;
    int* dev = nullptr;
    cudaHostGetDevicePointer(reinterpret_cast<void**>(&dev), buf[cur], 0);
    Sum<<<1, 64>>>(dev, sum);
    expected += 64 * (round + 1);
    int input[64];
    for (int i = 0; i < 64; ++i) input[i] = round + 2;
    if (write(fds[1], input, sizeof input) != static_cast<ssize_t>(sizeof input)) return 2;
    // The next input goes straight into the other pinned buffer.
    if (read(fds[0], buf[next] + 2048, sizeof input) != static_cast<ssize_t>(sizeof input)) ++bad_reads;
    std::memcpy(buf[next], buf[next] + 2048, sizeof input);
    cudaDeviceSynchronize();
  }
  int total = 0;
  cudaMemcpy(&total, sum, sizeof total, cudaMemcpyDeviceToHost);
  std::printf("sum %d, failed reads %d\n", total, bad_reads);
  std::printf(total == expected && bad_reads == 0 ? "PASS\n" : "FAIL\n");
  std::printf("done\n");
  return 0;
}
