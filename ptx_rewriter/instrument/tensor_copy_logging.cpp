// The logging of TMA tensor copies (PTX ISA "cp.async.bulk.tensor"), tiled
// mode, as ptx_emulator/ops/tensor_map_copy_ops.cpp records them:
//   cp.async.bulk.tensor.Nd.shared::{cluster,cta}.global{.tile}.mbarrier::complete_tx::bytes
//       {.cta_group::1}{.L2::cache_hint} [dstMem], [tensorMap, {c0, ...}], [mbar]{, policy}
//   cp.async.bulk.tensor.Nd.global.shared::cta{.tile}.bulk_group{.L2::cache_hint}
//       [tensorMap, {c0, ...}], [srcMem]{, policy}
//   cp.reduce.async.bulk.tensor.Nd.global.shared::cta.redOp{.tile}.bulk_group{.L2::cache_hint}
//       [tensorMap, {c0, ...}], [srcMem]{, policy}
// The box's addresses are in the tensor map, whose encoding only the driver
// knows: log_tensor finds the map's geometry in the table the agent fills
// from cuTensorMapEncodeTiled (device_logger/gpu_queue.h) and returns how
// many records it logged for the lane, which the async-record registers
// count (async_logging.cpp). The other forms (.im2col and the .tile::
// gather/scatter modes, multicast, CTA pairs) stay unchecked instructions.
#include <string>

#include "absl/status/status.h"
#include "ptx_rewriter/instrument/function_rewriter.h"

