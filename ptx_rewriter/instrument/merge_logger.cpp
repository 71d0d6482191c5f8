#include "ptx_rewriter/instrument/merge_logger.h"

#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "device_logger/logger_abi.h"
#include "ptx_rewriter/instrument/cluster_hook.h"
#include "ptx_rewriter/instrument/snippets.h"
#include "ptx_rewriter/text_concat.h"

namespace barracuda::ptx {

namespace abi = barracuda::logger_abi;

namespace {

// Every symbol an instruction names (callees, variables), into out.
void CollectSymbols(const Operand& o, std::vector<std::string_view>& out) {
  if (o.kind == Operand::Kind::kSymbol) out.push_back(o.text);
  for (const Operand& e : o.elements) CollectSymbols(e, out);
}

// Calls f's body makes to logger functions (any symbol operand naming one;
// for syntax the parser keeps as text, any mention), passed to reach.
template <typename Reach>
void ReferencedLoggerNames(const Function& f, const absl::flat_hash_set<std::string>& logger_functions,
                           Reach&& reach) {
  std::vector<std::string_view> symbols;
  for (const Statement& st : f.body) {
    const auto* ins = std::get_if<Instruction>(&st);
    if (ins == nullptr) continue;
    if (ins->opaque) {
      for (const std::string& name : logger_functions)
        if (ins->verbatim.find(name) != std::string::npos) reach(name);
      continue;
    }
    symbols.clear();
    for (const Operand& o : ins->operands) CollectSymbols(o, symbols);
    for (std::string_view sym : symbols) reach(sym);
  }
}

// The logger functions the module needs: those its own functions call (what
// InstrumentModule inserted), and what their bodies call, transitively. The
// others are left out: ptxas and the driver JIT compile every function of a
// module, called or not, and the whole logger is ~95 KB of PTX (2026-11-30: a
// small instrumented kernel assembled in 0.23 s of ptxas CPU with the whole
// logger, 0.15 s with the four it calls).
absl::flat_hash_set<std::string> ReachableLoggerFunctions(const Module& module, const Module& logger,
                                                          const absl::flat_hash_set<std::string>& logger_functions) {
  absl::flat_hash_map<std::string, const Function*> bodies;
  for (const ModuleItem& item : logger.items)
    if (const auto* f = std::get_if<Function>(&item)) bodies.emplace(f->name, f);
  absl::flat_hash_set<std::string> reached;
  std::vector<const Function*> work;
  auto reach_logger = [&](std::string_view name) {
    // (Debian's Abseil hashes absl::string_view, not std::string_view.)
    std::string key(name);
    if (!logger_functions.contains(key) && key != abi::kClusterShared && key != abi::kClusterMap) return;
    if (!reached.insert(key).second) return;
    if (auto it = bodies.find(key); it != bodies.end()) work.push_back(it->second);
  };
  for (const ModuleItem& item : module.items)
    if (const auto* f = std::get_if<Function>(&item); f != nullptr && f->has_body)
      ReferencedLoggerNames(*f, logger_functions, reach_logger);
  while (!work.empty()) {
    const Function* f = work.back();
    work.pop_back();
    ReferencedLoggerNames(*f, logger_functions, reach_logger);  // a declaration has no body: nothing
  }
  return reached;
}

}  // namespace

absl::Status MergeLogger(Module& module, const Module& logger) {
  absl::flat_hash_set<std::string> logger_functions, logger_names;
  for (const ModuleItem& item : logger.items) {
    if (const auto* f = std::get_if<Function>(&item)) {
      logger_names.insert(f->name);
      if (f->has_body) logger_functions.insert(f->name);
    } else if (const auto* v = std::get_if<VarDecl>(&item)) {
      for (const Declarator& d : v->declarators) logger_names.insert(d.name);
    }
  }
  const absl::flat_hash_set<std::string> needed = ReachableLoggerFunctions(module, logger, logger_functions);
  std::vector<ModuleItem> merged;
  for (const ModuleItem& item : logger.items) {
    // Debug info and file tables of the logger would clash with the module's.
    if (std::holds_alternative<FileDirective>(item) || std::holds_alternative<SectionDirective>(item)) continue;
    if (const auto* f = std::get_if<Function>(&item); f != nullptr && !needed.contains(f->name)) continue;
    if (const auto* f = std::get_if<Function>(&item);
        f != nullptr && !f->has_body && !LoggerHookDefinition(f->name, false).empty()) {
      // The logger's external callees: this module defines them (cluster_hook.h).
      auto hook = snippet::ParseItems(LoggerHookDefinition(f->name, TargetHasClusters(module)));
      if (!hook.ok()) return absl::InternalError(Cat("cluster hook: ", hook.status().message()));
      for (ModuleItem& h : *hook) merged.push_back(std::move(h));
      continue;
    }
    ModuleItem copy = item;
    if (auto* f = std::get_if<Function>(&copy); f != nullptr && f->has_body) f->linkage = Linkage::kNone;
    merged.push_back(std::move(copy));
  }
  for (ModuleItem& item : module.items) {
    if (auto* f = std::get_if<Function>(&item)) {
      if (logger_functions.contains(f->name)) {
        if (f->has_body) return absl::InvalidArgumentError(Cat(module.filename, ": defines ", f->name,
                                                                ", a name of the device logger"));
        continue;  // the declaration InstrumentModule added
      }
    } else if (const auto* v = std::get_if<VarDecl>(&item)) {
      for (const Declarator& d : v->declarators)
        if (logger_names.contains(d.name))
          return absl::InvalidArgumentError(Cat(module.filename, ": declares ", d.name, ", a name of the device logger"));
    }
    merged.push_back(std::move(item));
  }
  module.items = std::move(merged);
  if (std::pair(module.version_major, module.version_minor) < std::pair(logger.version_major, logger.version_minor)) {
    module.version_major = logger.version_major;
    module.version_minor = logger.version_minor;
  }
  return absl::OkStatus();
}

}  // namespace barracuda::ptx
