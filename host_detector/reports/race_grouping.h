// One report entry per bug, not per PTX instruction pair (issue 17): races
// whose accesses are the same two source statements, in one kernel and one
// memory space, of one kind family, are one entry, with the occurrences
// summed and the PTX site pairs under it (a vectorised tile load is one
// statement but a site per element; a loop unrolled by ptxas, one statement
// and many sites). Without -lineinfo a statement is a PTX site, as before.
// Kind family: RAW and WAR are one (which access of the pair the analysis
// meets first is the schedule's choice), every other kind its own; the race
// class (intra-warp, divergence, intra-block, inter-block) is not part of the
// key either (which threads meet is the schedule's choice too). The entry
// lists the kinds and classes its members showed (`variants`), so that one
// missing barrier is one entry whatever the interleaving, and its fingerprint
// names exactly one entry.
//
// Each entry carries a fingerprint (race_fingerprint.h) that stays the same
// across runs, schedules, addresses, grid sizes and unrelated edits of the
// source file: what barracuda-regress compares with a baseline.
#ifndef BARRACUDA_HOST_DETECTOR_REPORTS_RACE_GROUPING_H_
#define BARRACUDA_HOST_DETECTOR_REPORTS_RACE_GROUPING_H_

#include <vector>

#include "host_detector/reports/report_context.h"

namespace barracuda::reports {

// Groups `races` (in report order, e.g. from ResolveRaces or
// MergeAcrossSchedules) as above. An entry keeps the example of its first
// member (its thread ids, address and first/second sites), sums counts and
// schedule sightings, lists every member's site pair in `site_pairs`, and gets
// its `fingerprint`. Order: first member; ordinals renumbered. Entries of
// different processes stay apart unless `across_processes` (the processes are
// runs of one program under different schedules: MergeAcrossSchedules).
std::vector<ResolvedRace> GroupBySource(std::vector<ResolvedRace> races, bool across_processes = false);

}  // namespace barracuda::reports

#endif  // BARRACUDA_HOST_DETECTOR_REPORTS_RACE_GROUPING_H_
