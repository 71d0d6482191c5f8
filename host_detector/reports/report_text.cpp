#include "host_detector/reports/report_text.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <optional>
#include <sstream>
#include <utility>
#include <vector>

#include "device_logger/stream_op_message.h"
#include "host_detector/reports/memory_errors.h"
#include "host_detector/reports/stream_order_races.h"
#include "ptx_rewriter/instruction_modifiers.h"
#include "ptx_rewriter/opcodes.h"
#include "ptx_rewriter/site_table.h"
#include "ptx_rewriter/sync_inference.h"
#include "ptx_rewriter/text_concat.h"

namespace barracuda::reports {
namespace {

using detector::RaceKind;
using protocol::Op;

std::string LocText(const ptx::SourceLocation& loc) {
  return loc.column != 0 ? ptx::Cat(loc.file, ":", loc.line, ":", loc.column) : ptx::Cat(loc.file, ":", loc.line);
}

// "at racy.cu:12 (inlined at main.cu:40) in f(int*) [PTX racy.ptx:41 st.global.u32]"
std::string WhereText(const ResolvedAccess& a) {
  if (a.site == nullptr) {
    // Exits are not sites (ptx_rewriter/site_table.h): the kernel's ret or exit.
    if (a.op == Op::kExit && a.site_id == protocol::kNoSite) return "at the thread's ret or exit (no source line)";
    return a.site_id == protocol::kNoSite ? "at an unknown site" : ptx::Cat("at site ", a.site_id, " (no site table)");
  }
  const ptx::Site& s = *a.site;
  const std::string module = a.module != nullptr && !a.module->name.empty() ? a.module->name : "<ptx>";
  std::string out;
  if (s.source && !s.source->file.empty() && s.source->line != 0) {
    out = ptx::Cat("at ", LocText(*s.source));
    if (s.inlined_at && !s.inlined_at->file.empty()) out += ptx::Cat(" (inlined at ", LocText(*s.inlined_at), ")");
    out += ptx::Cat(" in ", Demangle(s.function), " [PTX ", module, ":", s.ptx_line, " ", s.opcode, "]");
  } else {
    out = ptx::Cat("at PTX ", module, ":", s.ptx_line, " ", s.opcode, " in ", Demangle(s.function));
  }
  return out;
}

std::string AccessHeadline(const ResolvedAccess& a) {
  std::string out = Capitalized(OperationName(a));
  if (a.access_size != 0) out += ptx::Cat(" of ", static_cast<unsigned>(a.access_size), a.access_size == 1 ? " byte" : " bytes");
  out += ptx::Cat(" by ", ThreadText(a), " (warp ", a.warp, ", lane ", a.lane, ")");
  return out;
}

void Line(std::ostream& out, const std::string& text) { out << kTextPrefix << text << '\n'; }

std::string Plural(uint64_t n, const char* one, const char* many) {
  return ptx::Cat(n, " ", n == 1 ? one : many);
}

std::string NumbersText(const std::vector<uint32_t>& numbers) {
  std::string out;
  for (uint32_t n : numbers) out += ptx::Cat(out.empty() ? "#" : ", #", n);
  return out;
}

// "    Seen under 2 of 8 schedules: #2 (random, seed 1) 5x, #5 (...) 3x; replay: ..."
void SightingsText(std::ostream& out, std::span<const ScheduleSighting> seen_in, const ReportContext& context) {
  std::string list;
  std::optional<Schedule> first;
  uint32_t seen = 0;
  for (const ScheduleSighting& s : seen_in) {
    const ProcessInfo* p = context.FindProcess(s.process_id);
    if (p == nullptr || !p->schedule) continue;
    if (!first) first = p->schedule;
    seen++;
    list += ptx::Cat(list.empty() ? "" : ", ", "#", context.ScheduleNumber(s.process_id), " (",
                     ScheduleText(*p->schedule), ") ", s.count, "x");
  }
  if (!first) return;
  Line(out, ptx::Cat("    Seen under ", seen, " of ", context.Schedules().size(), " schedules: ", list,
                     "; replay: ", ReplayText(*first)));
}

// After the summary of an exploration: which schedules showed races, and
// whether the program's outcome depended on the schedule.
void ExplorationText(std::ostream& out, const ReportData& data, const ReportContext& context) {
  const std::vector<Schedule>& schedules = context.Schedules();
  const std::vector<uint64_t> sightings = SightingsPerSchedule(context, data.races);
  std::vector<uint32_t> racy;
  for (uint32_t n = 1; n <= schedules.size(); ++n)
    if (sightings[n - 1] != 0) racy.push_back(n);
  // "#1 round-robin; #2-#8 random, seeds 1-7; #9-#12 cd": runs of one policy
  // with consecutive seeds (cd: any delay sets; each race names its own).
  std::string which;
  for (size_t i = 0; i < schedules.size();) {
    const bool cd = schedules[i].policy == "cd";
    size_t j = i + 1;
    while (j < schedules.size() && schedules[j].policy == schedules[i].policy && schedules[i].policy != "round-robin" &&
           (cd || (schedules[j].seed == schedules[j - 1].seed + 1 && schedules[j].arguments == schedules[i].arguments)))
      ++j;
    which += which.empty() ? "" : "; ";
    if (j - i == 1)
      which += ptx::Cat("#", i + 1, " ", ScheduleText(schedules[i]));
    else if (cd)
      which += ptx::Cat("#", i + 1, "-#", j, " cd, a delay set each");
    else
      which += ptx::Cat("#", i + 1, "-#", j, " ", schedules[i].policy, ", seeds ", schedules[i].seed, "-",
                        schedules[j - 1].seed, schedules[i].arguments.empty() ? "" : ", ", schedules[i].arguments);
    i = j;
  }
  std::string line = ptx::Cat("Schedules explored: ", schedules.size(), " of ", context.explored_schedules(),
                              " requested (", which.empty() ? std::string("none") : which, "); races seen under ",
                              racy.empty() ? std::string("none") : ptx::Cat(racy.size(), " (", NumbersText(racy), ")"));
  Line(out, line);
  // Outcomes: the program's end under each schedule, grouped.
  std::vector<std::pair<std::string, std::vector<uint32_t>>> outcomes;
  for (const ProcessInfo& p : context.processes()) {
    if (!p.schedule || !p.end) continue;
    const std::string what = p.end->Describe();
    auto it = std::find_if(outcomes.begin(), outcomes.end(), [&](const auto& o) { return o.first == what; });
    if (it == outcomes.end()) it = outcomes.insert(outcomes.end(), {what, {}});
    const uint32_t n = context.ScheduleNumber(p.pid);
    if (std::find(it->second.begin(), it->second.end(), n) == it->second.end()) it->second.push_back(n);
  }
  if (outcomes.size() <= 1) return;
  std::string groups;
  for (const auto& [what, numbers] : outcomes)
    groups += ptx::Cat(groups.empty() ? "" : "; ", "the program ", what, " under ", NumbersText(numbers));
  Line(out, ptx::Cat("SCHEDULE-DEPENDENT OUTCOME: ", groups));
  // Replay lines for the outcomes other than the first schedule's (the
  // default run's, when schedule 1 is round-robin).
  for (size_t i = 1; i < outcomes.size(); ++i) {
    const Schedule& s = schedules[outcomes[i].second.front() - 1];
    Line(out, ptx::Cat("    the program ", outcomes[i].first, " under #", outcomes[i].second.front(), " (",
                       ScheduleText(s), "); replay: ", ReplayText(s)));
  }
}

}  // namespace

std::string Capitalized(std::string s) {
  if (!s.empty()) s[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(s[0])));
  return s;
}

