// Placeholder until the owner of 'extract' lands it: the subcommand exists but refuses.
#include <iostream>

#include "ptx_rewriter/tool/subcommands.h"

namespace barracuda::ptx_tool {

void RegisterExtract(CLI::App& app, Action& action) {
  auto* cmd = app.add_subcommand("extract", "(not available yet)");
  cmd->callback([&action] {
    action = [] {
      std::cerr << "barracuda-ptx: 'extract' is not implemented yet\n";
      return kExitUsage;
    };
  });
}

}  // namespace barracuda::ptx_tool
