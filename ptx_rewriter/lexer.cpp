// PTX lexer. Hot path of parsing: no allocation, one pass over the bytes.
#include "ptx_rewriter/lexer.h"

namespace barracuda::ptx {
namespace {

// Character classes as a 256-entry table: one load per byte in the hot loops.
enum : uint8_t { kFollow = 1, kIdentStart = 2, kDigit = 4, kHex = 8, kSpace = 16, kPunct = 32 };

struct CharTable {
  uint8_t c[256] = {};
  constexpr CharTable() {
    for (int i = 'a'; i <= 'z'; ++i) c[i] |= kFollow | kIdentStart;
    for (int i = 'A'; i <= 'Z'; ++i) c[i] |= kFollow | kIdentStart;
    for (int i = '0'; i <= '9'; ++i) c[i] |= kFollow | kDigit | kHex;
    for (int i = 'a'; i <= 'f'; ++i) c[i] |= kHex;
    for (int i = 'A'; i <= 'F'; ++i) c[i] |= kHex;
    c['_'] |= kFollow | kIdentStart;
    c['$'] |= kFollow | kIdentStart;
    c['%'] |= kIdentStart;
    c[' '] = c['\t'] = c['\n'] = c['\r'] = c['\f'] = c['\v'] = kSpace;
    for (char p : std::string_view(",;:{}[]()<>+-!@|=*/&~^?%")) c[static_cast<uint8_t>(p)] |= kPunct;
  }
};
constexpr CharTable kChars;

inline bool Is(char ch, uint8_t cls) { return (kChars.c[static_cast<uint8_t>(ch)] & cls) != 0; }

}  // namespace

std::string_view TokenKindName(TokenKind k) {
  switch (k) {
    case TokenKind::kEnd: return "end of input";
    case TokenKind::kError: return "invalid token";
    case TokenKind::kIdentifier: return "identifier";
    case TokenKind::kDotWord: return "directive";
    case TokenKind::kInteger: return "integer";
    case TokenKind::kFloat: return "floating-point constant";
    case TokenKind::kString: return "string";
    case TokenKind::kPunct: return "punctuation";
  }
  return "token";
}

Lexer::Lexer(std::string_view source) : src_(source) { peeked_ = Lex(); }

Token Lexer::Next() {
  Token t = peeked_;
  if (t.kind != TokenKind::kEnd && t.kind != TokenKind::kError) {
    consumed_end_ = t.offset + static_cast<uint32_t>(t.text.size());
    peeked_ = Lex();
  }
  return t;
}

void Lexer::SkipSpaceAndComments(bool& saw_space) {
  const uint32_t n = static_cast<uint32_t>(src_.size());
  while (pos_ < n) {
    char ch = src_[pos_];
    if (Is(ch, kSpace)) {
      saw_space = true;
      ++pos_;
      if (ch == '\n') {
        ++line_;
        line_start_ = pos_;
      }
    } else if (ch == '/' && pos_ + 1 < n && src_[pos_ + 1] == '/') {
      saw_space = true;
      pos_ += 2;
      while (pos_ < n && src_[pos_] != '\n') ++pos_;
    } else if (ch == '/' && pos_ + 1 < n && src_[pos_ + 1] == '*') {
      saw_space = true;
      pos_ += 2;
      while (pos_ + 1 < n && !(src_[pos_] == '*' && src_[pos_ + 1] == '/')) {
        if (src_[pos_] == '\n') {
          ++line_;
          line_start_ = pos_ + 1;
        }
        ++pos_;
      }
      pos_ = pos_ + 1 < n ? pos_ + 2 : n;  // an unterminated comment runs to the end
    } else {
      return;
    }
  }
}

Token Lexer::Lex() {
  Token t;
  SkipSpaceAndComments(t.space_before);
  const uint32_t n = static_cast<uint32_t>(src_.size());
  t.offset = pos_;
  t.line = line_;
  t.column = pos_ - line_start_ + 1;
  if (pos_ >= n) {
    t.kind = TokenKind::kEnd;
    return t;
  }
  const uint32_t start = pos_;
  char ch = src_[pos_];
  auto finish = [&](TokenKind k) {
    t.kind = k;
    t.text = src_.substr(start, pos_ - start);
    return t;
  };
  auto fail = [&](std::string_view why) {
    error_ = why;
    if (pos_ == start) ++pos_;
    return finish(TokenKind::kError);
  };

  if (Is(ch, kIdentStart) && !(ch == '%' && (pos_ + 1 >= n || !Is(src_[pos_ + 1], kFollow)))) {
    ++pos_;
    while (pos_ < n && Is(src_[pos_], kFollow)) ++pos_;
    return finish(TokenKind::kIdentifier);
  }
  if (ch == '.' && pos_ + 1 < n && Is(src_[pos_ + 1], kFollow)) {
    ++pos_;
    while (pos_ < n && Is(src_[pos_], kFollow)) ++pos_;
    // `.shared::cta`, `.L2::cache_hint`, `.tensormap::generic`
    while (pos_ + 2 < n && src_[pos_] == ':' && src_[pos_ + 1] == ':' && Is(src_[pos_ + 2], kFollow)) {
      pos_ += 2;
      while (pos_ < n && Is(src_[pos_], kFollow)) ++pos_;
    }
    return finish(TokenKind::kDotWord);
  }
  if (Is(ch, kDigit)) {
    if (ch == '0' && pos_ + 1 < n) {
      char x = src_[pos_ + 1];
      if (x == 'f' || x == 'F' || x == 'd' || x == 'D') {
        pos_ += 2;
        while (pos_ < n && Is(src_[pos_], kHex)) ++pos_;
        if (pos_ < n && Is(src_[pos_], kFollow)) return fail("malformed floating-point constant");
        return finish(TokenKind::kFloat);
      }
      if (x == 'x' || x == 'X' || x == 'b' || x == 'B') {
        pos_ += 2;
        while (pos_ < n && Is(src_[pos_], kHex)) ++pos_;
        if (pos_ < n && (src_[pos_] == 'U' || src_[pos_] == 'u')) ++pos_;
        if (pos_ < n && Is(src_[pos_], kFollow)) return fail("malformed integer constant");
        return finish(TokenKind::kInteger);
      }
    }
    while (pos_ < n && Is(src_[pos_], kDigit)) ++pos_;
    bool is_float = false;
    if (pos_ + 1 < n && src_[pos_] == '.' && Is(src_[pos_ + 1], kDigit)) {
      is_float = true;
      ++pos_;
      while (pos_ < n && Is(src_[pos_], kDigit)) ++pos_;
    }
    if (pos_ < n && (src_[pos_] == 'e' || src_[pos_] == 'E')) {
      uint32_t p = pos_ + 1;
      if (p < n && (src_[p] == '+' || src_[p] == '-')) ++p;
      if (p < n && Is(src_[p], kDigit)) {
        is_float = true;
        pos_ = p;
        while (pos_ < n && Is(src_[pos_], kDigit)) ++pos_;
      }
    }
    if (!is_float && pos_ < n && (src_[pos_] == 'U' || src_[pos_] == 'u')) ++pos_;
    if (pos_ < n && Is(src_[pos_], kFollow)) return fail("malformed numeric constant");
    return finish(is_float ? TokenKind::kFloat : TokenKind::kInteger);
  }
  if (ch == '"') {
    ++pos_;
    while (pos_ < n && src_[pos_] != '"') {
      if (src_[pos_] == '\n') return fail("newline in string constant");
      if (src_[pos_] == '\\' && pos_ + 1 < n) ++pos_;
      ++pos_;
    }
    if (pos_ >= n) return fail("unterminated string constant");
    ++pos_;
    return finish(TokenKind::kString);
  }
  if (Is(ch, kPunct)) {
    ++pos_;
    return finish(TokenKind::kPunct);
  }
  return fail("unexpected character");
}

bool Lexer::SkipBalancedBraces(std::string_view& body) {
  // Rewind to the lookahead token: everything from there is raw text.
  const uint32_t body_start = consumed_end_;
  pos_ = peeked_.offset;
  line_ = peeked_.line;
  line_start_ = peeked_.offset - (peeked_.column - 1);
  const uint32_t n = static_cast<uint32_t>(src_.size());
  int depth = 1;
  while (pos_ < n) {
    char ch = src_[pos_];
    if (ch == '\n') {
      ++line_;
      line_start_ = pos_ + 1;
    } else if (ch == '"') {
      ++pos_;
      while (pos_ < n && src_[pos_] != '"' && src_[pos_] != '\n') {
        if (src_[pos_] == '\\' && pos_ + 1 < n && src_[pos_ + 1] != '\n') ++pos_;
        ++pos_;
      }
      if (pos_ < n && src_[pos_] == '\n') continue;  // unterminated: let the newline be counted
    } else if (ch == '/' && pos_ + 1 < n && (src_[pos_ + 1] == '/' || src_[pos_ + 1] == '*')) {
      bool space = false;
      SkipSpaceAndComments(space);
      continue;
    } else if (ch == '{') {
      ++depth;
    } else if (ch == '}') {
      if (--depth == 0) {
        body = src_.substr(body_start, pos_ - body_start);
        ++pos_;
        consumed_end_ = pos_;
        peeked_ = Lex();
        return true;
      }
    }
    if (pos_ < n) ++pos_;
  }
  peeked_ = Token{};
  peeked_.kind = TokenKind::kError;
  peeked_.offset = n;
  peeked_.line = line_;
  peeked_.column = n - line_start_ + 1;
  error_ = "unbalanced '{': end of input inside braces";
  return false;
}

}  // namespace barracuda::ptx
