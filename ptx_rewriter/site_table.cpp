#include "ptx_rewriter/site_table.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <tuple>
#include <utility>
#include <variant>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace barracuda::ptx {
namespace {

constexpr std::array<std::pair<SiteKind, std::string_view>, 9> kKindNames{{
    {SiteKind::kLoad, "load"},
    {SiteKind::kStore, "store"},
    {SiteKind::kAtomic, "atomic"},
    {SiteKind::kReduction, "reduction"},
    {SiteKind::kAsyncCopy, "async-copy"},
    {SiteKind::kFence, "fence"},
    {SiteKind::kBarrier, "barrier"},
    {SiteKind::kWarpSync, "warp-sync"},
    {SiteKind::kBranch, "branch"},
}};

constexpr std::array<std::pair<StateSpace, std::string_view>, 10> kSpaceNames{{
    {StateSpace::kReg, "reg"},
    {StateSpace::kSreg, "sreg"},
    {StateSpace::kConst, "const"},
    {StateSpace::kGlobal, "global"},
    {StateSpace::kLocal, "local"},
    {StateSpace::kParam, "param"},
    {StateSpace::kShared, "shared"},
    {StateSpace::kSharedCluster, "shared::cluster"},
    {StateSpace::kTex, "tex"},
    {StateSpace::kGeneric, "generic"},
}};

// Modifier i without its dot ("async" is modifier 0 of cp.async.wait_group); "" past the end.
std::string_view Modifier(const Instruction& inst, std::size_t i) {
  if (i >= inst.modifiers.size()) return "";
  std::string_view m = inst.modifiers[i];
  return m.empty() ? m : m.substr(1);
}

std::optional<SiteKind> ClassifyCp(const Instruction& inst) {
  // cp.async..., cp.reduce.async.bulk...; anything else (future forms) is not a site.
  if (Modifier(inst, 0) == "reduce") return SiteKind::kReduction;
  if (Modifier(inst, 0) != "async") return std::nullopt;
  for (const std::string& m : inst.modifiers) {
    if (m == ".commit_group" || m == ".prefetch") return std::nullopt;
    if (m == ".wait_group" || m == ".wait_all") return SiteKind::kFence;
    if (m == ".mbarrier" && inst.HasModifier(".arrive")) return SiteKind::kBarrier;
  }
  return SiteKind::kAsyncCopy;
}

bool IsMemorySite(SiteKind kind) {
  switch (kind) {
    case SiteKind::kLoad:
    case SiteKind::kStore:
    case SiteKind::kAtomic:
    case SiteKind::kReduction:
    case SiteKind::kAsyncCopy:
      return true;
    default:
      return false;
  }
}

StateSpace SpaceOf(const Instruction& inst, SiteKind kind) {
  const bool addressed = IsMemorySite(kind) || inst.op == Opcode::kMbarrier ||
                         (inst.op == Opcode::kCp && kind == SiteKind::kBarrier);
  if (!addressed) return StateSpace::kNone;
  if (inst.info.space != StateSpace::kNone) return inst.info.space;
  // Texture and surface objects name global memory.
  if (inst.op == Opcode::kTex || inst.op == Opcode::kTld4 || inst.op == Opcode::kSuld || inst.op == Opcode::kSust)
    return StateSpace::kGlobal;
  // multimem addresses are always global multicast addresses.
  if (inst.op == Opcode::kMultimem) return StateSpace::kGlobal;
  return StateSpace::kGeneric;
}

SourceLocation Resolve(const Module& module, uint32_t file_index, uint32_t line,
                       uint32_t column) {
  SourceLocation source;
  source.file_index = file_index;
  if (const FileDirective* file = module.FindFile(file_index)) source.file = file->name;
  source.line = line;
  source.column = column;
  return source;
}

nlohmann::json LocationToJson(const std::optional<SourceLocation>& location) {
  if (!location) return nullptr;
  return {{"file", location->file},
          {"file_index", location->file_index},
          {"line", location->line},
          {"column", location->column}};
}

absl::Status JsonError(std::size_t index, const std::string& what) {
  return absl::InvalidArgumentError(absl::StrCat("site table JSON, site ", index, ": ", what));
}

}  // namespace

