// barracuda-ptx cfg FILE --kernel NAME [--dot]: basic blocks of one function
// and the reconvergence point of each branch that can split a warp.
#include <algorithm>
#include <iostream>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "ptx_rewriter/cfg.h"
#include "ptx_rewriter/printer.h"
#include "ptx_rewriter/reconvergence.h"
#include "ptx_rewriter/tool/read_ptx.h"
#include "ptx_rewriter/tool/subcommands.h"

namespace barracuda::ptx_tool {
namespace {

struct CfgOptions {
  std::string file;
  std::string kernel;
  bool dot = false;
};

std::string BlockName(int block) { return "B" + std::to_string(block); }

std::string LineRange(uint32_t first, uint32_t last) {
  return first == last ? std::to_string(first) : std::to_string(first) + "-" + std::to_string(last);
}

std::string Successors(const ptx::BasicBlock& block) {
  std::string text;
  for (int s : block.successors) text += (text.empty() ? "" : ", ") + BlockName(s);
  if (block.exits) text += text.empty() ? "exit" : ", exit";
  return text.empty() ? "-" : text;
}

std::string Where(const ptx::FunctionCfg& cfg, const ptx::BranchReconvergence& b) {
  if (b.at_exit()) return "exit";
  std::string text = BlockName(b.reconvergence_block);
  if (!b.reconvergence_label.empty()) text += " " + b.reconvergence_label;
  if (b.reconvergence_line != 0) {
    text += " (ptx line " + std::to_string(b.reconvergence_line) + ")";
  } else {
    const auto& join = cfg.blocks[static_cast<std::size_t>(b.reconvergence_block)];
    text += " (ptx line " + std::to_string(join.first_line) + ", no instruction)";
  }
  return text;
}

void PrintText(const ptx::Function& function, const ptx::FunctionCfg& cfg,
               const ptx::Reconvergence& reconvergence, std::ostream& out) {
  out << "function " << function.name << " (" << (function.is_entry ? ".entry" : ".func")
      << "): " << cfg.blocks.size() << (cfg.blocks.size() == 1 ? " block\n" : " blocks\n");
  std::size_t label_width = 5;
  for (const auto& block : cfg.blocks) {
    std::string labels;
    for (const auto& l : block.labels) labels += (labels.empty() ? "" : " ") + l;
    label_width = std::max(label_width, labels.size());
  }
  auto pad = [](std::string s, std::size_t w) {
    s.resize(std::max(s.size(), w), ' ');
    return s;
  };
  out << "  " << pad("block", 6) << "  " << pad("label", label_width) << "  "
      << pad("ptx lines", 11) << "  " << pad("end", 18) << "  successors\n";
  for (const auto& block : cfg.blocks) {
    std::string labels;
    for (const auto& l : block.labels) labels += (labels.empty() ? "" : " ") + l;
    out << "  " << pad(BlockName(block.id), 6) << "  " << pad(labels.empty() ? "-" : labels, label_width)
        << "  " << pad(LineRange(block.first_line, block.last_line), 11) << "  "
        << pad(std::string(ptx::ToString(block.end)), 18) << "  " << Successors(block) << "\n";
  }
  if (reconvergence.branches.empty()) {
    out << "no branch can split a warp\n";
    return;
  }
  out << "reconvergence of branches that can split a warp:\n";
  for (const auto& b : reconvergence.branches) {
    const auto& inst = std::get<ptx::Instruction>(function.body[b.statement]);
    std::string text = ptx::PrintInstruction(inst);
    std::replace(text.begin(), text.end(), '\t', ' ');  // the printer tab-aligns operands
    out << "  ptx line " << b.ptx_line << "  " << BlockName(b.block) << "  " << text << "  ->  "
        << Where(cfg, b) << "\n";
  }
}

std::string DotEscape(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out;
}

void PrintDot(const ptx::Function& function, const ptx::FunctionCfg& cfg,
              const ptx::Reconvergence& reconvergence, std::ostream& out) {
  out << "digraph \"" << DotEscape(function.name) << "\" {\n"
      << "  node [shape=box, fontname=\"monospace\"];\n";
  bool any_exit = false;
  for (const auto& block : cfg.blocks) {
    std::string label = BlockName(block.id);
    for (const auto& l : block.labels) label += " " + l;
    out << "  " << BlockName(block.id) << " [label=\"" << DotEscape(label) << "\\nptx "
        << LineRange(block.first_line, block.last_line) << "\"];\n";
    any_exit |= block.exits;
  }
  if (any_exit) out << "  exit [shape=oval];\n";
  for (const auto& block : cfg.blocks) {
    const bool two_way = block.end == ptx::BlockEnd::kConditionalBranch && block.successors.size() == 2;
    for (std::size_t i = 0; i < block.successors.size(); ++i) {
      out << "  " << BlockName(block.id) << " -> " << BlockName(block.successors[i]);
      if (two_way) out << (i == 0 ? " [label=\"taken\"]" : " [label=\"not taken\"]");
      out << ";\n";
    }
    if (block.exits) out << "  " << BlockName(block.id) << " -> exit;\n";
  }
  for (const auto& b : reconvergence.branches) {
    out << "  " << BlockName(b.block) << " -> " << (b.at_exit() ? "exit" : BlockName(b.reconvergence_block))
        << " [style=dashed, color=blue, constraint=false, label=\"reconverge\"];\n";
  }
  out << "}\n";
}

void ListFunctions(const ptx::Module& module, std::ostream& out) {
  bool any = false;
  for (const ptx::Function* f : module.Functions()) {
    if (!f->has_body) continue;
    out << "  " << f->name << (f->is_entry ? " (.entry)" : " (.func)") << "\n";
    any = true;
  }
  if (!any) out << "  (none: the file defines no function)\n";
}

}  // namespace

void RegisterCfg(CLI::App& app, Action& action) {
  auto options = std::make_shared<CfgOptions>();
  auto* cmd = app.add_subcommand(
      "cfg",
      "Show the basic blocks of one function of a PTX file and, for every branch that can\n"
      "split a warp, where the warp reconverges (its immediate post-dominator).");
  cmd->add_option("file", options->file, "PTX file")->required();
  cmd->add_option("--kernel,-k", options->kernel,
                  "function to show (.entry or .func name, mangled as in the PTX)");
  cmd->add_flag("--dot", options->dot, "print a Graphviz digraph instead of text");
  cmd->callback([&action, options] {
    action = [options] {
      auto module = ReadPtxFile(options->file);
      if (!module) return kExitInputError;
      if (options->kernel.empty()) {
        std::cerr << "barracuda-ptx: cfg needs --kernel NAME; functions in '" << options->file
                  << "':\n";
        ListFunctions(*module, std::cerr);
        return kExitUsage;
      }
      const ptx::Function* function = module->FindFunction(options->kernel);
      if (function == nullptr || !function->has_body) {
        std::cerr << "barracuda-ptx: " << options->file << ": no function named '"
                  << options->kernel << "'"
                  << (function != nullptr ? " with a body (only a declaration)" : "")
                  << "; functions defined there:\n";
        ListFunctions(*module, std::cerr);
        return kExitNotFound;
      }
      auto cfg = ptx::BuildCfg(*function, options->file);
      if (!cfg.ok()) {
        std::cerr << "barracuda-ptx: " << cfg.status().message() << "\n";
        return kExitInputError;
      }
      const ptx::Reconvergence reconvergence = ptx::ComputeReconvergence(*cfg);
      if (options->dot) {
        PrintDot(*function, *cfg, reconvergence, std::cout);
      } else {
        PrintText(*function, *cfg, reconvergence, std::cout);
      }
      return kExitOk;
    };
  });
}

}  // namespace barracuda::ptx_tool
