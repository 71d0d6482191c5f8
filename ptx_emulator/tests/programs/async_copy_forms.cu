// The cp.async and mbarrier forms CUDA 13 emits for its asynchronous-copy
// APIs (cuda::barrier, cuda::pipeline, cooperative_groups::memcpy_async,
// __pipeline_memcpy_async, and with ASYNC_SM90 the sm_90 ones:
// cuda::device::barrier_arrive_tx / barrier_expect_tx and the cuda::ptx
// mbarrier wrappers), each kernel checked against a CPU reference.
// Built twice (runtime/CMakeLists.txt): for sm_80 and, with -DASYNC_SM90=1,
// for sm_90. Prints PASS.
#include <cooperative_groups.h>
#include <cooperative_groups/memcpy_async.h>
#include <cuda_pipeline.h>

#include <cstdio>
#include <cuda/barrier>
#include <cuda/pipeline>
#if ASYNC_SM90
#include <cuda/ptx>
#endif

namespace cg = cooperative_groups;
// A __shared__ cuda::barrier is initialised with init(), not its constructor.
#pragma nv_diag_suppress static_var_with_dynamic_init
using block_barrier = cuda::barrier<cuda::thread_scope_block>;

#define CHECK(x)                                                                  \
  do {                                                                            \
    cudaError_t e_ = (x);                                                         \
    if (e_ != cudaSuccess) {                                                      \
      std::printf("CUDA error %s at %s:%d\n", cudaGetErrorString(e_), __FILE__, __LINE__); \
      return 1;                                                                   \
    }                                                                             \
  } while (0)

constexpr int kThreads = 256;

// cuda::memcpy_async(group, ..., barrier) + arrive_and_wait, arrive / wait.
__global__ void barrier_copy(const int* in, int* out) {
  __shared__ alignas(16) int buf[kThreads];
  __shared__ block_barrier bar;
  auto block = cg::this_thread_block();
  if (block.thread_rank() == 0) init(&bar, block.size());
  block.sync();
  const int* src = in + blockIdx.x * kThreads;
  cuda::memcpy_async(block, buf, src, sizeof(buf), bar);
  bar.arrive_and_wait();
  int v = buf[(threadIdx.x + 1) % kThreads];
  auto t = bar.arrive();
  bar.wait(std::move(t));
  out[blockIdx.x * kThreads + threadIdx.x] = v;
}

// arrive_and_drop: the odd warps leave after the first phase. (Per warp: a
// lane spinning on a lane of its own warp that took the other path hangs in
// the emulator, ptx_emulator/README.md "Known gaps".)
__global__ void barrier_drop(int* out) {
  __shared__ block_barrier bar;
  __shared__ int count;
  if (threadIdx.x == 0) {
    init(&bar, blockDim.x);
    count = 0;
  }
  __syncthreads();
  if ((threadIdx.x / 32) % 2) {
    atomicAdd(&count, 1);
    bar.arrive_and_drop();
    return;
  }
  bar.arrive_and_wait();
  const int seen = atomicAdd(&count, 0);
  bar.arrive_and_wait();
  bar.arrive_and_wait();
  out[blockIdx.x * kThreads + threadIdx.x] = seen;
}

// cuda::pipeline (thread scope): two stages, consumer_wait_prior<1>.
__global__ void pipeline_stages(const int4* in, int4* out) {
  __shared__ int4 buf[2][kThreads];
  auto pipe = cuda::make_pipeline();
  const int4* src = in + blockIdx.x * 2 * kThreads;
  for (int s = 0; s < 2; ++s) {
    pipe.producer_acquire();
    cuda::memcpy_async(&buf[s][threadIdx.x], &src[s * kThreads + threadIdx.x], sizeof(int4), pipe);
    pipe.producer_commit();
  }
  cuda::pipeline_consumer_wait_prior<1>(pipe);
  int4* dst = out + blockIdx.x * 2 * kThreads;
  dst[threadIdx.x] = buf[0][threadIdx.x];
  pipe.consumer_release();
  pipe.consumer_wait();
  dst[kThreads + threadIdx.x] = buf[1][threadIdx.x];
  pipe.consumer_release();
}

