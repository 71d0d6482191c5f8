#include "ptx_rewriter/instrument/snippets.h"

#include "device_logger/logger_abi.h"
#include "ptx_rewriter/parser.h"
#include "ptx_rewriter/text_concat.h"

namespace barracuda::ptx::snippet {

namespace abi = barracuda::logger_abi;

std::string DepthReg(int k) { return Cat("%__bcda_fc", k); }
std::string FellReg(int k) { return Cat("%__bcda_fe", k); }
std::string JoinMaskReg(int k) { return Cat("%__bcda_fm", k); }

std::string AsyncGroupReg(int k) { return Cat("%__bcda_ag", k); }

std::string AsyncPrologue(int groups) {
  std::string decls, init;
  for (std::string_view r : {kAsyncRecords, kAsyncLast, kAsyncDone, kAsyncSeen}) {
    decls += Cat(".reg .b32 ", r, ";\n");
    init += Cat("mov.u32 ", r, ", 0;\n");
  }
  if (groups > 0) decls += Cat(".reg .b32 %__bcda_ag<", groups, ">;\n");
  for (int k = 0; k < groups; ++k) init += Cat("mov.u32 ", AsyncGroupReg(k), ", 0;\n");
  return decls + init;
}

std::string BulkGroupReg(int k) { return Cat("%__bcda_bg", k); }
std::string BulkReadsGroupReg(int k) { return Cat("%__bcda_bq", k); }

std::string BulkPrologue(int groups) {
  std::string decls, init;
  for (std::string_view r : {kBulkReadsEnd, kBulkEnd}) {
    decls += Cat(".reg .b32 ", r, ";\n");
    init += Cat("mov.u32 ", r, ", 0;\n");
  }
  if (groups > 0) decls += Cat(".reg .b32 %__bcda_bg<", groups, ">;\n.reg .b32 %__bcda_bq<", groups, ">;\n");
  for (int k = 0; k < groups; ++k) init += Cat("mov.u32 ", BulkGroupReg(k), ", 0;\nmov.u32 ", BulkReadsGroupReg(k), ", 0;\n");
  return decls + init;
}

std::string ClusterTmpReg(int k) { return Cat("%__bcda_cc", k); }

std::string ClusterBarrierPrologue() {
  return Cat(".reg .b32 ", kClusterArrivals, ";\n.reg .b32 %__bcda_cc<4>;\nmov.u32 ", kClusterArrivals, ", 0;\n");
}

std::string TensorPrologue() {
  return Cat(".reg .b64 ", kTensorBase, ";\n.reg .b64 ", kTensorOffset, ";\n.reg .b32 ", kTensorX, ";\n.reg .b32 ",
             kTensorY, ";\n.reg .b32 ", kTensorLd, ";\n");
}

std::string PrologueDecls(int branch_registers) {
  std::string s = Cat(".reg .b64 ", kAddr, ";\n.reg .b64 ", kValue, ";\n.reg .b64 ", kValueHi, ";\n.reg .b32 ",
                      kTmp32, ";\n.reg .b16 ", kTmp16, ";\n.reg .pred ", kPred, ";\n.reg .b32 ", kDiverged, ";\n");
  if (branch_registers > 0) {
    s += Cat(".reg .b32 %__bcda_fc<", branch_registers, ">;\n");
    s += Cat(".reg .b32 %__bcda_fe<", branch_registers, ">;\n");
    s += Cat(".reg .b32 %__bcda_fm<", branch_registers, ">;\n");
  }
  return s;
}

std::string Call(std::string_view function, const std::vector<Arg>& args, std::string_view ret_reg,
                 std::string_view guard, int ret_bits) {
  std::string s = "{\n";
  std::string list;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string name = Cat("__bcda_p", i);
    s += Cat(".param .b", args[i].bits, " ", name, ";\n");
    s += Cat("st.param.b", args[i].bits, " [", name, "], ", args[i].value, ";\n");
    list += Cat(i ? ", " : "", name);
  }
  if (!ret_reg.empty()) s += Cat(".param .b", ret_bits, " __bcda_r;\n");
  if (!guard.empty()) s += Cat("@", guard, " ");
  s += "call ";
  if (!ret_reg.empty()) s += "(__bcda_r), ";
  s += Cat(function, ", (", list, ");\n");
  if (!ret_reg.empty()) s += Cat("ld.param.b", ret_bits, " ", ret_reg, ", [__bcda_r];\n");
  s += "}\n";
  return s;
}

