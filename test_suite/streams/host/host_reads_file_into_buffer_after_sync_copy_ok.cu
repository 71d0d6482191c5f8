/*@barracuda
{
  "what": "the host reads a file into registered memory that a finished synchronous cudaMemcpy read, while a kernel of a non-blocking stream runs",
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
// Race-free. A kernel works on device memory on a non-blocking stream (the
// legacy stream does not wait for it) while the host uploads the next input
// from a cudaHostRegister'd buffer with synchronous cudaMemcpy and then reads
// the following input from a file into that buffer. cudaMemcpy returns after
// the copy has read its source, so the buffer is the host's again: it must not
// stay watched like the source of a cudaMemcpyAsync (a protected page would
// make read(2) fail with EFAULT).
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>
#include <unistd.h>

__global__ void Scale(int* data) { data[threadIdx.x] *= 3; }

int main() {
  int* buf = static_cast<int*>(std::aligned_alloc(4096, 4096));
  if (buf == nullptr) return 2;
  for (int i = 0; i < 64; ++i) buf[i] = i;
  if (cudaHostRegister(buf, 4096, cudaHostRegisterDefault) != cudaSuccess) return 2;
  int *work = nullptr, *next = nullptr;
  if (cudaMalloc(&work, 64 * sizeof(int)) != cudaSuccess) return 2;
  if (cudaMalloc(&next, 64 * sizeof(int)) != cudaSuccess) return 2;
  cudaMemset(work, 0, 64 * sizeof(int));
  cudaStream_t s;
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  Scale<<<1, 64, 0, s>>>(work);
  cudaMemcpy(next, buf, 64 * sizeof(int), cudaMemcpyHostToDevice);
  int fds[2];
  if (pipe(fds) != 0) return 2;
  int input[64];
  for (int i = 0; i < 64; ++i) input[i] = 100 + i;
  if (write(fds[1], input, sizeof input) != static_cast<ssize_t>(sizeof input)) return 2;
  const ssize_t got = read(fds[0], buf, sizeof input);  // the next input, into the buffer
  cudaStreamSynchronize(s);
  int uploaded[64];
  cudaMemcpy(uploaded, next, sizeof uploaded, cudaMemcpyDeviceToHost);
  long sum = 0;
  for (int i = 0; i < 64; ++i) sum += uploaded[i] + buf[i];
  std::printf("read %zd sum %ld\n", got, sum);
  std::printf(got == static_cast<ssize_t>(sizeof input) && sum == 2016 + 8416 ? "PASS\n" : "FAIL\n");
  std::printf("done\n");
  close(fds[0]);
  close(fds[1]);
  cudaStreamDestroy(s);
  cudaHostUnregister(buf);
  std::free(buf);
  cudaFree(work);
  cudaFree(next);
  return 0;
}
