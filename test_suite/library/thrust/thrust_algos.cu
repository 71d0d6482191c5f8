/*@barracuda
{
  "what": "Thrust algorithms on the device (one per command-line argument), inputs large enough for CUB's multi-tile decoupled look-back and onesweep paths; self-checked against the host",
  "arch": 75,
  "args": ["sort", "sort_by_key", "stable_sort", "unique", "unique_by_key", "reduce_by_key", "inclusive_scan", "exclusive_scan", "copy_if", "partition", "merge", "set_ops", "transform_reduce", "count", "min_element"],
  "expect": {
    "its": {"verdict": "no-race", "races": []},
    "lockstep": {"verdict": "no-race", "races": []}
  },
  "expect_by_arg": {
    "unique": {
      "its": {"verdict": "no-race", "races": [{"kind": "DEPENDENCY_ORDERED", "space": "global", "class": "inter-block", "lines": [260, 55], "files": ["cccl/cub/thread/thread_load.cuh", "cccl/thrust/system/cuda/detail/assign_value.h"]}]},
      "lockstep": {"verdict": "no-race", "races": [{"kind": "DEPENDENCY_ORDERED", "space": "global", "class": "inter-block", "lines": [260, 55], "files": ["cccl/cub/thread/thread_load.cuh", "cccl/thrust/system/cuda/detail/assign_value.h"]}]}
    },
    "unique_by_key": {
      "its": {"verdict": "no-race", "races": [{"kind": "DEPENDENCY_ORDERED", "space": "global", "class": "inter-block", "lines": [60, 55], "files": ["cccl/thrust/system/cuda/detail/get_value.h", "cccl/thrust/system/cuda/detail/assign_value.h"]}]},
      "lockstep": {"verdict": "no-race", "races": [{"kind": "DEPENDENCY_ORDERED", "space": "global", "class": "inter-block", "lines": [60, 55], "files": ["cccl/thrust/system/cuda/detail/get_value.h", "cccl/thrust/system/cuda/detail/assign_value.h"]}]}
    }
  }
}
@*/
// thrust_algos ALGO [N]: runs one Thrust algorithm on N generated ints (default per
// algorithm below), checks the result against the same computation on the host and
// prints PASS (exit 0) or FAIL (exit 1). ALGO "list" prints the algorithm names.
// Every algorithm is data-race-free under the PTX memory model: CUB's look-back tile
// status words are st.relaxed.gpu / ld.relaxed.gpu (strong, morally strong: no race on
// them). In-place unique / unique_by_key: a block's tile loads and a later block's
// compacted stores into that tile are ordered only by the relaxed look-back chain (no
// gpu-scope fence; a data and an address dependency carry it), which the model does
// not promise: barracuda reports them as DEPENDENCY_ORDERED warnings, not races.
// All of Thrust's own temporary storage is ordered by the stream.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <numeric>
#include <string>
#include <vector>

#include <thrust/count.h>
#include <thrust/copy.h>
#include <thrust/device_vector.h>
#include <thrust/execution_policy.h>
#include <thrust/extrema.h>
#include <thrust/functional.h>
#include <thrust/host_vector.h>
#include <thrust/merge.h>
#include <thrust/partition.h>
#include <thrust/reduce.h>
#include <thrust/scan.h>
#include <thrust/set_operations.h>
#include <thrust/sort.h>
#include <thrust/transform_reduce.h>
#include <thrust/unique.h>

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

static HV ToHost(const thrust::device_vector<int> &d) {
  HV h(d.size());
  thrust::copy(d.begin(), d.end(), h.begin());
  return h;
}

static bool Same(const char *what, const HV &got, const HV &want) {
  if (got.size() != want.size()) {
    std::printf("FAIL %s: size %zu, want %zu\n", what, got.size(), want.size());
    return false;
  }
  for (size_t i = 0; i < got.size(); ++i)
    if (got[i] != want[i]) {
      std::printf("FAIL %s: [%zu] = %d, want %d\n", what, i, got[i], want[i]);
      return false;
    }
  return true;
}

struct IsOdd {
  __host__ __device__ bool operator()(int x) const { return (x & 1) != 0; }
};
struct Square {
  __host__ __device__ long long operator()(int x) const { return static_cast<long long>(x) * x; }
};
struct AbsLess {  // a comparator Thrust cannot radix-sort with: forces the merge sort
  __host__ __device__ bool operator()(int a, int b) const {
    int ua = a < 0 ? -a : a, ub = b < 0 ? -b : b;
    return ua < ub;
  }
};

static bool Sort(int n) {
  HV h = Generate(n, 1, 1 << 30);
  thrust::device_vector<int> d(h.begin(), h.end());
  thrust::sort(d.begin(), d.end());
  std::sort(h.begin(), h.end());
  return Same("sort", ToHost(d), h);
}

