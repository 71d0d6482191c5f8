// cudaHostRegister / Unregister and registered memory's queries, peer access
// on the one device, stream-ordered memory pools, cudaStreamAttachMemAsync:
// results and documented error codes through the built library.
//
// Each test leaves no registration, pool or error behind.
#include <catch2/catch.hpp>

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "ptx_emulator/runtime/cuda_api.h"

namespace {

TEST_CASE("runtime: cudaHostRegister maps host memory at a device alias", "[runtime][host_register]") {
  const size_t n = 10000;
  auto* host = static_cast<int*>(std::malloc(n * sizeof(int)));
  for (size_t i = 0; i < n; ++i) host[i] = static_cast<int>(i);
  // A neighbour on the same heap pages keeps its bytes.
  auto* neighbour = static_cast<char*>(std::malloc(64));
  std::memset(neighbour, 0x5a, 64);

  REQUIRE(cudaHostRegister(host, n * sizeof(int), cudaHostRegisterMapped | cudaHostRegisterPortable) == cudaSuccess);
  for (size_t i = 0; i < n; ++i) REQUIRE(host[i] == static_cast<int>(i));  // contents kept
  for (int i = 0; i < 64; ++i) REQUIRE(neighbour[i] == 0x5a);

  void* dev = nullptr;
  REQUIRE(cudaHostGetDevicePointer(&dev, host, 0) == cudaSuccess);
  REQUIRE(dev != nullptr);
  auto* d = static_cast<int*>(dev);
  // One memory: the alias sees host writes and the host sees alias writes.
  host[5] = -5;
  CHECK(d[5] == -5);
  d[7] = 77;
  CHECK(host[7] == 77);
  void* inner = nullptr;
  REQUIRE(cudaHostGetDevicePointer(&inner, host + 100, 0) == cudaSuccess);
  CHECK(inner == d + 100);

  unsigned flags = 0;
  REQUIRE(cudaHostGetFlags(&flags, host) == cudaSuccess);
  CHECK((flags & cudaHostAllocMapped) != 0);

  cudaPointerAttributes a{};
  REQUIRE(cudaPointerGetAttributes(&a, host + 3) == cudaSuccess);
  CHECK(a.type == cudaMemoryTypeHost);
  CHECK(a.hostPointer == host + 3);
  CHECK(a.devicePointer == d + 3);
  REQUIRE(cudaPointerGetAttributes(&a, d + 3) == cudaSuccess);
  CHECK(a.type == cudaMemoryTypeHost);
  CHECK(a.hostPointer == host + 3);
  CHECK(a.devicePointer == d + 3);

  // Copies through the device alias are device copies.
  std::vector<int> back(n);
  REQUIRE(cudaMemcpy(back.data(), dev, n * sizeof(int), cudaMemcpyDeviceToHost) == cudaSuccess);
  CHECK(back[7] == 77);
  CHECK(back[9999] == 9999);
  REQUIRE(cudaMemset(d + 1, 0, sizeof(int)) == cudaSuccess);
  CHECK(host[1] == 0);
  // The alias is not cudaFree's or cudaFreeHost's to release.
  CHECK(cudaFreeHost(dev) == cudaErrorInvalidHostPointer);
  CHECK(cudaFree(dev) == cudaErrorInvalidDevicePointer);
  cudaGetLastError();

  // Overlapping, inner and exact re-registrations.
  CHECK(cudaHostRegister(host, n * sizeof(int), 0) == cudaErrorHostMemoryAlreadyRegistered);
  CHECK(cudaHostRegister(host + 10, 16, 0) == cudaErrorHostMemoryAlreadyRegistered);
  CHECK(cudaGetLastError() == cudaErrorHostMemoryAlreadyRegistered);
  CHECK(cudaHostUnregister(host + 1) == cudaErrorHostMemoryNotRegistered);
  cudaGetLastError();

  REQUIRE(cudaHostUnregister(host) == cudaSuccess);
  CHECK(cudaHostUnregister(host) == cudaErrorHostMemoryNotRegistered);
  cudaGetLastError();
  CHECK(cudaHostGetDevicePointer(&dev, host, 0) == cudaErrorInvalidValue);
  cudaGetLastError();
  // The host memory is still the program's, contents intact.
  CHECK(host[7] == 77);
  host[8] = 8;
  CHECK(host[8] == 8);
  for (int i = 0; i < 64; ++i) REQUIRE(neighbour[i] == 0x5a);
  std::free(neighbour);
  std::free(host);
}

TEST_CASE("runtime: cudaHostRegister argument checks", "[runtime][host_register]") {
  alignas(64) static char buffer[3000];
  CHECK(cudaHostRegister(nullptr, 16, 0) == cudaErrorInvalidValue);
  CHECK(cudaHostRegister(buffer, 0, 0) == cudaErrorInvalidValue);
  CHECK(cudaHostRegister(buffer, 16, 0x100) == cudaErrorInvalidValue);
  cudaGetLastError();
  // Memory of the runtime: pinned already / device memory.
  void* pinned = nullptr;
  REQUIRE(cudaMallocHost(&pinned, 256) == cudaSuccess);
  CHECK(cudaHostRegister(pinned, 256, 0) == cudaErrorHostMemoryAlreadyRegistered);
  void* device = nullptr;
  REQUIRE(cudaMalloc(&device, 256) == cudaSuccess);
  CHECK(cudaHostRegister(device, 256, 0) == cudaErrorInvalidValue);
  cudaGetLastError();
  REQUIRE(cudaFreeHost(pinned) == cudaSuccess);
  REQUIRE(cudaFree(device) == cudaSuccess);
  // Unmapped memory.
  const long page = sysconf(_SC_PAGESIZE);
  void* hole = mmap(nullptr, page * 3, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  REQUIRE(hole != MAP_FAILED);
  munmap(static_cast<char*>(hole) + page, page);
  CHECK(cudaHostRegister(hole, page * 3, 0) == cudaErrorInvalidValue);
  cudaGetLastError();
  munmap(hole, page);
  munmap(static_cast<char*>(hole) + 2 * page, page);
  // A static array, all flags; two registrations sharing a page.
  REQUIRE(cudaHostRegister(buffer, 1000, cudaHostRegisterIoMemory) == cudaSuccess);
  REQUIRE(cudaHostRegister(buffer + 1000, 1000, cudaHostRegisterReadOnly) == cudaSuccess);
  void *d1 = nullptr, *d2 = nullptr;
  REQUIRE(cudaHostGetDevicePointer(&d1, buffer, 0) == cudaSuccess);
  REQUIRE(cudaHostGetDevicePointer(&d2, buffer + 1000, 0) == cudaSuccess);
  buffer[999] = 1;
  buffer[1000] = 2;
  CHECK(static_cast<char*>(d1)[999] == 1);
  CHECK(static_cast<char*>(d2)[0] == 2);
  REQUIRE(cudaHostUnregister(buffer) == cudaSuccess);
  static_cast<char*>(d2)[1] = 3;  // the second alias still shares the page
  CHECK(buffer[1001] == 3);
  REQUIRE(cudaHostUnregister(buffer + 1000) == cudaSuccess);
  // A shared mapping cannot be re-backed.
  void* shared = mmap(nullptr, page, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  REQUIRE(shared != MAP_FAILED);
  CHECK(cudaHostRegister(shared, 64, 0) == cudaErrorNotSupported);
  cudaGetLastError();
  munmap(shared, page);
}

TEST_CASE("runtime: peer access on one device", "[runtime][peer]") {
  int can = -1;
  REQUIRE(cudaDeviceCanAccessPeer(&can, 0, 0) == cudaSuccess);
  CHECK(can == 0);
  CHECK(cudaDeviceCanAccessPeer(&can, 0, 1) == cudaErrorInvalidDevice);
  CHECK(cudaDeviceCanAccessPeer(&can, -1, 0) == cudaErrorInvalidDevice);
  CHECK(cudaDeviceCanAccessPeer(nullptr, 0, 0) == cudaErrorInvalidValue);
  CHECK(cudaDeviceEnablePeerAccess(0, 0) == cudaErrorInvalidDevice);
  CHECK(cudaDeviceEnablePeerAccess(1, 0) == cudaErrorInvalidDevice);
  CHECK(cudaDeviceEnablePeerAccess(0, 1) == cudaErrorInvalidValue);
  CHECK(cudaDeviceDisablePeerAccess(0) == cudaErrorPeerAccessNotEnabled);
  CHECK(cudaDeviceDisablePeerAccess(3) == cudaErrorInvalidDevice);
  cudaGetLastError();

  int *a = nullptr, *b = nullptr;
  REQUIRE(cudaMalloc(&a, 64 * sizeof(int)) == cudaSuccess);
  REQUIRE(cudaMalloc(&b, 64 * sizeof(int)) == cudaSuccess);
  std::vector<int> h(64);
  for (int i = 0; i < 64; ++i) h[i] = i * 3;
  REQUIRE(cudaMemcpy(a, h.data(), 64 * sizeof(int), cudaMemcpyHostToDevice) == cudaSuccess);
  REQUIRE(cudaMemcpyPeer(b, 0, a, 0, 64 * sizeof(int)) == cudaSuccess);
  CHECK(b[63] == 189);
  CHECK(cudaMemcpyPeer(b, 1, a, 0, 4) == cudaErrorInvalidDevice);
  CHECK(cudaMemcpyPeer(h.data(), 0, a, 0, 4) == cudaErrorInvalidValue);  // not device memory
  cudaGetLastError();
  cudaStream_t s = nullptr;
  REQUIRE(cudaStreamCreate(&s) == cudaSuccess);
  REQUIRE(cudaMemsetAsync(b, 0, 64 * sizeof(int), s) == cudaSuccess);
  REQUIRE(cudaMemcpyPeerAsync(b, 0, a, 0, 32 * sizeof(int), s) == cudaSuccess);
  REQUIRE(cudaStreamSynchronize(s) == cudaSuccess);
  CHECK(b[31] == 93);
  CHECK(b[32] == 0);
  CHECK(cudaMemcpyPeerAsync(b, 0, a, 2, 4, s) == cudaErrorInvalidDevice);
  cudaGetLastError();

  cudaMemcpy3DPeerParms p{};
  p.srcPtr = make_cudaPitchedPtr(a, 16 * sizeof(int), 16, 4);
  p.dstPtr = make_cudaPitchedPtr(b, 16 * sizeof(int), 16, 4);
  p.extent = make_cudaExtent(8 * sizeof(int), 4, 1);
  REQUIRE(cudaMemcpy3DPeer(&p) == cudaSuccess);
  CHECK(b[16 * 3 + 7] == (16 * 3 + 7) * 3);
  REQUIRE(cudaMemcpy3DPeerAsync(&p, s) == cudaSuccess);
  p.dstDevice = 1;
  CHECK(cudaMemcpy3DPeer(&p) == cudaErrorInvalidDevice);
  CHECK(cudaMemcpy3DPeer(nullptr) == cudaErrorInvalidValue);
  cudaGetLastError();
  REQUIRE(cudaStreamDestroy(s) == cudaSuccess);
  REQUIRE(cudaFree(a) == cudaSuccess);
  REQUIRE(cudaFree(b) == cudaSuccess);
}

uint64_t Attr(cudaMemPool_t pool, cudaMemPoolAttr attr) {
  uint64_t v = 0;
  REQUIRE(cudaMemPoolGetAttribute(pool, attr, &v) == cudaSuccess);
  return v;
}

TEST_CASE("runtime: stream-ordered memory pools", "[runtime][mempool]") {
  cudaMemPool_t def = nullptr, cur = nullptr;
  REQUIRE(cudaDeviceGetDefaultMemPool(&def, 0) == cudaSuccess);
  REQUIRE(def != nullptr);
  REQUIRE(cudaDeviceGetMemPool(&cur, 0) == cudaSuccess);
  CHECK(cur == def);
  CHECK(cudaDeviceGetDefaultMemPool(&def, 1) == cudaErrorInvalidDevice);
  CHECK(cudaDeviceGetDefaultMemPool(nullptr, 0) == cudaErrorInvalidValue);
  CHECK(cudaMemPoolDestroy(def) == cudaErrorInvalidValue);  // the default pool stays
  cudaGetLastError();
  cudaMemLocation loc{cudaMemLocationTypeDevice, 0};
  cudaMemPool_t same = nullptr;
  REQUIRE(cudaMemGetDefaultMemPool(&same, &loc, cudaMemAllocationTypePinned) == cudaSuccess);
  CHECK(same == def);

  cudaMemPoolProps props{};
  props.allocType = cudaMemAllocationTypePinned;
  props.location = loc;
  cudaMemPool_t pool = nullptr;
  REQUIRE(cudaMemPoolCreate(&pool, &props) == cudaSuccess);
  CHECK(pool != def);
  cudaMemPoolProps bad = props;
  bad.allocType = cudaMemAllocationTypeInvalid;
  cudaMemPool_t other = nullptr;
  CHECK(cudaMemPoolCreate(&other, &bad) == cudaErrorInvalidValue);
  bad = props;
  bad.location.id = 1;
  CHECK(cudaMemPoolCreate(&other, &bad) == cudaErrorInvalidValue);
  CHECK(cudaMemPoolCreate(&other, nullptr) == cudaErrorInvalidValue);
  cudaGetLastError();

  // Attributes: defaults, settable ones, read-only ones.
  CHECK(Attr(pool, cudaMemPoolAttrReleaseThreshold) == 0);
  int flag = -1;
  REQUIRE(cudaMemPoolGetAttribute(pool, cudaMemPoolReuseAllowOpportunistic, &flag) == cudaSuccess);
  CHECK(flag == 1);
  int zero = 0;
  REQUIRE(cudaMemPoolSetAttribute(pool, cudaMemPoolReuseAllowOpportunistic, &zero) == cudaSuccess);
  REQUIRE(cudaMemPoolGetAttribute(pool, cudaMemPoolReuseAllowOpportunistic, &flag) == cudaSuccess);
  CHECK(flag == 0);
  uint64_t threshold = 1 << 20;
  REQUIRE(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &threshold) == cudaSuccess);
  uint64_t value = 5;
  CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrUsedMemCurrent, &value) == cudaErrorInvalidValue);
  CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrUsedMemHigh, &value) == cudaErrorInvalidValue);
  CHECK(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemCurrent, nullptr) == cudaErrorInvalidValue);
  cudaGetLastError();

  // Allocation from the pool; counters.
  cudaStream_t s = nullptr;
  REQUIRE(cudaStreamCreate(&s) == cudaSuccess);
  void *p1 = nullptr, *p2 = nullptr;
  REQUIRE(cudaMallocFromPoolAsync(&p1, 4096, pool, s) == cudaSuccess);
  REQUIRE(cudaMallocFromPoolAsync(&p2, 8192, pool, s) == cudaSuccess);
  REQUIRE(cudaMemsetAsync(p2, 1, 8192, s) == cudaSuccess);
  CHECK(Attr(pool, cudaMemPoolAttrUsedMemCurrent) == 12288);
  CHECK(Attr(pool, cudaMemPoolAttrUsedMemHigh) == 12288);
  CHECK(Attr(pool, cudaMemPoolAttrReservedMemCurrent) == 12288);
  cudaPointerAttributes pa{};
  REQUIRE(cudaPointerGetAttributes(&pa, p1) == cudaSuccess);
  CHECK(pa.type == cudaMemoryTypeDevice);
  REQUIRE(cudaFreeAsync(p2, s) == cudaSuccess);
  CHECK(Attr(pool, cudaMemPoolAttrUsedMemCurrent) == 4096);
  CHECK(Attr(pool, cudaMemPoolAttrUsedMemHigh) == 12288);
  CHECK(Attr(pool, cudaMemPoolAttrReservedMemCurrent) == 12288);  // kept below the threshold
  REQUIRE(cudaMemPoolTrimTo(pool, 0) == cudaSuccess);
  CHECK(Attr(pool, cudaMemPoolAttrReservedMemCurrent) == 4096);  // in use: not trimmed
  CHECK(Attr(pool, cudaMemPoolAttrReservedMemHigh) == 12288);
  value = 0;
  REQUIRE(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrUsedMemHigh, &value) == cudaSuccess);
  CHECK(Attr(pool, cudaMemPoolAttrUsedMemHigh) == 4096);
  REQUIRE(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReservedMemHigh, &value) == cudaSuccess);
  CHECK(Attr(pool, cudaMemPoolAttrReservedMemHigh) == 4096);

  // The device's current pool serves cudaMallocAsync.
  REQUIRE(cudaDeviceSetMemPool(0, pool) == cudaSuccess);
  REQUIRE(cudaDeviceGetMemPool(&cur, 0) == cudaSuccess);
  CHECK(cur == pool);
  void* p3 = nullptr;
  REQUIRE(cudaMallocAsync(&p3, 1000, s) == cudaSuccess);
  CHECK(Attr(pool, cudaMemPoolAttrUsedMemCurrent) == 5096);
  // cudaFree may free pool memory too: it goes back to its pool.
  void* freed_sync = nullptr;
  REQUIRE(cudaMallocAsync(&freed_sync, 512, s) == cudaSuccess);
  CHECK(Attr(pool, cudaMemPoolAttrUsedMemCurrent) == 5608);
  REQUIRE(cudaFree(freed_sync) == cudaSuccess);
  CHECK(Attr(pool, cudaMemPoolAttrUsedMemCurrent) == 5096);
  CHECK(cudaDeviceSetMemPool(1, pool) == cudaErrorInvalidDevice);
  CHECK(cudaDeviceSetMemPool(0, nullptr) == cudaErrorInvalidValue);
  CHECK(cudaMallocFromPoolAsync(&p3, 16, nullptr, s) == cudaErrorInvalidValue);
  cudaGetLastError();

  // Access: the owning device has read-write access, the host none.
  cudaMemAccessFlags access = cudaMemAccessFlagsProtNone;
  REQUIRE(cudaMemPoolGetAccess(&access, pool, &loc) == cudaSuccess);
  CHECK(access == cudaMemAccessFlagsProtReadWrite);
  cudaMemAccessDesc desc{loc, cudaMemAccessFlagsProtReadWrite};
  CHECK(cudaMemPoolSetAccess(pool, &desc, 1) == cudaSuccess);
  desc.flags = cudaMemAccessFlagsProtNone;
  CHECK(cudaMemPoolSetAccess(pool, &desc, 1) == cudaErrorInvalidValue);
  desc = {{cudaMemLocationTypeDevice, 1}, cudaMemAccessFlagsProtReadWrite};
  CHECK(cudaMemPoolSetAccess(pool, &desc, 1) == cudaErrorInvalidValue);
  CHECK(cudaMemPoolSetAccess(pool, nullptr, 1) == cudaErrorInvalidValue);
  cudaGetLastError();

  // Destroying the current pool: the default one is current again; the
  // outstanding allocations stay usable and freeable.
  REQUIRE(cudaMemPoolDestroy(pool) == cudaSuccess);
  REQUIRE(cudaDeviceGetMemPool(&cur, 0) == cudaSuccess);
  CHECK(cur == def);
  CHECK(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemCurrent, &value) == cudaErrorInvalidValue);
  CHECK(cudaMallocFromPoolAsync(&p2, 16, pool, s) == cudaErrorInvalidValue);
  cudaGetLastError();
  REQUIRE(cudaMemsetAsync(p3, 2, 1000, s) == cudaSuccess);
  REQUIRE(cudaFreeAsync(p1, s) == cudaSuccess);
  REQUIRE(cudaFreeAsync(p3, s) == cudaSuccess);

  // The default pool counts cudaMallocAsync's memory.
  const uint64_t before = Attr(def, cudaMemPoolAttrUsedMemCurrent);
  void* p4 = nullptr;
  REQUIRE(cudaMallocAsync(&p4, 512, s) == cudaSuccess);
  CHECK(Attr(def, cudaMemPoolAttrUsedMemCurrent) == before + 512);
  REQUIRE(cudaFreeAsync(p4, s) == cudaSuccess);
  CHECK(Attr(def, cudaMemPoolAttrUsedMemCurrent) == before);

  // maxSize caps a pool.
  props.maxSize = 1024;
  REQUIRE(cudaMemPoolCreate(&pool, &props) == cudaSuccess);
  REQUIRE(cudaMallocFromPoolAsync(&p1, 1024, pool, s) == cudaSuccess);
  CHECK(cudaMallocFromPoolAsync(&p2, 1, pool, s) == cudaErrorMemoryAllocation);
  cudaGetLastError();
  REQUIRE(cudaFreeAsync(p1, s) == cudaSuccess);
  REQUIRE(cudaMemPoolDestroy(pool) == cudaSuccess);
  REQUIRE(cudaStreamSynchronize(s) == cudaSuccess);
  REQUIRE(cudaStreamDestroy(s) == cudaSuccess);
}

