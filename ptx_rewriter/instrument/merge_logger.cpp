#include "ptx_rewriter/instrument/merge_logger.h"

#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "device_logger/logger_abi.h"
#include "ptx_rewriter/instrument/cluster_hook.h"
#include "ptx_rewriter/instrument/snippets.h"
#include "ptx_rewriter/text_concat.h"

namespace barracuda::ptx {

namespace abi = barracuda::logger_abi;

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
  std::vector<ModuleItem> merged;
  for (const ModuleItem& item : logger.items) {
    // Debug info and file tables of the logger would clash with the module's.
    if (std::holds_alternative<FileDirective>(item) || std::holds_alternative<SectionDirective>(item)) continue;
    if (const auto* f = std::get_if<Function>(&item); f != nullptr && !f->has_body && f->name == abi::kClusterShared) {
      // The logger's external callee: this module defines it (cluster_hook.h).
      auto hook = snippet::ParseItems(ClusterSharedDefinition(TargetHasClusters(module)));
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
