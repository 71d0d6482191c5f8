// What the bulk asynchronous copies (cp.async.bulk, and the TMA tensor copies
// cp.async.bulk.tensor) share: one lane's contiguous transfer in the async
// proxy with its records, the complete-tx on an mbarrier, the bulk
// async-groups, and the kAsyncWait that tells the detector what a lane has
// now observed (cp.async's waits use it too).
//
// The emulator performs a bulk copy at issue (a fast copy, which the ISA
// allows): its bytes move at once and its complete-tx of all of them follows
// at once, one complete-tx per copy as the ISA describes it. An expect_tx that
// counts too few bytes leaves the tx-count below zero and the phase
// incomplete: the program hangs, as it does on an H200 (seen there natively,
// 2026-11-28; an earlier model completed such a phase part-way). What
// is deferred is only what the issuing lane may assume: the detector sees the
// copy as the lane's async records (protocol kFlagAsync | kFlagAsyncProxy)
// until a wait or the mbarrier phase says they completed.
#ifndef BARRACUDA_PTX_EMULATOR_OPS_BULK_COPY_H_
#define BARRACUDA_PTX_EMULATOR_OPS_BULK_COPY_H_

#include <cstdint>

#include "absl/functional/function_ref.h"
#include "absl/status/statusor.h"
#include "device_logger/protocol.h"
#include "ptx_emulator/core/exec_form.h"
#include "ptx_emulator/core/warp_context.h"
#include "ptx_emulator/ops/mem_access.h"
#include "ptx_rewriter/ir.h"

