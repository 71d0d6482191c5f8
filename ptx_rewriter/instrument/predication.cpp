#include "ptx_rewriter/instrument/predication.h"

#include "ptx_rewriter/text_concat.h"

namespace barracuda::ptx {

std::string SkipLabel(int k) { return Cat("$__bcda_skip", k); }

std::string SkipBranch(const Guard& guard, std::string_view label) {
  return Cat("@", guard.negated ? "" : "!", guard.reg, " bra ", label, ";\n");
}

}  // namespace barracuda::ptx
