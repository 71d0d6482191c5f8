/*@barracuda
{
  "what": "cooperative groups (one per command-line argument): grid.sync() phases under cudaLaunchCooperativeKernel, tiled_partition with cg::reduce and tile scans, thread_block_tile shuffles, cg::memcpy_async + cg::wait, coalesced_threads in a divergent branch; self-checked on the host",
  "arch": 75,
  "args": ["grid_sync", "tile_reduce", "tile_scan", "memcpy_async", "coalesced"],
  "expect": {
    "its": {"verdict": "no-race", "races": []},
    "lockstep": {"verdict": "no-race", "races": []}
  }
}
@*/
// cg ALGO: prints PASS (exit 0) or FAIL (exit 1); "list" prints the names.
//   grid_sync   4 blocks x 128 threads, cooperative launch: a 3-phase stencil where each
//               phase reads the neighbours' previous values, grid.sync() between phases
//               (barrier.sync + gpu-scope release/acquire on the grid barrier word)
//   tile_reduce tiled_partition<32> and dynamic tiled_partition(block, 8): cg::reduce
//               per tile, tile leaders write shared partial sums, block.sync(), thread 0
//               combines; tile.sync() orders a per-tile shared exchange
//   tile_scan   cg::inclusive_scan / exclusive_scan over tiles of 16, shfl_down, any/all
//   memcpy_async  cg::memcpy_async of a global tile into shared memory, cg::wait(block),
//               then every thread reads other threads' elements (on compute_75 the copy
//               is synchronous; cg::wait's block.sync() orders it either way)
//   coalesced   coalesced_threads() of the odd lanes: the group leader does one atomicAdd
//               for the group and shuffles the base to its members (warp-aggregated
//               atomics), members write disjoint slots
#include <cooperative_groups.h>
#include <cooperative_groups/memcpy_async.h>
#include <cooperative_groups/reduce.h>
#include <cooperative_groups/scan.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <cuda_runtime.h>

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("CUDA error: %s (%s:%d)\n", cudaGetErrorString(e_), __FILE__, __LINE__); std::exit(2); } } while (0)
namespace cg = cooperative_groups;

constexpr int kBlocks = 4, kThreads = 128, kN = kBlocks * kThreads;

__global__ void Stencil(int *a, int *b, int phases) {
  cg::grid_group grid = cg::this_grid();
  int i = grid.thread_rank(), n = grid.size();
  for (int p = 0; p < phases; ++p) {
    // read a (all threads), write b (own slot); then swap roles after the grid barrier
    int v = a[(i + n - 1) % n] + a[i] + a[(i + 1) % n];
    b[i] = v % 1000;
    grid.sync();
    int *t = a; a = b; b = t;
  }
}

__global__ void TileReduce(const int *in, int *out, int *exch_out) {
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
  cg::thread_group tile8 = cg::tiled_partition(block, 8);
  __shared__ int partial[kThreads / 32];
  __shared__ int ring[kThreads];
  int g = blockIdx.x * kThreads + threadIdx.x, x = in[g];
  int s = cg::reduce(warp, x, cg::plus<int>());
  if (warp.thread_rank() == 0) partial[warp.meta_group_rank()] = s;
  block.sync();
  if (block.thread_rank() == 0) {
    int t = 0;
    for (int w = 0; w < kThreads / 32; ++w) t += partial[w];
    out[blockIdx.x] = t;
  }
  // exchange inside tiles of 8: write own slot, tile.sync(), read the next member's
  ring[threadIdx.x] = x * 3;
  tile8.sync();
  int base = threadIdx.x - tile8.thread_rank();
  exch_out[g] = ring[base + (tile8.thread_rank() + 1) % 8];
}

__global__ void TileScan(const int *in, int *inc, int *exc, int *down, int *votes) {
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<16> tile = cg::tiled_partition<16>(block);
  int g = blockIdx.x * kThreads + threadIdx.x, x = in[g];
  inc[g] = cg::inclusive_scan(tile, x);
  exc[g] = cg::exclusive_scan(tile, x, cg::plus<int>());
  down[g] = tile.shfl_down(x, 1);
  int any = tile.any(x > 900), all = tile.all(x >= 0);
  if (tile.thread_rank() == 0) votes[g / 16] = any * 2 + all;
}

__global__ void MemcpyAsync(const int *in, int *out) {
  cg::thread_block block = cg::this_thread_block();
  __shared__ int buf[kThreads];
  cg::memcpy_async(block, buf, in + blockIdx.x * kThreads, sizeof(int) * kThreads);
  cg::wait(block);
  int t = threadIdx.x;
  out[blockIdx.x * kThreads + t] = buf[(t + 37) % kThreads] - buf[t];
}

__global__ void Coalesced(const int *in, int *counter, int *slots) {
  int g = blockIdx.x * kThreads + threadIdx.x;
  if (in[g] & 1) {
    cg::coalesced_group active = cg::coalesced_threads();
    int base = 0;
    if (active.thread_rank() == 0) base = atomicAdd(counter, static_cast<int>(active.size()));
    base = active.shfl(base, 0);
    slots[base + active.thread_rank()] = g;
  }
}

