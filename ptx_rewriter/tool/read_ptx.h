// Reading and parsing a PTX file for a barracuda-ptx subcommand, with the
// error already printed ("barracuda-ptx: ...") when it fails.
#ifndef BARRACUDA_PTX_REWRITER_TOOL_READ_PTX_H_
#define BARRACUDA_PTX_REWRITER_TOOL_READ_PTX_H_

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>

#include "ptx_rewriter/ir.h"
#include "ptx_rewriter/parser.h"

namespace barracuda::ptx_tool {

// The parsed module, or nullopt after printing why not (exit with kExitInputError).
inline std::optional<ptx::Module> ReadPtxFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    std::cerr << "barracuda-ptx: cannot open '" << path << "': " << std::strerror(errno) << "\n";
    return std::nullopt;
  }
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) {
    std::cerr << "barracuda-ptx: cannot read '" << path << "'\n";
    return std::nullopt;
  }
  auto module = ptx::ParseModule(text.str(), path);
  if (!module.ok()) {
    // Parser messages already start with "file:line:col:".
    std::cerr << "barracuda-ptx: " << module.status().message() << "\n";
    return std::nullopt;
  }
  return *std::move(module);
}

}  // namespace barracuda::ptx_tool

#endif  // BARRACUDA_PTX_REWRITER_TOOL_READ_PTX_H_
