#include "host_detector/reports/report_context.h"

#include <cxxabi.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <map>
#include <iterator>
#include <memory>
#include <tuple>
#include <utility>

#include "ptx_rewriter/text_concat.h"

namespace barracuda::reports {

Dim3 Unlinearize(uint64_t linear, Dim3 shape) {
  const uint64_t x = shape.x == 0 ? 1 : shape.x;
  const uint64_t y = shape.y == 0 ? 1 : shape.y;
  return Dim3{static_cast<uint32_t>(linear % x), static_cast<uint32_t>(linear / x % y),
              static_cast<uint32_t>(linear / x / y)};
}

uint64_t Linearize(Dim3 index, Dim3 shape) {
  return index.x + uint64_t{index.y} * shape.x + uint64_t{index.z} * shape.x * shape.y;
}

std::string Demangle(std::string_view mangled) {
  // Only Itanium names ("_Z...") are demangled: __cxa_demangle also accepts
  // bare type encodings, which would turn an extern "C" kernel named "i" into "int".
  if (mangled.size() < 2 || mangled.substr(0, 2) != "_Z") return std::string(mangled);
  int status = 0;
  const std::string owned(mangled);
  std::unique_ptr<char, void (*)(void*)> out(
      abi::__cxa_demangle(owned.c_str(), nullptr, nullptr, &status), std::free);
  if (status != 0 || out == nullptr) return owned;
  return std::string(out.get());
}

const char* AllocationKindName(AllocationKind kind) {
  switch (kind) {
    case AllocationKind::kDevice: return "device";
    case AllocationKind::kAsync: return "async";
    case AllocationKind::kManaged: return "managed";
    case AllocationKind::kHostMapped: return "host-mapped";
    case AllocationKind::kModuleGlobal: return "module-global";
    case AllocationKind::kOther: return "other";
  }
  return "other";
}

const char* WarpModelName(detector::WarpModel model) {
  return model == detector::WarpModel::kLockstep ? "lockstep" : "its";
}

LaunchInfo LaunchInfo::FromKernelBegin(const protocol::Record& r) {
  const protocol::KernelPayload& k = r.kernel;
  LaunchInfo l;
  l.process_id = k.process_id;
  l.launch_id = k.launch_id;
  l.kernel_name_id = k.name_id;
  l.grid = Dim3{k.grid[0], k.grid[1], k.grid[2]};
  l.block = Dim3{k.block[0], k.block[1], k.block[2]};
  l.stream_id = k.stream_id;
  l.static_shared_bytes = k.static_shared_bytes;
  l.dynamic_shared_bytes = k.dynamic_shared_bytes;
  return l;
}

void ReportContext::MarkIncomplete(std::string reason) {
  incomplete_reasons_.push_back(std::move(reason));
}

ProcessInfo& ReportContext::Process(uint32_t pid) {
  auto [it, inserted] = process_index_.try_emplace(pid, processes_.size());
  if (inserted) {
    processes_.emplace_back();
    processes_.back().pid = pid;
  }
  return processes_[it->second];
}

namespace {
// Round-robin and cd do not use the seed.
bool Seeded(const Schedule& s) { return s.policy == "random" || s.policy == "pct"; }
}  // namespace

std::string ScheduleText(const Schedule& schedule) {
  std::string out = schedule.policy;
  if (Seeded(schedule)) out += ptx::Cat(", seed ", schedule.seed);
  if (!schedule.arguments.empty()) out += ptx::Cat(", ", schedule.arguments);
  return out;
}

std::string ReplayText(const Schedule& schedule) {
  std::string out = "barracuda";
  if (Seeded(schedule)) out += ptx::Cat(" --seed ", schedule.seed);
  out += ptx::Cat(" --schedule-policy ", schedule.policy);
  if (!schedule.arguments.empty()) out += ptx::Cat(" ", schedule.arguments);
  return out;
}

std::string ProcessEnd::Describe() const {
  if (!signaled) return ptx::Cat("exited with status ", code);
  const char* name = sigabbrev_np(code);
  return ptx::Cat("was killed by signal ", code, name != nullptr ? ptx::Cat(" (SIG", name, ")") : std::string());
}

void ReportContext::SetProcessSchedule(uint32_t pid, Schedule schedule) {
  auto it = std::find(schedules_.begin(), schedules_.end(), schedule);
  if (it == schedules_.end()) it = schedules_.insert(schedules_.end(), schedule);
  ProcessInfo& p = Process(pid);
  p.schedule_number = static_cast<uint32_t>(it - schedules_.begin()) + 1;
  p.schedule = std::move(schedule);
}

uint32_t ReportContext::ScheduleNumber(uint32_t pid) const {
  const ProcessInfo* p = FindProcess(pid);
  return p == nullptr ? 0 : p->schedule_number;
}

std::vector<uint64_t> SightingsPerSchedule(const ReportContext& context, std::span<const ResolvedRace> races) {
  std::vector<uint64_t> out(context.Schedules().size());
  for (const ResolvedRace& r : races)
    for (const ResolvedRace::Sighting& s : r.seen_in)
      if (const uint32_t n = context.ScheduleNumber(s.process_id); n != 0) out[n - 1]++;
  return out;
}

void ReportContext::SetProcessCommandLine(uint32_t pid, std::vector<std::string> argv) {
  Process(pid).command_line = std::move(argv);
}

absl::Status ReportContext::AddModule(uint32_t pid, uint32_t module_id, uint32_t site_base,
                                      std::string name, ptx::SiteTable sites) {
  ProcessInfo& p = Process(pid);
  const uint64_t begin = site_base, end = begin + sites.sites.size();
  for (const ModuleInfo& m : p.modules) {
    const uint64_t mb = m.site_base, me = mb + m.sites.sites.size();
    if (begin < me && mb < end) {
      return absl::InvalidArgumentError(ptx::Cat(
          "process ", pid, ": sites ", begin, "..", end, " of module '", name,
          "' overlap sites ", mb, "..", me, " of module '", m.name, "'"));
    }
  }
  ModuleInfo info;
  info.module_id = module_id;
  info.site_base = site_base;
  info.name = std::move(name);
  info.sites = std::move(sites);
  auto at = std::upper_bound(p.modules.begin(), p.modules.end(), site_base,
                             [](uint32_t base, const ModuleInfo& m) { return base < m.site_base; });
  p.modules.insert(at, std::move(info));
  return absl::OkStatus();
}

void ReportContext::AddKernelName(uint32_t pid, uint32_t name_id, std::string mangled) {
  Process(pid).kernel_names[name_id] = std::move(mangled);
}

void ReportContext::AddLaunch(const protocol::Record& kernel_begin) {
  AddLaunch(LaunchInfo::FromKernelBegin(kernel_begin));
}

void ReportContext::AddLaunch(const LaunchInfo& launch) {
  Process(launch.process_id).launches[launch.launch_id] = launch;
}

void ReportContext::AddAllocation(uint32_t pid, Allocation allocation) {
  std::map<uint64_t, Allocation>& allocs = Process(pid).allocations;
  const uint64_t begin = allocation.base;
  const uint64_t end = begin + std::max<uint64_t>(allocation.size, 1);
  // Drop every allocation overlapping [begin, end): the one starting before
  // `begin` (at most one can reach into the range), then those starting inside.
  auto it = allocs.lower_bound(begin);
  if (it != allocs.begin()) {
    auto prev = std::prev(it);
    if (prev->first + std::max<uint64_t>(prev->second.size, 1) > begin) allocs.erase(prev);
  }
  while (it != allocs.end() && it->first < end) it = allocs.erase(it);
  allocs.emplace(begin, std::move(allocation));
}

bool ReportContext::FreeAllocation(uint32_t pid, uint64_t base) {
  std::map<uint64_t, Allocation>& allocs = Process(pid).allocations;
  auto it = allocs.find(base);
  if (it == allocs.end()) return false;
  it->second.freed = true;
  return true;
}

const ProcessInfo* ReportContext::FindProcess(uint32_t pid) const {
  auto it = process_index_.find(pid);
  return it == process_index_.end() ? nullptr : &processes_[it->second];
}

const ptx::Site* ReportContext::FindSite(uint32_t pid, uint32_t site_id,
                                         const ModuleInfo** module) const {
  if (module != nullptr) *module = nullptr;
  const ProcessInfo* p = FindProcess(pid);
  if (p == nullptr || site_id == protocol::kNoSite) return nullptr;
  // Last module whose base is <= site_id.
  auto it = std::upper_bound(p->modules.begin(), p->modules.end(), site_id,
                             [](uint32_t id, const ModuleInfo& m) { return id < m.site_base; });
  if (it == p->modules.begin()) return nullptr;
  const ModuleInfo& m = *std::prev(it);
  const uint32_t local = site_id - m.site_base;
  if (local >= m.sites.sites.size()) return nullptr;
  if (module != nullptr) *module = &m;
  return &m.sites.sites[local];
}

const LaunchInfo* ReportContext::FindLaunch(uint32_t pid, uint64_t launch_id) const {
  const ProcessInfo* p = FindProcess(pid);
  if (p == nullptr) return nullptr;
  auto it = p->launches.find(launch_id);
  return it == p->launches.end() ? nullptr : &it->second;
}

const Allocation* ReportContext::FindAllocation(uint32_t pid, uint64_t address) const {
  const ProcessInfo* p = FindProcess(pid);
  if (p == nullptr) return nullptr;
  auto it = p->allocations.upper_bound(address);
  if (it == p->allocations.begin()) return nullptr;
  const Allocation& a = std::prev(it)->second;
  return address - a.base < a.size ? &a : nullptr;
}

const std::string* ReportContext::KernelName(uint32_t pid, uint32_t name_id) const {
  const ProcessInfo* p = FindProcess(pid);
  if (p == nullptr) return nullptr;
  auto it = p->kernel_names.find(name_id);
  return it == p->kernel_names.end() ? nullptr : &it->second;
}

namespace {

ResolvedAccess ResolveAccess(const ReportContext& context, uint32_t pid, const LaunchInfo* launch,
                             const detector::AccessInfo& info) {
  ResolvedAccess a;
  a.op = info.op;
  a.thread_linear = info.tid;
  a.block_linear = info.block;
  a.lane = info.lane;
  a.warp = info.warp;
  a.access_size = info.access_size;
  a.async = info.async;
  a.site_id = info.site;
  if (launch != nullptr && launch->block.Volume() != 0) {
    const uint64_t tpb = launch->block.Volume();
    a.block = Unlinearize(info.tid / tpb, launch->grid);
    a.thread = Unlinearize(info.tid % tpb, launch->block);
    a.warp = info.warp % protocol::WarpsPerBlock(static_cast<uint32_t>(tpb));
  }
  a.site = context.FindSite(pid, info.site, &a.module);
  // The detector keeps no size for the earlier access of a race: a plain
  // load, store or atomic site says it (its type and vector width).
  if (a.access_size == 0 && a.site != nullptr)
    a.access_size = static_cast<uint8_t>(std::min<uint32_t>(ptx::AccessBytesOfSite(*a.site), 255));
  return a;
}

std::optional<ResolvedAllocation> ResolveAllocation(const ReportContext& context,
                                                    const ResolvedRace& race) {
  if (detector::IsSyncMisuseKind(race.kind)) return std::nullopt;
  if (race.space == protocol::Space::kShared) {
    // Shared memory has no allocation calls: the block's window is the
    // allocation (static + dynamic shared bytes of the launch).
    if (race.launch == nullptr) return std::nullopt;
    ResolvedAllocation r;
    r.offset = race.address;
    r.size = uint64_t{race.launch->static_shared_bytes} + race.launch->dynamic_shared_bytes;
    r.kind = "shared";
    if (race.launch->grid.Volume() != 0) {
      const Dim3 b = Unlinearize(race.shared_block, race.launch->grid);
      r.label = ptx::Cat("shared memory of block (", b.x, ",", b.y, ",", b.z, ")");
    }
    return r;
  }
  const Allocation* a = context.FindAllocation(race.process_id, race.address);
  if (a == nullptr) return std::nullopt;
  ResolvedAllocation r;
  r.base = a->base;
  r.offset = race.address - a->base;
  r.size = a->size;
  r.kind = AllocationKindName(a->kind);
  r.label = a->label;
  r.freed = a->freed;
  return r;
}

// The first item of each key, in order, with every later item of that key
// folded into it (merging reports of several processes or schedules).
template <typename T, typename KeyFn, typename FoldFn>
std::vector<T> MergeByKey(std::vector<T> items, KeyFn key, FoldFn fold) {
  std::map<decltype(key(items.front())), size_t> index;
  std::vector<T> out;
  for (T& item : items) {
    auto [it, fresh] = index.emplace(key(item), out.size());
    if (fresh) {
      out.push_back(std::move(item));
    } else {
      fold(out[it->second], item);
    }
  }
  return out;
}

}  // namespace

std::vector<ResolvedRace> ResolveRaces(const ReportContext& context,
                                       std::span<const ProcessRaces> reports) {
  std::vector<ResolvedRace> out;
  for (size_t p = 0; p < reports.size(); ++p) {
    if (reports[p].report == nullptr) continue;
    const uint32_t pid = reports[p].process_id;
    std::vector<const detector::RaceEntry*> entries;
    for (const detector::RaceEntry& e : reports[p].report->entries()) entries.push_back(&e);
    // Entry order is detection order, which varies with how analysis workers
    // interleave rings. Code order does not: launch, then the unordered site
    // pair (site ids follow the PTX, so a report reads down through the code),
    // then kind, then which site was first, then class. The key is total (site
    // pair + kind + class is unique in a report). std::sort, not stable_sort: libstdc++ 12's
    // stable_sort warns under clang 19.
    auto order = [](const detector::RaceEntry* e) {
      const uint32_t lo = std::min(e->key.earlier_site, e->key.later_site);
      const uint32_t hi = std::max(e->key.earlier_site, e->key.later_site);
      return std::make_tuple(e->first.launch_id, lo, hi, static_cast<int>(e->key.kind), e->key.earlier_site,
                             static_cast<int>(e->key.cls));
    };
    std::sort(entries.begin(), entries.end(),
              [&](const detector::RaceEntry* a, const detector::RaceEntry* b) { return order(a) < order(b); });
    for (const detector::RaceEntry* e : entries) {
      const detector::RaceEvent& ev = e->first;
      ResolvedRace r;
      r.process_id = pid;
      r.key = e->key;
      r.kind = ev.kind;
      r.cls = ev.cls;
      r.space = ev.space;
      r.count = e->count;
      r.launch_id = ev.launch_id;
      r.launch = context.FindLaunch(pid, ev.launch_id);
      if (ev.space == protocol::Space::kShared) {
        r.address = protocol::SharedOffset(ev.address);
        r.shared_block = protocol::SharedBlock(ev.address);
      } else {
        r.address = ev.address;
      }
      if (const std::string* name = context.KernelName(pid, ev.kernel_name_id)) {
        r.kernel_mangled = *name;
        r.kernel = Demangle(*name);
      } else {
        r.kernel = ptx::Cat("kernel#", ev.kernel_name_id);
      }
      r.earlier = ResolveAccess(context, pid, r.launch, ev.earlier);
      r.later = ResolveAccess(context, pid, r.launch, ev.later);
      r.unacquired_release = ev.unacquired_release;
      r.allocation = ResolveAllocation(context, r);
      out.push_back(std::move(r));
    }
  }
  for (size_t i = 0; i < out.size(); ++i) out[i].ordinal = i + 1;
  return out;
}

void ReportContext::MergeStreamOrderRacesAcrossProcesses() {
  auto side_key = [](const StreamOpSide& s) {
    return std::tuple(s.kernel, s.host, s.host_function, s.api, s.stream_id, s.launch_id, s.site, s.write, s.strong, s.host_location,
                      s.node_location);
  };
  stream_order_races_ = MergeByKey(
      std::move(stream_order_races_),
      [&](const StreamOrderRace& r) { return std::tuple(side_key(r.earlier), side_key(r.later), r.address); },
      [](StreamOrderRace& into, const StreamOrderRace& r) { into.occurrences += r.occurrences; });
}

std::vector<ResolvedRace> MergeAcrossSchedules(std::vector<ResolvedRace> races) {
  for (ResolvedRace& r : races) r.seen_in = {ResolvedRace::Sighting{r.process_id, r.count}};
  std::vector<ResolvedRace> out = MergeByKey(
      std::move(races),
      [](const ResolvedRace& r) {
        return std::tuple(r.kernel_mangled.empty() ? r.kernel : r.kernel_mangled, r.key.earlier_site,
                          r.key.later_site, static_cast<int>(r.key.kind), static_cast<int>(r.key.cls));
      },
      [](ResolvedRace& into, const ResolvedRace& r) {
        into.count += r.count;
        into.seen_in.insert(into.seen_in.end(), r.seen_in.begin(), r.seen_in.end());
        into.unacquired_release |= r.unacquired_release;
      });
  for (size_t i = 0; i < out.size(); ++i) out[i].ordinal = i + 1;
  return out;
}

std::string AccessLocationText(const ResolvedAccess& access) {
  if (access.site != nullptr) {
    if (access.site->source && !access.site->source->file.empty() && access.site->source->line != 0) {
      return ptx::Cat(access.site->source->file, ":", access.site->source->line);
    }
    const std::string& module = access.module != nullptr ? access.module->name : std::string();
    return ptx::Cat(module.empty() ? "<ptx>" : module, ":", access.site->ptx_line);
  }
  if (access.site_id != protocol::kNoSite) return ptx::Cat("site ", access.site_id);
  return "unknown site";
}

}  // namespace barracuda::reports
