/*@barracuda
{
  "what": "CUB block- and warp-level collectives (one per command-line argument: BlockLoad/BlockStore transpose, BlockRadixSort, BlockScan raking and warp-scans, BlockReduce, BlockExchange, BlockHistogram, BlockDiscontinuity, BlockMergeSort, WarpScan, WarpReduce, WarpMergeSort), TempStorage reused only behind __syncthreads; self-checked on the host",
  "arch": 75,
  "args": ["load_sort_scan_store", "scan_tiles", "exchange_discontinuity_histogram", "merge_sort_warp"],
  "expect": {
    "its": {"verdict": "no-race", "races": []},
    "lockstep": {"verdict": "no-race", "races": []}
  }
}
@*/
// cub_block ALGO: 8 blocks of 128 threads, 4 items per thread (one 512-item tile per
// block), checked on the host; prints PASS (exit 0) or FAIL (exit 1); "list" prints the
// names. Every reuse of a TempStorage (or of a union of them) follows a __syncthreads,
// as CUB's documentation requires; warp collectives use one TempStorage per warp.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <numeric>
#include <vector>

#include <cub/cub.cuh>
#include <cuda_runtime.h>

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("CUDA error: %s (%s:%d)\n", cudaGetErrorString(e_), __FILE__, __LINE__); std::exit(2); } } while (0)

constexpr int kThreads = 128, kItems = 4, kTile = kThreads * kItems, kBlocks = 8, kN = kTile * kBlocks;
using HV = std::vector<int>;

static HV Generate(int n, unsigned seed, int mod) {
  HV v(n);
  unsigned s = seed * 2654435761u + 12345u;
  for (int i = 0; i < n; ++i) {
    s = s * 1664525u + 1013904223u;
    v[i] = static_cast<int>((s >> 8) % static_cast<unsigned>(mod));
  }
  return v;
}

struct Less {
  __device__ bool operator()(int a, int b) const { return a < b; }
};

// Loads the block's tile (transpose through shared memory), sorts it, scans it, and
// stores it back: TempStorage of load, sort, scan and store shares one union.
__global__ void LoadSortScanStore(const int *in, int *sorted, int *scanned, int *sums) {
  using Load = cub::BlockLoad<int, kThreads, kItems, cub::BLOCK_LOAD_TRANSPOSE>;
  using Store = cub::BlockStore<int, kThreads, kItems, cub::BLOCK_STORE_TRANSPOSE>;
  using Sort = cub::BlockRadixSort<int, kThreads, kItems>;
  using Scan = cub::BlockScan<int, kThreads, cub::BLOCK_SCAN_RAKING>;
  using Reduce = cub::BlockReduce<int, kThreads>;
  __shared__ union {
    typename Load::TempStorage load;
    typename Store::TempStorage store;
    typename Sort::TempStorage sort;
    typename Scan::TempStorage scan;
    typename Reduce::TempStorage reduce;
  } temp;
  int off = blockIdx.x * kTile;
  int items[kItems];
  Load(temp.load).Load(in + off, items);
  __syncthreads();
  int local = 0;
  for (int k = 0; k < kItems; ++k) local += items[k];
  Sort(temp.sort).Sort(items);  // blocked arrangement, ascending
  __syncthreads();
  int prefix[kItems], total;
  Scan(temp.scan).InclusiveSum(items, prefix, total);
  __syncthreads();
  // BLOCK_STORE_TRANSPOSE transposes its argument in place: store the scan result
  // after the scan has consumed the sorted items
  Store(temp.store).Store(sorted + off, items);
  __syncthreads();
  Store(temp.store).Store(scanned + off, prefix);
  __syncthreads();
  int s = Reduce(temp.reduce).Sum(local);
  if (threadIdx.x == 0) sums[2 * blockIdx.x] = total, sums[2 * blockIdx.x + 1] = s;
}

// BLOCK_SCAN_WARP_SCANS exclusive scan with a block prefix callback across tiles
// (one block walks all tiles), and BLOCK_REDUCE_RAKING max.
struct Prefix {
  int running;
  __device__ int operator()(int block_aggregate) {
    int old = running;
    running += block_aggregate;
    return old;
  }
};
__global__ void ScanTiles(const int *in, int *out, int *mx) {
  using Scan = cub::BlockScan<int, kThreads, cub::BLOCK_SCAN_WARP_SCANS>;
  using Reduce = cub::BlockReduce<int, kThreads, cub::BLOCK_REDUCE_RAKING>;
  __shared__ typename Scan::TempStorage scan;
  __shared__ typename Reduce::TempStorage reduce;
  Prefix prefix{0};
  int m = 0;
  for (int tile = 0; tile < kN / kThreads; ++tile) {
    int i = tile * kThreads + threadIdx.x;
    int x = in[i], y;
    Scan(scan).ExclusiveSum(x, y, prefix);
    __syncthreads();
    out[i] = y;
    int tm = Reduce(reduce).Reduce(x, cuda::maximum<>{});
    __syncthreads();
    if (threadIdx.x == 0) m = max(m, tm);
  }
  if (threadIdx.x == 0) *mx = m;
}

