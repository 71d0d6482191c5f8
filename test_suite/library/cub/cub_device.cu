/*@barracuda
{
  "what": "CUB device-wide algorithms (one per command-line argument: radix sort keys/pairs/segmented, scan, reduce, select, partition, histogram, run-length encode, segmented reduce, merge sort) on inputs spanning many tiles; self-checked against the host",
  "arch": 75,
  "args": ["radix_keys", "radix_pairs", "radix_segmented", "scan", "reduce", "select", "partition", "histogram", "run_length", "segmented_reduce", "merge_sort"],
  "gpu_path_args": ["8000"],
  "expect": {
    "its": {"verdict": "no-race", "races": []},
    "lockstep": {"verdict": "no-race", "races": []}
  }
}
@*/
// cub_device ALGO [N]: runs one cub::Device* algorithm on N generated ints with the
// two-phase temporary-storage protocol on the default stream, checks it on the host
// and prints PASS (exit 0) or FAIL (exit 1); "list" prints the names. Race-free under
// the PTX memory model: the single-pass scans (scan, select, partition, run-length
// encode) use the decoupled look-back, whose tile-status words are published with
// strong (relaxed) stores and read with strong loads (morally strong: no race); the
// onesweep radix sort's per-digit look-back works the same way; histograms combine
// with atomics; every other exchange is inside a block behind __syncthreads or across
// kernels on one stream.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <numeric>
#include <vector>

#include <cub/cub.cuh>
#include <cuda_runtime.h>

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("CUDA error: %s (%s:%d)\n", cudaGetErrorString(e_), __FILE__, __LINE__); std::exit(2); } } while (0)

using HV = std::vector<int>;

static HV Generate(int n, unsigned seed, int mod) {
  HV v(n);
  unsigned s = seed * 2654435761u + 12345u;
  for (int i = 0; i < n; ++i) {
    s = s * 1664525u + 1013904223u;
    v[i] = static_cast<int>((s >> 8) % static_cast<unsigned>(mod)) - mod / 4;
  }
  return v;
}

template <typename T>
struct Dev {  // a device copy of a host vector (or n uninitialised elements)
  T *p = nullptr;
  size_t n = 0;
  explicit Dev(size_t count) : n(count) { CK(cudaMalloc(&p, std::max<size_t>(1, n) * sizeof(T))); }
  explicit Dev(const std::vector<T> &h) : Dev(h.size()) {
    CK(cudaMemcpy(p, h.data(), n * sizeof(T), cudaMemcpyHostToDevice));
  }
  ~Dev() { cudaFree(p); }
  std::vector<T> Get(size_t count) const {
    std::vector<T> h(count);
    CK(cudaMemcpy(h.data(), p, count * sizeof(T), cudaMemcpyDeviceToHost));
    return h;
  }
  std::vector<T> Get() const { return Get(n); }
};

// CUB's two-phase protocol: size query with a null pointer, then the real call.
template <typename F>
static void Run(F f) {
  size_t bytes = 0;
  CK(f(nullptr, bytes));
  void *tmp = nullptr;
  CK(cudaMalloc(&tmp, std::max<size_t>(bytes, 1)));
  CK(f(tmp, bytes));
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  CK(cudaFree(tmp));
}

template <typename T>
static bool Same(const char *what, const std::vector<T> &got, const std::vector<T> &want) {
  if (got.size() != want.size()) {
    std::printf("FAIL %s: size %zu, want %zu\n", what, got.size(), want.size());
    return false;
  }
  for (size_t i = 0; i < got.size(); ++i)
    if (!(got[i] == want[i])) {
      std::printf("FAIL %s: [%zu] = %lld, want %lld\n", what, i, (long long)got[i], (long long)want[i]);
      return false;
    }
  return true;
}

struct IsOdd {
  __host__ __device__ bool operator()(int x) const { return (x & 1) != 0; }
};
struct Greater {
  __host__ __device__ bool operator()(int a, int b) const { return a > b; }
};

static bool RadixKeys(int n) {
  HV h = Generate(n, 1, 1 << 30);
  Dev<int> in(h), out(n);
  Run([&](void *t, size_t &b) { return cub::DeviceRadixSort::SortKeys(t, b, in.p, out.p, n); });
  std::sort(h.begin(), h.end());
  return Same("radix_keys", out.Get(), h);
}

