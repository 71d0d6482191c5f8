// barracuda-ptx instrument FILE [-o OUT] [--stats] [--no-prune] [--site-base N] [--logger PTX]:
// the module with logging calls for the device logger (ptx_rewriter/instrument).
#include <fstream>
#include <iostream>
#include <memory>
#include <string>

#include "ptx_rewriter/instrument/instrument.h"
#include "ptx_rewriter/instrument/merge_logger.h"
#include "ptx_rewriter/printer.h"
#include "ptx_rewriter/tool/read_ptx.h"
#include "ptx_rewriter/tool/subcommands.h"

namespace barracuda::ptx_tool {
namespace {

struct InstrumentCliOptions {
  std::string file;
  std::string output;
  bool stats = false;
  bool no_prune = false;
  uint32_t site_base = 0;
  std::string logger;
};

}  // namespace

void RegisterInstrument(CLI::App& app, Action& action) {
  auto options = std::make_shared<InstrumentCliOptions>();
  auto* cmd = app.add_subcommand(
      "instrument",
      "Print the PTX module with calls to the barracuda device logger for every memory access,\n"
      "fence, barrier, warp primitive, divergent branch and exit. The logger functions are\n"
      "declared .extern (ptxas -c accepts the result; the GPU agent merges their definitions).");
  cmd->add_option("file", options->file, "PTX file")->required();
  cmd->add_option("-o,--output", options->output, "write the PTX here instead of stdout");
  cmd->add_flag("--stats", options->stats,
                "print static counts to stderr: instructions, instrumented before/after pruning");
  cmd->add_flag("--no-prune", options->no_prune, "log repeated accesses within a basic block too");
  cmd->add_option("--site-base", options->site_base, "added to every site id (default 0)");
  cmd->add_option("--logger", options->logger,
                  "merge the device logger's PTX from this file (build/device_logger/logger.ptx):\n"
                  "the output is then a complete module");
  cmd->callback([&action, options] {
    action = [options] {
      auto module = ReadPtxFile(options->file);
      if (!module) return kExitInputError;
      ptx::InstrumentOptions io;
      io.prune = !options->no_prune;
      io.site_base = options->site_base;
      auto stats = ptx::InstrumentModule(*module, io);
      if (!stats.ok()) {
        std::cerr << "barracuda-ptx: " << stats.status().message() << "\n";
        return kExitInputError;
      }
      if (!options->logger.empty()) {
        auto logger = ReadPtxFile(options->logger);
        if (!logger) return kExitInputError;
        if (auto st = ptx::MergeLogger(*module, *logger); !st.ok()) {
          std::cerr << "barracuda-ptx: " << st.message() << "\n";
          return kExitInputError;
        }
      }
      const std::string text = ptx::PrintModule(*module);
      if (options->output.empty()) {
        std::cout << text;
      } else {
        std::ofstream out(options->output, std::ios::binary);
        out << text;
        if (!out) {
          std::cerr << "barracuda-ptx: cannot write '" << options->output << "'\n";
          return kExitInputError;
        }
      }
      if (options->stats) std::cerr << ptx::FormatStats(*stats);
      return kExitOk;
    };
  });
}

}  // namespace barracuda::ptx_tool
