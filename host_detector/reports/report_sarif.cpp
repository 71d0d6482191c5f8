#include "host_detector/reports/report_sarif.h"

#include <filesystem>

#include <cstdio>
#include <iterator>
#include <optional>

#include "host_detector/reports/memory_errors.h"
#include "host_detector/reports/race_fingerprint.h"
#include "host_detector/reports/stream_order_races.h"
#include "host_detector/reports/report_json.h"
#include "host_detector/reports/report_text.h"
#include "ptx_rewriter/text_concat.h"

namespace barracuda::reports {
namespace {

using detector::RaceKind;
using nlohmann::json;

struct RuleInfo {
  RaceKind kind;
  const char* name;  // PascalCase, as SARIF recommends for reportingDescriptor.name
  const char* short_text;
  const char* full_text;
};

constexpr RuleInfo kRules[] = {
    {RaceKind::kReadAfterWrite, "ReadAfterWriteRace", "Read-after-write data race",
     "A read is not ordered after a write to the same bytes by another thread (no barrier, "
     "warp synchronisation or release/acquire between them)."},
    {RaceKind::kWriteAfterRead, "WriteAfterReadRace", "Write-after-read data race",
     "A write is not ordered after a read of the same bytes by another thread."},
    {RaceKind::kWriteAfterWrite, "WriteAfterWriteRace", "Write-after-write data race",
     "Two threads write the same bytes without ordering between the writes."},
    {RaceKind::kAtomicVsPlain, "AtomicVersusPlainRace", "Atomic access races with a plain access",
     "An atomic access and a plain (non-atomic) access to the same bytes are not ordered."},
    {RaceKind::kNotMorallyStrong, "NotMorallyStrongRace", "Strong accesses that are not morally strong",
     "Two strong accesses (atomics, relaxed or volatile loads and stores) to the same bytes are not "
     "ordered, and the PTX memory model does not excuse them: a scope (e.g. .cta) does not include "
     "the other thread, or the accesses differ in size."},
    {RaceKind::kDependencyOrdered, "DependencyOrderedWriteAfterRead", "Write after read ordered only by a dependency",
     "A write is ordered after another thread's read of the same bytes only through a chain of relaxed (unfenced) "
     "strong stores and loads, i.e. by a data or address dependency, which the PTX memory model does not promise. "
     "Decoupled look-back with relaxed tile status (CUB) has this shape; a fence pair would make it a release/acquire."},
    {RaceKind::kBarrierDivergence, "BarrierDivergence", "Barrier reached by part of a warp",
     "A block-wide barrier (__syncthreads, bar.sync) was executed by only some of the live lanes "
     "of a warp: the behaviour is undefined."},
    {RaceKind::kWarpSyncMask, "WarpSyncOutsideMemberMask", "Warp-synchronous primitive executed outside its member mask",
     "A lane executed a warp-synchronous primitive (__shfl_sync, __ballot_sync, __syncwarp, match, redux; "
     "shfl/vote/match/redux.sync, bar.warp.sync) whose member mask does not include the lane itself: the PTX ISA "
     "leaves the behaviour undefined (the lane may hang or read another lane's garbage)."},
    {RaceKind::kSharedLifetime, "DistributedSharedMemoryLifetime",
     "Distributed shared memory access not ordered before the owner block's exit",
     "A thread accessed the shared memory of another block of its cluster (distributed shared memory), and the "
     "access is not ordered before that block's exit: the CUDA programming guide requires every access to a "
     "block's shared memory to complete before the block exits (cluster.sync() before exit), since its shared "
     "memory is released when it exits."},
    {RaceKind::kSameValue, "SameValueWrite", "Unordered writes of the same value",
     "Two threads wrote the same bytes without ordering between the writes, and both stored the same value "
     "(a flag set by many threads, a BFS visited mark). The PTX memory model calls this a data race; GPUs store "
     "one of the equal values, so it is reported as a warning. barracuda --ignore same-value hides the class."},
};

size_t RuleIndex(RaceKind kind) {
  for (size_t i = 0; i < std::size(kRules); ++i) {
    if (kRules[i].kind == kind) return i;
  }
  return 0;
}

json Message(std::string text) { return json{{"text", std::move(text)}}; }

std::string AccessSentence(const ResolvedAccess& a) {
  return ptx::Cat(OperationName(a), " by ", ThreadText(a), " (warp ", a.warp, ", lane ", a.lane, ") at ",
                  AccessLocationText(a));
}

// A file of the CUDA toolkit's headers (device_atomic_functions.hpp,
// cuda/std/..., cooperative_groups/...): not where the user can fix anything.
bool ToolkitHeader(const std::string& path) {
  const std::string p = std::filesystem::path(path).lexically_normal().string();
  return p.find("/targets/") != std::string::npos || p.find("/cuda/include/") != std::string::npos ||
         p.find("/include/crt/") != std::string::npos || p.rfind("/usr/local/cuda", 0) == 0 ||
         p.rfind("/usr/include/cuda", 0) == 0;
}

json Location(const ResolvedAccess& a, int id, const std::string& message) {
  json loc = {{"id", id}, {"message", Message(message)}};
  if (a.site != nullptr) {
    const ptx::Site& s = *a.site;
    // An access inlined from a toolkit header (atomicAdd) is located at the
    // user's line that called it; the header line stays in the message.
    const bool use_caller = s.source && s.inlined_at && !s.inlined_at->file.empty() && s.inlined_at->line != 0 &&
                            ToolkitHeader(s.source->file) && !ToolkitHeader(s.inlined_at->file);
    const std::optional<ptx::SourceLocation>& src = use_caller ? s.inlined_at : s.source;
    if (src && !src->file.empty() && src->line != 0) {
      json region = {{"startLine", src->line}};
      if (src->column != 0) region["startColumn"] = src->column;
      loc["physicalLocation"] = {{"artifactLocation", {{"uri", PathToUri(src->file)}}}, {"region", region}};
    } else if (a.module != nullptr && !a.module->name.empty() && s.ptx_line != 0) {
      // Without -lineinfo the PTX is the only source there is.
      loc["physicalLocation"] = {{"artifactLocation", {{"uri", PathToUri(a.module->name)}}},
                                 {"region", {{"startLine", s.ptx_line}}}};
    }
    if (!s.function.empty()) {
      loc["logicalLocations"] = json::array(
          {{{"name", std::string(Demangle(s.function))}, {"decoratedName", s.function}, {"kind", "function"}}});
    }
  }
  return loc;
}

json ResultJson(const ResolvedRace& r, const ReportContext& context) {
  const size_t rule = RuleIndex(r.kind);
  json result = {{"ruleId", detector::RaceKindName(r.kind)},
                 {"ruleIndex", rule},
                 {"level", detector::IsWarningKind(r.kind) ? "warning" : "error"},
                 {"kind", "fail"},
                 {"occurrenceCount", r.count}};
  std::string text;
  if (r.kind == RaceKind::kBarrierDivergence) {
    text = ptx::Cat("Barrier divergence in kernel ", r.kernel, ": barrier at ", AccessLocationText(r.later),
                    " reached by part of a warp (", ThreadText(r.later), ", warp ", r.later.warp, ").");
    result["locations"] = json::array({Location(r.later, 0, "the barrier")});
  } else if (r.kind == RaceKind::kWarpSyncMask) {
    text = ptx::Cat("Warp-synchronous primitive at ", AccessLocationText(r.later), " in kernel ", r.kernel,
                    " executed by a lane outside its member mask (", ThreadText(r.later), ", warp ", r.later.warp,
                    ", lane ", r.later.lane, "): undefined in PTX.");
    result["locations"] = json::array({Location(r.later, 0, "the warp-synchronous primitive")});
  } else {
    // "[...](1)" is a SARIF embedded link to relatedLocations id 1.
    text = ptx::Cat(Capitalized(RaceKindsAndClassesText(r)), " on ",
                    SpaceName(r.space), " memory ", AddressText(r), " in kernel ", r.kernel, ": ",
                    AccessSentence(r.earlier), " and [", OperationName(r.later), " by ", ThreadText(r.later),
                    "](1) at ", AccessLocationText(r.later), ".");
    result["locations"] = json::array({Location(r.earlier, 0, ptx::Cat("first access: ", AccessSentence(r.earlier)))});
    result["relatedLocations"] =
        json::array({Location(r.later, 1, ptx::Cat("second access: ", AccessSentence(r.later)))});
  }
  if (r.count > 1) text += ptx::Cat(" ", r.count, " racy accesses.");
  if (r.unacquired_release) text += " " + UnacquiredReleaseHint(r);
  result["message"] = Message(std::move(text));
  result["partialFingerprints"] = {{"barracudaRace/v1", FingerprintOf(r)}};
  json props = {{"class", detector::RaceClassName(r.cls)},
                {"space", SpaceName(r.space)},
                {"processId", r.process_id},
                {"launchId", r.launch_id},
                {"kernel", r.kernel}};
  if (!detector::IsSyncMisuseKind(r.kind)) props["address"] = Hex(r.address);
  else props["space"] = nullptr;  // an instruction's misuse, not a memory access
  if (r.allocation) {
    props["allocation"] = {{"base", Hex(r.allocation->base)}, {"offset", r.allocation->offset},
                           {"size", r.allocation->size},      {"kind", r.allocation->kind},
                           {"label", r.allocation->label},    {"freed", r.allocation->freed}};
  }
  if (context.explored_schedules() > 1) props["schedules"] = SightingsJson(r.seen_in, context);
  props["variants"] = VariantsJson(r);
  props["ptxSitePairs"] = r.site_pairs.empty() ? 1 : r.site_pairs.size();
  result["properties"] = std::move(props);
  return result;
}

// Memory errors (memory_errors.h): one rule per kind, after the race rules.
struct MemoryRuleInfo {
  transport::MemoryErrorKind kind;
  const char* name;
  const char* short_text;
  const char* full_text;
};
constexpr MemoryRuleInfo kMemoryRules[] = {
    {transport::MemoryErrorKind::kOutOfBounds, "OutOfBoundsAccess", "Access outside every allocation",
     "A kernel accessed global memory outside every live allocation (before its start, past its end, or in a gap "
     "between allocations). The emulator checks every access against the live allocations, as "
     "compute-sanitizer's memcheck does; the launch fails with cudaErrorIllegalAddress."},
    {transport::MemoryErrorKind::kUseAfterFree, "UseAfterFree", "Access to freed memory",
     "A kernel accessed an allocation after cudaFree released it (freed ranges are not reused until 256 MiB more "
     "have been freed, so that such accesses are recognised)."},
    {transport::MemoryErrorKind::kInvalidAddress, "InvalidAddress", "Access to an address no state space holds",
     "A null pointer, an address outside device memory, or outside the block's shared window or the thread's "
     "local window."},
    {transport::MemoryErrorKind::kMisaligned, "MisalignedAccess", "Misaligned access",
     "An access whose address is not a multiple of its size; the launch fails with cudaErrorMisalignedAddress."},
    {transport::MemoryErrorKind::kReadOnly, "ReadOnlyWrite", "Write to read-only memory",
     "A write to constant memory or to the kernel's parameters."},
};

std::string MemoryRuleId(transport::MemoryErrorKind kind) {
  return ptx::Cat("memory-error/", transport::MemoryErrorKindName(kind));
}

json MemoryResultJson(const ResolvedMemoryError& e, const ReportContext& context) {
  size_t rule = std::size(kRules);
  for (size_t i = 0; i < std::size(kMemoryRules); ++i)
    if (kMemoryRules[i].kind == e.info.kind) rule = std::size(kRules) + i;
  std::string text = ptx::Cat(MemoryErrorHeadline(e), " in kernel ", e.kernel, " by ", ThreadText(e.access),
                              " at ", AccessLocationText(e.access), ": address ", Hex(e.info.address));
  if (const std::string rel = MemoryErrorAddressText(e); !rel.empty()) text += " " + rel;
  text += ptx::Cat(". The launch failed with ", e.cuda_error, ".");
  json props = {{"processId", e.process_id},
                {"launchId", e.info.launch_id},
                {"kernel", e.kernel},
                {"space", transport::MemorySpaceName(e.info.space)},
                {"address", Hex(e.info.address)},
                {"size", e.info.size},
                {"operation", e.info.write ? "write" : "read"},
                {"cudaError", e.cuda_error}};
  if (e.nearest) {
    props["nearestAllocation"] = {{"base", Hex(e.nearest->base)}, {"size", e.nearest->size},
                                  {"offset", e.nearest->offset},  {"kind", e.nearest->kind},
                                  {"label", e.nearest->label},    {"freed", e.nearest->freed}};
  }
  if (context.explored_schedules() > 1) props["schedules"] = SightingsJson(e.seen_in, context);
  return json{{"ruleId", MemoryRuleId(e.info.kind)},
              {"ruleIndex", rule},
              {"level", "error"},
              {"kind", "fail"},
              {"message", Message(std::move(text))},
              {"locations", json::array({Location(e.access, 0, "the faulting access")})},
              {"properties", std::move(props)}};
}

constexpr const char* kStreamOrderRule = "stream-order-race";

// A host call's location ("main at /src/app.cu:42", host_symbols.h) as a SARIF
// location; nullopt when it names no source line (no -g).
std::optional<json> HostLocation(const std::string& where, int id, const std::string& message) {
  const size_t at = where.rfind(" at "), colon = where.rfind(':');
  if (at == std::string::npos || colon == std::string::npos || colon < at + 4 || colon + 1 == where.size())
    return std::nullopt;
  uint64_t line = 0;
  for (size_t i = colon + 1; i < where.size(); ++i) {
    if (where[i] < '0' || where[i] > '9') return std::nullopt;
    line = line * 10 + static_cast<uint64_t>(where[i] - '0');
  }
  if (line == 0) return std::nullopt;
  json loc = {{"id", id}, {"message", Message(message)}};
  loc["physicalLocation"] = {{"artifactLocation", {{"uri", PathToUri(where.substr(at + 4, colon - at - 4))}}},
                             {"region", {{"startLine", line}}}};
  loc["logicalLocations"] = json::array({{{"name", where.substr(0, at)}, {"kind", "function"}}});
  return loc;
}

json StreamOrderResultJson(const ResolvedStreamOrderRace& r, size_t rule_index) {
  auto where = [](const ResolvedStreamOrderRace::Side& s) {
    std::string at = s.op.kernel ? AccessLocationText(s.access) : s.op.host_location;
    if (s.op.kernel && !s.op.host_location.empty()) at += ", launched at " + s.op.host_location;
    std::string text = at.empty() ? std::string() : " at " + at;
    if (!s.op.node_location.empty())
      text += (IsGraphNode(s.op) ? " (its graph node added at " : " (enqueued at ") + s.op.node_location + ")";
    return text;
  };
  std::string text = ptx::Cat("Stream-order race on global memory ", Hex(r.address), ": ",
                              StreamSideHeadline(r.earlier), where(r.earlier), " and ", StreamSideHeadline(r.later),
                              where(r.later), ", with nothing ordering the two operations.");
  // Each side where it is: a kernel's access, else the host call (a copy, a
  // set, a host access) when its line is known.
  json locations = json::array(), related = json::array();
  auto add = [&](const ResolvedStreamOrderRace::Side& s, int id, const std::string& message) {
    std::optional<json> loc =
        s.op.kernel ? std::optional<json>(Location(s.access, id, message)) : HostLocation(s.op.host_location, id, message);
    if (loc) (locations.empty() ? locations : related).push_back(std::move(*loc));
  };
  add(r.earlier, 0, "first: " + StreamSideHeadline(r.earlier));
  add(r.later, 1, "second: " + StreamSideHeadline(r.later));
  json result = {{"ruleId", kStreamOrderRule},
                 {"ruleIndex", rule_index},
                 {"level", "error"},
                 {"kind", "fail"},
                 {"occurrenceCount", r.occurrences},
                 {"message", Message(std::move(text))},
                 {"properties", {{"processId", r.process_id}, {"address", Hex(r.address)},
                                 {"firstStream", r.earlier.op.stream_id}, {"secondStream", r.later.op.stream_id},
                                 {"firstHostLocation", r.earlier.op.host_location},
                                 {"secondHostLocation", r.later.op.host_location}}}};
  if (!locations.empty()) result["locations"] = std::move(locations);
  if (!related.empty()) result["relatedLocations"] = std::move(related);
  return result;
}

}  // namespace

std::string PathToUri(std::string_view raw) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  // "/usr/local/cuda/bin/../targets/..." as "/usr/local/cuda/targets/...".
  const std::string path = std::filesystem::path(std::string(raw)).lexically_normal().string();
  std::string out = !path.empty() && path[0] == '/' ? "file://" : "";
  for (unsigned char c : path) {
    const bool unreserved = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                            c == '-' || c == '.' || c == '_' || c == '~' || c == '/';
    if (unreserved) {
      out.push_back(static_cast<char>(c));
    } else {
      out.push_back('%');
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 15]);
    }
  }
  return out;
}

