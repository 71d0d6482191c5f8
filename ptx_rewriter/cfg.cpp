#include "ptx_rewriter/cfg.h"

#include <algorithm>
#include <variant>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace barracuda::ptx {
namespace {

SourcePos PositionOf(const Statement& s) {
  return std::visit([](const auto& alternative) { return alternative.pos; }, s);
}

// Abseil here predates std::string_view interop, hence the std::string copies.
absl::Status ErrorAt(std::string_view filename, SourcePos pos, const std::string& message) {
  if (pos.line == 0) return absl::InvalidArgumentError(message);
  const std::string file = filename.empty() ? std::string("<ptx>") : std::string(filename);
  return absl::InvalidArgumentError(
      absl::StrCat(file, ":", pos.line, ":", pos.column, ": ", message));
}

bool EndsBlock(const Instruction& inst) {
  return inst.is_branch() || inst.is_indirect_branch() || inst.is_terminator();
}

void AddSuccessor(BasicBlock& block, int target) {
  if (std::find(block.successors.begin(), block.successors.end(), target) ==
      block.successors.end()) {
    block.successors.push_back(target);
  }
}

// Splits the body into blocks (statement ranges, labels, instructions).
void Partition(const Function& function, FunctionCfg& cfg) {
  const auto& body = function.body;
  cfg.block_of_statement.assign(body.size(), -1);
  bool start_new = true;  // the next statement opens a block
  bool has_instruction = false;
  for (std::size_t i = 0; i < body.size(); ++i) {
    const Label* label = std::get_if<Label>(&body[i]);
    const Instruction* inst = std::get_if<Instruction>(&body[i]);
    if (start_new || (label != nullptr && has_instruction)) {
      if (!cfg.blocks.empty()) cfg.blocks.back().last_statement = i - 1;
      BasicBlock block;
      block.id = static_cast<int>(cfg.blocks.size());
      block.first_statement = i;
      cfg.blocks.push_back(std::move(block));
      start_new = false;
      has_instruction = false;
    }
    BasicBlock& block = cfg.blocks.back();
    cfg.block_of_statement[i] = block.id;
    if (label != nullptr) block.labels.push_back(label->name);
    if (inst != nullptr) {
      if (!block.first_instruction) block.first_instruction = i;
      block.last_instruction = i;
      has_instruction = true;
      start_new = EndsBlock(*inst);
    }
  }
  cfg.blocks.back().last_statement = body.size() - 1;
  // Declarations after the last terminator are not a block of their own.
  if (cfg.blocks.size() > 1 && cfg.blocks.back().labels.empty() &&
      !cfg.blocks.back().first_instruction) {
    const BasicBlock tail = cfg.blocks.back();
    cfg.blocks.pop_back();
    cfg.blocks.back().last_statement = tail.last_statement;
    for (std::size_t i = tail.first_statement; i <= tail.last_statement; ++i) {
      cfg.block_of_statement[i] = cfg.blocks.back().id;
    }
  }
  for (BasicBlock& block : cfg.blocks) {
    block.first_line = PositionOf(body[block.first_statement]).line;
    block.last_line = PositionOf(body[block.last_statement]).line;
    if (block.first_instruction) {
      block.first_instruction_line = PositionOf(body[*block.first_instruction]).line;
      block.last_instruction_line = PositionOf(body[*block.last_instruction]).line;
    }
  }
}

}  // namespace

std::string_view ToString(BlockEnd end) {
  switch (end) {
    case BlockEnd::kFallThrough: return "fall-through";
    case BlockEnd::kBranch: return "branch";
    case BlockEnd::kConditionalBranch: return "conditional branch";
    case BlockEnd::kMultiwayBranch: return "multiway branch";
    case BlockEnd::kExit: return "exit";
    case BlockEnd::kConditionalExit: return "conditional exit";
  }
  return "?";
}

int FunctionCfg::FindBlock(std::string_view label) const {
  for (const BasicBlock& block : blocks) {
    for (const std::string& l : block.labels) {
      if (l == label) return block.id;
    }
  }
  return -1;
}

