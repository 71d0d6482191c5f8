#include "ptx_rewriter/instrument/register_types.h"

#include <charconv>

namespace barracuda::ptx {

RegisterTypes::RegisterTypes(const Function& function) {
  for (const VarDecl& p : function.params)
    if (p.space == StateSpace::kReg) Add(p);
  for (const Statement& s : function.body)
    if (const auto* d = std::get_if<VarDecl>(&s); d != nullptr && d->space == StateSpace::kReg) Add(*d);
}

void RegisterTypes::Add(const VarDecl& decl) {
  for (const Declarator& d : decl.declarators) {
    if (d.range != 0) {
      ranges_[d.name] = {d.range, decl.type};
    } else {
      exact_[d.name] = decl.type;
    }
  }
}

Type RegisterTypes::Lookup(std::string_view name) const {
  if (auto it = exact_.find(std::string(name)); it != exact_.end()) return it->second;
  size_t digits = name.size();
  while (digits > 0 && name[digits - 1] >= '0' && name[digits - 1] <= '9') --digits;
  if (digits == name.size() || digits == 0) return Type::kNone;
  uint32_t index = 0;
  const auto [ptr, ec] = std::from_chars(name.data() + digits, name.data() + name.size(), index);
  if (ec != std::errc() || ptr != name.data() + name.size()) return Type::kNone;
  if (auto it = ranges_.find(std::string(name.substr(0, digits))); it != ranges_.end() && index < it->second.first)
    return it->second.second;
  return Type::kNone;
}

}  // namespace barracuda::ptx
