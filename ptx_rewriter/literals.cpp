#include "ptx_rewriter/literals.h"

#include <charconv>
#include <cstring>

namespace barracuda::ptx {

// Integer literal (decimal, 0x hex, 0b binary, 0-prefixed octal, optional U
// suffix) -> 64-bit value. False on overflow or bad digits.
bool ParseIntegerText(std::string_view s, uint64_t& out) {
  if (!s.empty() && (s.back() == 'U' || s.back() == 'u')) s.remove_suffix(1);
  if (s.empty()) return false;
  int base = 10;
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    base = 16;
    s.remove_prefix(2);
  } else if (s.size() > 2 && s[0] == '0' && (s[1] == 'b' || s[1] == 'B')) {
    base = 2;
    s.remove_prefix(2);
  } else if (s.size() > 1 && s[0] == '0') {
    base = 8;
    s.remove_prefix(1);
  }
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out, base);
  return ec == std::errc() && p == s.data() + s.size();
}

// Float literal -> IEEE bits (0f: 32-bit pattern, 0d: 64-bit pattern, decimal:
// the double's bits).
bool ParseFloatText(std::string_view s, int64_t& bits) {
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'f' || s[1] == 'F' || s[1] == 'd' || s[1] == 'D')) {
    const bool single = s[1] == 'f' || s[1] == 'F';
    std::string_view digits = s.substr(2);
    if (digits.size() != (single ? 8u : 16u)) return false;
    uint64_t v = 0;
    auto [p, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v, 16);
    if (ec != std::errc() || p != digits.data() + digits.size()) return false;
    bits = static_cast<int64_t>(v);
    return true;
  }
  double d = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), d);
  if (ec != std::errc() || p != s.data() + s.size()) return false;
  std::memcpy(&bits, &d, sizeof d);
  return true;
}

}  // namespace barracuda::ptx