static bool SortByKey(int n) {
  HV k = Generate(n, 2, 1000), v(n);
  std::iota(v.begin(), v.end(), 0);
  thrust::device_vector<int> dk(k.begin(), k.end()), dv(v.begin(), v.end());
  thrust::sort_by_key(dk.begin(), dk.end(), dv.begin());
  // Radix sort is stable: the values of equal keys stay in input order.
  std::vector<std::pair<int, int>> p(n);
  for (int i = 0; i < n; ++i) p[i] = {k[i], v[i]};
  std::stable_sort(p.begin(), p.end(), [](auto a, auto b) { return a.first < b.first; });
  for (int i = 0; i < n; ++i) { k[i] = p[i].first; v[i] = p[i].second; }
  return Same("sort_by_key keys", ToHost(dk), k) && Same("sort_by_key values", ToHost(dv), v);
}

static bool StableSort(int n) {
  HV h = Generate(n, 3, 5000);
  thrust::device_vector<int> d(h.begin(), h.end());
  thrust::stable_sort(d.begin(), d.end(), AbsLess());
  std::stable_sort(h.begin(), h.end(), AbsLess());
  return Same("stable_sort", ToHost(d), h);
}

static bool Unique(int n) {
  HV h = Generate(n, 4, 3);  // many runs of equal neighbours
  thrust::device_vector<int> d(h.begin(), h.end());
  auto end = thrust::unique(d.begin(), d.end());
  d.resize(end - d.begin());
  h.erase(std::unique(h.begin(), h.end()), h.end());
  return Same("unique", ToHost(d), h);
}

static bool UniqueByKey(int n) {
  HV k = Generate(n, 5, 3), v = Generate(n, 6, 1000);
  thrust::device_vector<int> dk(k.begin(), k.end()), dv(v.begin(), v.end());
  auto ends = thrust::unique_by_key(dk.begin(), dk.end(), dv.begin());
  dk.resize(ends.first - dk.begin());
  dv.resize(ends.second - dv.begin());
  HV wk, wv;
  for (int i = 0; i < n; ++i)
    if (i == 0 || k[i] != k[i - 1]) { wk.push_back(k[i]); wv.push_back(v[i]); }
  return Same("unique_by_key keys", ToHost(dk), wk) && Same("unique_by_key values", ToHost(dv), wv);
}

static bool ReduceByKey(int n) {
  HV k = Generate(n, 7, 4), v = Generate(n, 8, 100);
  thrust::device_vector<int> dk(k.begin(), k.end()), dv(v.begin(), v.end());
  thrust::device_vector<int> ok(n), ov(n);
  auto ends = thrust::reduce_by_key(dk.begin(), dk.end(), dv.begin(), ok.begin(), ov.begin());
  ok.resize(ends.first - ok.begin());
  ov.resize(ends.second - ov.begin());
  HV wk, wv;
  for (int i = 0; i < n; ++i) {
    if (i == 0 || k[i] != k[i - 1]) { wk.push_back(k[i]); wv.push_back(0); }
    wv.back() += v[i];
  }
  return Same("reduce_by_key keys", ToHost(ok), wk) && Same("reduce_by_key values", ToHost(ov), wv);
}

static bool InclusiveScan(int n) {
  HV h = Generate(n, 9, 100);
  thrust::device_vector<int> d(h.begin(), h.end()), o(n);
  thrust::inclusive_scan(d.begin(), d.end(), o.begin());
  std::partial_sum(h.begin(), h.end(), h.begin());
  return Same("inclusive_scan", ToHost(o), h);
}

static bool ExclusiveScan(int n) {
  HV h = Generate(n, 10, 100);
  thrust::device_vector<int> d(h.begin(), h.end());
  thrust::exclusive_scan(d.begin(), d.end(), d.begin(), 7);  // in place
  HV w(n);
  int acc = 7;
  for (int i = 0; i < n; ++i) { w[i] = acc; acc += h[i]; }
  return Same("exclusive_scan", ToHost(d), w);
}

static bool CopyIf(int n) {
  HV h = Generate(n, 11, 1000);
  thrust::device_vector<int> d(h.begin(), h.end()), o(n);
  auto end = thrust::copy_if(d.begin(), d.end(), o.begin(), IsOdd());
  o.resize(end - o.begin());
  HV w;
  std::copy_if(h.begin(), h.end(), std::back_inserter(w), IsOdd());
  return Same("copy_if", ToHost(o), w);
}

static bool Partition(int n) {
  HV h = Generate(n, 12, 1000);
  thrust::device_vector<int> d(h.begin(), h.end());
  auto mid = thrust::stable_partition(d.begin(), d.end(), IsOdd());
  std::stable_partition(h.begin(), h.end(), IsOdd());
  if (mid - d.begin() != std::count_if(h.begin(), h.end(), IsOdd())) {
    std::printf("FAIL partition: split point %ld\n", static_cast<long>(mid - d.begin()));
    return false;
  }
  return Same("stable_partition", ToHost(d), h);
}