// BlockExchange striped -> blocked and back, BlockDiscontinuity flags heads,
// BlockHistogram (atomic algorithm) per block.
__global__ void ExchangeFlagsHistogram(const int *in, int *blocked, int *heads, unsigned *hist) {
  using Exchange = cub::BlockExchange<int, kThreads, kItems>;
  using Disc = cub::BlockDiscontinuity<int, kThreads>;
  using Hist = cub::BlockHistogram<int, kThreads, kItems, 16, cub::BLOCK_HISTO_SORT>;
  __shared__ union {
    typename Exchange::TempStorage exchange;
    typename Disc::TempStorage disc;
    typename Hist::TempStorage hist;
  } temp;
  __shared__ unsigned bins[16];
  int off = blockIdx.x * kTile;
  int items[kItems];
  cub::LoadDirectStriped<kThreads>(threadIdx.x, in + off, items);
  Exchange(temp.exchange).StripedToBlocked(items, items);
  __syncthreads();
  cub::StoreDirectBlocked(threadIdx.x, blocked + off, items);
  int flags[kItems];
  Disc(temp.disc).FlagHeads(flags, items, cuda::std::not_equal_to<int>());
  __syncthreads();
  cub::StoreDirectBlocked(threadIdx.x, heads + off, flags);
  int small[kItems];
  for (int k = 0; k < kItems; ++k) small[k] = items[k] & 15;
  Hist(temp.hist).Histogram(small, bins);  // initialises bins itself
  __syncthreads();
  if (threadIdx.x < 16) hist[blockIdx.x * 16 + threadIdx.x] = bins[threadIdx.x];
}

// BlockMergeSort of the tile, WarpScan / WarpReduce / WarpMergeSort per warp.
__global__ void MergeAndWarps(const int *in, int *msorted, int *wscan, int *wsum, int *wsorted) {
  using Merge = cub::BlockMergeSort<int, kThreads, kItems>;
  using WScan = cub::WarpScan<int>;
  using WReduce = cub::WarpReduce<int>;
  using WSort = cub::WarpMergeSort<int, 2, 32>;
  constexpr int kWarps = kThreads / 32;
  __shared__ typename Merge::TempStorage merge;
  __shared__ typename WScan::TempStorage wscan_t[kWarps];
  __shared__ typename WReduce::TempStorage wred_t[kWarps];
  __shared__ typename WSort::TempStorage wsort_t[kWarps];
  int off = blockIdx.x * kTile;
  int items[kItems];
  cub::LoadDirectBlocked(threadIdx.x, in + off, items);
  Merge(merge).Sort(items, Less());
  cub::StoreDirectBlocked(threadIdx.x, msorted + off, items);
  int warp = threadIdx.x / 32, g = blockIdx.x * kThreads + threadIdx.x;
  int x = in[g], y;
  WScan(wscan_t[warp]).InclusiveSum(x, y);
  wscan[g] = y;
  int s = WReduce(wred_t[warp]).Sum(x);
  if (threadIdx.x % 32 == 0) wsum[blockIdx.x * kWarps + warp] = s;
  int pair[2] = {in[2 * g], in[2 * g + 1]};
  WSort(wsort_t[warp]).Sort(pair, Less());
  cub::StoreDirectBlocked(threadIdx.x % 32, wsorted + 2 * (g - threadIdx.x % 32), pair);
}

