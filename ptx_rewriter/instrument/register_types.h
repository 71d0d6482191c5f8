// Declared types of a function's registers, for the conversions the logging
// calls need (a store's value zero-extended to 64 bits, a 32-bit shared
// address widened). Names come from `.reg` declarations anywhere in the body
// (ranges `%r<12>` included) and from `.reg` parameters.
#ifndef BARRACUDA_PTX_REWRITER_INSTRUMENT_REGISTER_TYPES_H_
#define BARRACUDA_PTX_REWRITER_INSTRUMENT_REGISTER_TYPES_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "absl/container/flat_hash_map.h"
#include "ptx_rewriter/ir.h"

namespace barracuda::ptx {

class RegisterTypes {
 public:
  explicit RegisterTypes(const Function& function);
  // The declared type of `name`, or Type::kNone when it is not declared.
  Type Lookup(std::string_view name) const;

 private:
  void Add(const VarDecl& decl);
  absl::flat_hash_map<std::string, Type> exact_;
  // prefix -> (range, type) for `%r<N>` declarations.
  absl::flat_hash_map<std::string, std::pair<uint32_t, Type>> ranges_;
};

}  // namespace barracuda::ptx

#endif  // BARRACUDA_PTX_REWRITER_INSTRUMENT_REGISTER_TYPES_H_