std::string Hex(uint64_t value) {
  char buf[24];
  std::snprintf(buf, sizeof(buf), "0x%llx", static_cast<unsigned long long>(value));
  return buf;
}

std::string CoordText(const Dim3& d) { return ptx::Cat("(", d.x, ",", d.y, ",", d.z, ")"); }

std::string OperationName(Op op) {
  switch (op) {
    case Op::kRead: return "read";
    case Op::kWrite: return "write";
    case Op::kAtomic: return "atomic";
    case Op::kAcquire: return "acquire";
    case Op::kRelease: return "release";
    case Op::kAcqRel: return "acquire-release";
    case Op::kBarrier: return "barrier";
    case Op::kBarrierArrive: return "barrier-arrive";
    default: return protocol::OpName(op);
  }
}

std::string OperationName(const ResolvedAccess& a) {
  return a.async ? "async-copy " + OperationName(a.op) : OperationName(a.op);
}

const char* SpaceName(protocol::Space space) {
  return space == protocol::Space::kShared ? "shared" : "global";
}

std::string KindDescription(RaceKind kind) {
  switch (kind) {
    case RaceKind::kReadAfterWrite: return "read-after-write (RAW) race";
    case RaceKind::kWriteAfterRead: return "write-after-read (WAR) race";
    case RaceKind::kWriteAfterWrite: return "write-after-write (WAW) race";
    case RaceKind::kAtomicVsPlain: return "atomic-vs-plain race";
    case RaceKind::kBarrierDivergence: return "barrier divergence";
    case RaceKind::kWarpSyncMask: return "warp-synchronous primitive executed outside its member mask (undefined in PTX)";
    case RaceKind::kSharedLifetime:
      return "distributed shared memory access not ordered before the owner block's exit (lifetime race)";
    case RaceKind::kNotMorallyStrong: return "race between strong accesses that are not morally strong (scope or size)";
    case RaceKind::kDependencyOrdered:
      return "write-after-read ordered only by a dependency through relaxed accesses (no fence: the PTX "
             "memory model does not order it)";
    case RaceKind::kSameValue:
      return "same-value write-write race (both writes stored the same value: a race by the PTX memory "
             "model, harmless on current GPUs; --ignore same-value hides it)";
  }
  return "race";
}

