/*@barracuda
{
  "what": "libcu++ synchronisation (one per command-line argument): cuda::atomic_ref release/acquire message passing, a cuda::atomic turn chain, cuda::barrier at block and device scope, cuda::latch, cuda::binary_semaphore / counting_semaphore guarding plain data; self-checked on the host",
  "arch": 75,
  "args": ["atomic_ref", "atomic_chain", "barrier", "latch", "semaphore"],
  "expect": {
    "its": {"verdict": "no-race", "races": []},
    "lockstep": {"verdict": "no-race", "races": []}
  }
}
@*/
// libcupp ALGO: 4 blocks x 128 threads (all resident, as every spin-wait here needs);
// prints PASS (exit 0) or FAIL (exit 1); "list" prints the names.
//   atomic_ref   block 0 fills data[] with plain stores, then thread 0 publishes a flag
//                with atomic_ref<int, thread_scope_device>::store(release) after a
//                __syncthreads; every thread of the other blocks spins load(acquire),
//                then reads data[] plainly. Plus relaxed fetch_add counters (atomics).
//   atomic_chain __device__ cuda::atomic<int, thread_scope_device> turn: block b waits
//                (acquire) for turn == b, reads block b-1's plain result, writes its own,
//                fetch_add(1, release)
//   barrier      cuda::barrier<thread_scope_block> in shared memory (init by thread 0,
//                __syncthreads), 4 phases of write own slot / arrive_and_wait / read a
//                neighbour's / arrive_and_wait; then a cuda::barrier<thread_scope_device>
//                in global memory used as a grid barrier between a write and a read phase
//   latch        cuda::latch<thread_scope_block> in shared memory: write own slot,
//                arrive_and_wait, read the others'
//   semaphore    cuda::binary_semaphore<thread_scope_device> as a lock around a plain
//                read-modify-write of a global total and log, taken by lane 0 of every
//                warp; cuda::counting_semaphore<thread_scope_device, 4> admits 4 warps
//                at once into a section that only does atomics
#include <cuda/atomic>
#include <cuda/barrier>
#include <cuda/latch>
#include <cuda/semaphore>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <vector>

#include <cuda_runtime.h>

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("CUDA error: %s (%s:%d)\n", cudaGetErrorString(e_), __FILE__, __LINE__); std::exit(2); } } while (0)

constexpr int kBlocks = 4, kThreads = 128, kN = kBlocks * kThreads, kWarps = kN / 32;

__global__ void AtomicRefMp(int *data, int *flag, int *out, int *counters) {
  int t = threadIdx.x;
  cuda::atomic_ref<int, cuda::thread_scope_device> f(*flag);
  cuda::atomic_ref<int, cuda::thread_scope_device>(counters[t % 4]).fetch_add(1, cuda::memory_order_relaxed);
  if (blockIdx.x == 0) {
    data[t] = t * 7 + 1;
    __syncthreads();
    if (t == 0) f.store(1, cuda::memory_order_release);
  } else {
    while (f.load(cuda::memory_order_acquire) == 0) {
    }
    out[blockIdx.x * kThreads + t] = data[(t + blockIdx.x) % kThreads];
  }
}

__device__ cuda::atomic<int, cuda::thread_scope_device> g_turn(0);
__global__ void AtomicChain(int *result) {
  int b = blockIdx.x;
  if (threadIdx.x == 0) {
    while (g_turn.load(cuda::memory_order_acquire) != b) {
    }
    result[b] = (b == 0 ? 1 : result[b - 1] * 3 + b);
    g_turn.fetch_add(1, cuda::memory_order_release);
  }
}

using DevBarrier = cuda::barrier<cuda::thread_scope_device>;
__global__ void InitDevBarrier(DevBarrier *bar, int count) { new (bar) DevBarrier(count); }

