// barracuda-ptx print FILE [-o OUT] [--check-roundtrip]: parses a PTX file and
// prints it back (normalised layout, same meaning). --check-roundtrip re-parses
// the printed text and fails (exit 1) if the IR differs.
#include <cerrno>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <memory>
#include <string>
#include <system_error>

#include "ptx_rewriter/parser.h"
#include "ptx_rewriter/printer.h"
#include "ptx_rewriter/tool/subcommands.h"

namespace barracuda::ptx_tool {
namespace {

struct PrintArgs {
  std::string input;
  std::string output;  // empty: stdout
  bool check_roundtrip = false;
};

int RunPrint(const PrintArgs& args) {
  const char* tool = "barracuda-ptx print: ";
  std::string text;
  if (args.input == "-") {
    text.assign(std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>());
  } else {
    std::error_code ec;
    if (std::filesystem::is_directory(args.input, ec)) {
      std::cerr << tool << "cannot read '" << args.input << "': it is a directory\n";
      return kExitInputError;
    }
    std::ifstream in(args.input, std::ios::binary);
    if (!in) {
      std::cerr << tool << "cannot open '" << args.input << "': " << std::generic_category().message(errno)
                << "\n";
      return kExitInputError;
    }
    // libstdc++ reports some read errors (EISDIR, EIO) by throwing from the
    // stream buffer even without exceptions() set.
    try {
      text.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    } catch (const std::exception& e) {
      std::cerr << tool << "cannot read '" << args.input << "': " << e.what() << "\n";
      return kExitInputError;
    }
    if (in.bad()) {
      std::cerr << tool << "cannot read '" << args.input << "'\n";
      return kExitInputError;
    }
  }
  const std::string name = args.input == "-" ? "<stdin>" : args.input;
  auto module = ptx::ParseModule(text, name);
  if (!module.ok()) {
    std::cerr << module.status().message() << "\n";
    return kExitInputError;
  }
  std::string printed = ptx::PrintModule(*module);
  if (args.check_roundtrip) {
    auto again = ptx::ParseModule(printed, name + " (printed)");
    if (!again.ok()) {
      std::cerr << tool << "round trip failed: the printed PTX does not parse: " << again.status().message()
                << "\n";
      return kExitInputError;
    }
    if (!ptx::SameMeaning(*module, *again)) {
      std::cerr << tool << "round trip failed for '" << name
                << "': " << ptx::DescribeDifference(*module, *again) << "\n";
      return kExitInputError;
    }
  }
  if (args.output.empty() || args.output == "-") {
    std::cout << printed;
    std::cout.flush();
    if (!std::cout) {
      std::cerr << tool << "cannot write to standard output\n";
      return kExitInputError;
    }
    return kExitOk;
  }
  std::ofstream out(args.output, std::ios::binary | std::ios::trunc);
  if (out) out << printed;
  out.close();
  if (!out) {
    std::cerr << tool << "cannot write '" << args.output << "'\n";
    return kExitInputError;
  }
  return kExitOk;
}

}  // namespace

void RegisterPrint(CLI::App& app, Action& action) {
  auto args = std::make_shared<PrintArgs>();
  auto* cmd = app.add_subcommand("print", "Parse a PTX file and print it back (normalised layout)");
  cmd->add_option("file", args->input, "PTX file to read ('-' for standard input)")->required();
  cmd->add_option("-o,--output", args->output, "Write the printed PTX here instead of standard output");
  cmd->add_flag("--check-roundtrip", args->check_roundtrip,
                "Re-parse the printed PTX and fail (exit 1) if its IR differs from the input's");
  cmd->footer(
      "Exit status: 0 success; 1 unreadable or malformed input (file:line:col on stderr),\n"
      "round-trip mismatch, or unwritable output; 2 usage error.");
  cmd->callback([&action, args] { action = [args] { return RunPrint(*args); }; });
}

}  // namespace barracuda::ptx_tool
