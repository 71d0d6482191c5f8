// barracuda-ptx: the PTX front end as a command-line tool.
#include <iostream>

#include "ptx_rewriter/tool/subcommands.h"

int main(int argc, char** argv) {
  using namespace barracuda::ptx_tool;
  CLI::App app{"barracuda-ptx: inspect the PTX that barracuda analyses"};
  app.set_version_flag("--version", std::string("barracuda-ptx ") + BARRACUDA_VERSION);
  app.require_subcommand(1);
  app.footer(
      "Exit status: 0 success, 1 unreadable or malformed input, 2 usage error,\n"
      "3 requested item not found (kernel, PTX entry).");
  Action action;
  RegisterPrint(app, action);
  RegisterSites(app, action);
  RegisterCfg(app, action);
  RegisterExtract(app, action);
  RegisterInstrument(app, action);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);
    return rc == 0 ? kExitOk : kExitUsage;
  }
  return action ? action() : kExitUsage;
}