std::string OpcodeText(const Instruction& inst) {
  std::string text(inst.opcode_name());
  for (const std::string& m : inst.modifiers) text += m;
  return text;
}

std::string_view ToString(SiteKind kind) {
  for (auto [k, name] : kKindNames) {
    if (k == kind) return name;
  }
  return "?";
}

std::optional<SiteKind> ParseSiteKind(std::string_view text) {
  for (auto [k, name] : kKindNames) {
    if (name == text) return k;
  }
  return std::nullopt;
}

std::string_view SiteSpaceName(StateSpace space) {
  for (auto [s, name] : kSpaceNames) {
    if (s == space) return name;
  }
  return "";
}

std::optional<SiteKind> ClassifySite(const Instruction& inst) {
  switch (inst.op) {
    case Opcode::kLd:
    case Opcode::kLdu:
    case Opcode::kLdmatrix:
      return SiteKind::kLoad;
    case Opcode::kSt:
    case Opcode::kStmatrix:
      return SiteKind::kStore;
    // Texture fetches and surface accesses read and write global memory (the
    // emulator records them, ptx_emulator/ops/texture_ops.cpp); the GPU
    // backend does not instrument them and reports them as not covered.
    case Opcode::kTex:
    case Opcode::kTld4:
    case Opcode::kSuld:
      return SiteKind::kLoad;
    case Opcode::kSust:
      return SiteKind::kStore;
    case Opcode::kWmma: {
      // wmma.load / wmma.store move a matrix between memory and fragments;
      // wmma.mma touches registers only.
      const std::string_view m = Modifier(inst, 0);
      if (m == "load") return SiteKind::kLoad;
      if (m == "store") return SiteKind::kStore;
      return std::nullopt;
    }
    case Opcode::kAtom:
      return SiteKind::kAtomic;
    case Opcode::kRed:
      return SiteKind::kReduction;
    case Opcode::kMultimem: {
      const std::string_view m = Modifier(inst, 0);
      if (m == "ld_reduce") return SiteKind::kLoad;
      if (m == "st") return SiteKind::kStore;
      if (m == "red") return SiteKind::kReduction;
      return std::nullopt;
    }
    case Opcode::kCp:
      return ClassifyCp(inst);
    case Opcode::kFence:
    case Opcode::kMembar:
      return SiteKind::kFence;
    case Opcode::kBar:
      return inst.info.barrier == BarrierMode::kWarpSync ? SiteKind::kWarpSync : SiteKind::kBarrier;
    case Opcode::kBarrier:
      return SiteKind::kBarrier;
    case Opcode::kMbarrier:
      // pending_count decodes a state value held in a register: no memory, no sync.
      if (Modifier(inst, 0) == "pending_count") return std::nullopt;
      return SiteKind::kBarrier;
    case Opcode::kShfl:
    case Opcode::kVote:
    case Opcode::kMatch:
    case Opcode::kRedux:
    case Opcode::kActivemask:
    case Opcode::kElect:
      return SiteKind::kWarpSync;
    case Opcode::kBra:
    case Opcode::kBrx:
      return SiteKind::kBranch;
    default:
      return std::nullopt;
  }
}