static bool RadixPairs(int n) {
  HV k = Generate(n, 2, 1 << 16), v(n);
  std::iota(v.begin(), v.end(), 0);
  Dev<int> kin(k), kout(n), vin(v), vout(n);
  Run([&](void *t, size_t &b) {
    return cub::DeviceRadixSort::SortPairsDescending(t, b, kin.p, kout.p, vin.p, vout.p, n);
  });
  std::vector<std::pair<int, int>> p(n);
  for (int i = 0; i < n; ++i) p[i] = {k[i], v[i]};
  std::stable_sort(p.begin(), p.end(), [](auto a, auto b) { return a.first > b.first; });
  for (int i = 0; i < n; ++i) { k[i] = p[i].first; v[i] = p[i].second; }
  return Same("radix_pairs keys", kout.Get(), k) && Same("radix_pairs values", vout.Get(), v);
}

static bool RadixSegmented(int n) {
  HV h = Generate(n, 3, 100000);
  HV off;  // segments of varying length, some empty, some longer than a tile
  for (int o = 0, s = 0; o < n; o += (s * 997) % 3000, ++s) off.push_back(o);
  off.push_back(n);
  int segs = static_cast<int>(off.size()) - 1;
  Dev<int> in(h), out(n), doff(off);
  Run([&](void *t, size_t &b) {
    return cub::DeviceSegmentedRadixSort::SortKeys(t, b, in.p, out.p, n, segs, doff.p, doff.p + 1);
  });
  for (int s = 0; s < segs; ++s) std::sort(h.begin() + off[s], h.begin() + off[s + 1]);
  return Same("radix_segmented", out.Get(), h);
}

static bool Scan(int n) {
  HV h = Generate(n, 4, 100);
  Dev<int> in(h), ex(n), inc(n);
  Run([&](void *t, size_t &b) { return cub::DeviceScan::ExclusiveSum(t, b, in.p, ex.p, n); });
  Run([&](void *t, size_t &b) { return cub::DeviceScan::InclusiveScan(t, b, in.p, inc.p, cuda::maximum<>{}, n); });
  HV we(n), wi(n);
  int acc = 0, mx = h[0];
  for (int i = 0; i < n; ++i) { we[i] = acc; acc += h[i]; mx = std::max(mx, h[i]); wi[i] = mx; }
  return Same("exclusive_sum", ex.Get(), we) && Same("inclusive_max", inc.Get(), wi);
}

static bool Reduce(int n) {
  HV h = Generate(n, 5, 1 << 20);
  Dev<int> in(h), sum(1), mn(1);
  Run([&](void *t, size_t &b) { return cub::DeviceReduce::Sum(t, b, in.p, sum.p, n); });
  Run([&](void *t, size_t &b) { return cub::DeviceReduce::Min(t, b, in.p, mn.p, n); });
  HV want = {static_cast<int>(std::accumulate(h.begin(), h.end(), 0u)), *std::min_element(h.begin(), h.end())};
  return Same("reduce sum,min", HV{sum.Get()[0], mn.Get()[0]}, want);
}

static bool Select(int n) {
  HV h = Generate(n, 6, 8);
  HV flags(n);
  for (int i = 0; i < n; ++i) flags[i] = (i % 3) == 0;
  Dev<int> in(h), out(n), cnt(1), fl(flags), uout(n), ucnt(1);
  Run([&](void *t, size_t &b) { return cub::DeviceSelect::If(t, b, in.p, out.p, cnt.p, n, IsOdd()); });
  HV w;
  std::copy_if(h.begin(), h.end(), std::back_inserter(w), IsOdd());
  if (!Same("select_if", out.Get(cnt.Get()[0]), w)) return false;
  Run([&](void *t, size_t &b) { return cub::DeviceSelect::Flagged(t, b, in.p, fl.p, out.p, cnt.p, n); });
  w.clear();
  for (int i = 0; i < n; ++i) if (flags[i]) w.push_back(h[i]);
  if (!Same("select_flagged", out.Get(cnt.Get()[0]), w)) return false;
  Run([&](void *t, size_t &b) { return cub::DeviceSelect::Unique(t, b, in.p, uout.p, ucnt.p, n); });
  w = h;
  w.erase(std::unique(w.begin(), w.end()), w.end());
  return Same("select_unique", uout.Get(ucnt.Get()[0]), w);
}