// cooperative_groups::memcpy_async + wait / wait_prior, aligned and not.
__global__ void cg_copy(const int* in, int* out) {
  __shared__ alignas(16) int buf[2 * kThreads];
  auto block = cg::this_thread_block();
  const int* src = in + blockIdx.x * 2 * kThreads;
  cg::memcpy_async(block, buf, src, sizeof(buf));
  cg::wait(block);
  const int a = buf[2 * threadIdx.x] + buf[2 * threadIdx.x + 1];
  block.sync();
  const size_t count = kThreads;  // element counts
  cg::memcpy_async(block, buf, count, src + 3, count);
  cg::wait_prior<0>(block);
  out[blockIdx.x * kThreads + threadIdx.x] = a * 1000 + buf[threadIdx.x];
}

// __pipeline_memcpy_async with 16, 8 and 4 bytes and zero-fill.
__global__ void primitives(const int* in, int* out) {
  __shared__ alignas(16) int b16[4 * kThreads];
  __shared__ alignas(16) int b8[2 * kThreads];
  __shared__ alignas(16) int b4[kThreads];
  const int t = threadIdx.x;
  const int* src = in + blockIdx.x * 4 * kThreads;
  __pipeline_memcpy_async(&b16[4 * t], &src[4 * t], 16);
  __pipeline_commit();
  __pipeline_memcpy_async(&b8[2 * t], &src[2 * t], 8, 4);  // 4 bytes copied, 4 zero-filled
  __pipeline_memcpy_async(&b4[t], &src[t], 4, t % 2 ? 4 : 0);
  __pipeline_commit();
  __pipeline_wait_prior(1);
  const int first = b16[4 * t] + b16[4 * t + 3];
  __pipeline_wait_prior(0);
  out[blockIdx.x * kThreads + t] = first + 10 * (b8[2 * t] + b8[2 * t + 1]) + 100 * b4[t];
}

int CpuPrimitives(const int* src, int t) {
  return src[4 * t] + src[4 * t + 3] + 10 * src[2 * t] + 100 * (t % 2 ? 0 : src[t]);
}

#if ASYNC_SM90
// barrier_arrive_tx / barrier_expect_tx: thread 0 arrives expecting 64
// bytes; warp 1's first 16 lanes store 4 bytes each, complete 4 bytes of tx
// each, then arrive; everyone waits for the phase, then reads.
__global__ void barrier_tx(int* out) {
  __shared__ block_barrier bar;
  __shared__ int data[16];
  const int t = threadIdx.x;
  if (t == 0) init(&bar, blockDim.x);
  __syncthreads();
  block_barrier::arrival_token token;
  if (t == 0) {
    token = cuda::device::barrier_arrive_tx(bar, 1, 64);
  } else {
    if (t >= 32 && t < 48) {
      data[t - 32] = 5 * (t - 32) + blockIdx.x;
      uint64_t* handle = cuda::device::barrier_native_handle(bar);
      asm volatile("mbarrier.complete_tx.relaxed.cta.shared::cta.b64 [%0], %1;" ::"r"(
                       static_cast<unsigned>(__cvta_generic_to_shared(handle))),
                   "r"(4)
                   : "memory");
    }
    token = bar.arrive();
  }
  bar.wait(std::move(token));
  int v = data[t % 16];
  // A second phase with expect_tx before the arrivals (tx 0 overall).
  if (t == 0) cuda::device::barrier_expect_tx(bar, 8);
  __syncthreads();
  if (t == 1) {
    uint64_t* handle = cuda::device::barrier_native_handle(bar);
    asm volatile("mbarrier.complete_tx.relaxed.cta.shared::cta.b64 [%0], %1;" ::"r"(
                     static_cast<unsigned>(__cvta_generic_to_shared(handle))),
                 "r"(8)
                 : "memory");
  }
  bar.arrive_and_wait();
  bar.wait_parity(true);  // phase 1 (parity 1) has completed: returns at once
  out[blockIdx.x * kThreads + t] = v;
}

