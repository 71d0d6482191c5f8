// PTX numeric literals as the lexer delivers them (no sign: `-` is a separate
// token). Shared by the parser and by consumers that read literal text kept in
// the IR (initializers of globals in the emulator's loader).
#ifndef BARRACUDA_PTX_REWRITER_LITERALS_H_
#define BARRACUDA_PTX_REWRITER_LITERALS_H_

#include <cstdint>
#include <string_view>

namespace barracuda::ptx {

// Integer literal (decimal, 0x hex, 0b binary, 0-prefixed octal, optional U
// suffix) -> 64-bit value. False on overflow or bad digits.
bool ParseIntegerText(std::string_view s, uint64_t& out);

// Float literal -> IEEE bits (0f: 32-bit pattern, 0d: 64-bit pattern, decimal:
// the double's bits). False when malformed.
bool ParseFloatText(std::string_view s, int64_t& bits);

}  // namespace barracuda::ptx

#endif  // BARRACUDA_PTX_REWRITER_LITERALS_H_
