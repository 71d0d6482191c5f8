#include "host_detector/gpu_agent/unchecked_kernels.h"

#include <variant>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "device_logger/protocol.h"

namespace barracuda::gpu_agent {
namespace {

constexpr size_t kNamed = 3;  // instructions named per kernel; the rest are counted

// Direct callees of each function with a body; `indirect` when it calls
// through a register.
struct Calls {
  std::vector<std::string> direct;
  bool indirect = false;
};

absl::flat_hash_map<std::string, Calls> CallGraph(const ptx::Module& module) {
  absl::flat_hash_map<std::string, Calls> graph;
  for (const ptx::ModuleItem& item : module.items) {
    const auto* f = std::get_if<ptx::Function>(&item);
    if (f == nullptr || !f->has_body) continue;
    Calls& calls = graph[f->name];
    for (const ptx::Statement& s : f->body) {
      const auto* in = std::get_if<ptx::Instruction>(&s);
      if (in == nullptr || !in->is_call()) continue;
      const ptx::Operand* target = in->call_target();
      if (target != nullptr && target->kind == ptx::Operand::Kind::kSymbol) {
        calls.direct.push_back(target->text);
      } else {
        calls.indirect = true;
      }
    }
  }
  return graph;
}

std::string Where(const ptx::UncheckedInstruction& u, const ptx::SiteTable& sites, uint32_t site_base) {
  if (u.site != protocol::kNoSite && u.site >= site_base && u.site - site_base < sites.sites.size()) {
    const ptx::Site& s = sites.sites[u.site - site_base];
    const std::optional<ptx::SourceLocation>& at = s.inlined_at ? s.inlined_at : s.source;
    if (at && !at->file.empty()) {
      const size_t slash = at->file.find_last_of('/');
      return absl::StrCat(slash == std::string::npos ? at->file : at->file.substr(slash + 1), ":", at->line);
    }
  }
  return absl::StrCat("PTX line ", u.ptx_line);
}

}  // namespace

absl::flat_hash_map<std::string, std::string> UncheckedByKernel(const ptx::Module& module,
                                                                const ptx::InstrumentStats& stats,
                                                                const ptx::SiteTable& sites, uint32_t site_base) {
  absl::flat_hash_map<std::string, std::string> out;
  if (stats.unchecked.empty()) return out;
  const absl::flat_hash_map<std::string, Calls> graph = CallGraph(module);
  for (const ptx::ModuleItem& item : module.items) {
    const auto* f = std::get_if<ptx::Function>(&item);
    if (f == nullptr || !f->has_body || !f->is_entry) continue;
    // The functions the kernel can run.
    absl::flat_hash_set<std::string> reached{f->name};
    std::vector<std::string> work{f->name};
    bool everything = false;
    while (!work.empty() && !everything) {
      const std::string name = std::move(work.back());
      work.pop_back();
      auto it = graph.find(name);
      if (it == graph.end()) continue;  // a declaration: no body here
      everything = it->second.indirect;
      for (const std::string& callee : it->second.direct)
        if (reached.insert(callee).second) work.push_back(callee);
    }
    std::vector<const ptx::UncheckedInstruction*> hits;
    for (const ptx::UncheckedInstruction& u : stats.unchecked)  // each lies in a function with a body
      if (everything || reached.contains(u.function)) hits.push_back(&u);
    if (hits.empty()) continue;
    std::string text = absl::StrCat(hits.size(), hits.size() == 1 ? " instruction: " : " instructions: ");
    for (size_t i = 0; i < hits.size() && i < kNamed; ++i)
      absl::StrAppend(&text, i == 0 ? "" : "; ", hits[i]->opcode, " at ", Where(*hits[i], sites, site_base));
    if (hits.size() > kNamed) absl::StrAppend(&text, "; and ", hits.size() - kNamed, " more");
    out[f->name] = std::move(text);
  }
  return out;
}

}  // namespace barracuda::gpu_agent
