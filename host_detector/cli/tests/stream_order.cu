// Stream-order races (issue 18 item 2): operations of two streams that CUDA
// does not order, touching the same bytes. Each mode issues its work and
// exits 0; barracuda must report the racy modes and stay quiet on the others.
// Built with -lineinfo for sm_75 (cli.cmake); the tests check the lines marked.
//   kernels      Produce on s1 writes buf, Consume on s2 reads it: nothing orders them   (racy)
//   event        the same with cudaEventRecord(s1) + cudaStreamWaitEvent(s2)              (ok)
//   copy         Produce on s1, cudaMemcpyAsync of buf to the host on s2                  (racy)
//   sync         the same with cudaStreamSynchronize(s1) in between                       (ok)
//   legacy       a kernel on the legacy default stream in between (blocking streams)     (ok)
//   nonblocking  the same with cudaStreamNonBlocking streams: the legacy kernel orders nothing (racy)
//   atomics      both kernels atomicAdd one counter                                       (ok)
//   disjoint     the kernels write different halves of buf                                (ok)
//   memset       Consume on s1 reads buf while cudaMemsetAsync on s2 clears it            (racy)
#include <cstdio>
#include <cstring>

__global__ void Produce(int* buf, int offset) {
  buf[offset + threadIdx.x] = threadIdx.x;  // LINE-produce
}

__global__ void Consume(const int* buf, int* out) {
  out[threadIdx.x] = buf[threadIdx.x] + 1;  // LINE-consume
}

__global__ void Count(int* counter) { atomicAdd(counter, 1); }

__global__ void Nothing() {}

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "event";
  auto is = [&](const char* m) { return std::strcmp(mode, m) == 0; };
  int *buf = nullptr, *out = nullptr;
  if (cudaMalloc(&buf, 64 * sizeof(int)) != cudaSuccess || cudaMalloc(&out, 64 * sizeof(int)) != cudaSuccess) return 2;
  const unsigned flags = is("nonblocking") ? cudaStreamNonBlocking : cudaStreamDefault;
  cudaStream_t s1, s2;
  if (cudaStreamCreateWithFlags(&s1, flags) != cudaSuccess || cudaStreamCreateWithFlags(&s2, flags) != cudaSuccess)
    return 2;
  cudaEvent_t done;
  cudaEventCreate(&done);
  static int host[64];
  if (is("kernels") || is("event") || is("legacy") || is("nonblocking")) {
    Produce<<<1, 32, 0, s1>>>(buf, 0);
    if (is("event")) {
      cudaEventRecord(done, s1);
      cudaStreamWaitEvent(s2, done, 0);
    }
    if (is("legacy") || is("nonblocking")) Nothing<<<1, 1>>>();
    Consume<<<1, 32, 0, s2>>>(buf, out);
  } else if (is("copy") || is("sync")) {
    Produce<<<1, 32, 0, s1>>>(buf, 0);
    if (is("sync")) cudaStreamSynchronize(s1);
    cudaMemcpyAsync(host, buf, 32 * sizeof(int), cudaMemcpyDeviceToHost, s2);  // LINE-copy
  } else if (is("atomics")) {
    Count<<<1, 32, 0, s1>>>(buf);
    Count<<<1, 32, 0, s2>>>(buf);
  } else if (is("disjoint")) {
    Produce<<<1, 32, 0, s1>>>(buf, 0);
    Produce<<<1, 32, 0, s2>>>(buf, 32);
  } else if (is("memset")) {
    Consume<<<1, 32, 0, s1>>>(buf, out);
    cudaMemsetAsync(buf, 0, 64 * sizeof(int), s2);  // LINE-memset
  } else {
    std::fprintf(stderr, "unknown mode %s\n", mode);
    return 2;
  }
  std::printf("sync: %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
  return 0;
}