std::string ThreadText(const ResolvedAccess& a) {
  if (a.thread && a.block) return ptx::Cat("thread ", CoordText(*a.thread), " in block ", CoordText(*a.block));
  return ptx::Cat("thread ", a.thread_linear, " (grid-linear) in block ", a.block_linear);
}

std::string AddressText(const ResolvedRace& race) {
  if (race.space == protocol::Space::kShared) {
    std::string out = ptx::Cat("shared offset ", Hex(race.address));
    if (race.allocation) {
      out += ptx::Cat(" in the ", race.allocation->size, "-byte ", race.allocation->label);
    } else {
      out += ptx::Cat(" in the shared memory of block ", race.shared_block);
    }
    return out;
  }
  std::string out = Hex(race.address);
  if (!race.allocation) return out + " (in no known allocation)";
  const ResolvedAllocation& a = *race.allocation;
  out += ptx::Cat(" = ", Hex(a.base), " + ", a.offset, " in ", a.kind, " allocation");
  if (!a.label.empty()) out += ptx::Cat(" '", a.label, "'");
  out += ptx::Cat(" of ", a.size, " bytes");
  // The race was between accesses to a live allocation (an access after the
  // free is a memory error); most are freed before the report is written.
  if (a.freed) out += " (freed since)";
  return out;
}

namespace {

bool HasVariantKind(const ResolvedRace& r, RaceKind kind) {
  return std::any_of(r.variants.begin(), r.variants.end(), [&](const ResolvedRace::Variant& v) { return v.kind == kind; });
}

// The entry's classes: the example's first (the pair printed below is of that
// class), then those of its other occurrences ("intra-block; other occurrences
// intra-warp, divergence"), in class order. A plain list read as the example's
// class (an "intra-warp" heading over a pair from two warps).
std::string ClassesText(const ResolvedRace& r) {
  std::vector<detector::RaceClass> others;
  for (const ResolvedRace::Variant& v : r.variants)
    if (v.cls != r.cls && std::find(others.begin(), others.end(), v.cls) == others.end()) others.push_back(v.cls);
  std::sort(others.begin(), others.end());
  std::string out = detector::RaceClassName(r.cls);
  for (size_t i = 0; i < others.size(); ++i)
    out += ptx::Cat(i == 0 ? "; other occurrences " : ", ", detector::RaceClassName(others[i]));
  return out;
}

}  // namespace

