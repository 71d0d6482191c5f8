#include <catch2/catch.hpp>

#include <cstring>

#include "device_logger/protocol.h"

using namespace barracuda::protocol;

TEST_CASE("space and scope pack into one byte and unpack unchanged") {
  for (Space space : {Space::kGlobal, Space::kShared}) {
    for (Scope scope : {Scope::kNone, Scope::kCta, Scope::kCluster, Scope::kGpu, Scope::kSys}) {
      RecordHeader h{};
      h.space_scope = PackSpaceScope(space, scope);
      CHECK(SpaceOf(h) == space);
      CHECK(ScopeOf(h) == scope);
    }
  }
}

TEST_CASE("shared addresses carry the block and the offset") {
  uint64_t a = SharedAddress(123456, 0xbeef);
  CHECK(SharedBlock(a) == 123456u);
  CHECK(SharedOffset(a) == 0xbeefu);
}

TEST_CASE("every op has a distinct name") {
  for (int i = 0; i < static_cast<int>(Op::kCount); ++i) {
    for (int j = i + 1; j < static_cast<int>(Op::kCount); ++j) {
      CHECK(std::strcmp(OpName(static_cast<Op>(i)), OpName(static_cast<Op>(j))) != 0);
    }
  }
  CHECK(std::strcmp(OpName(Op::kCount), "?") == 0);
}

TEST_CASE("memory and synchronisation classification") {
  CHECK(IsMemoryOp(Op::kRead));
  CHECK(IsMemoryOp(Op::kAcqRel));
  CHECK_FALSE(IsMemoryOp(Op::kBarrier));
  CHECK(IsSyncOp(Op::kFence));
  CHECK_FALSE(IsSyncOp(Op::kWrite));
  CHECK(WarpsPerBlock(33) == 2u);
  CHECK(WarpsPerBlock(32) == 1u);
}