template <typename T>
static T *Up(const std::vector<T> &h) {
  T *p;
  CK(cudaMalloc(&p, h.size() * sizeof(T)));
  CK(cudaMemcpy(p, h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice));
  return p;
}
template <typename T>
static std::vector<T> Down(const T *p, size_t n) {
  std::vector<T> h(n);
  CK(cudaMemcpy(h.data(), p, n * sizeof(T), cudaMemcpyDeviceToHost));
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

static std::vector<int> Input() {
  std::vector<int> h(kN);
  unsigned s = 12345;
  for (int &x : h) { s = s * 1664525u + 1013904223u; x = (s >> 8) % 1000; }
  return h;
}

static bool GridSync() {
  const int phases = 3;
  std::vector<int> h = Input();
  int *a = Up(h), *b = Up(std::vector<int>(kN));
  void *args[] = {&a, &b, const_cast<int *>(&phases)};
  CK(cudaLaunchCooperativeKernel((void *)Stencil, dim3(kBlocks), dim3(kThreads), args, 0, 0));
  CK(cudaDeviceSynchronize());
  std::vector<int> w = h, t(kN);
  for (int p = 0; p < phases; ++p) {
    for (int i = 0; i < kN; ++i) t[i] = (w[(i + kN - 1) % kN] + w[i] + w[(i + 1) % kN]) % 1000;
    w.swap(t);
  }
  return Same("grid_sync stencil", Down(phases % 2 ? b : a, kN), w);
}

static bool TileReduceCheck() {
  std::vector<int> h = Input();
  int *in = Up(h), *out = Up(std::vector<int>(kBlocks)), *ex = Up(std::vector<int>(kN));
  TileReduce<<<kBlocks, kThreads>>>(in, out, ex);
  CK(cudaDeviceSynchronize());
  std::vector<int> wo(kBlocks, 0), we(kN);
  for (int i = 0; i < kN; ++i) {
    wo[i / kThreads] += h[i];
    we[i] = 3 * h[(i / 8) * 8 + (i % 8 + 1) % 8];
  }
  return Same("tile reduce", Down(out, kBlocks), wo) && Same("tile8 exchange", Down(ex, kN), we);
}

static bool TileScanCheck() {
  std::vector<int> h = Input();
  int *in = Up(h), *inc = Up(std::vector<int>(kN)), *exc = Up(std::vector<int>(kN)),
      *down = Up(std::vector<int>(kN)), *votes = Up(std::vector<int>(kN / 16));
  TileScan<<<kBlocks, kThreads>>>(in, inc, exc, down, votes);
  CK(cudaDeviceSynchronize());
  std::vector<int> wi(kN), we(kN), wd(kN), wv(kN / 16);
  for (int t = 0; t < kN / 16; ++t) {
    int acc = 0, any = 0, all = 1;
    for (int k = 0; k < 16; ++k) {
      int i = t * 16 + k;
      we[i] = acc;
      acc += h[i];
      wi[i] = acc;
      wd[i] = h[k < 15 ? i + 1 : i];
      any |= h[i] > 900;
      all &= h[i] >= 0;
    }
    wv[t] = any * 2 + all;
  }
  return Same("tile inclusive_scan", Down(inc, kN), wi) && Same("tile exclusive_scan", Down(exc, kN), we) &&
         Same("tile shfl_down", Down(down, kN), wd) && Same("tile any/all", Down(votes, kN / 16), wv);
}

static bool MemcpyAsyncCheck() {
  std::vector<int> h = Input();
  int *in = Up(h), *out = Up(std::vector<int>(kN));
  MemcpyAsync<<<kBlocks, kThreads>>>(in, out);
  CK(cudaDeviceSynchronize());
  std::vector<int> w(kN);
  for (int i = 0; i < kN; ++i) {
    int b = i / kThreads, t = i % kThreads;
    w[i] = h[b * kThreads + (t + 37) % kThreads] - h[i];
  }
  return Same("memcpy_async", Down(out, kN), w);
}

static bool CoalescedCheck() {
  std::vector<int> h = Input();
  int *in = Up(h), *counter = Up(std::vector<int>(1)), *slots = Up(std::vector<int>(kN, -1));
  Coalesced<<<kBlocks, kThreads>>>(in, counter, slots);
  CK(cudaDeviceSynchronize());
  int n = Down(counter, 1)[0];
  std::vector<int> got = Down(slots, kN), seen(kN, 0);
  int want = 0;
  for (int x : h) want += x & 1;
  if (n != want) { std::printf("FAIL coalesced: %d selected, want %d\n", n, want); return false; }
  for (int k = 0; k < n; ++k) {
    int g = got[k];
    if (g < 0 || g >= kN || !(h[g] & 1) || seen[g]++) { std::printf("FAIL coalesced: slot %d = %d\n", k, g); return false; }
  }
  return true;
}

struct Algo {
  const char *name;
  bool (*run)();
};
static const Algo kAlgos[] = {
    {"grid_sync", GridSync},       {"tile_reduce", TileReduceCheck}, {"tile_scan", TileScanCheck},
    {"memcpy_async", MemcpyAsyncCheck}, {"coalesced", CoalescedCheck},
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