// The cuda::ptx mbarrier wrappers: five phases of one barrier.
__global__ void ptx_wrappers(int* out) {
  namespace ptx = cuda::ptx;
  __shared__ uint64_t bar;
  if (threadIdx.x == 0) ptx::mbarrier_init(&bar, blockDim.x);
  __syncthreads();
  uint64_t s = ptx::mbarrier_arrive(&bar);
  while (!ptx::mbarrier_try_wait(&bar, s)) {
  }
  s = ptx::mbarrier_arrive(ptx::sem_release, ptx::scope_cta, ptx::space_shared, &bar, 1);
  while (!ptx::mbarrier_test_wait(&bar, s)) {
  }
  ptx::mbarrier_arrive_expect_tx(ptx::sem_release, ptx::scope_cta, ptx::space_shared, &bar, 0);
  while (!ptx::mbarrier_try_wait_parity(&bar, 0)) {
  }
  ptx::mbarrier_arrive(&bar);
  while (!ptx::mbarrier_test_wait_parity(&bar, 1)) {
  }
  ptx::mbarrier_arrive(ptx::sem_release, ptx::scope_cluster, ptx::space_cluster, &bar);
  while (!ptx::mbarrier_try_wait_parity(ptx::sem_acquire, ptx::scope_cluster, &bar, 0, 1000)) {
  }
  out[blockIdx.x * kThreads + threadIdx.x] = 1;
}
#endif

int main() {
  const int blocks = 3;
  const int n = blocks * 4 * kThreads;
  int* h_in = new int[n];
  int* h_out = new int[n];
  for (int i = 0; i < n; ++i) h_in[i] = (i * 37 + 11) % 1000 + 1;
  int *in, *out;
  CHECK(cudaMalloc(&in, n * sizeof(int)));
  CHECK(cudaMalloc(&out, n * sizeof(int)));
  CHECK(cudaMemcpy(in, h_in, n * sizeof(int), cudaMemcpyHostToDevice));
  int failures = 0;
  auto run = [&](const char* name, auto launch, auto expect, int count) -> int {
    CHECK(cudaMemset(out, 0, n * sizeof(int)));
    launch();
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaMemcpy(h_out, out, n * sizeof(int), cudaMemcpyDeviceToHost));
    int bad = 0;
    for (int i = 0; i < count; ++i)
      if (h_out[i] != expect(i) && bad++ < 3) std::printf("%s: out[%d] = %d, expected %d\n", name, i, h_out[i], expect(i));
    std::printf("%s: %s\n", name, bad ? "FAIL" : "ok");
    failures += bad != 0;
    return 0;
  };
  const int per_block = kThreads;
  run("barrier_copy", [&] { barrier_copy<<<blocks, kThreads>>>(in, out); },
      [&](int i) { return h_in[i / per_block * kThreads + (i % kThreads + 1) % kThreads]; }, blocks * kThreads);
  run("barrier_drop", [&] { barrier_drop<<<blocks, kThreads>>>(out); },
      [&](int i) { return (i / 32) % 2 ? 0 : kThreads / 2; }, blocks * kThreads);
  run("pipeline_stages", [&] { pipeline_stages<<<1, kThreads>>>(reinterpret_cast<const int4*>(in), reinterpret_cast<int4*>(out)); },
      [&](int i) { return h_in[i]; }, 2 * kThreads * 4);
  run("cg_copy", [&] { cg_copy<<<blocks, kThreads>>>(in, out); },
      [&](int i) {
        const int* src = h_in + i / kThreads * 2 * kThreads;
        const int t = i % kThreads;
        return (src[2 * t] + src[2 * t + 1]) * 1000 + src[3 + t];
      },
      blocks * kThreads);
  run("primitives", [&] { primitives<<<blocks, kThreads>>>(in, out); },
      [&](int i) { return CpuPrimitives(h_in + i / kThreads * 4 * kThreads, i % kThreads); }, blocks * kThreads);
#if ASYNC_SM90
  run("barrier_tx", [&] { barrier_tx<<<blocks, kThreads>>>(out); },
      [&](int i) { return 5 * (i % kThreads % 16) + i / kThreads; }, blocks * kThreads);
  run("ptx_wrappers", [&] { ptx_wrappers<<<blocks, kThreads>>>(out); }, [](int) { return 1; }, blocks * kThreads);
#endif
  CHECK(cudaFree(in));
  CHECK(cudaFree(out));
  delete[] h_in;
  delete[] h_out;
  if (failures != 0) {
    std::printf("FAIL (%d kernels)\n", failures);
    return 1;
  }
  std::printf("PASS\n");
  return 0;
}