namespace barracuda::emu::bulk {

// One side of a transfer: host pointer, record address, space.
struct Span {
  uint8_t* host = nullptr;
  uint64_t log = 0;
  protocol::Space space = protocol::Space::kGlobal;
};

// Copies `bytes` (a multiple of 16) from src to dst for `lane` now and, when
// tracing, emits its records: per 16 bytes a kRead of src, then per 16 bytes
// a kWrite of dst, each kFlagAsync | kFlagAsyncProxy and numbered in the
// lane's async records. Reads come first so that a bulk wait_group.read can
// name the reads without the writes.
void Transfer(const Inst& inst, WarpCtx& ctx, uint32_t lane, const Span& src, const Span& dst, uint32_t bytes);

// Runs of any length and alignment (the TMA tensor copies' box rows, whose
// in-bounds part need not be a multiple of 16 bytes; bulk_copy_runs.cpp).
// Each works in pieces of 16, 8, 4, 2 or 1 bytes, the largest that the
// addresses' alignment and what is left allow.
// Move: copies `bytes` from src to dst for `lane` now, no records.
void Move(WarpCtx& ctx, uint32_t lane, const Span& src, const Span& dst, uint32_t bytes);
// EmitAccesses: when tracing, the records of `bytes` at `side` (op kRead or
// kWrite, kFlagAsync | kFlagAsyncProxy), numbered in the lane's async records.
void EmitAccesses(const Inst& inst, WarpCtx& ctx, uint32_t lane, const Span& side, protocol::Op op,
                  uint32_t bytes);
// Fill: the zero-fill variant: writes `bytes` of elements of `element_bytes`
// bytes (1, 2, 4 or 8) holding `element` (0: zeros) at dst now and, when
// tracing, emits their write records only (there is no source).
void Fill(const Inst& inst, WarpCtx& ctx, uint32_t lane, const Span& dst, uint32_t bytes, uint32_t element_bytes,
          uint64_t element);

// The bulk reductions' destination side (cp.reduce.async.bulk and
// cp.reduce.async.bulk.tensor): `bytes` of `lane`'s destination, element by
// element (`elem` bytes each), become reduce(dst, src) now, each an atomic
// read-modify-write recorded, when tracing, as the lane's strong kAtomic
// (load and store) at `scope`, stamped together with its update (as atom is).
// The source reads are the caller's to record (EmitAccesses).
void ReduceElements(const Inst& inst, WarpCtx& ctx, uint32_t lane, const Span& src, const Span& dst, uint32_t bytes,
                    uint32_t elem, mem::ElementReduce reduce, protocol::Scope scope);

// The reduction a cp.reduce.async.bulk{.tensor} names (.add, .min, .max,
// .inc, .dec, .and, .or, .xor); kNone without one.
ptx::AtomOp ReduceOpOf(const ptx::Instruction& ir);

// complete_tx of bytes[l] bytes on lane l's mbarrier (bar/bar_log from
// mbar::ResolveObjects), for the lanes of `exec`: a release of the lane's
// async records so far (kRelease with kFlagAsync) to the phase's waiters;
// without `release`, only the count changes (no record).
void CompleteTx(const Inst& inst, WarpCtx& ctx, uint32_t exec, uint8_t* const* bar, const uint64_t* bar_log,
                const uint32_t* bytes, bool release = true);

// .multicast::cluster for lane l: for every CTA rank of the cluster set in
// `cta_mask` (ranks past the cluster's size ignored), deliver(dst) puts the
// bytes at `dst`, the .shared::cluster address of dst_addr's CTA-relative
// offset in that CTA, then the mbarrier at bar_addr's offset in that CTA
// gets the complete-tx of `bytes` (PTX ISA: the data and the mbarrier signal
// are multicast to the same CTA-relative offsets). dst_addr and bar_addr are
// lane l's .shared::cluster addresses. False after a fault (deliver's too).
bool Multicast(const Inst& inst, WarpCtx& ctx, uint32_t l, uint64_t dst_addr, uint64_t bar_addr, uint32_t bytes,
               uint64_t cta_mask, absl::FunctionRef<bool(uint64_t dst)> deliver);

// A bulk async-group copy of `lane` was issued (cp.async.bulk ... .bulk_group):
// its reads end at the lane's async record `reads_end`, its writes at the
// lane's current count.
void NoteGroupCopy(WarpCtx& ctx, uint32_t lane, uint32_t reads_end);

// The lanes of `exec` now know that their first target[l] async records are
// complete: a kAsyncWait record for the lanes whose count grew.
void EmitObserved(const Inst& inst, WarpCtx& ctx, uint32_t exec, const uint32_t* target);

}  // namespace barracuda::emu::bulk

namespace barracuda::emu {
// cp.async.bulk{.commit_group, .wait_group[.read], .prefetch} and the bulk
// copies other than TMA (called by SelectAsyncCopyOp for cp.async.bulk forms
// without .tensor).
absl::StatusOr<bool> SelectBulkCopyOp(const ptx::Instruction& ir, Inst& inst);
// st.async / red.async into a cluster CTA's shared memory with complete_tx
// on its mbarrier (async_store_ops.cpp).
absl::StatusOr<bool> SelectAsyncStoreOp(const ptx::Instruction& ir, Inst& inst);
// cp.reduce.async.bulk (not .tensor): shared::cta to global with bulk_group,
// and to shared::cluster with mbarrier::complete_tx::bytes.
absl::StatusOr<bool> SelectBulkReduceOp(const ptx::Instruction& ir, Inst& inst);
// cp.async.bulk.tensor (TMA) copies other than the prefetch (called by
// SelectAsyncCopyOp; tensor_map_copy_ops.cpp).
absl::StatusOr<bool> SelectTensorCopyOp(const ptx::Instruction& ir, Inst& inst);
// cp.reduce.async.bulk.tensor (TMA reduction, tile mode, shared::cta to
// global with bulk_group; tensor_map_copy_ops.cpp).
absl::StatusOr<bool> SelectTensorReduceOp(const ptx::Instruction& ir, Inst& inst);
}  // namespace barracuda::emu

#endif  // BARRACUDA_PTX_EMULATOR_OPS_BULK_COPY_H_
