// host_access::Watch & co. (ptx_emulator/runtime/host_access_watch.h) with
// real page faults: what is recorded while a kernel is outstanding, and that
// the program goes on unharmed.
#include <catch2/catch.hpp>

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <thread>
#include <vector>

#include "ptx_emulator/runtime/host_access_watch.h"

namespace barracuda::cudart::host_access {
namespace {

constexpr uint64_t kPage = 4096;

struct Pages {
  explicit Pages(size_t n) : size(n * kPage) {
    base = static_cast<char*>(
        mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
    REQUIRE(base != MAP_FAILED);
    // The test's own code is "the program", not the runtime.
    SetRuntimeTextForTesting(1, 2);
  }
  ~Pages() {
    Unwatch(reinterpret_cast<uint64_t>(base));
    SetOutstanding(false);
    munmap(base, size);
  }
  char* base;
  size_t size;
};

uint64_t Addr(const void* p) { return reinterpret_cast<uint64_t>(p); }

TEST_CASE("host access watch: reads and writes while outstanding are recorded", "[runtime][host-access]") {
  Pages pages(2);
  volatile int* p = reinterpret_cast<volatile int*>(pages.base);
  p[3] = 5;  // not watched yet
  (void)Take();
  Watch(Addr(pages.base), 2 * kPage, 0x700000000000);
  { const uint64_t w = 0x700000000000 + 100; ArmReferenced(&w, 1); }
  SetOutstanding(true);
  const int v = p[3];  // a read: recorded, the page opened for reading
  CHECK(v == 5);
  p[3] = 6;            // a write to that page faults again: recorded
  p[1024 + 7] = 9;     // the second page, written
  SetOutstanding(false);
  const std::vector<Access> got = Take();
  REQUIRE(got.size() == 3);
  CHECK(got[0].device == 0x700000000000);
  CHECK(got[0].size == kPage);
  CHECK(got[0].exact == 0x700000000000 + 12);  // the faulting byte: p[3]
  CHECK_FALSE(got[0].write);
  CHECK(got[0].frames >= 1);
  CHECK(got[1].device == 0x700000000000);
  CHECK(got[1].exact == 0x700000000000 + 12);
  CHECK(got[1].write);
  CHECK(got[2].device == 0x700000000000 + kPage);
  CHECK(got[2].exact == 0x700000000000 + kPage + 28);
  CHECK(got[2].write);
  CHECK(p[3] == 6);
  CHECK(p[1024 + 7] == 9);
}

TEST_CASE("host access watch: nothing is recorded when no kernel is outstanding or during a pause",
          "[runtime][host-access]") {
  Pages pages(1);
  volatile int* p = reinterpret_cast<volatile int*>(pages.base);
  Watch(Addr(pages.base), kPage, Addr(pages.base));
  { const uint64_t w = Addr(pages.base); ArmReferenced(&w, 1); }
  (void)Take();
  p[0] = 1;  // nothing outstanding
  SetOutstanding(true);
  {
    Pause pause;  // the runtime at work: the pages are open
    p[1] = 2;
  }
  SetOutstanding(false);
  p[2] = 3;
  CHECK(Take().empty());
  CHECK(p[0] + p[1] + p[2] == 6);
}

TEST_CASE("host access watch: only the region's bytes on the page are the host side", "[runtime][host-access]") {
  Pages pages(1);
  volatile int* p = reinterpret_cast<volatile int*>(pages.base);
  // A region of 256 bytes from byte 512: the page is protected; an access to
  // other bytes of it opens the page without a record.
  Watch(Addr(pages.base) + 512, 256, 0x1000);
  (void)Take();
  { const uint64_t w = 0x1000; ArmReferenced(&w, 1); }
  SetOutstanding(true);
  p[0] = 1;  // outside the region
  SetOutstanding(false);
  CHECK(Take().empty());
  { const uint64_t w = 0x1000; ArmReferenced(&w, 1); }
  SetOutstanding(true);
  p[128 + 1] = 1;  // byte 516: inside
  SetOutstanding(false);
  const std::vector<Access> got = Take();
  REQUIRE(got.size() == 1);
  CHECK(got[0].device == 0x1000);
  CHECK(got[0].size == 256);
  CHECK(got[0].exact == 0x1004);  // byte 516 of the page: byte 4 of the region
  CHECK(got[0].write);
  Unwatch(Addr(pages.base) + 512);
}

TEST_CASE("host access watch: a loop over many pages is one record", "[runtime][host-access]") {
  Pages pages(8);
  Watch(Addr(pages.base), 8 * kPage, Addr(pages.base));
  (void)Take();
  { const uint64_t w = Addr(pages.base) + 5 * kPage; ArmReferenced(&w, 1); }
  SetOutstanding(true);
  volatile char* c = pages.base;
  for (size_t i = 0; i < 8 * kPage; i += 64) c[i] = 1;
  SetOutstanding(false);
  const std::vector<Access> got = Take();
  REQUIRE(got.size() == 1);
  CHECK(got[0].device == Addr(pages.base));
  CHECK(got[0].size == 8 * kPage);
  CHECK(got[0].write);
}

TEST_CASE("host access watch: unwatching while protected opens the pages", "[runtime][host-access]") {
  Pages pages(1);
  Watch(Addr(pages.base), kPage, Addr(pages.base));
  (void)Take();
  { const uint64_t w = Addr(pages.base); ArmReferenced(&w, 1); }
  SetOutstanding(true);
  Unwatch(Addr(pages.base));
  volatile int* p = reinterpret_cast<volatile int*>(pages.base);
  p[0] = 4;  // no longer watched: no fault handled, no record
  SetOutstanding(false);
  CHECK(Take().empty());
  CHECK(p[0] == 4);
}

TEST_CASE("host access watch: only regions a launch was passed are protected until the host synchronises",
          "[runtime][host-access]") {
  Pages pages(3);
  const uint64_t a = Addr(pages.base), b = a + kPage, m = a + 2 * kPage;
  Watch(a, kPage, a);
  Watch(b, kPage, b);
  Watch(m, kPage, m, /*always=*/true);  // a __managed__ variable
  (void)Take();
  { const uint64_t w[2] = {7, a + 40}; ArmReferenced(w, 2); }  // a launch passed a pointer into a
  SetOutstanding(true);
  // A system call into b, which no outstanding kernel was given, works (a
  // protected page would make it fail with EFAULT).
  int fds[2];
  REQUIRE(pipe(fds) == 0);
  REQUIRE(write(fds[1], "abcd", 4) == 4);
  CHECK(read(fds[0], pages.base + kPage, 4) == 4);
  close(fds[0]);
  close(fds[1]);
  volatile char* c = pages.base;
  c[5] = 1;             // a: watched
  c[2 * kPage + 1] = 1;  // the managed variable: always watched
  SetOutstanding(false);
  std::vector<Access> got = Take();
  REQUIRE(got.size() == 2);
  CHECK(got[0].device == a);
  CHECK(got[1].device == m);
  // After the host synchronised, a is disarmed: the next kernel arms afresh.
  SetOutstanding(true);
  c[6] = 1;
  c[2 * kPage + 2] = 1;
  SetOutstanding(false);
  got = Take();
  REQUIRE(got.size() == 1);
  CHECK(got[0].device == m);
  Unwatch(b);
  Unwatch(m);
}

TEST_CASE("host access watch: an asynchronous copy arms the regions its bytes overlap",
          "[runtime][host-access]") {
  Pages pages(3);
  const uint64_t a = Addr(pages.base), b = a + kPage, c = a + 2 * kPage;
  // Device addresses differ from host ones (a cudaHostRegister'd range's alias).
  const uint64_t dev = 0x700000100000;
  Watch(a, kPage, dev);
  Watch(b, kPage, dev + kPage);
  Watch(c, kPage, dev + 2 * kPage);
  (void)Take();
  CHECK_FALSE(ArmRange(0x10000, 64));      // device memory only: nothing watched
  CHECK_FALSE(ArmRange(dev + 3 * kPage, 8));  // just past the last region
  CHECK(ArmRange(dev + kPage - 8, 16));    // straddles a and b
  CHECK_FALSE(ArmRange(dev + 100, 0));     // an empty range touches nothing
  SetOutstanding(true);
  volatile char* p = pages.base;
  const char r = p[10];  // a: armed, a read
  (void)r;
  p[kPage + 3] = 1;      // b: armed, a write
  p[2 * kPage + 3] = 1;  // c: not armed, not watched
  SetOutstanding(false);
  std::vector<Access> got = Take();
  REQUIRE(got.size() == 2);
  CHECK(got[0].device == dev);
  CHECK_FALSE(got[0].write);
  CHECK(got[1].device == dev + kPage);
  CHECK(got[1].write);
  // The host synchronised: the copy's regions are disarmed.
  SetOutstanding(true);
  p[11] = 1;
  SetOutstanding(false);
  CHECK(Take().empty());
  // Arming while protected protects at once (a copy issued while a kernel runs).
  SetOutstanding(true);
  CHECK(ArmRange(dev + 2 * kPage, 4));
  p[2 * kPage + 4] = 2;
  SetOutstanding(false);
  got = Take();
  REQUIRE(got.size() == 1);
  CHECK(got[0].device == dev + 2 * kPage);
  CHECK(p[2 * kPage + 4] == 2);
  Unwatch(b);
  Unwatch(c);
}

TEST_CASE("host access watch: a host function's accesses to any watched region are recorded and marked",
          "[runtime][host-access]") {
  Pages pages(2);
  volatile int* p = reinterpret_cast<volatile int*>(pages.base);
  // Two regions, neither armed, nothing outstanding: a host function may run
  // beside work issued later, so both are protected while it runs.
  Watch(Addr(pages.base), kPage, 0x710000000000);
  Watch(Addr(pages.base) + kPage, kPage, 0x720000000000);
  (void)Take();
  p[2] = 1;  // the host thread, nothing outstanding: open
  {
    Pause pause;  // a graph launch's pause does not open the pages for its host nodes
    HostFunctionScope scope;
    REQUIRE(scope.active());
    {
      HostFunctionScope nested;  // one at a time
      CHECK_FALSE(nested.active());
    }
    p[3] = 4;             // written by the host function
    const int v = p[1024];  // read by it
    CHECK(v == 0);
  }
  p[1024 + 1] = 5;  // after it: open again
  {
    // A second host function on another thread while one runs: not checked,
    // and its accesses are not taken for the host's own either.
    HostFunctionScope scope;
    std::thread other([&] {
      HostFunctionScope unchecked;
      CHECK_FALSE(unchecked.active());
      p[1024 + 2] = 6;
    });
    other.join();
  }
  const std::vector<Access> got = Take();
  REQUIRE(got.size() == 2);
  CHECK(got[0].host_function);
  CHECK(got[0].write);
  CHECK(got[0].exact == 0x710000000000 + 12);
  CHECK(got[1].host_function);
  CHECK_FALSE(got[1].write);
  CHECK(got[1].device == 0x720000000000);
  CHECK(p[3] == 4);
  CHECK(p[1024 + 1] == 5);
  Unwatch(Addr(pages.base) + kPage);
}

TEST_CASE("host access watch: the host thread's faults while it is outstanding are not a host function's",
          "[runtime][host-access]") {
  Pages pages(1);
  volatile int* p = reinterpret_cast<volatile int*>(pages.base);
  Watch(Addr(pages.base), kPage, 0x730000000000);
  { const uint64_t w = 0x730000000000; ArmReferenced(&w, 1); }
  (void)Take();
  SetOutstanding(true);
  p[0] = 1;
  SetOutstanding(false);
  const std::vector<Access> got = Take();
  REQUIRE(got.size() == 1);
  CHECK_FALSE(got[0].host_function);
}

}  // namespace
}  // namespace barracuda::cudart::host_access
