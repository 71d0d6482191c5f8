#include "ptx_emulator/decode/initializers.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <optional>
#include <vector>

#include "ptx_emulator/decode/special_registers.h"
#include "ptx_rewriter/literals.h"
#include "ptx_rewriter/text_concat.h"

namespace barracuda::emu {

uint64_t DeclaratorBytes(const ptx::VarDecl& decl, const ptx::Declarator& d) {
  uint64_t n = ElementBytes(decl);
  for (size_t i = 0; i < d.dims.size(); ++i) {
    uint64_t dim = d.dims[i];
    if (dim == ptx::Declarator::kUnsizedDim) {
      // Only the outermost dimension may be unsized; its length is the
      // initializer list's.
      dim = (i == 0 && d.init && d.init->kind == ptx::Initializer::Kind::kList) ? d.init->elements.size() : 0;
    }
    if (dim != 0 && n > kMaxVariableBytes / dim) return kMaxVariableBytes;  // no wrap-around
    n *= dim;
  }
  return std::min(n, kMaxVariableBytes);
}

std::string Where(std::string_view module, uint32_t line) { return ptx::Cat(module, ":", line); }

namespace {

void Flatten(const ptx::Initializer& init, std::vector<const ptx::Initializer*>& out) {
  if (init.kind == ptx::Initializer::Kind::kList) {
    for (const ptx::Initializer& e : init.elements) Flatten(e, out);
  } else {
    out.push_back(&init);
  }
}

std::optional<int64_t> ParseInteger(std::string_view s) {
  const bool negative = !s.empty() && s[0] == '-';
  if (negative) s.remove_prefix(1);
  uint64_t v = 0;
  if (!ptx::ParseIntegerText(s, v)) return std::nullopt;
  return negative ? static_cast<int64_t>(0 - v) : static_cast<int64_t>(v);
}

// A float literal as a double (0f literals are exact in a double).
std::optional<double> ParseFloat(std::string_view s) {
  const bool negative = !s.empty() && s[0] == '-';
  if (negative) s.remove_prefix(1);
  int64_t bits = 0;
  if (!ptx::ParseFloatText(s, bits)) return std::nullopt;
  const bool single = s.size() > 2 && s[0] == '0' && (s[1] == 'f' || s[1] == 'F');
  const double d = single ? static_cast<double>(std::bit_cast<float>(static_cast<uint32_t>(bits)))
                          : std::bit_cast<double>(bits);
  return negative ? -d : d;
}

}  // namespace

absl::Status WriteInitializer(const ptx::VarDecl& decl, const ptx::Declarator& d, uint8_t* dest, uint64_t bytes,
                              const SymbolTable& symbols, std::string_view module) {
  if (!d.init) return absl::OkStatus();
  auto fail = [&](std::string_view what) {
    return absl::InvalidArgumentError(
        ptx::Cat(Where(module, decl.pos.line), ": initializer of `", d.name, "`: ", what));
  };
  std::vector<const ptx::Initializer*> leaves;
  Flatten(*d.init, leaves);
  const uint64_t es = ptx::TypeSize(decl.type);
  if (es == 0 || es > 8) return fail("unsupported element type");
  if (leaves.size() * es > bytes)
    return fail(ptx::Cat(leaves.size(), " values do not fit in ", bytes, " bytes"));
  const bool is_f32 = decl.type == ptx::Type::kF32, is_f64 = decl.type == ptx::Type::kF64;
  const bool is_half = decl.type == ptx::Type::kF16 || decl.type == ptx::Type::kBf16;
  for (size_t i = 0; i < leaves.size(); ++i) {
    const ptx::Initializer& e = *leaves[i];
    uint64_t bits = 0;
    switch (e.kind) {
      case ptx::Initializer::Kind::kInteger: {
        auto v = ParseInteger(e.text);
        if (!v) return fail(ptx::Cat("malformed integer `", e.text, "`"));
        if (is_f32) {
          bits = std::bit_cast<uint32_t>(static_cast<float>(*v));
        } else if (is_f64) {
          bits = std::bit_cast<uint64_t>(static_cast<double>(*v));
        } else {
          bits = static_cast<uint64_t>(*v);  // half types: the integer is the bit pattern, as nvcc writes them
        }
        break;
      }
      case ptx::Initializer::Kind::kFloat: {
        auto v = ParseFloat(e.text);
        if (!v) return fail(ptx::Cat("malformed float `", e.text, "`"));
        if (is_f32) {
          bits = std::bit_cast<uint32_t>(static_cast<float>(*v));
        } else if (is_f64) {
          bits = std::bit_cast<uint64_t>(*v);
        } else if (is_half) {
          return fail("float literals for half-precision variables are not supported");
        } else {
          // An integer-typed variable with a hex float literal keeps its bit pattern.
          std::string_view t = e.text;
          if (!t.empty() && t[0] == '-') t.remove_prefix(1);
          const bool single = t.size() > 1 && (t[1] == 'f' || t[1] == 'F');
          const bool hex = t.size() > 1 && t[0] == '0' && (single || t[1] == 'd' || t[1] == 'D');
          bits = !hex ? static_cast<uint64_t>(static_cast<int64_t>(*v))
                 : single ? std::bit_cast<uint32_t>(static_cast<float>(*v))
                          : std::bit_cast<uint64_t>(*v);
        }
        break;
      }
      case ptx::Initializer::Kind::kSymbol: {
        auto it = symbols.find(e.text);
        if (it == symbols.end()) {
          if (auto v = PredefinedConstant(e.text)) {  // WARP_SZ
            bits = *v + static_cast<uint64_t>(e.offset);
            break;
          }
          return fail(ptx::Cat("undefined symbol `", e.text, "`"));
        }
        const LinkedSymbol& s = it->second;
        switch (s.kind) {
          case LinkedSymbol::Kind::kData:
          case LinkedSymbol::Kind::kShared:
            bits = s.value + static_cast<uint64_t>(e.offset);
            break;
          case LinkedSymbol::Kind::kFunction:
            bits = kFunctionPointerTag | s.value;
            break;
          case LinkedSymbol::Kind::kBuiltin:
            return fail(ptx::Cat("the address of built-in function `", e.text, "` cannot be taken"));
          case LinkedSymbol::Kind::kUnresolved:
            return fail(ptx::Cat("unresolved symbol `", e.text, "` (declared at ", s.declared_at,
                                     "): no definition in the link unit"));
        }
        if (es < 4) return fail(ptx::Cat("symbol `", e.text, "` in a ", es, "-byte element"));
        break;
      }
      case ptx::Initializer::Kind::kList:
        break;  // flattened away
    }
    std::memcpy(dest + i * es, &bits, es);  // little-endian host: the low bytes
  }
  return absl::OkStatus();
}

}  // namespace barracuda::emu
