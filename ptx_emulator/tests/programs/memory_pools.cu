// Stream-ordered allocation from the default pool and from a created one
// (cudaMallocFromPoolAsync), kernels on the allocations, pool attributes,
// peer copies on the one device, and cudaStreamAttachMemAsync.
#include <cstdio>
#include <cstdint>

#define CHECK(call)                                                                      \
  do {                                                                                   \
    cudaError_t e_ = (call);                                                             \
    if (e_ != cudaSuccess) {                                                             \
      std::printf("FAIL %s:%d %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorName(e_)); \
      return 1;                                                                          \
    }                                                                                    \
  } while (0)
#define EXPECT(cond)                                               \
  do {                                                             \
    if (!(cond)) {                                                 \
      std::printf("FAIL %s:%d %s\n", __FILE__, __LINE__, #cond);   \
      return 1;                                                    \
    }                                                              \
  } while (0)

__global__ void iota(int* p, int n, int base) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] = base + i;
}
__global__ void add(const int* a, const int* b, int* c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}

int main() {
  const int n = 4096;
  cudaStream_t s;
  CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));

  cudaMemPoolProps props = {};
  props.allocType = cudaMemAllocationTypePinned;
  props.location.type = cudaMemLocationTypeDevice;
  props.location.id = 0;
  cudaMemPool_t pool;
  CHECK(cudaMemPoolCreate(&pool, &props));
  uint64_t threshold = UINT64_MAX;
  CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &threshold));

  int *a, *b, *c;
  CHECK(cudaMallocAsync(reinterpret_cast<void**>(&a), n * sizeof(int), s));
  CHECK(cudaMallocFromPoolAsync(reinterpret_cast<void**>(&b), n * sizeof(int), pool, s));
  CHECK(cudaMallocFromPoolAsync(reinterpret_cast<void**>(&c), n * sizeof(int), pool, s));
  iota<<<n / 256, 256, 0, s>>>(a, n, 0);
  iota<<<n / 256, 256, 0, s>>>(b, n, 1000);
  add<<<n / 256, 256, 0, s>>>(a, b, c, n);
  int *peer;
  CHECK(cudaMallocAsync(reinterpret_cast<void**>(&peer), n * sizeof(int), s));
  CHECK(cudaMemcpyPeerAsync(peer, 0, c, 0, n * sizeof(int), s));
  static int host[4096];
  CHECK(cudaMemcpyAsync(host, peer, sizeof host, cudaMemcpyDeviceToHost, s));
  uint64_t used = 0, reserved = 0;
  CHECK(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemCurrent, &used));
  EXPECT(used == 2 * n * sizeof(int));
  CHECK(cudaFreeAsync(b, s));
  CHECK(cudaFreeAsync(c, s));
  CHECK(cudaFreeAsync(a, s));
  CHECK(cudaFreeAsync(peer, s));
  CHECK(cudaStreamSynchronize(s));
  for (int i = 0; i < n; ++i) EXPECT(host[i] == 2 * i + 1000);
  CHECK(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemCurrent, &used));
  CHECK(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReservedMemCurrent, &reserved));
  EXPECT(used == 0 && reserved == 2 * n * sizeof(int));  // kept: threshold is UINT64_MAX
  CHECK(cudaMemPoolTrimTo(pool, 0));
  CHECK(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReservedMemCurrent, &reserved));
  EXPECT(reserved == 0);
  CHECK(cudaMemPoolDestroy(pool));

  int can = -1;
  CHECK(cudaDeviceCanAccessPeer(&can, 0, 0));
  EXPECT(can == 0);
  EXPECT(cudaDeviceEnablePeerAccess(0, 0) == cudaErrorInvalidDevice);
  cudaGetLastError();

  // Managed memory attached to a stream, then used there and on the host.
  int* m;
  CHECK(cudaMallocManaged(reinterpret_cast<void**>(&m), n * sizeof(int), cudaMemAttachHost));
  CHECK(cudaStreamAttachMemAsync(s, m, 0, cudaMemAttachSingle));
  iota<<<n / 256, 256, 0, s>>>(m, n, 7);
  CHECK(cudaStreamSynchronize(s));
  EXPECT(m[n - 1] == n - 1 + 7);
  CHECK(cudaStreamAttachMemAsync(s, m, 0, cudaMemAttachGlobal));
  EXPECT(cudaStreamAttachMemAsync(0, m, 0, cudaMemAttachSingle) == cudaErrorInvalidValue);
  cudaGetLastError();
  CHECK(cudaFree(m));
  CHECK(cudaStreamDestroy(s));
  std::printf("PASS\n");
  return 0;
}
