#include "ptx_rewriter/instrument/pruning.h"

#include <string>

#include "absl/container/flat_hash_map.h"
#include "ptx_rewriter/printer.h"
#include "ptx_rewriter/site_table.h"
#include "ptx_rewriter/text_concat.h"

namespace barracuda::ptx {
namespace {

using Kind = AccessClass::Kind;

const Operand* AddressOperand(const Instruction& in) {
  for (const Operand& o : in.operands)
    if (o.is_address()) return &o;
  return nullptr;
}

// Registers an instruction may write: its first operand for every opcode
// that has a destination there.
void WrittenRegisters(const Instruction& in, std::vector<std::string>& out) {
  switch (in.op) {
    case Opcode::kSt:
    case Opcode::kRed:
    case Opcode::kBra:
    case Opcode::kBrx:
    case Opcode::kRet:
    case Opcode::kExit:
    case Opcode::kFence:
    case Opcode::kMembar:
      return;
    default:
      break;
  }
  if (in.operands.empty()) return;
  const Operand& d = in.operands[0];
  if (d.kind == Operand::Kind::kRegister) {
    out.push_back(d.text);
  } else if (d.kind == Operand::Kind::kVector || d.kind == Operand::Kind::kPredPair) {
    for (const Operand& e : d.elements)
      if (e.kind == Operand::Kind::kRegister) out.push_back(e.text);
  }
}

// Ends every pruning opportunity: synchronisation or a call.
bool IsBoundary(const Instruction& in, const AccessClass& c) {
  if (in.is_call() || in.opaque) return true;
  switch (c.kind) {
    case Kind::kAtomic:
    case Kind::kAcquire:
    case Kind::kRelease:
    case Kind::kAcqRel:
    case Kind::kFence:
      return true;
    case Kind::kRead:
    case Kind::kWrite:
      return c.is_volatile;
    case Kind::kNone:
      break;
  }
  const auto site = ClassifySite(in);
  return site && (*site == SiteKind::kFence || *site == SiteKind::kBarrier || *site == SiteKind::kWarpSync ||
                  *site == SiteKind::kAtomic || *site == SiteKind::kReduction || *site == SiteKind::kAsyncCopy);
}

}  // namespace

std::vector<bool> ComputePruned(const Function& function, const FunctionCfg& cfg,
                                const std::vector<AccessClass>& classes, const std::vector<bool>& logged) {
  std::vector<bool> pruned(function.body.size(), false);
  struct Seen {
    std::string base;  // register name ("" for a symbol or immediate base)
    bool write = false;
  };
  for (const BasicBlock& block : cfg.blocks) {
    absl::flat_hash_map<std::string, Seen> seen;  // key: space|size|shape|address text
    std::vector<std::string> written;
    for (size_t i = block.first_statement; i <= block.last_statement && i < function.body.size(); ++i) {
      const auto* in = std::get_if<Instruction>(&function.body[i]);
      if (in == nullptr) continue;
      const AccessClass& c = classes[i];
      if (logged[i] && !in->guard.present() && !in->opaque && !c.is_volatile &&
          (c.kind == Kind::kRead || c.kind == Kind::kWrite)) {
        const Operand* addr = AddressOperand(*in);
        if (addr != nullptr && addr->address_base() != nullptr) {
          const Operand& base = *addr->address_base();
          const std::string key = Cat(static_cast<int>(in->info.space), "|", TypeSize(in->info.type()), "|",
                                      static_cast<int>(in->info.vector_width), "|", PrintOperand(*addr));
          const bool write = c.kind == Kind::kWrite;
          auto it = seen.find(key);
          if (it != seen.end() && (it->second.write || !write)) {
            pruned[i] = true;
          } else {
            Seen& s = seen[key];
            s.base = base.kind == Operand::Kind::kRegister ? base.text : "";
            s.write = s.write || write;
          }
        }
      } else if (IsBoundary(*in, c)) {
        seen.clear();
      }
      written.clear();
      WrittenRegisters(*in, written);
      for (const std::string& r : written)
        absl::erase_if(seen, [&](const auto& kv) { return kv.second.base == r; });
    }
  }
  return pruned;
}

}  // namespace barracuda::ptx