SiteTable BuildSiteTable(const Module& module) {
  SiteTable table;
  for (const Function* function : module.Functions()) {
    // Inlining chains, outwards (Site::inlined_at). `.loc F L C, function_name
    // X, inlined_at F' L' C'` says that X was inlined at F':L':C', a position
    // of X's caller; the compiler emits the caller's own .loc there (with the
    // caller's function_name and inlined_at) before X's. So each .loc's parent
    // is the latest .loc at its inlined_at position when it appears, taken
    // then: later .locs at that position may belong to another inlined copy
    // of the caller (CUB interleaves two collectives' code) or, for a template
    // that calls itself on one line, to X itself.
    struct LocNode {
      const DebugLoc* loc;
      int parent;  // index into `nodes`, -1: none; always an earlier node
    };
    using Position = std::tuple<uint32_t, uint32_t, uint32_t>;
    std::vector<LocNode> nodes;
    absl::flat_hash_map<Position, int> latest;
    int current = -1;  // the .loc in effect
    for (std::size_t i = 0; i < function->body.size(); ++i) {
      if (const LocDirective* d = std::get_if<LocDirective>(&function->body[i])) {
        const DebugLoc& l = d->loc;
        int parent = -1;
        if (l.has_inlined_at) {
          auto it = latest.find(Position{l.inlined_file, l.inlined_line, l.inlined_column});
          if (it != latest.end()) parent = it->second;
          // A re-emitted .loc of the same inlined copy is not its own caller.
          while (parent >= 0 && nodes[parent].loc->function_name == l.function_name &&
                 nodes[parent].loc->inlined_file == l.inlined_file &&
                 nodes[parent].loc->inlined_line == l.inlined_line &&
                 nodes[parent].loc->inlined_column == l.inlined_column)
            parent = nodes[parent].parent;
        }
        current = static_cast<int>(nodes.size());
        nodes.push_back({&l, parent});
        latest[{l.file, l.line, l.column}] = current;
        continue;
      }
      const Instruction* inst = std::get_if<Instruction>(&function->body[i]);
      if (inst == nullptr) continue;
      const std::optional<SiteKind> kind = ClassifySite(*inst);
      if (!kind) continue;
      Site site;
      site.id = static_cast<uint32_t>(table.sites.size());
      site.function = function->name;
      site.kind = *kind;
      site.opcode = OpcodeText(*inst);
      site.space = SpaceOf(*inst, *kind);
      site.ptx_line = inst->pos.line;
      site.statement = i;
      const DebugLoc& loc = inst->loc;
      if (loc.valid() && loc.line != 0) {
        site.source = Resolve(module, loc.file, loc.line, loc.column);
        if (loc.has_inlined_at && loc.inlined_file != 0 && loc.inlined_line != 0) {
          // The call sites of the chain, innermost first.
          std::vector<const DebugLoc*> chain{&loc};
          if (current >= 0 && *nodes[current].loc == loc) {
            for (int n = nodes[current].parent; n >= 0 && chain.size() < 256; n = nodes[n].parent) {
              const DebugLoc& at = *nodes[n].loc;
              if (!at.has_inlined_at || at.inlined_file == 0 || at.inlined_line == 0) break;
              chain.push_back(&at);
            }
          }
          // For a site in a header: the innermost call site in the file of
          // the outermost one (the file being compiled), i.e. the program's
          // own line that led into library code, not a header's internal
          // call nor the caller of a helper of the program's own. For a site
          // in that file itself (a helper of the program's, inlined): the
          // outermost call site, the kernel's line (the innermost would be a
          // line of the program's helpers, or the site's own line for a
          // template that calls itself).
          const uint32_t file = chain.back()->inlined_file;
          const DebugLoc* pick = chain.back();
          for (const DebugLoc* c : chain) {
            if (loc.file == file) break;
            if (c->inlined_file == file) {
              pick = c;
              break;
            }
          }
          site.inlined_at = Resolve(module, pick->inlined_file, pick->inlined_line, pick->inlined_column);
        }
      }
      table.sites.push_back(std::move(site));
    }
  }
  return table;
}

nlohmann::json SiteTable::ToJson() const {
  nlohmann::json list = nlohmann::json::array();
  for (const Site& site : sites) {
    nlohmann::json entry{
        {"id", site.id},
        {"function", site.function},
        {"kind", ToString(site.kind)},
        {"opcode", site.opcode},
        {"space", nullptr},
        {"ptx_line", site.ptx_line},
        {"statement", site.statement},
        {"source", LocationToJson(site.source)},
        {"inlined_at", LocationToJson(site.inlined_at)},
    };
    if (site.space != StateSpace::kNone) entry["space"] = SiteSpaceName(site.space);
    list.push_back(std::move(entry));
  }
  return nlohmann::json{{"version", kJsonVersion}, {"sites", std::move(list)}};
}