__global__ void Barriers(int *out, int *grid_data, DevBarrier *grid_bar) {
  using BlockBarrier = cuda::barrier<cuda::thread_scope_block>;
  __shared__ BlockBarrier bar;
  __shared__ int slot[kThreads];
  int t = threadIdx.x;
  if (t == 0) init(&bar, blockDim.x);
  __syncthreads();
  int v = t + blockIdx.x;
  for (int phase = 0; phase < 4; ++phase) {
    slot[t] = v;
    bar.arrive_and_wait();
    v = slot[(t + 1 + phase) % kThreads] + 1;
    bar.arrive_and_wait();
  }
  out[blockIdx.x * kThreads + t] = v;
  // device-scope barrier across all blocks: write own element, wait, read another block's
  int g = blockIdx.x * kThreads + t;
  grid_data[g] = v * 2;
  grid_bar->arrive_and_wait();
  out[kN + g] = grid_data[(g + kThreads) % kN];
}

__global__ void Latch(int *out) {
  using Latch = cuda::latch<cuda::thread_scope_block>;
  __shared__ alignas(Latch) unsigned char storage[sizeof(Latch)];
  __shared__ int slot[kThreads];
  Latch *l = reinterpret_cast<Latch *>(storage);
  int t = threadIdx.x;
  if (t == 0) new (l) Latch(kThreads);
  __syncthreads();
  slot[t] = t * t + blockIdx.x;
  l->arrive_and_wait();
  int s = 0;
  for (int k = 0; k < kThreads; k += 16) s += slot[(t + k) % kThreads];
  out[blockIdx.x * kThreads + t] = s;
}

using Binary = cuda::binary_semaphore<cuda::thread_scope_device>;
using Counting = cuda::counting_semaphore<cuda::thread_scope_device, 4>;
__global__ void InitSemaphores(Binary *lock, Counting *gate) {
  new (lock) Binary(1);
  new (gate) Counting(4);
}
__global__ void Semaphores(Binary *lock, Counting *gate, int *total, int *log, int *inside, int *max_inside) {
  int lane = threadIdx.x % 32, warp = (blockIdx.x * kThreads + threadIdx.x) / 32;
  if (lane != 0) return;
  lock->acquire();
  int n = *total;  // plain read-modify-write, protected by the semaphore
  log[n] = warp;
  *total = n + 1;
  lock->release();
  gate->acquire();
  int now = atomicAdd(inside, 1) + 1;
  atomicMax(max_inside, now);
  atomicSub(inside, 1);
  gate->release();
}

template <typename T>
static T *Zeros(size_t n) {
  T *p;
  CK(cudaMalloc(&p, n * sizeof(T)));
  CK(cudaMemset(p, 0, n * sizeof(T)));
  return p;
}
static std::vector<int> Down(const int *p, size_t n) {
  std::vector<int> h(n);
  CK(cudaMemcpy(h.data(), p, n * sizeof(int), cudaMemcpyDeviceToHost));
  return h;
}
static bool Same(const char *what, const std::vector<int> &got, const std::vector<int> &want) {
  for (size_t i = 0; i < want.size(); ++i)
    if (got[i] != want[i]) {
      std::printf("FAIL %s: [%zu] = %d, want %d\n", what, i, got[i], want[i]);
      return false;
    }
  return true;
}

static bool AtomicRefCheck() {
  int *data = Zeros<int>(kThreads), *flag = Zeros<int>(1), *out = Zeros<int>(kN), *cnt = Zeros<int>(4);
  AtomicRefMp<<<kBlocks, kThreads>>>(data, flag, out, cnt);
  CK(cudaDeviceSynchronize());
  std::vector<int> w(kN, 0);
  for (int b = 1; b < kBlocks; ++b)
    for (int t = 0; t < kThreads; ++t) w[b * kThreads + t] = ((t + b) % kThreads) * 7 + 1;
  return Same("atomic_ref mp", Down(out, kN), w) && Same("counters", Down(cnt, 4), std::vector<int>(4, kN / 4));
}

