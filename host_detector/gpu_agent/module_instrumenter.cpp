#include "host_detector/gpu_agent/module_instrumenter.h"

#include <variant>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "ptx_rewriter/fatbin/fatbin_writer.h"
#include "ptx_rewriter/instrument/merge_logger.h"
#include "ptx_rewriter/parser.h"
#include "ptx_rewriter/printer.h"

namespace barracuda::gpu_agent {
namespace {

std::string DescribeEntries(const fatbin::Fatbin& fb) {
  std::vector<std::string> parts;
  for (const auto& e : fb.entries) parts.push_back(absl::StrCat(e.is_ptx() ? "compute_" : "sm_", e.sm_arch()));
  return parts.empty() ? "no entries" : absl::StrJoin(parts, ", ");
}

absl::flat_hash_map<std::string, std::array<uint32_t, 3>> ClusterDims(const ptx::Module& module) {
  absl::flat_hash_map<std::string, std::array<uint32_t, 3>> dims;
  for (const ptx::ModuleItem& item : module.items) {
    const auto* f = std::get_if<ptx::Function>(&item);
    if (f == nullptr || !f->is_entry) continue;
    for (const ptx::PerformanceDirective& d : f->directives) {
      if (d.name != ".reqnctapercluster" || d.values.empty()) continue;
      std::array<uint32_t, 3> c{1, 1, 1};
      for (size_t i = 0; i < d.values.size() && i < 3; ++i) c[i] = static_cast<uint32_t>(d.values[i]);
      dims[f->name] = c;
    }
  }
  return dims;
}

}  // namespace

absl::StatusOr<InstrumentedModule> InstrumentRegisteredFatbin(const fatbin::RegisteredFatbin& registered,
                                                              const ptx::Module& logger,
                                                              const ModuleInstrumentOptions& options) {
  if (registered.wrapper_version == fatbin::kWrapperLinkVersion && !registered.prelinked.empty())
    return absl::FailedPreconditionError(
        "a relocatable-device-code (-rdc) link: the GPU backend cannot yet JIT-link several instrumented "
        "PTX modules (use --backend=emu, which links them)");
  const fatbin::Fatbin& fb = registered.fatbin;
  const std::optional<size_t> chosen = fatbin::ChoosePtxEntry(fb, options.target_sm);
  if (!chosen)
    return absl::FailedPreconditionError(absl::StrCat("the fat binary holds only ", DescribeEntries(fb),
                                                      " and no PTX (build with -gencode arch=compute_XX,"
                                                      "code=[sm_XX,compute_XX])"));
  const fatbin::FatbinEntry& entry = fb.entries[*chosen];
  InstrumentedModule out;
  out.sm = entry.sm_arch();
  out.name = absl::StrCat(entry.ident.empty() ? "module" : entry.ident, " (sm_", entry.sm_arch(), " PTX)");
  absl::StatusOr<ptx::Module> module = ptx::ParseModule(entry.ptx, entry.ident.empty() ? "module.ptx" : entry.ident);
  if (!module.ok()) return absl::InvalidArgumentError(absl::StrCat("PTX of ", out.name, ": ", module.status().message()));
  out.sites = ptx::BuildSiteTable(*module);
  out.cluster_dims = ClusterDims(*module);
  ptx::InstrumentOptions io;
  io.prune = options.prune;
  io.site_base = options.site_base;
  absl::StatusOr<ptx::InstrumentStats> stats = ptx::InstrumentModule(*module, io);
  if (!stats.ok()) return absl::InvalidArgumentError(absl::StrCat("instrumenting ", out.name, ": ", stats.status().message()));
  out.stats = *stats;
  if (absl::Status st = ptx::MergeLogger(*module, logger); !st.ok())
    return absl::InvalidArgumentError(absl::StrCat("merging the device logger into ", out.name, ": ", st.message()));
  out.ptx = ptx::PrintModule(*module);
  const fatbin::PtxEntrySource source{&entry, out.ptx};
  absl::StatusOr<std::vector<uint8_t>> bytes = fatbin::WritePtxFatbin({&source, 1});
  if (!bytes.ok()) return bytes.status();
  out.fatbin = std::move(*bytes);
  return out;
}

}  // namespace barracuda::gpu_agent