static bool Partition(int n) {
  HV h = Generate(n, 7, 1000);
  Dev<int> in(h), out(n), cnt(1);
  Run([&](void *t, size_t &b) { return cub::DevicePartition::If(t, b, in.p, out.p, cnt.p, n, IsOdd()); });
  // Selected items in order at the front, rejected ones in reverse order at the back.
  HV w, rej;
  for (int x : h) (IsOdd()(x) ? w : rej).push_back(x);
  w.insert(w.end(), rej.rbegin(), rej.rend());
  return Same("partition_if", out.Get(), w);
}

static bool Histogram(int n) {
  HV h = Generate(n, 8, 1 << 12);  // values in [-1024, 3072)
  const int bins = 64;
  Dev<int> in(h), hist(bins);
  Run([&](void *t, size_t &b) {
    return cub::DeviceHistogram::HistogramEven(t, b, in.p, hist.p, bins + 1, -1024, 3072, n);
  });
  HV w(bins, 0);
  for (int x : h) ++w[(x + 1024) / 64];
  return Same("histogram_even", hist.Get(), w);
}

static bool RunLength(int n) {
  HV h = Generate(n, 9, 3);
  Dev<int> in(h), uniq(n), counts(n), runs(1);
  Run([&](void *t, size_t &b) {
    return cub::DeviceRunLengthEncode::Encode(t, b, in.p, uniq.p, counts.p, runs.p, n);
  });
  HV wu, wc;
  for (int i = 0; i < n; ++i) {
    if (i == 0 || h[i] != h[i - 1]) { wu.push_back(h[i]); wc.push_back(0); }
    ++wc.back();
  }
  int r = runs.Get()[0];
  return Same("rle unique", uniq.Get(r), wu) && Same("rle counts", counts.Get(r), wc);
}

static bool SegmentedReduce(int n) {
  HV h = Generate(n, 10, 1000);
  HV off;
  for (int o = 0, s = 0; o < n; o += (s * 613) % 2000, ++s) off.push_back(o);
  off.push_back(n);
  int segs = static_cast<int>(off.size()) - 1;
  Dev<int> in(h), out(segs), doff(off);
  Run([&](void *t, size_t &b) {
    return cub::DeviceSegmentedReduce::Sum(t, b, in.p, out.p, segs, doff.p, doff.p + 1);
  });
  HV w(segs);
  for (int s = 0; s < segs; ++s) w[s] = std::accumulate(h.begin() + off[s], h.begin() + off[s + 1], 0);
  return Same("segmented_reduce", out.Get(), w);
}

static bool MergeSort(int n) {
  HV h = Generate(n, 11, 5000);
  Dev<int> keys(h);
  Run([&](void *t, size_t &b) { return cub::DeviceMergeSort::SortKeys(t, b, keys.p, n, Greater()); });
  std::sort(h.begin(), h.end(), Greater());
  return Same("merge_sort", keys.Get(), h);
}

struct Algo {
  const char *name;
  bool (*run)(int);
  int n;
};
static const Algo kAlgos[] = {
    {"radix_keys", RadixKeys, 20000},
    {"radix_pairs", RadixPairs, 20000},
    {"radix_segmented", RadixSegmented, 20000},
    {"scan", Scan, 40000},
    {"reduce", Reduce, 40000},
    {"select", Select, 40000},
    {"partition", Partition, 40000},
    {"histogram", Histogram, 40000},
    {"run_length", RunLength, 40000},
    {"segmented_reduce", SegmentedReduce, 40000},
    {"merge_sort", MergeSort, 20000},
};

int main(int argc, char **argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s ALGO [N]   (ALGO: list for the names)\n", argv[0]);
    return 2;
  }
  bool list = std::strcmp(argv[1], "list") == 0;
  for (const Algo &a : kAlgos) {
    if (list) { std::printf("%s %d\n", a.name, a.n); continue; }
    if (std::strcmp(argv[1], a.name) != 0) continue;
    int n = argc > 2 ? std::atoi(argv[2]) : a.n;
    if (!a.run(n)) return 1;
    std::printf("PASS %s n=%d\n", a.name, n);
    return 0;
  }
  if (list) return 0;
  std::fprintf(stderr, "unknown algorithm %s\n", argv[1]);
  return 2;
}
