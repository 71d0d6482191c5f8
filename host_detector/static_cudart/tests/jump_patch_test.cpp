// WriteJumps on code it can see the size of: hand-assembled functions in a
// fresh executable page (x86-64), long enough for the absolute jump, short
// enough to need a trampoline, and too short for either.
#include <sys/mman.h>

#include <catch2/catch.hpp>
#include <cstring>
#include <vector>

#include "host_detector/static_cudart/jump_patch.h"

namespace barracuda::static_cudart {
namespace {

extern "C" __attribute__((noinline)) int Redirected() { return 42; }

using Fn = int (*)();
// Hand-assembled code has no function-type prologue for clang's
// -fsanitize=function (sanitizer builds) to read: call it unchecked.
#if defined(__clang__)
__attribute__((no_sanitize("function")))
#endif
int Call(Fn f) {
  return f();
}

#if defined(__x86_64__)
TEST_CASE("jump patch: long and short functions jump to the target, tiny ones are left alone", "[static_cudart]") {
  void* page = mmap(nullptr, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  REQUIRE(page != MAP_FAILED);
  auto* code = static_cast<uint8_t*>(page);
  std::memset(code, 0x90, 4096);  // nop
  // mov $1, %eax; ret  (6 bytes) at 0 (declared 16 bytes), 32 (declared 6) and 64 (declared 3: xor %eax,%eax; ret)
  const uint8_t ret1[] = {0xb8, 0x01, 0x00, 0x00, 0x00, 0xc3};
  const uint8_t ret0[] = {0x31, 0xc0, 0xc3};
  std::memcpy(code, ret1, sizeof ret1);
  std::memcpy(code + 32, ret1, sizeof ret1);
  std::memcpy(code + 64, ret0, sizeof ret0);
  REQUIRE(mprotect(page, 4096, PROT_READ | PROT_EXEC) == 0);
  auto long_fn = reinterpret_cast<Fn>(code), short_fn = reinterpret_cast<Fn>(code + 32),
       tiny_fn = reinterpret_cast<Fn>(code + 64);
  CHECK(Call(long_fn) == 1);
  CHECK(Call(short_fn) == 1);

  const auto target = reinterpret_cast<uintptr_t>(&Redirected);
  const std::vector<JumpSite> sites = {{"long", reinterpret_cast<uintptr_t>(code), 16, target},
                                       {"short", reinterpret_cast<uintptr_t>(code + 32), 6, target},
                                       {"tiny", reinterpret_cast<uintptr_t>(code + 64), 3, target}};
  absl::StatusOr<PatchOutcome> out = WriteJumps(sites);
  REQUIRE(out.ok());
  CHECK(out->patched == 2);
  REQUIRE(out->too_small.size() == 1);
  CHECK(out->too_small[0] == "tiny");
  CHECK(code[0] == 0xff);   // jmp *0(%rip)
  CHECK(code[32] == 0xe9);  // jmp rel32 to a trampoline
  CHECK(Call(long_fn) == 42);
  CHECK(Call(short_fn) == 42);
  CHECK(Call(tiny_fn) == 0);
  // The page is executable and read-only again.
  CHECK(mprotect(page, 4096, PROT_READ | PROT_EXEC) == 0);
  munmap(page, 4096);
}
#endif

TEST_CASE("jump patch: nothing to do is fine", "[static_cudart]") {
  absl::StatusOr<PatchOutcome> out = WriteJumps({});
  REQUIRE(out.ok());
  CHECK(out->patched == 0);
}

}  // namespace
}  // namespace barracuda::static_cudart
