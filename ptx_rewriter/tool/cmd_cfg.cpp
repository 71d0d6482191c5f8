// Placeholder until the owner of 'cfg' lands it: the subcommand exists but refuses.
#include <iostream>

#include "ptx_rewriter/tool/subcommands.h"

namespace barracuda::ptx_tool {

void RegisterCfg(CLI::App& app, Action& action) {
  auto* cmd = app.add_subcommand("cfg", "(not available yet)");
  cmd->callback([&action] {
    action = [] {
      std::cerr << "barracuda-ptx: 'cfg' is not implemented yet\n";
      return kExitUsage;
    };
  });
}

}  // namespace barracuda::ptx_tool
