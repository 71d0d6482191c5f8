#include <cuda/atomic>
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
namespace cg = cooperative_groups;
__managed__ int mcount = 5;
__constant__ int ctab[3][2] = {{1,2},{3,4},{5,6}};
__device__ double dglob = 2.5;
__global__ void k(int* flag, int* data, unsigned long long* u) {
  cuda::atomic_ref<int, cuda::thread_scope_device> f(*flag);
  cuda::atomic_ref<int, cuda::thread_scope_block> b(data[1]);
  cuda::atomic_ref<int, cuda::thread_scope_system> s(data[2]);
  if (threadIdx.x == 0) { data[0] = 42; f.store(1, cuda::memory_order_release); }
  while (f.load(cuda::memory_order_acquire) == 0) {}
  b.fetch_add(1, cuda::memory_order_relaxed);
  s.fetch_max(3, cuda::memory_order_seq_cst);
  int old = 0; f.compare_exchange_strong(old, 2, cuda::memory_order_acq_rel);
  atomicCAS(u, 1ull, 2ull); atomicExch(data+3, 7); atomicMin(data+4, 1); atomicInc((unsigned*)data+5, 9u);
  atomicAdd((float*)data+6, 1.0f); atomicAdd((double*)u+1, 1.0); atomicOr(data+7, 1); atomicXor(data+8, 3);
  __threadfence(); __threadfence_block(); __threadfence_system();
  cuda::atomic_thread_fence(cuda::memory_order_seq_cst, cuda::thread_scope_device);
  auto blk = cg::this_thread_block();
  auto tile = cg::tiled_partition<32>(blk);
  int r = cg::reduce(tile, data[threadIdx.x], cg::plus<int>());
  r += tile.shfl_down(r, 1) + tile.shfl_xor(r, 2) + tile.shfl_up(r,1) + tile.shfl(r, 0);
  r += __ballot_sync(0xffffffff, r > 3) + __all_sync(0xffffffff, r) + __any_sync(0xffffffff, r) + __popc(__activemask());
  blk.sync(); tile.sync(); __syncwarp();
  r += __syncthreads_count(r > 1) + __syncthreads_and(r) + __syncthreads_or(r);
  data[threadIdx.x] = r + mcount + ctab[threadIdx.x % 3][1] + (int)dglob + __ldg(data+9) + __ldcg(data+10) + __ldcs(data+11);
  __stcs(data+12, r); __stwt(data + 13, r);
  float fx = __fdividef(r, 3.0f) + __sinf(r) + sqrtf(r) + rsqrtf(r) + __expf(r) + (float)__double2int_rn(dglob) ;
  data[14] = __float2int_rz(fx) + __umulhi(r, 5) + __brev(r) + __clz(r) + __ffs(r) + __byte_perm(r, 1, 2) + __funnelshift_l(r, 1, 3);
  __nanosleep(100);
  unsigned long long c = clock64(); data[15] = (int)c + __match_any_sync(0xffffffff, r) ;
}
__global__ void grid(int* d) {
  cg::grid_group g = cg::this_grid();
  d[g.thread_rank()] = 1; g.sync();
  d[0] += d[1];
}