FlowGraph FunctionCfg::ToFlowGraph() const {
  FlowGraph graph;
  for (const BasicBlock& block : blocks) {
    graph.successors.push_back(block.successors);
    if (block.exits) graph.exits.push_back(block.id);
  }
  return graph;
}

absl::StatusOr<FunctionCfg> BuildCfg(const Function& function, std::string_view filename) {
  FunctionCfg cfg;
  cfg.function_name = function.name;
  if (!function.has_body || function.body.empty()) return cfg;
  Partition(function, cfg);

  absl::flat_hash_map<std::string_view, int> block_of_label;
  for (const BasicBlock& block : cfg.blocks) {
    for (std::size_t i = block.first_statement; i <= block.last_statement; ++i) {
      const Label* label = std::get_if<Label>(&function.body[i]);
      if (label == nullptr) continue;
      if (!block_of_label.emplace(label->name, block.id).second) {
        return ErrorAt(filename, label->pos,
                       absl::StrCat("label '", label->name, "' defined twice in function '",
                                    function.name, "'"));
      }
    }
  }
  auto resolve = [&](const std::string& label, const Instruction& inst) -> absl::StatusOr<int> {
    auto it = block_of_label.find(label);
    if (it == block_of_label.end()) {
      return ErrorAt(filename, inst.pos,
                     absl::StrCat("branch to undefined label '", label, "' in function '",
                                  function.name, "'"));
    }
    return it->second;
  };

  const int num_blocks = static_cast<int>(cfg.blocks.size());
  for (BasicBlock& block : cfg.blocks) {
    const int next = block.id + 1 < num_blocks ? block.id + 1 : -1;
    bool falls_through = true;
    if (block.last_instruction) {
      const auto& inst = std::get<Instruction>(function.body[*block.last_instruction]);
      const bool guarded = inst.guard.present();
      if (inst.is_branch()) {
        const Operand* target = inst.branch_target();
        if (target == nullptr || !target->is_symbol()) {
          return ErrorAt(filename, inst.pos, "cannot read the target of this branch");
        }
        auto to = resolve(target->text, inst);
        if (!to.ok()) return to.status();
        AddSuccessor(block, *to);
        block.end = guarded ? BlockEnd::kConditionalBranch : BlockEnd::kBranch;
        block.uniform = inst.is_uni();
        falls_through = guarded;
      } else if (inst.is_indirect_branch()) {
        const Operand* table_name = inst.branch_target();
        if (table_name == nullptr || !table_name->is_symbol()) {
          return ErrorAt(filename, inst.pos, "cannot read the target table of this brx.idx");
        }
        const BranchTargets* table = function.FindBranchTargets(table_name->text);
        if (table == nullptr) {
          return ErrorAt(filename, inst.pos,
                         absl::StrCat("brx.idx names '", table_name->text,
                                      "', which is not a .branchtargets list of function '",
                                      function.name, "'"));
        }
        for (const std::string& label : table->labels) {
          auto to = resolve(label, inst);
          if (!to.ok()) return to.status();
          AddSuccessor(block, *to);
        }
        block.end = BlockEnd::kMultiwayBranch;
        block.uniform = inst.is_uni();
        falls_through = guarded;
      } else if (inst.is_terminator()) {
        block.exits = true;
        block.end = guarded ? BlockEnd::kConditionalExit : BlockEnd::kExit;
        falls_through = guarded;
      }
    }
    if (falls_through) {
      if (next >= 0) {
        AddSuccessor(block, next);
      } else {
        block.exits = true;  // runs off the end of the body: an implicit return
      }
    }
  }
  for (const BasicBlock& block : cfg.blocks) {
    for (int s : block.successors) {
      cfg.blocks[static_cast<std::size_t>(s)].predecessors.push_back(block.id);
    }
  }
  return cfg;
}

}  // namespace barracuda::ptx