namespace {

absl::Status CheckTableHeader(const nlohmann::json& json) {
  if (!json.is_object() || !json.contains("version") || !json["version"].is_number_integer()) {
    return absl::InvalidArgumentError("site table JSON: not an object with an integer 'version'");
  }
  if (json["version"].get<int>() != SiteTable::kJsonVersion) {
    return absl::InvalidArgumentError(
        absl::StrCat("site table JSON: version ", json["version"].dump(), ", expected ",
                     SiteTable::kJsonVersion));
  }
  if (!json.contains("sites") || !json["sites"].is_array()) {
    return absl::InvalidArgumentError("site table JSON: 'sites' is not an array");
  }
  return absl::OkStatus();
}

// Site i of a table's "sites" array.
absl::StatusOr<Site> SiteFromJson(const nlohmann::json& e, std::size_t i) {
  if (!e.is_object()) return JsonError(i, "not an object");
  auto uint_field = [&](const nlohmann::json& object, const char* name,
                        uint64_t max) -> absl::StatusOr<uint64_t> {
    // Parsed JSON holds non-negative numbers as unsigned, built JSON may hold them signed.
    const bool ok = object.contains(name) && object[name].is_number_integer() &&
                    (object[name].is_number_unsigned() || object[name].get<int64_t>() >= 0) &&
                    object[name].get<uint64_t>() <= max;
    if (!ok) {
      return JsonError(i, absl::StrCat("'", name, "' is missing or not an unsigned integer"));
    }
    return object[name].get<uint64_t>();
  };
  auto string_field = [&](const nlohmann::json& object,
                          const char* name) -> absl::StatusOr<std::string> {
    if (!object.contains(name) || !object[name].is_string()) {
      return JsonError(i, absl::StrCat("'", name, "' is missing or not a string"));
    }
    return object[name].get<std::string>();
  };
  Site site;
  auto id = uint_field(e, "id", UINT32_MAX);
  if (!id.ok()) return id.status();
  if (*id != i) return JsonError(i, "ids must be dense and in order");
  site.id = static_cast<uint32_t>(*id);
  auto function = string_field(e, "function");
  if (!function.ok()) return function.status();
  site.function = *std::move(function);
  auto kind_text = string_field(e, "kind");
  if (!kind_text.ok()) return kind_text.status();
  auto kind = ParseSiteKind(*kind_text);
  if (!kind) return JsonError(i, absl::StrCat("unknown kind '", *kind_text, "'"));
  site.kind = *kind;
  auto opcode = string_field(e, "opcode");
  if (!opcode.ok()) return opcode.status();
  site.opcode = *std::move(opcode);
  if (e.contains("space") && !e["space"].is_null()) {
    auto space_text = string_field(e, "space");
    if (!space_text.ok()) return space_text.status();
    site.space = StateSpace::kNone;
    for (auto [s, name] : kSpaceNames) {
      if (name == *space_text) site.space = s;
    }
    if (site.space == StateSpace::kNone) {
      return JsonError(i, absl::StrCat("unknown space '", *space_text, "'"));
    }
  }
  auto line = uint_field(e, "ptx_line", UINT32_MAX);
  if (!line.ok()) return line.status();
  site.ptx_line = static_cast<uint32_t>(*line);
  auto statement = uint_field(e, "statement", SIZE_MAX);
  if (!statement.ok()) return statement.status();
  site.statement = static_cast<std::size_t>(*statement);
  auto location_field = [&](const char* name,
                            std::optional<SourceLocation>& out) -> absl::Status {
    if (!e.contains(name) || e[name].is_null()) return absl::OkStatus();
    const auto& s = e[name];
    if (!s.is_object()) return JsonError(i, absl::StrCat("'", name, "' is not an object"));
    SourceLocation location;
    auto file = string_field(s, "file");
    if (!file.ok()) return file.status();
    location.file = *std::move(file);
    auto file_index = uint_field(s, "file_index", UINT32_MAX);
    auto location_line = uint_field(s, "line", UINT32_MAX);
    auto column = uint_field(s, "column", UINT32_MAX);
    if (!file_index.ok()) return file_index.status();
    if (!location_line.ok()) return location_line.status();
    if (!column.ok()) return column.status();
    location.file_index = static_cast<uint32_t>(*file_index);
    location.line = static_cast<uint32_t>(*location_line);
    location.column = static_cast<uint32_t>(*column);
    out = std::move(location);
    return absl::OkStatus();
  };
  if (absl::Status st = location_field("source", site.source); !st.ok()) return st;
  if (absl::Status st = location_field("inlined_at", site.inlined_at); !st.ok()) return st;
  return site;
}

}  // namespace