std::string UnacquiredReleaseHint(const ResolvedRace& r) {
  // An asynchronous copy's destination read before its completion was
  // observed: the fix is the wait, not a fence (probe: a cuda::pipeline read
  // before consumer_wait was told to make its read an acquire).
  if (r.earlier.async && !r.later.async)
    return "Missing wait: the asynchronous copy that wrote this was not waited for before the access (its "
           "completion is observed by cp.async.wait_group / wait_all, cuda::pipeline::consumer_wait, "
           "cooperative_groups::wait, or the mbarrier / cuda::barrier phase its copy completes); wait for it "
           "first.";
  // The fix differs with where the writer is: another block needs a
  // device-scope acquire (a block-scope fence that followed the read does not
  // order it); a thread of the same block, an acquire or the completed wait.
  if (r.cls == detector::RaceClass::kInterBlock)
    return "Missing acquire: the reading block observed the writer's release (a strong read of what it "
           "published, e.g. an atomic or volatile read) but no device-scope fence followed that read (none, or only "
           "__threadfence_block() / a .cta fence, which does not order a write of another block), so nothing orders "
           "the write before the read; add __threadfence() after the observing read (or read it with ld.acquire / "
           "cuda::atomic_ref::load(memory_order_acquire)). __syncthreads() alone orders only within the block.";
  return "Missing acquire: a thread of this block observed the writer's release (a strong read of what it "
         "published, or a barrier arrival) but no acquire followed that read before this access, so nothing orders "
         "the write before it; make the read an acquire (ld.acquire, cuda::atomic_ref::load(memory_order_acquire)) "
         "or follow it with a fence, or touch the data only after the synchronisation completes (__syncthreads(), "
         "the barrier's wait).";
}

namespace {

// A strong access's size and scope, from its instruction's modifiers as the
// rewriter classifies them (ptx_rewriter/sync_inference.cpp: .volatile is
// relaxed at system scope; an atomic or .relaxed/.acquire/.release access
// without a scope is at gpu scope). Size 0 / kNone when not known.
struct StrongShape {
  uint32_t size = 0;
  ptx::Scope scope = ptx::Scope::kNone;
};

StrongShape ShapeOf(const ptx::Site& site) {
  const ptx::SiteShape shape = ptx::ShapeOfSite(site);
  return StrongShape{shape.TypedBytes(), ptx::StrongAccessScope(shape.info)};
}

// Which of the PTX model's conditions for "morally strong" the pair fails:
// the same bytes (equal sizes at one address), each in the other's scope.
std::string NotMorallyStrongReason(const ResolvedRace& r) {
  if (r.earlier.site == nullptr || r.later.site == nullptr) return "scope or size";
  const StrongShape a = ShapeOf(*r.earlier.site), b = ShapeOf(*r.later.site);
  if (a.size != 0 && b.size != 0 && a.size != b.size)
    return ptx::Cat("sizes differ: ", a.size, " and ", b.size, " bytes");
  const ptx::Scope narrow = std::min(a.scope, b.scope);
  const char* which = a.scope == b.scope ? "both accesses are" : a.scope < b.scope ? "the first access is"
                                                                                  : "the second access is";
  const bool other_block = r.cls == detector::RaceClass::kInterBlock;
  if (narrow == ptx::Scope::kCta && other_block)
    return ptx::Cat(which, " at .cta scope and the other thread is in another block");
  if (narrow == ptx::Scope::kCluster && other_block)
    return ptx::Cat(which, " at .cluster scope and the other thread is in another cluster");
  return "scope or size";
}

}  // namespace

std::string RaceKindsAndClassesText(const ResolvedRace& r) {
  if (r.kind == RaceKind::kNotMorallyStrong)
    return ptx::Cat("race between strong accesses that are not morally strong (", NotMorallyStrongReason(r), ") (",
                    ClassesText(r), ")");
  // A grouped entry of both RAW and WAR names both; its classes all.
  const bool raw = r.kind == RaceKind::kReadAfterWrite || HasVariantKind(r, RaceKind::kReadAfterWrite);
  const bool war = r.kind == RaceKind::kWriteAfterRead || HasVariantKind(r, RaceKind::kWriteAfterRead);
  return ptx::Cat(raw && war ? std::string("read-after-write (RAW) and write-after-read (WAR) race")
                             : KindDescription(r.kind),
                  " (", ClassesText(r), ")");
}

namespace {

// "PTX line" of an access's site for the site-pair list, "site N" without a site table.
std::string PtxLineText(const ResolvedAccess& a) {
  if (a.site != nullptr) return ptx::Cat(a.site->ptx_line);
  return a.site_id == protocol::kNoSite ? std::string("?") : ptx::Cat("site ", a.site_id);
}

}  // namespace