TEST_CASE("runtime: cudaStreamAttachMemAsync validates and changes nothing", "[runtime][managed]") {
  int* m = nullptr;
  REQUIRE(cudaMallocManaged(&m, 1024, cudaMemAttachGlobal) == cudaSuccess);
  cudaStream_t s = nullptr;
  REQUIRE(cudaStreamCreate(&s) == cudaSuccess);
  CHECK(cudaStreamAttachMemAsync(s, m, 0, cudaMemAttachSingle) == cudaSuccess);
  CHECK(cudaStreamAttachMemAsync(s, m, 1024, cudaMemAttachHost) == cudaSuccess);
  CHECK(cudaStreamAttachMemAsync(nullptr, m, 0, cudaMemAttachGlobal) == cudaSuccess);
  CHECK(cudaStreamAttachMemAsync(nullptr, m, 0, cudaMemAttachSingle) == cudaErrorInvalidValue);
  CHECK(cudaStreamAttachMemAsync(s, m, 0, cudaMemAttachGlobal | cudaMemAttachHost) == cudaErrorInvalidValue);
  CHECK(cudaStreamAttachMemAsync(s, m, 0, 0) == cudaErrorInvalidValue);
  CHECK(cudaStreamAttachMemAsync(s, m, 512, cudaMemAttachSingle) == cudaErrorInvalidValue);  // not the whole
  CHECK(cudaStreamAttachMemAsync(s, m + 1, 0, cudaMemAttachSingle) == cudaSuccess);  // inside, length 0
  int host_value = 0;
  CHECK(cudaStreamAttachMemAsync(s, &host_value, 4, cudaMemAttachSingle) == cudaErrorInvalidValue);
  void* d = nullptr;
  REQUIRE(cudaMalloc(&d, 64) == cudaSuccess);
  CHECK(cudaStreamAttachMemAsync(s, d, 0, cudaMemAttachGlobal) == cudaErrorInvalidValue);
  CHECK(cudaStreamAttachMemAsync(reinterpret_cast<cudaStream_t>(0x1234), m, 0, cudaMemAttachGlobal) ==
        cudaErrorInvalidResourceHandle);
  cudaGetLastError();
  m[3] = 3;  // still host-accessible
  CHECK(m[3] == 3);
  REQUIRE(cudaStreamSynchronize(s) == cudaSuccess);
  REQUIRE(cudaStreamDestroy(s) == cudaSuccess);
  REQUIRE(cudaFree(d) == cudaSuccess);
  REQUIRE(cudaFree(m) == cudaSuccess);
}

}  // namespace
