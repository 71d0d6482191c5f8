// Shared checks of the control records (kIf/kElse/kFi, barriers, exits) that
// the exec tests compare as text and whose if/else/fi pairing they all verify.
#ifndef BARRACUDA_PTX_EMULATOR_TESTS_CONTROL_RECORD_CHECKS_H_
#define BARRACUDA_PTX_EMULATOR_TESTS_CONTROL_RECORD_CHECKS_H_

#include <catch2/catch.hpp>

#include <cstdio>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "device_logger/protocol.h"

namespace barracuda::emu::testing {

// "if MASK THEN", "else MASK", "fi MASK", "exit MASK", "bar MASK idN" and
// "arrive MASK idN" (with " nCOUNT" when with_count); nullopt for the others.
inline std::optional<std::string> ControlRecordText(const protocol::Record& r, bool with_count) {
  using protocol::Op;
  char buf[80];
  const Op op = protocol::OpOf(r.header);
  switch (op) {
    case Op::kIf: std::snprintf(buf, sizeof buf, "if %08x %08x", r.header.active_mask, r.branch.then_mask); break;
    case Op::kElse: std::snprintf(buf, sizeof buf, "else %08x", r.header.active_mask); break;
    case Op::kFi: std::snprintf(buf, sizeof buf, "fi %08x", r.header.active_mask); break;
    case Op::kExit: std::snprintf(buf, sizeof buf, "exit %08x", r.header.active_mask); break;
    case Op::kBarrier:
    case Op::kBarrierArrive: {
      const int n = std::snprintf(buf, sizeof buf, "%s %08x id%u", op == Op::kBarrier ? "bar" : "arrive",
                                  r.header.active_mask, r.barrier.barrier_id);
      if (with_count) std::snprintf(buf + n, sizeof buf - n, " n%u", r.barrier.thread_count);
      break;
    }
    default: return std::nullopt;
  }
  return std::string(buf);
}

// Per warp: every kIf is followed by exactly one kElse, then one kFi, properly nested.
inline void CheckIfElseFiNested(const std::vector<protocol::Record>& records) {
  using protocol::Op;
  std::map<uint32_t, std::vector<int>> open;  // warp -> stack of 0 (after if) / 1 (after else)
  for (const auto& r : records) {
    auto& st = open[r.header.warp_id];
    const Op op = protocol::OpOf(r.header);
    if (op == Op::kIf) st.push_back(0);
    if (op == Op::kElse) {
      REQUIRE((!st.empty() && st.back() == 0));
      st.back() = 1;
    }
    if (op == Op::kFi) {
      REQUIRE((!st.empty() && st.back() == 1));
      st.pop_back();
    }
  }
  for (const auto& [w, st] : open) CHECK(st.empty());
}

}  // namespace barracuda::emu::testing

#endif  // BARRACUDA_PTX_EMULATOR_TESTS_CONTROL_RECORD_CHECKS_H_