std::string LoggerDeclarations() {
  return Cat(".extern .func ", abi::kLogAccess, "(.param .b32 desc, .param .b32 site, .param .b64 addr);\n",
             ".extern .func ", abi::kLogStore,
             "(.param .b32 desc, .param .b32 site, .param .b64 addr, .param .b64 value_lo, .param .b64 value_hi);\n",
             ".extern .func ", abi::kLogFence, "(.param .b32 desc, .param .b32 site);\n",
             ".extern .func ", abi::kLogBarrier,
             "(.param .b32 desc, .param .b32 site, .param .b32 barrier_id, .param .b32 thread_count);\n",
             ".extern .func ", abi::kLogWarpSync, "(.param .b32 site, .param .b32 member_mask);\n",
             ".extern .func ", abi::kRmwLock, "(.param .b64 addr, .param .b32 space);\n",
             ".extern .func ", abi::kRmwUnlock, "(.param .b64 addr, .param .b32 space);\n",
             ".extern .func (.param .b32 diverged) ", abi::kLogBranch, "(.param .b32 site, .param .b32 taken);\n",
             ".extern .func ", abi::kLogElse, "(.param .b32 site);\n",
             ".extern .func ", abi::kLogFi, "(.param .b32 site, .param .b32 depth, .param .b32 join_mask);\n",
             ".extern .func ", abi::kLogExit, "();\n",
             ".extern .func ", abi::kLogSized,
             "(.param .b32 desc, .param .b32 site, .param .b64 addr, .param .b32 size);\n",
             ".extern .func ", abi::kLogAsyncWait, "(.param .b32 site, .param .b32 count);\n",
             ".extern .func ", abi::kLogBulk,
             "(.param .b32 desc, .param .b32 site, .param .b64 src, .param .b64 dst, .param .b32 bytes);\n",
             ".extern .func ", abi::kLogBulkReduce,
             "(.param .b32 desc, .param .b32 site, .param .b64 src, .param .b64 dst, .param .b32 bytes);\n",
             ".extern .func (.param .b64 counts) ", abi::kLogTensor,
             "(.param .b32 desc, .param .b32 site, .param .b64 map, .param .b64 shared, .param .b32 c0, "
             ".param .b32 c1, .param .b32 c2, .param .b32 c3, .param .b32 c4, .param .b64 bar, .param .b32 mask, "
             ".param .b64 offsets);\n",
             ".extern .func (.param .b32 records) ", abi::kLogMulticast,
             "(.param .b32 desc, .param .b32 site, .param .b64 src, .param .b64 dst, .param .b64 bar, "
             ".param .b32 bytes, .param .b32 mask);\n");
}

namespace {
constexpr std::string_view kHeader = ".version 9.0\n.target sm_90\n.address_size 64\n";
}

absl::StatusOr<std::vector<Statement>> Parse(std::string_view text) {
  std::string module = Cat(kHeader, ".func __bcda_snippet()\n{\n", text, "\n}\n");
  auto parsed = ParseModule(module, "<instrumentation>");
  if (!parsed.ok()) return parsed.status();
  Function* f = parsed->FindFunction("__bcda_snippet");
  if (f == nullptr) return absl::InternalError("instrumentation snippet did not parse into a function");
  return std::move(f->body);
}

absl::StatusOr<std::vector<ModuleItem>> ParseItems(std::string_view text) {
  auto parsed = ParseModule(Cat(kHeader, text), "<instrumentation>");
  if (!parsed.ok()) return parsed.status();
  return std::move(parsed->items);
}

}  // namespace barracuda::ptx::snippet
