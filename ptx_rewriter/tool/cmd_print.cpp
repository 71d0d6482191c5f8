// Placeholder until the owner of 'print' lands it: the subcommand exists but refuses.
#include <iostream>

#include "ptx_rewriter/tool/subcommands.h"

namespace barracuda::ptx_tool {

void RegisterPrint(CLI::App& app, Action& action) {
  auto* cmd = app.add_subcommand("print", "(not available yet)");
  cmd->callback([&action] {
    action = [] {
      std::cerr << "barracuda-ptx: 'print' is not implemented yet\n";
      return kExitUsage;
    };
  });
}

}  // namespace barracuda::ptx_tool
