// barracuda-ptx subcommands. Each lives in its own cmd_*.cpp and registers a
// CLI11 subcommand plus the action to run when it is chosen.
#ifndef BARRACUDA_PTX_REWRITER_TOOL_SUBCOMMANDS_H_
#define BARRACUDA_PTX_REWRITER_TOOL_SUBCOMMANDS_H_

#include <functional>

#include <CLI/CLI.hpp>

namespace barracuda::ptx_tool {

// Exit codes shared by every subcommand (documented in ptx_rewriter/README.md).
inline constexpr int kExitOk = 0;
inline constexpr int kExitInputError = 1;  // unreadable file, malformed PTX/fat binary
inline constexpr int kExitUsage = 2;       // bad command line (CLI11 also uses this range)
inline constexpr int kExitNotFound = 3;    // e.g. no such kernel, no PTX in the binary

using Action = std::function<int()>;

void RegisterPrint(CLI::App& app, Action& action);
void RegisterSites(CLI::App& app, Action& action);
void RegisterCfg(CLI::App& app, Action& action);
void RegisterExtract(CLI::App& app, Action& action);
void RegisterInstrument(CLI::App& app, Action& action);  // cmd_instrument.cpp

}  // namespace barracuda::ptx_tool

#endif  // BARRACUDA_PTX_REWRITER_TOOL_SUBCOMMANDS_H_
