// barracuda-ptx sites FILE [--json]: the static site table of a PTX module.
#include <algorithm>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "ptx_rewriter/site_table.h"
#include "ptx_rewriter/tool/read_ptx.h"
#include "ptx_rewriter/tool/subcommands.h"

namespace barracuda::ptx_tool {
namespace {

struct SitesOptions {
  std::string file;
  bool json = false;
};

std::string LocationText(const ptx::SourceLocation& location) {
  const std::string file = location.file.empty()
                               ? "<file " + std::to_string(location.file_index) + ">"
                               : location.file;
  return file + ":" + std::to_string(location.line);
}

std::string SourceText(const ptx::Site& site) {
  if (!site.source) return "-";
  std::string text = LocationText(*site.source);
  if (site.inlined_at) text += " (inlined at " + LocationText(*site.inlined_at) + ")";
  return text;
}

void PrintTable(const ptx::SiteTable& table, std::ostream& out) {
  static const char* const kHeader[] = {"id", "function", "kind", "opcode", "space", "ptx line",
                                        "source"};
  constexpr std::size_t kColumns = std::size(kHeader);
  std::vector<std::vector<std::string>> rows;
  rows.push_back(std::vector<std::string>(std::begin(kHeader), std::end(kHeader)));
  for (const ptx::Site& site : table.sites) {
    const std::string_view space = ptx::SiteSpaceName(site.space);
    rows.push_back({std::to_string(site.id), site.function, std::string(ptx::ToString(site.kind)),
                    site.opcode, space.empty() ? "-" : std::string(space),
                    std::to_string(site.ptx_line), SourceText(site)});
  }
  std::size_t width[kColumns] = {};
  for (const auto& row : rows) {
    for (std::size_t c = 0; c < kColumns; ++c) width[c] = std::max(width[c], row[c].size());
  }
  for (const auto& row : rows) {
    std::string line;
    for (std::size_t c = 0; c < kColumns; ++c) {
      // Numbers right-aligned, text left-aligned; no padding after the last column.
      const bool numeric = c == 0 || c == 5;
      const std::string pad(width[c] - row[c].size(), ' ');
      if (c > 0) line += "  ";
      if (numeric) line += pad + row[c];
      else line += c + 1 == kColumns ? row[c] : row[c] + pad;
    }
    out << line << "\n";
  }
}

}  // namespace

void RegisterSites(CLI::App& app, Action& action) {
  auto options = std::make_shared<SitesOptions>();
  auto* cmd = app.add_subcommand(
      "sites",
      "List the static sites of a PTX file: memory accesses, atomics, fences, barriers, warp\n"
      "primitives and branches, numbered as in race reports.");
  cmd->add_option("file", options->file, "PTX file")->required();
  cmd->add_flag("--json", options->json, "print the table as JSON (the form reports use)");
  cmd->callback([&action, options] {
    action = [options] {
      auto module = ReadPtxFile(options->file);
      if (!module) return kExitInputError;
      const ptx::SiteTable table = ptx::BuildSiteTable(*module);
      if (options->json) {
        // Names come from the PTX text and need not be UTF-8: replace, never throw.
        std::cout << table.ToJson().dump(2, ' ', false, nlohmann::json::error_handler_t::replace)
                  << "\n";
      } else {
        PrintTable(table, std::cout);
      }
      return kExitOk;
    };
  });
}

}  // namespace barracuda::ptx_tool