namespace {

// Memory errors first (memcheck's layout): the access, the thread, the
// source line, the address and its nearest allocation.
uint64_t WriteMemoryErrors(const ReportContext& context, std::ostream& out) {
  const std::vector<ResolvedMemoryError> errors = ResolveMemoryErrors(context);
  for (const ResolvedMemoryError& e : errors) {
    Line(out, ptx::Cat("Memory error #", e.ordinal, ": ", MemoryErrorHeadline(e), " (",
                       transport::MemoryErrorKindName(e.info.kind), ")"));
    Line(out, ptx::Cat("    by ", ThreadText(e.access), " (warp ", e.access.warp, ", lane ", e.access.lane,
                       ") in kernel ", e.kernel, ", launch ", e.info.launch_id));
    Line(out, ptx::Cat("    ", WhereText(e.access)));
    std::string address = ptx::Cat("    Address ", Hex(e.info.address));
    if (const std::string rel = MemoryErrorAddressText(e); !rel.empty()) address += " " + rel;
    Line(out, address);
    Line(out, ptx::Cat("    The launch failed with ", e.cuda_error,
                       "; the kernel's accesses after the fault were not analysed"));
    if (context.explored_schedules() > 1) SightingsText(out, e.seen_in, context);
    Line(out, "");
  }
  return errors.size();
}

// Stream-order races: two operations of different streams with nothing
// ordering them; each side names where it is in the program.
uint64_t WriteStreamOrderRaces(const ReportContext& context, std::ostream& out) {
  const std::vector<ResolvedStreamOrderRace> races = ResolveStreamOrderRaces(context);
  auto side = [&](const char* label, const ResolvedStreamOrderRace::Side& s) {
    Line(out, ptx::Cat("    ", label, Capitalized(StreamSideHeadline(s))));
    if (s.op.kernel) Line(out, ptx::Cat("            ", WhereText(s.access)));
    std::string issued = s.op.kernel ? "launched" : s.op.host || s.op.host_function ? "accessed" : "called";
    if (!s.op.host_location.empty()) {
      Line(out, ptx::Cat("            ", issued, " at ", s.op.host_location));
    } else if (!s.op.host_frames.empty()) {
      Line(out, ptx::Cat("            ", issued, " from ", s.op.host_frames));
    }
    if (!s.op.node_location.empty())
      Line(out, ptx::Cat("            ", IsGraphNode(s.op) ? "its graph node added at " : "enqueued at ", s.op.node_location));
  };
  for (const ResolvedStreamOrderRace& r : races) {
    const bool nodes = IsGraphNode(r.earlier.op) && IsGraphNode(r.later.op);
    const bool programmatic = r.later.op.api == transport::StreamOpInfo::kBeforeGridDependencyWait;
    const char* what = r.later.op.host ? "the host accessed memory an unfinished operation uses"
                       : nodes         ? "two nodes of a graph with no path of edges between them"
                       : programmatic  ? "a programmatic dependent launch touched memory of the kernel before it "
                                         "before waiting for it"
                                       : "operations of two streams with nothing ordering them";
    Line(out, ptx::Cat("Stream-order race #", r.ordinal, ": ", what, " [",
                       Plural(r.occurrences, "occurrence", "occurrences"), "]"));
    side("First:  ", r.earlier);
    side("Second: ", r.later);
    std::string address = ptx::Cat("    Address ", Hex(r.address));
    if (r.allocation) {
      address += ptx::Cat(" = ", Hex(r.allocation->base), " + ", r.allocation->offset, " in ", r.allocation->kind,
                          " allocation of ", r.allocation->size, " bytes");
    }
    Line(out, address);
    Line(out, r.later.op.host ? "    Synchronise first: cudaStreamSynchronize of its stream, cudaEventSynchronize of an event "
                                "recorded after it, or cudaDeviceSynchronize"
              : nodes ? "    Order them with an edge (cudaGraphAddDependencies), or capture them in one stream"
              : programmatic
                  ? "    Move the access after cudaGridDependencySynchronize(), or launch without "
                    "cudaLaunchAttributeProgrammaticStreamSerialization"
                  : "    Order them with cudaEventRecord + cudaStreamWaitEvent, a synchronisation, or one stream");
    Line(out, "");
  }
  return races.size();
}

}  // namespace