absl::StatusOr<SiteTable> SiteTable::FromJson(const nlohmann::json& json) {
  if (absl::Status st = CheckTableHeader(json); !st.ok()) return st;
  SiteTable table;
  const auto& list = json["sites"];
  table.sites.reserve(list.size());
  for (std::size_t i = 0; i < list.size(); ++i) {
    absl::StatusOr<Site> site = SiteFromJson(list[i], i);
    if (!site.ok()) return site.status();
    table.sites.push_back(*std::move(site));
  }
  return table;
}

absl::StatusOr<SiteTable> SiteTable::FromJsonText(std::string_view text) {
  using Json = nlohmann::json;
  SiteTable table;
  absl::Status first_error;
  bool in_sites = false;
  std::size_t index = 0;
  // Each element of "sites" is converted as soon as it is parsed and then
  // dropped from the document (the callback returns false), so the parse
  // holds one site's DOM at a time, not the table's.
  Json::parser_callback_t take_sites = [&](int depth, Json::parse_event_t event, Json& parsed) {
    if (depth == 1 && event == Json::parse_event_t::key) in_sites = parsed == "sites";
    const bool element_done = event == Json::parse_event_t::object_end || event == Json::parse_event_t::value ||
                              event == Json::parse_event_t::array_end;
    if (!in_sites || depth != 2 || !element_done) return true;
    absl::StatusOr<Site> site = SiteFromJson(parsed, index++);
    if (site.ok()) {
      table.sites.push_back(*std::move(site));
    } else if (first_error.ok()) {
      first_error = site.status();
    }
    return false;
  };
  const Json rest = Json::parse(text.begin(), text.end(), take_sites, /*allow_exceptions=*/false);
  if (rest.is_discarded()) return absl::InvalidArgumentError("site table JSON: not JSON");
  if (absl::Status st = CheckTableHeader(rest); !st.ok()) return st;
  if (!first_error.ok()) return first_error;
  return table;
}

SiteShape ShapeOfSite(const Site& site) {
  std::vector<std::string> modifiers;
  const std::string_view text = site.opcode;
  const size_t dot = text.find('.');
  SiteShape shape;
  shape.op = LookupOpcode(text.substr(0, dot));
  for (size_t at = dot; at != std::string_view::npos;) {
    const size_t next = text.find('.', at + 1);
    modifiers.emplace_back(text.substr(at, next == std::string_view::npos ? next : next - at));
    at = next;
  }
  shape.info = ClassifyModifiers(shape.op, modifiers);
  return shape;
}

uint32_t SiteShape::TypedBytes() const {
  return info.type() == Type::kNone ? 0 : TypeSize(info.type()) * std::max<uint32_t>(1, info.vector_width);
}

uint32_t AccessBytesOfSite(const Site& site) {
  const SiteShape shape = ShapeOfSite(site);
  switch (shape.op) {
    case Opcode::kLd:
    case Opcode::kLdu:
    case Opcode::kSt:
    case Opcode::kAtom:
    case Opcode::kRed:
      break;
    default:
      return 0;
  }
  return shape.TypedBytes();
}

}  // namespace barracuda::ptx
