// Predicated instructions that are logged become a branch around an
// unpredicated copy (paper §4.1), so the logging calls run exactly in the
// lanes that perform the instruction:
//     @p  st.global.u32 [%rd1], %r1;
// becomes
//     @!p bra $__bcda_skip3;
//     <log before>  st.global.u32 [%rd1], %r1;  <log after>
//     $__bcda_skip3:
// The branch is the rewriter's own: it is never logged (no if/else/fi), and the
// emulator reconverges it at the label like any other branch.
#ifndef BARRACUDA_PTX_REWRITER_INSTRUMENT_PREDICATION_H_
#define BARRACUDA_PTX_REWRITER_INSTRUMENT_PREDICATION_H_

#include <string>
#include <string_view>

#include "ptx_rewriter/ir.h"

namespace barracuda::ptx {

// Label of the k-th branch-around of a function.
std::string SkipLabel(int k);
// `@!p bra label;` for guard `@p` (and `@p bra` for `@!p`).
std::string SkipBranch(const Guard& guard, std::string_view label);

}  // namespace barracuda::ptx

#endif  // BARRACUDA_PTX_REWRITER_INSTRUMENT_PREDICATION_H_
