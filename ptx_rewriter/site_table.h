// The static site table: one entry per instruction that the race detector,
// the emulator's tracer and the instrumentation pass talk about, so that a
// record's 32-bit site id (device_logger/protocol.h) leads back to a PTX line
// and a source file:line.
//
// Ids are dense, from 0, in module order: functions in the order they appear,
// instructions in body order. Every producer of records numbers sites with
// BuildSiteTable on the same (uninstrumented) module, so ids agree.
#ifndef BARRACUDA_PTX_REWRITER_SITE_TABLE_H_
#define BARRACUDA_PTX_REWRITER_SITE_TABLE_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "absl/status/statusor.h"
#include "ptx_rewriter/ir.h"

namespace barracuda::ptx {

enum class SiteKind : uint8_t {
  kLoad,       // ld, ldu, ldmatrix, wmma.load, multimem.ld_reduce
  kStore,      // st, stmatrix, wmma.store, multimem.st
  kAtomic,     // atom
  kReduction,  // red, multimem.red, cp.reduce.async.bulk
  kAsyncCopy,  // cp.async, cp.async.bulk(.tensor): reads one space, writes another
  kFence,      // fence, membar, and the waits that complete async copies
               // (cp.async.wait_group / wait_all / bulk.wait_group)
  kBarrier,    // bar / barrier (sync, arrive, red; also cluster), mbarrier
  kWarpSync,   // bar.warp.sync, shfl, vote, match, redux, activemask, elect
  kBranch,     // bra, brx.idx
};
std::string_view ToString(SiteKind kind);  // "load", "warp-sync", ...
std::optional<SiteKind> ParseSiteKind(std::string_view text);

// The kind of site an instruction is, or nullopt when it is not one.
// cp.async.commit_group / bulk.commit_group only start a group and are not sites.
std::optional<SiteKind> ClassifySite(const Instruction& inst);

struct SourceLocation {
  std::string file;       // resolved through the module's .file table; "" if the index is unknown
  uint32_t file_index = 0;
  uint32_t line = 0;
  uint32_t column = 0;
  bool operator==(const SourceLocation&) const = default;
};

struct Site {
  uint32_t id = 0;
  std::string function;
  SiteKind kind = SiteKind::kLoad;
  std::string opcode;  // opcode and modifiers as written: "ld.global.nc.v4.u32"
  // Memory sites: the state space, kGeneric when the instruction names none.
  // Other sites: kNone.
  StateSpace space = StateSpace::kNone;
  uint32_t ptx_line = 0;
  std::size_t statement = 0;  // index in the function's body
  // The .loc in effect. None without -lineinfo, and for `.loc N 0 0`, which
  // nvcc emits for code that belongs to no single source line.
  std::optional<SourceLocation> source;
  // When the .loc names an inlined function (`inlined_at file line col`), the
  // innermost call site of its inlining chain that lies in the file of the
  // chain's outermost call site (the file being compiled): the user's line,
  // while `source` is in a CUDA header (atomicAdd ->
  // device_atomic_functions.hpp; __pipeline_memcpy_async -> cuda_pipeline.h
  // -> three levels of cuda_pipeline_helpers.h; atomicCAS in a helper of the
  // program's own: the helper's line). The chain's outer levels are the .loc
  // directives nvcc emits just before, each naming where it was inlined.
  std::optional<SourceLocation> inlined_at;
  bool operator==(const Site&) const = default;
};

// "global", "shared", "shared::cluster", "generic", "" (kNone), ...
std::string_view SiteSpaceName(StateSpace space);

struct SiteTable {
  static constexpr int kJsonVersion = 1;
  std::vector<Site> sites;  // sites[i].id == i

  // {"version": 1, "sites": [{"id", "function", "kind", "opcode", "space"
  //  (null for none), "ptx_line", "statement", "source": {"file", "file_index",
  //  "line", "column"} or null, "inlined_at": same form or null}, ...]}
  nlohmann::json ToJson() const;
  static absl::StatusOr<SiteTable> FromJson(const nlohmann::json& json);
  // The same from JSON text, without building the document: a module of
  // Thrust's sort (25 k sites, ~17 MiB of JSON) took ~45 MiB of DOM in the
  // daemon at its registration, the peak of a small run.
  static absl::StatusOr<SiteTable> FromJsonText(std::string_view text);
  bool operator==(const SiteTable&) const = default;
};

SiteTable BuildSiteTable(const Module& module);

// An instruction's opcode and modifiers as Site::opcode spells them.
std::string OpcodeText(const Instruction& inst);

// The opcode and modifiers of a site, read back from Site::opcode (reports
// work from the site table, not the module): op kUnknown when the opcode is
// not one the parser knows.
struct SiteShape {
  Opcode op = Opcode::kUnknown;
  ModifierInfo info;
  // Its type's size times its vector width; 0 without a type.
  uint32_t TypedBytes() const;
};
SiteShape ShapeOfSite(const Site& site);

// Bytes one thread accesses at a plain load, store or atomic site (ld, ldu,
// st, atom, red): its type's size times its vector width; 0 for other
// opcodes and for sites without a type.
uint32_t AccessBytesOfSite(const Site& site);

}  // namespace barracuda::ptx

#endif  // BARRACUDA_PTX_REWRITER_SITE_TABLE_H_