void WriteTextReport(const ReportData& data, const ReportContext& context, std::ostream& out) {
  const uint64_t memory_errors = WriteMemoryErrors(context, out);
  const uint64_t stream_races = WriteStreamOrderRaces(context, out);
  for (const ResolvedRace& r : data.races) {
    // A warning's entry says so in its first word, as the summary counts it
    // ("0 races; 1 warning"); SARIF gives it level "warning".
    const bool warning = detector::IsWarningKind(r.kind);
    const std::string what = detector::IsSyncMisuseKind(r.kind)
                           ? KindDescription(r.kind)
                           : ptx::Cat(RaceKindsAndClassesText(r), " on ", SpaceName(r.space), " memory");
    std::string head = ptx::Cat(warning ? "Warning #" : "Race #", r.ordinal, ": ", what);
    head += ptx::Cat(" [", Plural(r.count, "occurrence", "occurrences"), "]");
    Line(out, head);
    if (r.kind == RaceKind::kBarrierDivergence) {
      Line(out, ptx::Cat("    Barrier reached by part of a warp: ", ThreadText(r.later), " (warp ", r.later.warp,
                         ", lane ", r.later.lane, ")"));
      Line(out, ptx::Cat("        ", WhereText(r.later)));
    } else if (r.kind == RaceKind::kWarpSyncMask) {
      Line(out, ptx::Cat("    Executed by a lane its member mask leaves out: ", ThreadText(r.later), " (warp ",
                         r.later.warp, ", lane ", r.later.lane, ")"));
      Line(out, ptx::Cat("        ", WhereText(r.later)));
    } else {
      Line(out, ptx::Cat("    First:  ", AccessHeadline(r.earlier)));
      Line(out, ptx::Cat("            ", WhereText(r.earlier)));
      Line(out, ptx::Cat("    Second: ", AccessHeadline(r.later)));
      Line(out, ptx::Cat("            ", WhereText(r.later)));
      Line(out, ptx::Cat("    Address ", AddressText(r)));
      const bool proxy = r.cls == detector::RaceClass::kProxy ||
                         std::any_of(r.variants.begin(), r.variants.end(),
                                     [](const ResolvedRace::Variant& v) { return v.cls == detector::RaceClass::kProxy; });
      if (proxy) {
        // Ordered, yet a race: say why (SEMANTICS.md "Proxies").
        Line(out, "    The first access is ordered before the second, but the second is made by the async proxy "
                  "(bulk copy / TMA) and no fence.proxy.async lies between them");
      }
      if (r.unacquired_release) Line(out, ptx::Cat("    ", UnacquiredReleaseHint(r)));
      if (r.kind == RaceKind::kSharedLifetime) {
        Line(out, "    The second is the exit of the block that owns the shared memory: the block may exit and its "
                  "shared memory be gone while the first access is still to happen (cluster.sync() or "
                  "barrier.cluster before the owner exits orders it)");
      }
    }
    std::string kernel = ptx::Cat("    Kernel ", r.kernel, ", launch ", r.launch_id);
    if (r.launch != nullptr) {
      kernel += ptx::Cat(" (grid ", CoordText(r.launch->grid), ", block ", CoordText(r.launch->block), ", ",
                         StreamName(r.launch->stream_id), ")");
    }
    kernel += ptx::Cat(", process ", r.process_id);
    Line(out, kernel);
    if (r.site_pairs.size() > 1) {
      // One statement, several PTX instructions (vector elements, unrolled copies).
      std::string sites = ptx::Cat("    ", r.site_pairs.size(), " PTX site pairs:");
      for (size_t i = 0; i < r.site_pairs.size(); ++i) {
        const ResolvedRace::SitePair& p = r.site_pairs[i];
        if (i == 8) {
          sites += ptx::Cat(" ... (", r.site_pairs.size() - 8, " more in the JSON report)");
          break;
        }
        sites += ptx::Cat(i == 0 ? " " : ", ", PtxLineText(p.earlier), "/", PtxLineText(p.later), " ", p.count, "x");
      }
      Line(out, sites);
    }
    if (!r.fingerprint.empty()) Line(out, ptx::Cat("    Fingerprint ", r.fingerprint));
    if (context.explored_schedules() > 1) SightingsText(out, r.seen_in, context);
    Line(out, "");
  }

  // Summary: "N races (k RAW, ...), M racy accesses[; W warnings (...), A accesses]
  // [; S suppressed][; O not shown]". Warning kinds are counted apart from races.
  // An entry that showed both RAW and WAR counts as "RAW/WAR", not as its example's kind.
  auto both_raw_war = [](const ResolvedRace& r) {
    return HasVariantKind(r, RaceKind::kReadAfterWrite) && HasVariantKind(r, RaceKind::kWriteAfterRead);
  };
  auto counted = [&](bool warnings, uint64_t& entries, uint64_t& dynamic) {
    std::string kinds;
    entries = dynamic = 0;
    auto add = [&](uint64_t n, std::string_view name) {
      entries += n;
      if (n != 0) kinds += ptx::Cat(kinds.empty() ? "" : ", ", n, " ", name);
    };
    if (!warnings) {
      uint64_t n = 0;
      for (const ResolvedRace& r : data.races) {
        if (both_raw_war(r)) n++, dynamic += r.count;
      }
      add(n, "RAW/WAR");
    }
    for (RaceKind k : detector::kAllRaceKinds) {
      if (detector::IsWarningKind(k) != warnings) continue;
      uint64_t n = 0;
      for (const ResolvedRace& r : data.races) {
        if (r.kind == k && !both_raw_war(r)) n++, dynamic += r.count;
      }
      add(n, detector::RaceKindName(k));
    }
    return kinds;
  };
  uint64_t races = 0, race_dynamic = 0, warnings = 0, warning_dynamic = 0;
  const std::string race_kinds = counted(false, races, race_dynamic);
  const std::string warning_kinds = counted(true, warnings, warning_dynamic);
  std::string summary = ptx::Cat("BARRACUDA SUMMARY: ", Plural(races, "race", "races"));
  if (races != 0) {
    summary += ptx::Cat(" (", race_kinds, "), ", Plural(race_dynamic, "racy access", "racy accesses"));
  }
  if (warnings != 0) {
    summary += ptx::Cat("; ", Plural(warnings, "warning", "warnings"), " (", warning_kinds, "), ",
                        Plural(warning_dynamic, "access", "accesses"));
  }
  if (data.suppressed.races != 0) {
    summary += ptx::Cat("; ", data.suppressed.races, " suppressed (", Plural(data.suppressed.dynamic, "access", "accesses"), ")");
  }
  if (data.ignored.races != 0) {
    std::string kinds;
    for (RaceKind k : data.ignore) kinds += ptx::Cat(kinds.empty() ? "" : ",", detector::RaceKindName(k));
    summary += ptx::Cat("; ", data.ignored.races, " ignored (--ignore ", kinds, ")");
  }
  if (data.omitted.races != 0) {
    summary += ptx::Cat("; ", data.omitted.races, " more not shown (--max-reports ", data.max_reports.value_or(0), ")");
  }
  if (stream_races != 0)
    summary += ptx::Cat("; ", Plural(stream_races, "stream-order race", "stream-order races"));
  if (memory_errors != 0) summary += ptx::Cat("; ", Plural(memory_errors, "memory error", "memory errors"));
  // On the summary line itself: "0 races" alone would read as a clean run.
  if (!context.complete()) summary += "; analysis INCOMPLETE";
  Line(out, summary);
  if (context.explored_schedules() > 1) {
    ExplorationText(out, data, context);
  } else if (context.schedule() && context.schedule()->policy != "round-robin") {
    Line(out, ptx::Cat("Emulator schedule: ", ScheduleText(*context.schedule()), " (replay: ",
                       ReplayText(*context.schedule()), ")"));
  }
  for (const SuppressionUse& use : data.suppressions_used) {
    Line(out, ptx::Cat("Suppressed by ", use.where, " (", use.text, "): ", Plural(use.counts.races, "race", "races")));
  }
  if (!context.complete()) {
    for (const std::string& reason : context.incomplete_reasons()) {
      Line(out, ptx::Cat("Analysis INCOMPLETE: ", reason, "; races in the part not analysed are missing"));
    }
  }
  for (const std::string& note : context.notes()) Line(out, ptx::Cat("Note: ", note));
}

std::string TextReport(const ReportData& data, const ReportContext& context) {
  std::ostringstream out;
  WriteTextReport(data, context, out);
  return out.str();
}

}  // namespace barracuda::reports