static bool AtomicChainCheck() {
  int *r = Zeros<int>(kBlocks);
  AtomicChain<<<kBlocks, 32>>>(r);
  CK(cudaDeviceSynchronize());
  std::vector<int> w(kBlocks);
  for (int b = 0; b < kBlocks; ++b) w[b] = b == 0 ? 1 : w[b - 1] * 3 + b;
  return Same("atomic chain", Down(r, kBlocks), w);
}

static bool BarrierCheck() {
  int *out = Zeros<int>(2 * kN), *gd = Zeros<int>(kN);
  DevBarrier *gb;
  CK(cudaMalloc(&gb, sizeof(DevBarrier)));
  InitDevBarrier<<<1, 1>>>(gb, kN);
  Barriers<<<kBlocks, kThreads>>>(out, gd, gb);
  CK(cudaDeviceSynchronize());
  std::vector<int> w(2 * kN);
  for (int b = 0; b < kBlocks; ++b) {
    std::vector<int> v(kThreads), s(kThreads);
    for (int t = 0; t < kThreads; ++t) v[t] = t + b;
    for (int phase = 0; phase < 4; ++phase) {
      s = v;
      for (int t = 0; t < kThreads; ++t) v[t] = s[(t + 1 + phase) % kThreads] + 1;
    }
    for (int t = 0; t < kThreads; ++t) w[b * kThreads + t] = v[t];
  }
  for (int g = 0; g < kN; ++g) w[kN + g] = 2 * w[(g + kThreads) % kN];
  return Same("barriers", Down(out, 2 * kN), w);
}

static bool LatchCheck() {
  int *out = Zeros<int>(kN);
  Latch<<<kBlocks, kThreads>>>(out);
  CK(cudaDeviceSynchronize());
  std::vector<int> w(kN);
  for (int b = 0; b < kBlocks; ++b)
    for (int t = 0; t < kThreads; ++t) {
      int s = 0;
      for (int k = 0; k < kThreads; k += 16) {
        int u = (t + k) % kThreads;
        s += u * u + b;
      }
      w[b * kThreads + t] = s;
    }
  return Same("latch", Down(out, kN), w);
}

static bool SemaphoreCheck() {
  Binary *lock;
  Counting *gate;
  CK(cudaMalloc(&lock, sizeof(Binary)));
  CK(cudaMalloc(&gate, sizeof(Counting)));
  int *total = Zeros<int>(1), *log = Zeros<int>(kWarps), *inside = Zeros<int>(1), *mx = Zeros<int>(1);
  InitSemaphores<<<1, 1>>>(lock, gate);
  Semaphores<<<kBlocks, kThreads>>>(lock, gate, total, log, inside, mx);
  CK(cudaDeviceSynchronize());
  int n = Down(total, 1)[0], m = Down(mx, 1)[0];
  std::vector<int> l = Down(log, kWarps), seen(kWarps, 0);
  if (n != kWarps || m < 1 || m > 4) { std::printf("FAIL semaphore: total %d, max inside %d\n", n, m); return false; }
  for (int w : l)
    if (w < 0 || w >= kWarps || seen[w]++) { std::printf("FAIL semaphore: log entry %d\n", w); return false; }
  return true;
}

struct Algo {
  const char *name;
  bool (*run)();
};
static const Algo kAlgos[] = {
    {"atomic_ref", AtomicRefCheck}, {"atomic_chain", AtomicChainCheck}, {"barrier", BarrierCheck},
    {"latch", LatchCheck},          {"semaphore", SemaphoreCheck},
};

int main(int argc, char **argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s ALGO   (ALGO: list for the names)\n", argv[0]);
    return 2;
  }
  bool list = std::strcmp(argv[1], "list") == 0;
  for (const Algo &a : kAlgos) {
    if (list) { std::printf("%s\n", a.name); continue; }
    if (std::strcmp(argv[1], a.name) != 0) continue;
    if (!a.run()) return 1;
    std::printf("PASS %s\n", a.name);
    return 0;
  }
  if (list) return 0;
  std::fprintf(stderr, "unknown algorithm %s\n", argv[1]);
  return 2;
}
