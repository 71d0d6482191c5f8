// PTX text for the code the passes insert, parsed back into statements.
//
// Inserted code is written as PTX text (what it is easiest to read and check
// against the ABI) and parsed once per site: a few microseconds, next to the
// parse of the module itself. Registers the snippets use are declared once per
// function (kPrologueDecls); their names start with `%__bcda_`, which nvcc
// never emits.
#ifndef BARRACUDA_PTX_REWRITER_INSTRUMENT_SNIPPETS_H_
#define BARRACUDA_PTX_REWRITER_INSTRUMENT_SNIPPETS_H_

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "ptx_rewriter/ir.h"

namespace barracuda::ptx::snippet {

inline constexpr std::string_view kAddr = "%__bcda_a";     // .b64: the access's address
inline constexpr std::string_view kValue = "%__bcda_v";    // .b64: stored bits (low half)
inline constexpr std::string_view kValueHi = "%__bcda_vh"; // .b64: high half of a .b128 store
inline constexpr std::string_view kTmp32 = "%__bcda_t32";
inline constexpr std::string_view kTmp16 = "%__bcda_t16";
inline constexpr std::string_view kPred = "%__bcda_p";
inline constexpr std::string_view kDiverged = "%__bcda_d";  // .b32: log_branch's result (a lane mask)
// Per conditional branch k: %__bcda_fc<k> (divergence depth) and %__bcda_fe<k>
// (fell through at the last divergent execution; only where needed).
std::string DepthReg(int k);
std::string FellReg(int k);
// .b32 per branch: the lanes that split at its outermost divergent execution since the
// join last ran (log_branch's mask), which the join reconverges (bar.warp.sync).
std::string JoinMaskReg(int k);

// Per-thread asynchronous-copy state (README "Asynchronous copies"), .b32,
// declared only in functions with cp.async* instructions:
inline constexpr std::string_view kAsyncRecords = "%__bcda_ar";  // async records (kFlagAsync) issued
inline constexpr std::string_view kAsyncLast = "%__bcda_al";     // ... as of the last cp.async (non-bulk)
inline constexpr std::string_view kAsyncDone = "%__bcda_ac";     // records known complete
inline constexpr std::string_view kAsyncSeen = "%__bcda_ao";     // the count last logged (kAsyncWait)
// %__bcda_ag<k>: kAsyncLast at the k-th most recent commit_group (k = 0 newest).
std::string AsyncGroupReg(int k);
// `.reg` declarations and zero initialisation of the async state.
std::string AsyncPrologue(int groups);
// Bulk async-groups (cp.async.bulk ... .bulk_group, cp.reduce.async.bulk),
// declared only in functions that have them:
inline constexpr std::string_view kBulkReadsEnd = "%__bcda_br";  // kAsyncRecords after the last bulk group copy's reads
inline constexpr std::string_view kBulkEnd = "%__bcda_be";       // ... after its last record
// %__bcda_bg<k> / %__bcda_bq<k>: kBulkEnd / kBulkReadsEnd at the k-th most
// recent cp.async.bulk.commit_group (k = 0 newest).
std::string BulkGroupReg(int k);
std::string BulkReadsGroupReg(int k);
// `.reg` declarations and zero initialisation of the bulk group state.
std::string BulkPrologue(int groups);
// barrier.cluster state (cluster_logging.cpp), declared only in functions
// that have it: the thread's arrivals so far (its phase), and temporaries.
inline constexpr std::string_view kClusterArrivals = "%__bcda_cb";
std::string ClusterTmpReg(int k);  // %__bcda_cc<k>, k < 4
std::string ClusterBarrierPrologue();
// Temporaries of the wmma address computation (declared with AsyncPrologue's
// companion TensorPrologue).
inline constexpr std::string_view kIm2colOffsets = "%__bcda_o";  // .b64: a TMA .im2col load's offsets, 4 x 16 bits
inline constexpr std::string_view kTensorBase = "%__bcda_wb";    // .b64: the instruction's address
inline constexpr std::string_view kTensorOffset = "%__bcda_wo";  // .b64: element offset
inline constexpr std::string_view kTensorX = "%__bcda_wx";       // .b32
inline constexpr std::string_view kTensorY = "%__bcda_wy";       // .b32
inline constexpr std::string_view kTensorLd = "%__bcda_wl";      // .b32: leading dimension (elements)
std::string TensorPrologue();

// `.reg` declarations of the fixed registers, plus `count` depth/fell registers.
std::string PrologueDecls(int branch_registers);

// One argument of a logging call: its width (32 or 64) and its PTX value
// (register, immediate).
struct Arg {
  int bits;
  std::string value;
};
// `{ .param ...; st.param ...; [@guard] call [(ret), ]fn, (args); [ld.param ret] }`
std::string Call(std::string_view function, const std::vector<Arg>& args, std::string_view ret_reg = {},
                 std::string_view guard = {}, int ret_bits = 32);

// The `.extern .func` declarations of every logging function.
std::string LoggerDeclarations();

// Parses `text` (statements of a function body) into statements.
absl::StatusOr<std::vector<Statement>> Parse(std::string_view text);
// Parses module-level `text` (declarations) into module items.
absl::StatusOr<std::vector<ModuleItem>> ParseItems(std::string_view text);

}  // namespace barracuda::ptx::snippet

#endif  // BARRACUDA_PTX_REWRITER_INSTRUMENT_SNIPPETS_H_
