#include "host_detector/gpu_agent/module_instrumenter.h"

#include <variant>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "host_detector/gpu_agent/unchecked_kernels.h"
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

std::vector<std::string> GlobalVariables(const ptx::Module& module) {
  std::vector<std::string> names;
  for (const ptx::ModuleItem& item : module.items) {
    const auto* v = std::get_if<ptx::VarDecl>(&item);
    if (v == nullptr || v->space != ptx::StateSpace::kGlobal || v->linkage == ptx::Linkage::kExtern) continue;
    for (const ptx::Declarator& d : v->declarators) names.push_back(d.name);
  }
  return names;
}

// The PTX .target's sm (".target sm_75, debug" -> 75); 0 when absent.
uint32_t TargetSm(const ptx::Module& module) {
  for (const std::string& t : module.targets) {
    if (t.rfind("sm_", 0) != 0) continue;
    uint32_t sm = 0;
    for (size_t i = 3; i < t.size() && t[i] >= '0' && t[i] <= '9'; ++i) sm = sm * 10 + (t[i] - '0');
    return sm;
  }
  return 0;
}

}  // namespace

absl::StatusOr<InstrumentedModule> InstrumentPtxText(std::string_view ptx_text, const std::string& ident,
                                                     std::string name, const ptx::Module& logger,
                                                     const ModuleInstrumentOptions& options) {
  absl::StatusOr<ptx::Module> module = ptx::ParseModule(ptx_text, ident);
  InstrumentedModule out;
  const bool named = !name.empty();
  out.name = named ? std::move(name) : absl::StrCat(ident, " (PTX)");
  if (!module.ok()) return absl::InvalidArgumentError(absl::StrCat("PTX of ", out.name, ": ", module.status().message()));
  out.sm = TargetSm(*module);
  if (!named && out.sm != 0) out.name = absl::StrCat(ident, " (sm_", out.sm, " PTX)");
  out.sites = ptx::BuildSiteTable(*module);
  out.cluster_dims = ClusterDims(*module);
  out.globals = GlobalVariables(*module);  // before the logger's own are merged in
  ptx::InstrumentOptions io;
  io.prune = options.prune;
  io.site_base = options.site_base;
  absl::StatusOr<ptx::InstrumentStats> stats = ptx::InstrumentModule(*module, io);
  if (!stats.ok()) return absl::InvalidArgumentError(absl::StrCat("instrumenting ", out.name, ": ", stats.status().message()));
  out.stats = *stats;
  out.unchecked_by_kernel = UncheckedByKernel(*module, out.stats, out.sites, options.site_base);
  if (absl::Status st = ptx::MergeLogger(*module, logger); !st.ok())
    return absl::InvalidArgumentError(absl::StrCat("merging the device logger into ", out.name, ": ", st.message()));
  out.ptx = ptx::PrintModule(*module);
  return out;
}

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
  const std::string ident = entry.ident.empty() ? "module" : entry.ident;
  absl::StatusOr<InstrumentedModule> out = InstrumentPtxText(
      entry.ptx, entry.ident.empty() ? "module.ptx" : entry.ident, absl::StrCat(ident, " (sm_", entry.sm_arch(), " PTX)"),
      logger, options);
  if (!out.ok()) return out.status();
  out->sm = entry.sm_arch();
  const fatbin::PtxEntrySource source{&entry, out->ptx};
  absl::StatusOr<std::vector<uint8_t>> bytes = fatbin::WritePtxFatbin({&source, 1});
  if (!bytes.ok()) return bytes.status();
  out->fatbin = std::move(*bytes);
  return out;
}

}  // namespace barracuda::gpu_agent