template <typename T>
static bool Same(const char *what, const std::vector<T> &got, const std::vector<T> &want) {
  for (size_t i = 0; i < want.size(); ++i)
    if (got[i] != want[i]) {
      std::printf("FAIL %s: [%zu] = %lld, want %lld\n", what, i, (long long)got[i], (long long)want[i]);
      return false;
    }
  return true;
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

static bool LoadSort(const HV &h) {
  int *in = Up(h), *sorted = Up(HV(kN)), *scanned = Up(HV(kN)), *sums = Up(HV(2 * kBlocks));
  LoadSortScanStore<<<kBlocks, kThreads>>>(in, sorted, scanned, sums);
  CK(cudaGetLastError());
  HV ws(kN), wc(kN), wt(2 * kBlocks);
  for (int b = 0; b < kBlocks; ++b) {
    std::partial_sort_copy(h.begin() + b * kTile, h.begin() + (b + 1) * kTile, ws.begin() + b * kTile,
                           ws.begin() + (b + 1) * kTile);
    std::partial_sum(ws.begin() + b * kTile, ws.begin() + (b + 1) * kTile, wc.begin() + b * kTile);
    wt[2 * b] = wt[2 * b + 1] = wc[(b + 1) * kTile - 1];
  }
  return Same("block radix sort", Down(sorted, kN), ws) && Same("block scan raking", Down(scanned, kN), wc) &&
         Same("block totals/reduce", Down(sums, 2 * kBlocks), wt);
}

static bool ScanTilesCheck(const HV &h) {
  int *in = Up(h), *out = Up(HV(kN)), *mx = Up(HV(1));
  ScanTiles<<<1, kThreads>>>(in, out, mx);
  CK(cudaGetLastError());
  HV w(kN);
  int acc = 0;
  for (int i = 0; i < kN; ++i) { w[i] = acc; acc += h[i]; }
  return Same("block scan with prefix", Down(out, kN), w) &&
         Same("block reduce raking max", Down(mx, 1), HV{*std::max_element(h.begin(), h.end())});
}

static bool ExchangeCheck(const HV &h0) {
  HV h(h0);
  for (int &x : h) x %= 4;  // runs, so that FlagHeads has something to do
  int *in = Up(h), *blocked = Up(HV(kN)), *heads = Up(HV(kN));
  unsigned *hist = Up(std::vector<unsigned>(16 * kBlocks));
  ExchangeFlagsHistogram<<<kBlocks, kThreads>>>(in, blocked, heads, hist);
  CK(cudaGetLastError());
  HV wb(kN), wh(kN);
  std::vector<unsigned> whist(16 * kBlocks, 0);
  for (int b = 0; b < kBlocks; ++b)
    for (int t = 0; t < kThreads; ++t)
      for (int k = 0; k < kItems; ++k) wb[b * kTile + t * kItems + k] = h[b * kTile + t * kItems + k];
  for (int i = 0; i < kN; ++i) {
    wh[i] = (i % kTile == 0) || wb[i] != wb[i - 1];
    ++whist[(i / kTile) * 16 + (wb[i] & 15)];
  }
  return Same("block exchange", Down(blocked, kN), wb) && Same("block discontinuity", Down(heads, kN), wh) &&
         Same("block histogram", Down(hist, 16 * kBlocks), whist);
}

static bool MergeWarpsCheck(const HV &h) {
  int *in = Up(h), *ms = Up(HV(kN)), *ws = Up(HV(kN)), *wsum = Up(HV(kN / 32)), *wsorted = Up(HV(kN));
  MergeAndWarps<<<kBlocks, kThreads>>>(in, ms, ws, wsum, wsorted);
  CK(cudaGetLastError());
  const int nt = kBlocks * kThreads;
  HV wm(h), wsc(nt), wsu(nt / 32), wso(h.begin(), h.begin() + 2 * nt);
  for (int b = 0; b < kBlocks; ++b) std::sort(wm.begin() + b * kTile, wm.begin() + (b + 1) * kTile);
  for (int w = 0; w < nt / 32; ++w) {
    std::partial_sum(h.begin() + w * 32, h.begin() + (w + 1) * 32, wsc.begin() + w * 32);
    wsu[w] = wsc[w * 32 + 31];
    std::sort(wso.begin() + w * 64, wso.begin() + (w + 1) * 64);
  }
  return Same("block merge sort", Down(ms, kN), wm) && Same("warp scan", Down(ws, nt), wsc) &&
         Same("warp reduce", Down(wsum, nt / 32), wsu) && Same("warp merge sort", Down(wsorted, 2 * nt), wso);
}

struct Algo {
  const char *name;
  bool (*run)(const HV &);
};
static const Algo kAlgos[] = {
    {"load_sort_scan_store", LoadSort},
    {"scan_tiles", ScanTilesCheck},
    {"exchange_discontinuity_histogram", ExchangeCheck},
    {"merge_sort_warp", MergeWarpsCheck},
};

int main(int argc, char **argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s ALGO   (ALGO: list for the names)\n", argv[0]);
    return 2;
  }
  bool list = std::strcmp(argv[1], "list") == 0;
  HV h = Generate(kN, 1, 1000);
  for (const Algo &a : kAlgos) {
    if (list) { std::printf("%s\n", a.name); continue; }
    if (std::strcmp(argv[1], a.name) != 0) continue;
    bool ok = a.run(h);
    CK(cudaDeviceSynchronize());
    if (!ok) return 1;
    std::printf("PASS %s\n", a.name);
    return 0;
  }
  if (list) return 0;
  std::fprintf(stderr, "unknown algorithm %s\n", argv[1]);
  return 2;
}
