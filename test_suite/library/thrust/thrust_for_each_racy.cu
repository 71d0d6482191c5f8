/*@barracuda
{
  "what": "three seeded bugs in thrust::for_each functors (cub::DeviceFor: 256 threads x 2 items per block, block-striped): one item publishes a[0] that items of block 0 read; each item writes a[i] and reads a[i + n/2], which another block writes; one item per 2048 does a plain += on a shared counter instead of atomicAdd",
  "arch": 75,
  "expect": {
    "its": {"verdict": "race", "races": [
      {"kind": "RAW", "space": "global", "class": "inter-block", "lines": [41, 43]},
      {"kind": "RAW", "space": "global", "class": "inter-block", "lines": [51, 52]},
      {"kind": "RAW", "space": "global", "class": "inter-block", "lines": [60, 60]},
      {"kind": "SAME_VALUE", "space": "global", "class": "inter-block", "lines": [60, 60]}
    ]},
    "lockstep": {"verdict": "race", "races": [
      {"kind": "RAW", "space": "global", "class": "inter-block", "lines": [41, 43]},
      {"kind": "RAW", "space": "global", "class": "inter-block", "lines": [51, 52]},
      {"kind": "RAW", "space": "global", "class": "inter-block", "lines": [60, 60]},
      {"kind": "SAME_VALUE", "space": "global", "class": "inter-block", "lines": [60, 60]}
    ]}
  }
}
@*/
// Each bug is its own thrust::for_each_n launch over a counting iterator (launches on one
// stream are ordered, so the bugs do not interact). cub::DeviceFor gives each block a
// tile of 512 items, item tile_base + t and tile_base + t + 256 to thread t, so:
//   A  item n-1 (block 7) writes a[0]; items 0..63 (block 0) read it: inter-block RAW
//   B  item i writes a[i] and reads a[(i + n/2) % n], written by the item n/2 away, which
//      lies 4 tiles away (another block): inter-block RAW/WAR
//   C  items 0, 2048, 4096, 6144 (thread 0 of blocks 0, 4, 8, 12) do *count += 1 with a plain
//      load and store: inter-block RAW; the blocks all load 0, so their stores are SAME_VALUE
// A for_each functor may not depend on another element's side effects: Thrust gives no
// order between the invocations.
#include <cstdio>
#include <thrust/device_vector.h>
#include <thrust/for_each.h>
#include <thrust/iterator/counting_iterator.h>

struct PublishFromLastItem {
  int *a, *out;
  int n;
  __device__ void operator()(int i) const {
    if (i == n - 1)
      a[0] = 7;
    if (i < 64)
      out[i] = a[0] + i;
  }
};

struct HalfRotate {
  int *a, *b;
  int n;
  __device__ void operator()(int i) const {
    a[i] = i * 3;
    b[i] = a[(i + n / 2) % n];
  }
};

struct CountTileStarts {
  int *count;
  __device__ void operator()(int i) const {
    if (i % 2048 == 0)
      *count += 1;  // plain read-modify-write
  }
};

int main() {
  const int n = 4096, m = 8192;
  thrust::device_vector<int> a(n, 0), b(n, 0), out(64, 0), count(1, 0);
  thrust::counting_iterator<int> first(0);
  thrust::for_each_n(first, n, PublishFromLastItem{thrust::raw_pointer_cast(a.data()), thrust::raw_pointer_cast(out.data()), n});
  thrust::for_each_n(first, n, HalfRotate{thrust::raw_pointer_cast(a.data()), thrust::raw_pointer_cast(b.data()), n});
  thrust::for_each_n(first, m, CountTileStarts{thrust::raw_pointer_cast(count.data())});
  int o0 = out[0], b0 = b[0], c = count[0];
  std::printf("out[0] = %d (7 if ordered), b[0] = %d (%d if ordered), count = %d (4 if atomic)\n", o0, b0,
              3 * (n / 2), c);
  return 0;
}