namespace barracuda::ptx::logging_pass {

namespace {

// The .Nd modifier's rank (0: none) and its index.
uint32_t RankOf(const Instruction& in, size_t& at) {
  for (size_t i = 0; i < in.modifiers.size(); ++i) {
    const std::string& m = in.modifiers[i];
    if (m.size() == 3 && m[0] == '.' && m[1] >= '1' && m[1] <= '5' && m[2] == 'd') {
      at = i;
      return static_cast<uint32_t>(m[1] - '0');
    }
  }
  return 0;
}

// [tensorMap, {c0, ...}]: a register or variable base and `rank` coordinates,
// each a register or an integer constant.
bool MapOperand(const Operand& o, uint32_t rank) {
  if (!o.is_address() || o.elements.size() != 2 || o.offset != 0) return false;
  const Operand& base = o.elements[0];
  if (!base.is_register() && !base.is_symbol()) return false;
  const Operand& coords = o.elements[1];
  if (coords.kind != Operand::Kind::kVector || coords.elements.size() != rank) return false;
  for (const Operand& c : coords.elements)
    if (!c.is_register() && c.kind != Operand::Kind::kImmediate) return false;
  return true;
}

// {o0, ...}: an .im2col load's rank - 2 offsets, 16-bit registers.
bool Im2colOffsets(const Operand& o, uint32_t rank) {
  if (o.kind != Operand::Kind::kVector || o.elements.size() + 2 != rank) return false;
  for (const Operand& e : o.elements)
    if (!e.is_register()) return false;
  return true;
}

}  // namespace

Action DecideTensorCopy(const Instruction& in) {
  size_t dim_at = 0;
  const uint32_t rank = RankOf(in, dim_at);
  if (rank == 0 || dim_at + 2 >= in.modifiers.size()) return Action::kNotCovered;
  for (const std::string& m : in.modifiers)
    if ((m.rfind(".im2col", 0) == 0 && m != ".im2col") || m.rfind(".tile::", 0) == 0 ||
        (m.rfind(".cta_group::", 0) == 0 && m != ".cta_group::1"))
      return Action::kNotCovered;
  const bool multicast = in.HasModifier(".multicast::cluster");
  const bool im2col = in.HasModifier(".im2col");
  const size_t mask_at = im2col ? 4 : 3;
  const std::string& dst = in.modifiers[dim_at + 1];
  const std::string& src = in.modifiers[dim_at + 2];
  if ((dst == ".shared::cluster" || dst == ".shared::cta") && src == ".global" &&
      in.HasModifier(".mbarrier::complete_tx::bytes") && in.operands.size() >= 3 && in.operands[0].is_address() &&
      MapOperand(in.operands[1], rank) && in.operands[2].is_address() &&
      (!im2col || (rank >= 3 && in.operands.size() >= 4 && Im2colOffsets(in.operands[3], rank))) &&
      (!multicast ||
       (dst == ".shared::cluster" && in.operands.size() > mask_at && CtaMaskOperand(in.operands[mask_at]))))
    return Action::kTensorCopy;
  if (multicast || im2col) return Action::kNotCovered;
  if (dst == ".global" && src == ".shared::cta" && in.HasModifier(".bulk_group") && in.operands.size() >= 2 &&
      MapOperand(in.operands[0], rank) && in.operands[1].is_address())
    return Action::kTensorCopy;
  return Action::kNotCovered;
}

// The map's generic address into kValue: a register holds one already (nvcc:
// cvta.param of a __grid_constant__ parameter); a .global variable named
// directly is converted (ptxas takes no other symbol there).
absl::StatusOr<std::string> FunctionRewriter::TensorMapAddress(const Instruction& in, const Operand& map) const {
  const Operand& base = map.elements[0];
  const std::string v(snippet::kValue);
  if (base.is_register()) {
    if (TypeSize(regs_.Lookup(base.text)) != 8) return Error(in, "a 64-bit tensor map address expected");
    return Cat("mov.b64 ", v, ", ", base.text, ";\n");
  }
  const VarDecl* g = module_.FindGlobal(base.text);
  if (g != nullptr && g->space == StateSpace::kGlobal) return Cat("cvta.global.u64 ", v, ", ", base.text, ";\n");
  return Error(in, "a tensor map in a register or a .global variable expected");
}

// log_tensor, then the async-record registers: a load's records (reads and
// writes) all count towards ar, before its complete_tx on the mbarrier (a
// release with kFlagAsync, as for cp.async.bulk); a store's reads, then
// br = ar, its writes, be = ar (the open bulk group, as BulkStore); a
// reduction's reads alone (its element atomics are not async records).
absl::Status FunctionRewriter::TensorCopy(const Instruction& in, size_t stmt, std::string& before) const {
  size_t dim_at = 0;
  const uint32_t rank = RankOf(in, dim_at);
  const bool load = in.modifiers[dim_at + 2] == ".global";
  const bool reduce = !in.modifiers.empty() && in.modifiers[0] == ".reduce";
  const bool multicast = in.HasModifier(".multicast::cluster");
  const bool im2col = in.HasModifier(".im2col");
  const Operand& map = in.operands[load ? 1 : 0];
  const Operand& shared = in.operands[load ? 0 : 1];
  const abi::InstSpace shared_space =
      in.modifiers[dim_at + (load ? 1 : 2)] == ".shared::cluster" ? abi::InstSpace::kSharedCluster
                                                                  : abi::InstSpace::kShared;
  auto map_text = TensorMapAddress(in, map);
  if (!map_text.ok()) return map_text.status();
  auto shared_text = AddressText(in, shared);
  if (!shared_text.ok()) return shared_text.status();
  const std::string t(snippet::kTmp32), a(snippet::kAddr), v(snippet::kValue), records(snippet::kAsyncRecords);
  before += *map_text;
  if (multicast) {
    // The mbarrier (kValueHi) and the ctaMask (kDiverged): the logger logs
    // each CTA's complete-tx itself.
    auto bar = AddressText(in, in.operands[2]);
    if (!bar.ok()) return bar.status();
    auto mask = CtaMaskText(in, in.operands[im2col ? 4 : 3]);
    if (!mask.ok()) return mask.status();
    before += *bar + Cat("mov.b64 ", snippet::kValueHi, ", ", a, ";\n") + *mask;
  }
  if (im2col) {
    // The offsets, four 16-bit lanes of kIm2colOffsets (the unused ones 0).
    std::string lanes;
    for (size_t j = 0; j < 4; ++j) {
      const std::vector<Operand>& o = in.operands[3].elements;
      lanes += Cat(j ? ", " : "", j < o.size() ? o[j].text : std::string(snippet::kTmp16));
    }
    before += Cat("mov.u16 ", snippet::kTmp16, ", 0;\nmov.b64 ", snippet::kIm2colOffsets, ", {", lanes, "};\n");
  }
  before += *shared_text;
  const uint8_t op = multicast ? abi::kTensorLoadMulticast
                     : load    ? abi::kTensorLoad
                     : reduce  ? abi::kTensorReduce
                               : abi::kTensorStore;
  const uint32_t desc = abi::PackDesc(op,
                                      proto::kFlagAsync | proto::kFlagAsyncProxy, static_cast<uint8_t>(rank),
                                      shared_space, im2col ? abi::kTensorIm2col : 0);
  std::vector<snippet::Arg> args = {Arg{32, Cat(desc)}, Arg{32, Cat(Site(stmt))}, Arg{64, v}, Arg{64, a}};
  const std::vector<Operand>& coords = map.elements[1].elements;
  for (uint32_t i = 0; i < abi::kLogTensorCoords; ++i)
    args.push_back(Arg{32, i < coords.size() ? PrintOperand(coords[i]) : std::string("0")});
  args.push_back(Arg{64, multicast ? std::string(snippet::kValueHi) : std::string("0")});
  args.push_back(Arg{32, multicast ? std::string(snippet::kDiverged) : std::string("0")});
  args.push_back(Arg{64, im2col ? std::string(snippet::kIm2colOffsets) : std::string("0")});
  before += snippet::Call(abi::kLogTensor, args, v, {}, 64);
  if (load) {
    before += Cat("cvt.u32.u64 ", t, ", ", v, ";\nadd.u32 ", records, ", ", records, ", ", t, ";\nshr.u64 ", v, ", ",
                  v, ", 32;\ncvt.u32.u64 ", t, ", ", v, ";\nadd.u32 ", records, ", ", records, ", ", t, ";\n");
    if (multicast) return absl::OkStatus();
    auto bar = AddressText(in, in.operands[2]);
    if (!bar.ok()) return bar.status();
      const uint32_t tx_desc = abi::PackDesc(static_cast<uint8_t>(proto::Op::kRelease),
                                           proto::kFlagLoad | proto::kFlagStore | proto::kFlagAsync, 8, shared_space,
                                           static_cast<uint8_t>(proto::Scope::kCta));
    before += *bar;
    before += snippet::Call(abi::kLogAccess, {Arg{32, Cat(tx_desc)}, Arg{32, Cat(Site(stmt))}, Arg{64, a}});
    return absl::OkStatus();
  }
  const std::string reads_end(snippet::kBulkReadsEnd), end(snippet::kBulkEnd);
  before += Cat("cvt.u32.u64 ", t, ", ", v, ";\nshr.u64 ", v, ", ", v, ", 32;\ncvt.u32.u64 ", reads_end, ", ", v,
                ";\nadd.u32 ", records, ", ", records, ", ", reads_end, ";\nmov.u32 ", reads_end, ", ", records,
                ";\nadd.u32 ", records, ", ", records, ", ", t, ";\nmov.u32 ", end, ", ", records, ";\n");
  return absl::OkStatus();
}

}  // namespace barracuda::ptx::logging_pass
