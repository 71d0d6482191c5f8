// Lexer: token kinds, positions, comments, numbers, and errors.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "ptx_rewriter/lexer.h"

namespace barracuda::ptx {
namespace {

std::vector<Token> LexAll(std::string_view src) {
  Lexer lex(src);
  std::vector<Token> out;
  while (true) {
    Token t = lex.Next();
    out.push_back(t);
    if (t.kind == TokenKind::kEnd || t.kind == TokenKind::kError) break;
  }
  return out;
}

TEST_CASE("lexer: instruction tokens", "[lexer]") {
  auto t = LexAll("@!%p1 ld.global.L1::evict_last.v4.u32 {%r1, _}, [%rd2+-8];");
  std::vector<std::pair<TokenKind, std::string_view>> expect = {
      {TokenKind::kPunct, "@"},        {TokenKind::kPunct, "!"},           {TokenKind::kIdentifier, "%p1"},
      {TokenKind::kIdentifier, "ld"},  {TokenKind::kDotWord, ".global"},   {TokenKind::kDotWord, ".L1::evict_last"},
      {TokenKind::kDotWord, ".v4"},    {TokenKind::kDotWord, ".u32"},      {TokenKind::kPunct, "{"},
      {TokenKind::kIdentifier, "%r1"}, {TokenKind::kPunct, ","},           {TokenKind::kIdentifier, "_"},
      {TokenKind::kPunct, "}"},        {TokenKind::kPunct, ","},           {TokenKind::kPunct, "["},
      {TokenKind::kIdentifier, "%rd2"}, {TokenKind::kPunct, "+"},          {TokenKind::kPunct, "-"},
      {TokenKind::kInteger, "8"},      {TokenKind::kPunct, "]"},           {TokenKind::kPunct, ";"},
      {TokenKind::kEnd, ""},
  };
  REQUIRE(t.size() == expect.size());
  for (size_t i = 0; i < t.size(); ++i) {
    INFO("token " << i);
    CHECK(t[i].kind == expect[i].first);
    CHECK(t[i].text == expect[i].second);
  }
  // Adjacency: `ld` and `.global` touch, `{` follows whitespace.
  CHECK_FALSE(t[4].space_before);
  CHECK(t[8].space_before);
}

TEST_CASE("lexer: dot-words with scope qualifiers", "[lexer]") {
  auto t = LexAll(".shared::cta .shared::cluster .L2::64B .tensormap::generic .param::entry");
  REQUIRE(t.size() == 6);
  CHECK(t[0].text == ".shared::cta");
  CHECK(t[1].text == ".shared::cluster");
  CHECK(t[2].text == ".L2::64B");
  CHECK(t[3].text == ".tensormap::generic");
  CHECK(t[4].text == ".param::entry");
}

TEST_CASE("lexer: labels keep a single colon separate", "[lexer]") {
  auto t = LexAll("$L_tab: .branchtargets $L__BB0_1;");
  REQUIRE(t.size() >= 4);
  CHECK(t[0].is(TokenKind::kIdentifier, "$L_tab"));
  CHECK(t[1].is_punct(':'));
  CHECK(t[2].is(TokenKind::kDotWord, ".branchtargets"));
  CHECK(t[3].is(TokenKind::kIdentifier, "$L__BB0_1"));
}

TEST_CASE("lexer: numeric constants", "[lexer]") {
  auto t = LexAll("0 42 0x1F 0XffU 0b101 017 7U 0f3F800000 0d3FF0000000000000 1.5 2.5e-3 1e10 9.0");
  std::vector<TokenKind> kinds = {TokenKind::kInteger, TokenKind::kInteger, TokenKind::kInteger, TokenKind::kInteger,
                                  TokenKind::kInteger, TokenKind::kInteger, TokenKind::kInteger, TokenKind::kFloat,
                                  TokenKind::kFloat,   TokenKind::kFloat,   TokenKind::kFloat,   TokenKind::kFloat,
                                  TokenKind::kFloat,   TokenKind::kEnd};
  REQUIRE(t.size() == kinds.size());
  for (size_t i = 0; i < kinds.size(); ++i) {
    INFO("token " << i << " '" << t[i].text << "'");
    CHECK(t[i].kind == kinds[i]);
  }
  CHECK(t[3].text == "0XffU");
  CHECK(t[12].text == "9.0");
}

TEST_CASE("lexer: malformed numbers are errors", "[lexer]") {
  CHECK(LexAll("12abc").front().kind == TokenKind::kError);
  CHECK(LexAll("0x12zz").front().kind == TokenKind::kError);
}

TEST_CASE("lexer: comments count as whitespace and keep line numbers", "[lexer]") {
  auto t = LexAll("a // line comment { }\n/* block\n comment */ b\n\t  c");
  REQUIRE(t.size() == 4);
  CHECK(t[0].text == "a");
  CHECK(t[0].line == 1);
  CHECK(t[0].column == 1);
  CHECK(t[1].text == "b");
  CHECK(t[1].line == 3);
  CHECK(t[1].column == 13);
  CHECK(t[1].space_before);
  CHECK(t[2].text == "c");
  CHECK(t[2].line == 4);
  CHECK(t[2].column == 4);
}

TEST_CASE("lexer: strings", "[lexer]") {
  auto t = LexAll(R"(.file 1 "a\"b.cu" .pragma "nounroll";)");
  REQUIRE(t.size() == 7);
  CHECK(t[2].kind == TokenKind::kString);
  CHECK(t[2].text == R"("a\"b.cu")");
  CHECK(t[4].text == R"("nounroll")");
}

TEST_CASE("lexer: errors carry the position and a reason", "[lexer]") {
  Lexer lex("ok\n  \"unterminated");
  CHECK(lex.Next().text == "ok");
  Token e = lex.Next();
  CHECK(e.kind == TokenKind::kError);
  CHECK(e.line == 2);
  CHECK(e.column == 3);
  CHECK(lex.error_message() == "unterminated string constant");
  // Sticky: once in error, stays there.
  CHECK(lex.Next().kind == TokenKind::kError);

  Lexer bad("a # b");
  bad.Next();
  Token e2 = bad.Next();
  CHECK(e2.kind == TokenKind::kError);
  CHECK(e2.column == 3);
  CHECK(bad.error_message() == "unexpected character");
}

TEST_CASE("lexer: lone percent and unterminated block comment", "[lexer]") {
  auto t = LexAll("% x");
  CHECK(t[0].is_punct('%'));
  auto u = LexAll("a /* never closed");
  REQUIRE(u.size() == 2);
  CHECK(u[1].kind == TokenKind::kEnd);
}

TEST_CASE("lexer: SkipBalancedBraces returns the raw body", "[lexer]") {
  Lexer lex("{\n.b8 1, 2 // }\n \"}\" { nested } \n}\n.next");
  REQUIRE(lex.Next().is_punct('{'));
  std::string_view body;
  REQUIRE(lex.SkipBalancedBraces(body));
  CHECK(body == "\n.b8 1, 2 // }\n \"}\" { nested } \n");
  Token n = lex.Next();
  CHECK(n.is(TokenKind::kDotWord, ".next"));
  CHECK(n.line == 5);

  Lexer open("{ .b8 1, 2");
  REQUIRE(open.Next().is_punct('{'));
  CHECK_FALSE(open.SkipBalancedBraces(body));
  CHECK(open.Peek().kind == TokenKind::kError);
}

}  // namespace
}  // namespace barracuda::ptx
