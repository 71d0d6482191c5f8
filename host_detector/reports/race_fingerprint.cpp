#include "host_detector/reports/race_fingerprint.h"

#include <algorithm>
#include <cstdio>
#include <fstream>

#include "ptx_rewriter/text_concat.h"

namespace barracuda::reports {

namespace {

std::string_view BaseName(std::string_view path) {
  const size_t slash = path.find_last_of('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

std::string Collapsed(std::string_view line) {
  std::string out;
  bool blank = false;
  for (char c : line) {
    if (c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f') {
      blank = true;
      continue;
    }
    if (blank && !out.empty()) out += ' ';
    blank = false;
    out += c;
  }
  return out;
}

// Fields are separated by \x1f, locations by \x1e: neither occurs in names or source.
// The text names the statement; its ordinal among the file's lines of the
// same text tells apart copies of one statement (`s[t] = v;` twice).
std::string LocationText(const ptx::SourceLocation& loc, SourceLines& lines) {
  std::optional<SourceLines::Line> text = lines.Normalized(loc.file, loc.line);
  if (!text) return ptx::Cat(BaseName(loc.file), "\x1fline ", loc.line, "\x1f", loc.column);
  return ptx::Cat(BaseName(loc.file), "\x1f", text->text, "\x1f", text->copy, "\x1f", loc.column);
}

std::string StatementText(const ResolvedAccess& a, SourceLines& lines) {
  if (a.site != nullptr && a.site->source && !a.site->source->file.empty() && a.site->source->line != 0) {
    std::string out = LocationText(*a.site->source, lines);
    if (a.site->inlined_at && !a.site->inlined_at->file.empty() && a.site->inlined_at->line != 0)
      out += "\x1e" + LocationText(*a.site->inlined_at, lines);
    return out;
  }
  if (a.site != nullptr) return ptx::Cat("ptx\x1f", a.site->function, "\x1f", a.site->opcode, "\x1f", a.site->ptx_line);
  if (a.site_id != protocol::kNoSite) return ptx::Cat("site\x1f", a.site_id);
  return "unknown";
}

std::string LocationKey(const ptx::SourceLocation& loc) {
  return ptx::Cat(loc.file, "\x1f", loc.line, "\x1f", loc.column);
}

}  // namespace

std::string Fnv1a64Hex(std::string_view text) {
  uint64_t h = 0xcbf29ce484222325ull;  // FNV-1a 64 offset basis
  for (unsigned char c : text) {
    h ^= c;
    h *= 0x100000001b3ull;  // FNV 64 prime
  }
  char buf[20];
  std::snprintf(buf, sizeof(buf), "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

std::optional<SourceLines::Line> SourceLines::Normalized(const std::string& file, uint32_t line) {
  auto [it, fresh] = files_.try_emplace(file);
  if (fresh) {
    std::ifstream in(file);
    if (in) {
      std::vector<Line> v;
      std::map<std::string, uint32_t, std::less<>> seen;
      for (std::string l; std::getline(in, l);) {
        std::string text = Collapsed(l);
        const uint32_t copy = seen[text]++;
        v.push_back({std::move(text), copy});
      }
      it->second = std::move(v);
    }
  }
  if (!it->second || line == 0 || line > it->second->size()) return std::nullopt;
  return (*it->second)[line - 1];
}

std::string StatementKey(const ResolvedAccess& a) {
  if (a.site != nullptr && a.site->source && !a.site->source->file.empty() && a.site->source->line != 0) {
    std::string out = "src\x1f" + LocationKey(*a.site->source);
    if (a.site->inlined_at) out += "\x1e" + LocationKey(*a.site->inlined_at);
    return out;
  }
  if (a.site != nullptr)
    return ptx::Cat("ptx\x1f", a.module != nullptr ? a.module->name : std::string(), "\x1f", a.site->ptx_line);
  if (a.site_id != protocol::kNoSite) return ptx::Cat("site\x1f", a.site_id);
  return "unknown";
}

std::string_view KindFamilyName(detector::RaceKind kind) {
  if (kind == detector::RaceKind::kReadAfterWrite || kind == detector::RaceKind::kWriteAfterRead) return "RAW|WAR";
  return detector::RaceKindName(kind);
}

std::string FingerprintOf(const ResolvedRace& race) {
  if (!race.fingerprint.empty()) return race.fingerprint;
  SourceLines lines;
  return RaceFingerprint(race, lines);
}

std::string RaceFingerprint(const ResolvedRace& race, SourceLines& lines) {
  const std::string_view kind = KindFamilyName(race.kind);
  std::string a = StatementText(race.earlier, lines), b = StatementText(race.later, lines);
  if (b < a) std::swap(a, b);
  return Fnv1a64Hex(ptx::Cat("barracuda-race-v1\x1d", race.kernel, "\x1d", kind, "\x1d",
                             race.space == protocol::Space::kShared ? "shared" : "global", "\x1d", a, "\x1d", b));
}

}  // namespace barracuda::reports
