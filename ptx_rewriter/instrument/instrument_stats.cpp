#include <cstdio>
#include <string>

#include "ptx_rewriter/instrument/instrument.h"
#include "ptx_rewriter/text_concat.h"

namespace barracuda::ptx {
namespace {
std::string Percent(uint64_t part, uint64_t whole) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f%%", whole ? 100.0 * static_cast<double>(part) / static_cast<double>(whole) : 0.0);
  return buf;
}
}  // namespace

std::string FormatStats(const InstrumentStats& s) {
  return Cat("functions: ", s.functions, "\nstatic instructions: ", s.static_instructions,
             "\ninstrumented before pruning: ", s.instrumented_before, " (",
             Percent(s.instrumented_before, s.static_instructions), ")\ninstrumented after pruning: ",
             s.instrumented_after, " (", Percent(s.instrumented_after, s.static_instructions), ")\n",
             "  accesses: ", s.accesses, "\n  fences: ", s.fences, "\n  barriers: ", s.barriers,
             "\n  warp syncs: ", s.warp_syncs, "\n  branches: ", s.branches, "\n  exits: ", s.exits,
             "\npredicated (branch around): ", s.predicated, "\nnot covered: ", s.not_covered, "\n");
}

}  // namespace barracuda::ptx