json SarifReport(const ReportData& data, const ReportContext& context) {
  json rules = json::array();
  for (const RuleInfo& info : kRules) {
    rules.push_back({{"id", detector::RaceKindName(info.kind)},
                     {"name", info.name},
                     {"shortDescription", Message(info.short_text)},
                     {"fullDescription", Message(info.full_text)},
                     {"defaultConfiguration", {{"level", detector::IsWarningKind(info.kind) ? "warning" : "error"}}}});
  }
  for (const MemoryRuleInfo& info : kMemoryRules) {
    rules.push_back({{"id", MemoryRuleId(info.kind)},
                     {"name", info.name},
                     {"shortDescription", Message(info.short_text)},
                     {"fullDescription", Message(info.full_text)},
                     {"defaultConfiguration", {{"level", "error"}}}});
  }
  const size_t stream_rule = rules.size();
  rules.push_back({{"id", kStreamOrderRule},
                   {"name", "StreamOrderRace"},
                   {"shortDescription", Message("Operations of two streams touch the same bytes unordered")},
                   {"fullDescription",
                    Message("Two operations (kernel launches, cudaMemcpyAsync, cudaMemsetAsync) issued to different "
                            "streams, with no event, host synchronisation or legacy-stream operation ordering them, "
                            "touch the same device bytes and one writes them: on a GPU they may run at the same time.")},
                   {"defaultConfiguration", {{"level", "error"}}}});
  json results = json::array();
  const std::vector<ResolvedMemoryError> memory_errors = ResolveMemoryErrors(context);
  for (const ResolvedMemoryError& e : memory_errors) results.push_back(MemoryResultJson(e, context));
  for (const ResolvedStreamOrderRace& r : ResolveStreamOrderRaces(context))
    results.push_back(StreamOrderResultJson(r, stream_rule));
  for (const ResolvedRace& r : data.races) results.push_back(ResultJson(r, context));

  json invocation = {{"executionSuccessful", context.complete()}};
  if (!context.command_line().empty()) {
    std::string line;
    for (const std::string& arg : context.command_line()) line += ptx::Cat(line.empty() ? "" : " ", arg);
    invocation["commandLine"] = line;
    invocation["arguments"] = context.command_line();
  }
  json notifications = json::array();
  for (const std::string& reason : context.incomplete_reasons()) {
    notifications.push_back({{"level", "error"}, {"message", Message(ptx::Cat("analysis incomplete: ", reason))}});
  }
  for (const std::string& note : context.notes()) {
    notifications.push_back({{"level", "warning"}, {"message", Message(note)}});
  }
  if (data.suppressed.races != 0) {
    notifications.push_back({{"level", "note"},
                             {"message", Message(ptx::Cat(data.suppressed.races, " races suppressed"))}});
  }
  if (data.omitted.races != 0) {
    notifications.push_back(
        {{"level", "note"},
         {"message", Message(ptx::Cat(data.omitted.races, " more races not reported (--max-reports ",
                                      data.max_reports.value_or(0), ")"))}});
  }
  if (!notifications.empty()) invocation["toolExecutionNotifications"] = std::move(notifications);

  json run_props = {{"backend", context.backend()},
                    {"warpModel", WarpModelName(context.warp_model())},
                    {"schedule", ScheduleJson(context)},
                    {"complete", context.complete()},
                    {"racesFound", data.found.races},
                    {"racesSuppressed", data.suppressed.races},
                    {"racesOmitted", data.omitted.races},
                    {"memoryErrors", memory_errors.size()},
                    {"streamOrderRaces", context.stream_order_races().size()}};
  if (context.explored_schedules() > 1) run_props["exploration"] = ExplorationJson(data, context);
  json run = {{"tool",
               {{"driver",
                 {{"name", kToolName},
                  {"version", ToolVersion()},
                  {"semanticVersion", ToolVersion()},
                  {"rules", std::move(rules)}}}}},
              {"invocations", json::array({std::move(invocation)})},
              {"columnKind", "utf16CodeUnits"},
              {"results", std::move(results)},
              {"properties", std::move(run_props)}};
  return json{{"$schema", kSarifSchemaUri}, {"version", "2.1.0"}, {"runs", json::array({std::move(run)})}};
}

}  // namespace barracuda::reports
