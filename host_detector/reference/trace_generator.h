// Random feasible record streams: what a real SIMT execution could log
// (DESIGN.md "The record contract", host_detector/detector/SEMANTICS.md). Used by the
// differential test against the reference detector and by other detector
// tests (the adversarial ring interleaving test reuses SplitIntoRings).
//
// A trace is built in two passes. First a *script* per launch: each warp gets
// a program (memory records, nested if/else/fi with consistent masks,
// warp-sync, acquire/release/acq_rel at every scope on flag locations, fences
// (both sides, acquire-only, release-only), strong accesses (relaxed loads,
// stores, RMWs, volatile) at every scope in sizes 4 and 8, message-passing
// patterns between two warps of one or two blocks, exits)
// and per block a sequence of barrier *episodes* (whole-block bar.sync reached
// by every live thread, rarely a divergent one, named barriers with counts
// shared by bar.sync consumers and bar.arrive producers) that every
// participant meets in the same order, so the script itself is a valid
// schedule. Then a random *interleaving* of the warps' programs that honours
// barrier blocking (nothing from a waiting lane before its generation
// completes, no arrival for generation k+1 before k completes), emits every
// exit scripted before a whole-block barrier before its first arrival (so the
// block's live count is settled), and usually lets an acquire wait until the
// release it is scripted to read from has been emitted (a soft constraint,
// dropped if it would deadlock: reading an older value is feasible too); a
// message-passing consumer's strong flag read likewise usually waits for the
// producer's flag write.
//
// Deterministic for a seed on every platform (own PRNG, no <random>
// distributions).
#ifndef BARRACUDA_HOST_DETECTOR_REFERENCE_TRACE_GENERATOR_H_
#define BARRACUDA_HOST_DETECTOR_REFERENCE_TRACE_GENERATOR_H_

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "device_logger/protocol.h"

namespace barracuda::reference {

// One open if/else of a warp, as the generator scripts it and the feasibility
// check replays it: the mask at the branch (m), its then (t) and else (e)
// lanes, and whether the else side has started.
struct DivergenceFrame {
  uint32_t m = 0, t = 0, e = 0;
  bool in_else = false;
};

struct GeneratorOptions {
  uint32_t max_blocks = 3;               // per launch, 1..max_blocks
  std::vector<uint32_t> block_sizes = {32, 48, 64, 80, 96};  // threads per block
  uint32_t min_steps = 6;                // script steps per launch
  uint32_t max_steps = 30;
  uint32_t max_launches = 2;             // 1..max_launches launches per trace
  uint32_t max_branch_depth = 2;         // nesting of if/else/fi
  // Percent chances per script step (the rest are warp steps).
  uint32_t barrier_percent = 8;          // whole-block bar.sync 0 point
  uint32_t named_barrier_percent = 5;    // producer/consumer named barrier episode
  uint32_t message_passing_percent = 10; // data + fence + flag / flag + fence + data
  // Percent of whole-block barrier points where a warp splits its arrival
  // over both sides of a branch (barrier divergence, paper BAR).
  uint32_t divergent_barrier_percent = 3;
  uint32_t exit_percent = 3;             // per warp step: the active lanes exit
  uint32_t wait_percent = 60;            // acquire waits for a scripted release
  bool stamp_barriers = false;           // stamp kBarrier/kBarrierArrive too
};

struct GeneratedTrace {
  uint64_t seed = 0;
  std::vector<protocol::Record> records;
};

GeneratedTrace GenerateTrace(uint64_t seed, const GeneratorOptions& options = {});

// Whether a byte is message-passing data (written by a producer before its
// flag, read by a consumer after it): for statistics in tests.
bool IsMessagePassingData(protocol::Space space, uint64_t address);

// Whether a record of this op carries a sequence stamp in generated traces:
// every strong access and fence (kAtomic and the synchronisation ops of
// protocol.h: acquire/release/acq_rel/fence), and barriers when
// GeneratorOptions::stamp_barriers is set.
bool CarriesStamp(protocol::Op op, bool stamp_barriers = false);
// Renumbers the stamps densely from 1 in stream order (after a shrink step).
void RestampSyncRecords(std::vector<protocol::Record>& records, bool stamp_barriers = false);

// One ring's record with its position in the original total-order stream.
struct RingRecord {
  uint64_t stream_index = 0;
  protocol::Record record{};
};

// Splits a total-order stream into `rings` queues by block group
// (block_linear % rings), each queue in stream order, as the device logger's
// per-SM queues would deliver it. kKernelBegin and kKernelEnd are copied into
// every ring (each queue sees the launch boundaries; stream_index is the
// original's). Requires rings >= 1 and records that start with kKernelBegin.
std::vector<std::vector<RingRecord>> SplitIntoRings(std::span<const protocol::Record> records,
                                                    uint32_t rings);

// Checks the invariants the generator promises (see trace_feasibility.cpp);
// used to validate the generator and to keep a shrunk trace feasible.
absl::Status CheckFeasible(std::span<const protocol::Record> records,
                           bool stamp_barriers = false);

// Human-readable dump, one line per record: "#index op w=warp mask=... ...".
std::string DumpRecord(const protocol::Record& record);
std::string DumpTrace(std::span<const protocol::Record> records);

}  // namespace barracuda::reference

#endif  // BARRACUDA_HOST_DETECTOR_REFERENCE_TRACE_GENERATOR_H_