static bool Merge(int n) {
  HV a = Generate(n / 2, 13, 100000), b = Generate(n - n / 2, 14, 100000);
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  thrust::device_vector<int> da(a.begin(), a.end()), db(b.begin(), b.end()), o(n);
  thrust::merge(da.begin(), da.end(), db.begin(), db.end(), o.begin());
  HV w(n);
  std::merge(a.begin(), a.end(), b.begin(), b.end(), w.begin());
  return Same("merge", ToHost(o), w);
}

static bool SetOps(int n) {
  HV a = Generate(n / 2, 15, n), b = Generate(n - n / 2, 16, n);
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  thrust::device_vector<int> da(a.begin(), a.end()), db(b.begin(), b.end()), u(n), x(n);
  auto ue = thrust::set_union(da.begin(), da.end(), db.begin(), db.end(), u.begin());
  auto xe = thrust::set_intersection(da.begin(), da.end(), db.begin(), db.end(), x.begin());
  u.resize(ue - u.begin());
  x.resize(xe - x.begin());
  HV wu, wx;
  std::set_union(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(wu));
  std::set_intersection(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(wx));
  return Same("set_union", ToHost(u), wu) && Same("set_intersection", ToHost(x), wx);
}

static bool TransformReduce(int n) {
  HV h = Generate(n, 17, 2000);
  thrust::device_vector<int> d(h.begin(), h.end());
  long long got = thrust::transform_reduce(d.begin(), d.end(), Square(), 0LL, thrust::plus<long long>());
  long long want = 0;
  for (int x : h) want += Square()(x);
  if (got != want) { std::printf("FAIL transform_reduce: %lld, want %lld\n", got, want); return false; }
  return true;
}

static bool Count(int n) {
  HV h = Generate(n, 18, 10);
  thrust::device_vector<int> d(h.begin(), h.end());
  long got = thrust::count(d.begin(), d.end(), 3);
  long got_if = thrust::count_if(d.begin(), d.end(), IsOdd());
  long want = std::count(h.begin(), h.end(), 3), want_if = std::count_if(h.begin(), h.end(), IsOdd());
  if (got != want || got_if != want_if) {
    std::printf("FAIL count: %ld %ld, want %ld %ld\n", got, got_if, want, want_if);
    return false;
  }
  return true;
}

static bool MinElement(int n) {
  HV h = Generate(n, 19, 1 << 20);
  h[n * 2 / 3] = -(1 << 21);  // unique minimum in a late tile
  thrust::device_vector<int> d(h.begin(), h.end());
  auto it = thrust::min_element(d.begin(), d.end());
  auto mm = thrust::minmax_element(d.begin(), d.end());
  long pos = it - d.begin(), mpos = mm.first - d.begin();
  long want = std::min_element(h.begin(), h.end()) - h.begin();
  long wmax = std::max_element(h.begin(), h.end()) - h.begin();
  if (pos != want || mpos != want || mm.second - d.begin() != wmax) {
    std::printf("FAIL min_element: %ld %ld %ld, want %ld %ld\n", pos, mpos,
                static_cast<long>(mm.second - d.begin()), want, wmax);
    return false;
  }
  return true;
}

struct Algo {
  const char *name;
  bool (*run)(int);
  int n;  // default input size
};
static const Algo kAlgos[] = {
    {"sort", Sort, 20000},
    {"sort_by_key", SortByKey, 20000},
    {"stable_sort", StableSort, 20000},
    {"unique", Unique, 40000},
    {"unique_by_key", UniqueByKey, 40000},
    {"reduce_by_key", ReduceByKey, 40000},
    {"inclusive_scan", InclusiveScan, 40000},
    {"exclusive_scan", ExclusiveScan, 40000},
    {"copy_if", CopyIf, 40000},
    {"partition", Partition, 40000},
    {"merge", Merge, 40000},
    {"set_ops", SetOps, 40000},
    {"transform_reduce", TransformReduce, 40000},
    {"count", Count, 40000},
    {"min_element", MinElement, 40000},
};

int main(int argc, char **argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s ALGO [N]   (ALGO: list for the names)\n", argv[0]);
    return 2;
  }
  for (const Algo &a : kAlgos) {
    if (std::strcmp(argv[1], "list") == 0) { std::printf("%s %d\n", a.name, a.n); continue; }
    if (std::strcmp(argv[1], a.name) != 0) continue;
    int n = argc > 2 ? std::atoi(argv[2]) : a.n;
    bool ok;
    try {
      ok = a.run(n);
    } catch (const std::exception &e) {
      std::printf("CUDA error: %s\n", e.what());
      return 2;
    }
    if (!ok) return 1;
    std::printf("PASS %s n=%d\n", a.name, n);
    return 0;
  }
  if (std::strcmp(argv[1], "list") == 0) return 0;
  std::fprintf(stderr, "unknown algorithm %s\n", argv[1]);
  return 2;
}
