// barracuda-ptx extract APP [-o DIR] [--list]: writes the PTX entries of every
// CUDA fat binary in an ELF executable / shared object as
// <appname>.<fatbin-index>.<entry-index>.sm_<NN>.ptx and prints one line per entry.
#include <memory>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <system_error>
#include <vector>

#include <elf.h>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "ptx_rewriter/fatbin/elf_fatbins.h"
#include "ptx_rewriter/fatbin/elf_reader.h"
#include "ptx_rewriter/fatbin/fatbin_reader.h"
#include "ptx_rewriter/tool/subcommands.h"

namespace barracuda::ptx_tool {
namespace {

namespace fs = std::filesystem;
using fatbin::ElfFile;
using fatbin::FatbinEntry;

struct ExtractArgs {
  std::string app;
  std::string out_dir = ".";
  bool list_only = false;
};

bool ReadWholeFile(const std::string& path, std::vector<uint8_t>& out, std::string& error) {
  std::error_code ec;
  if (!fs::exists(path, ec)) {
    error = "no such file";
    return false;
  }
  if (!fs::is_regular_file(path, ec)) {
    error = "not a regular file";
    return false;
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    error = "cannot open it";
    return false;
  }
  in.seekg(0, std::ios::end);
  std::streamoff size = in.tellg();
  in.seekg(0);
  if (size < 0) {
    error = "cannot determine its size";
    return false;
  }
  out.resize(static_cast<size_t>(size));
  if (!in.read(reinterpret_cast<char*>(out.data()), size)) {
    error = "read failed";
    return false;
  }
  return true;
}

std::string EntryLine(const std::string& name, const FatbinEntry& e) {
  return absl::StrCat(name, "  sm_", e.sm_arch(), "  PTX ", e.ptx_major(), ".", e.ptx_minor(),
                      "  ", fatbin::CompressionName(e.compression), "  ", e.stored_payload.size(),
                      " -> ", e.decoded_size(), " bytes",
                      e.options.empty() ? "" : absl::StrCat("  options: ", absl::StripAsciiWhitespace(e.options)));
}

int RunExtract(const ExtractArgs& args) {
  const std::string tool = "barracuda-ptx extract: ";
  std::vector<uint8_t> bytes;
  std::string error;
  if (!ReadWholeFile(args.app, bytes, error)) {
    std::cerr << tool << "cannot read '" << args.app << "': " << error << "\n";
    return kExitInputError;
  }
  auto elf = ElfFile::Parse(bytes);
  if (!elf.ok()) {
    std::cerr << tool << args.app << ": " << elf.status().message() << "\n";
    return kExitInputError;
  }
  auto found = fatbin::FindFatbins(*elf);
  if (!found.ok()) {
    std::cerr << tool << args.app << ": corrupt CUDA fat binary: " << found.status().message()
              << "\n";
    return kExitInputError;
  }
  if (found->fatbins.empty()) {
    std::cerr << tool << args.app
              << ": no CUDA fat binary (no .nv_fatbin section): not a CUDA program, or its "
                 "device code lives in another shared object\n";
    return kExitInputError;
  }
  if (found->ptx_count() == 0) {
    std::cerr << tool << args.app << ": its " << found->fatbins.size()
              << " fat binar" << (found->fatbins.size() == 1 ? "y holds" : "ies hold")
              << " no PTX, only cubins (nvcc embeds PTX only for a compute_XX code).\n"
                 "Rebuild with -gencode arch=compute_XX,code=[sm_XX,compute_XX] (or "
                 "-arch=compute_XX), e.g. -gencode arch=compute_75,code=[sm_75,compute_75]\n";
    return kExitNotFound;
  }
  if (!args.list_only) {
    std::error_code ec;
    fs::create_directories(args.out_dir, ec);
    if (ec) {
      std::cerr << tool << "cannot create directory '" << args.out_dir << "': " << ec.message()
                << "\n";
      return kExitInputError;
    }
  }
  const std::string app_name = fs::path(args.app).filename().string();
  for (size_t f = 0; f < found->fatbins.size(); ++f) {
    const fatbin::Fatbin& fb = found->fatbins[f].fatbin;
    for (size_t i = 0; i < fb.entries.size(); ++i) {
      const FatbinEntry& e = fb.entries[i];
      if (!e.is_ptx()) continue;
      const std::string name = absl::StrCat(app_name, ".", f, ".", i, ".sm_", e.sm_arch(), ".ptx");
      if (!args.list_only) {
        const fs::path path = fs::path(args.out_dir) / name;
        std::ofstream out(path, std::ios::binary | std::ios::trunc);
        out.write(e.ptx.data(), static_cast<std::streamsize>(e.ptx.size()));
        out.close();
        if (!out) {
          std::cerr << tool << "cannot write '" << path.string() << "'\n";
          return kExitInputError;
        }
      }
      std::cout << EntryLine(name, e) << "\n";
    }
  }
  return kExitOk;
}

}  // namespace

void RegisterExtract(CLI::App& app, Action& action) {
  auto args = std::make_shared<ExtractArgs>();
  auto* cmd = app.add_subcommand(
      "extract", "Write the PTX entries of the CUDA fat binaries in an executable or shared object");
  cmd->add_option("APP", args->app, "ELF executable or shared object built by nvcc")->required();
  cmd->add_option("-o,--output-dir", args->out_dir, "Directory for the .ptx files (default: .)");
  cmd->add_flag("--list", args->list_only, "Only list the PTX entries; write nothing");
  cmd->footer(
      "Files are named <appname>.<fatbin-index>.<entry-index>.sm_<NN>.ptx; one line per PTX\n"
      "entry is printed: file, sm, PTX ISA, compression, stored -> decoded size.\n"
      "Exit status: 0 ok; 1 unreadable file, not ELF, no CUDA fat binary, corrupt fat binary;\n"
      "3 fat binaries without any PTX entry.");
  cmd->callback([&action, args] { action = [args] { return RunExtract(*args); }; });
}

}  // namespace barracuda::ptx_tool
