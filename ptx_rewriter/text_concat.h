// Cat(...): string concatenation over std::string_view and integers. The
// Debian Abseil is built with its own absl::string_view, which absl::StrCat
// does not accept std::string_view for; the front end is std::string_view-based.
#ifndef BARRACUDA_PTX_REWRITER_TEXT_CONCAT_H_
#define BARRACUDA_PTX_REWRITER_TEXT_CONCAT_H_

#include <concepts>
#include <string>
#include <string_view>

namespace barracuda::ptx {

namespace text_internal {
inline void Append(std::string& out, std::string_view s) { out.append(s); }
inline void Append(std::string& out, char c) { out.push_back(c); }
template <std::integral T>
  requires(!std::same_as<T, char> && !std::same_as<T, bool>)
void Append(std::string& out, T v) {
  out.append(std::to_string(v));
}
// Other string views (absl::string_view is its own type in Debian's Abseil).
template <typename S>
  requires(!std::convertible_to<const S&, std::string_view> && requires(const S& s) {
    { s.data() } -> std::convertible_to<const char*>;
    { s.size() } -> std::convertible_to<std::size_t>;
  })
void Append(std::string& out, const S& s) {
  out.append(s.data(), s.size());
}
}  // namespace text_internal

template <typename... Args>
std::string Cat(const Args&... args) {
  std::string out;
  (text_internal::Append(out, args), ...);
  return out;
}

}  // namespace barracuda::ptx

#endif  // BARRACUDA_PTX_REWRITER_TEXT_CONCAT_H_
