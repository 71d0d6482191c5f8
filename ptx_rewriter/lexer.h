// PTX lexer: a string_view-based, allocation-free tokenizer.
//
// Tokens are views into the source text; the lexer tracks line/column and
// whether whitespace or a comment preceded each token (the parser needs that to
// glue `%tid` `.x` and to rebuild opaque instructions faithfully).
#ifndef BARRACUDA_PTX_REWRITER_LEXER_H_
#define BARRACUDA_PTX_REWRITER_LEXER_H_

#include <cstdint>
#include <string_view>

namespace barracuda::ptx {

enum class TokenKind : uint8_t {
  kEnd,         // end of input
  kError,       // unlexable input; text holds the offending bytes, message() why
  kIdentifier,  // foo, %r1, $L__BB0_1, _
  kDotWord,     // .reg, .u32, .L1::evict_last, .shared::cta
  kInteger,     // 12, 0x1F, 0b101, 017, 12U
  kFloat,       // 0f3F800000, 0d3FF0000000000000, 1.5, 1e-3
  kString,      // "..." (text includes the quotes)
  kPunct,       // one of , ; : { } [ ] ( ) < > + - ! @ | = * / & ~ ^ ? %
};

struct Token {
  TokenKind kind = TokenKind::kEnd;
  bool space_before = false;  // whitespace or a comment separates it from the previous token
  std::string_view text;
  uint32_t offset = 0;  // byte offset in the source
  uint32_t line = 1;
  uint32_t column = 1;
  bool is(TokenKind k, std::string_view t) const { return kind == k && text == t; }
  bool is_punct(char c) const { return kind == TokenKind::kPunct && text.size() == 1 && text[0] == c; }
};

std::string_view TokenKindName(TokenKind k);

class Lexer {
 public:
  explicit Lexer(std::string_view source);

  // Returns the next token and advances. After kEnd or kError, keeps returning it.
  Token Next();
  // The token Next() would return, without consuming it.
  const Token& Peek() const { return peeked_; }
  // Why the last kError token was produced.
  std::string_view error_message() const { return error_; }
  std::string_view source() const { return src_; }

  // Position just after the last consumed token (for verbatim capture).
  uint32_t consumed_end() const { return consumed_end_; }

  // Skips raw text up to and including the '}' that balances an already consumed
  // '{' (strings and comments respected). Returns the text between the braces,
  // or sets an error token and returns false on end of input.
  bool SkipBalancedBraces(std::string_view& body);

 private:
  Token Lex();
  void SkipSpaceAndComments(bool& saw_space);

  std::string_view src_;
  uint32_t pos_ = 0;
  uint32_t line_ = 1;
  uint32_t line_start_ = 0;
  uint32_t consumed_end_ = 0;
  Token peeked_;
  std::string_view error_;
};

}  // namespace barracuda::ptx

#endif  // BARRACUDA_PTX_REWRITER_LEXER_H_
