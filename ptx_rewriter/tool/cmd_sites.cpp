// Placeholder until the owner of 'sites' lands it: the subcommand exists but refuses.
#include <iostream>

#include "ptx_rewriter/tool/subcommands.h"

namespace barracuda::ptx_tool {

void RegisterSites(CLI::App& app, Action& action) {
  auto* cmd = app.add_subcommand("sites", "(not available yet)");
  cmd->callback([&action] {
    action = [] {
      std::cerr << "barracuda-ptx: 'sites' is not implemented yet\n";
      return kExitUsage;
    };
  });
}

}  // namespace barracuda::ptx_tool
