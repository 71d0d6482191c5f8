// The asynchronous copies (cp.async) a warp's lanes have issued and not yet
// completed, per lane, in issue order, with their cp.async-groups; and the
// lanes' bulk async-groups (cp.async.bulk ... .bulk_group, ops/bulk_copy.h).
//
// The emulator reads a copy's source when it is issued and writes its
// destination (shared memory) only when the copy completes: when the lane
// waits for its group (cp.async.wait_group / wait_all), when an mbarrier
// arrive-on is triggered by it (cp.async.mbarrier.arrive), or when the lane
// exits. A GPU may complete a copy at any moment in between, so this is one
// of the behaviours the PTX ISA allows, and the one that shows a program that
// reads the destination too early the old bytes, as a slow copy would.
//
// Each copy's records (protocol kFlagAsync) are numbered per lane; `records`
// is the lane's count so far, `completed` the count its completed copies
// reach, `observed` what the lane was last told of (a kAsyncWait record).
#ifndef BARRACUDA_PTX_EMULATOR_CORE_ASYNC_COPIES_H_
#define BARRACUDA_PTX_EMULATOR_CORE_ASYNC_COPIES_H_

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <vector>

namespace barracuda::emu {

struct PendingCopy {
  uint8_t* dst = nullptr;  // host address in the block's (or a cluster neighbour's) shared window
  uint8_t bytes[16] = {};  // the source bytes read at issue, zero-filled past src-size
  uint8_t size = 0;        // cp-size: 4, 8 or 16
  uint32_t group = 0;      // the cp.async-group: commit_group calls before the issue
  uint32_t records = 0;    // the lane's async record count once this copy's records were emitted
};

// A bulk async-group: the lane's async record counts at which its copies'
// source reads and all its records end (0: none). Bulk copies are done at
// issue, so a group only waits to be observed.
struct BulkGroup {
  uint32_t reads_end = 0;
  uint32_t end = 0;
};

struct LaneAsyncCopies {
  std::vector<PendingCopy> pending;  // issue order, so also group order
  uint32_t committed = 0;            // commit_group calls
  uint32_t records = 0;
  uint32_t completed = 0;
  uint32_t observed = 0;
  std::vector<BulkGroup> bulk_groups;  // committed, not yet waited for (without .read), oldest first
  BulkGroup bulk_open;                 // the bulk copies not yet committed
  // wgmma-groups (wgmma.commit_group / wait_group, ops/tensor_wgmma.cpp): the
  // lane's async record count at the end of each committed group not yet
  // waited for, oldest first, and of the wgmma.mma_async not yet committed.
  // The emulator performs each wgmma at issue, so a group only waits to be
  // observed, like a bulk group.
  std::vector<uint32_t> wgmma_groups;
  uint32_t wgmma_open = 0;

  void CommitWgmmaGroup() {
    wgmma_groups.push_back(wgmma_open);
    wgmma_open = 0;
  }
  // wgmma.wait_group `newest`: the record count the lane now knows complete
  // (every group but the `newest` most recent), 0 when none completes.
  uint32_t WaitWgmmaGroups(uint32_t newest) {
    if (wgmma_groups.size() <= newest) return 0;
    const size_t done = wgmma_groups.size() - newest;
    uint32_t target = 0;
    for (size_t i = 0; i < done; ++i) target = std::max(target, wgmma_groups[i]);
    wgmma_groups.erase(wgmma_groups.begin(), wgmma_groups.begin() + static_cast<std::ptrdiff_t>(done));
    return target;
  }

  void CommitBulkGroup() {
    bulk_groups.push_back(bulk_open);
    bulk_open = BulkGroup{};
  }
  // cp.async.bulk.wait_group{.read} `newest`: the record count the lane now
  // knows complete (the groups but the `newest` most recent; their reads
  // only with `reads_only`, which keeps the groups for a later full wait).
  // Records are numbered in issue order, so a group's reads_end also covers
  // the writes of its earlier copies: with .read those are taken as observed
  // too (a documented approximation, ptx_emulator/README.md).
  uint32_t WaitBulkGroups(uint32_t newest, bool reads_only) {
    if (bulk_groups.size() <= newest) return 0;
    const size_t done = bulk_groups.size() - newest;
    uint32_t target = 0;
    for (size_t i = 0; i < done; ++i)
      target = std::max(target, reads_only ? bulk_groups[i].reads_end : bulk_groups[i].end);
    if (!reads_only) bulk_groups.erase(bulk_groups.begin(), bulk_groups.begin() + static_cast<std::ptrdiff_t>(done));
    return target;
  }

  // Completes the copies of groups below `group_limit` (all with ~0u): writes
  // their destinations in issue order. Single-byte relaxed atomic stores, as
  // every access to emulated shared memory is (ops/mem_access.h).
  void CompleteBefore(uint32_t group_limit) {
    size_t done = 0;
    while (done < pending.size() && pending[done].group < group_limit) {
      const PendingCopy& c = pending[done];
      for (uint32_t i = 0; i < c.size; ++i)
        std::atomic_ref<uint8_t>(c.dst[i]).store(c.bytes[i], std::memory_order_relaxed);
      completed = c.records > completed ? c.records : completed;
      ++done;
    }
    pending.erase(pending.begin(), pending.begin() + static_cast<std::ptrdiff_t>(done));
  }
};

struct AsyncCopies {
  LaneAsyncCopies lane[32];
  // Completes every copy of the lanes in `mask` (they exit).
  void CompleteLanes(uint32_t mask) {
    for (uint32_t m = mask; m != 0; m &= m - 1) lane[__builtin_ctz(m)].CompleteBefore(~0u);
  }
};

}  // namespace barracuda::emu

#endif  // BARRACUDA_PTX_EMULATOR_CORE_ASYNC_COPIES_H_
