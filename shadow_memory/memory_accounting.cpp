#include "shadow_memory/memory_accounting.h"

namespace barracuda::shadow {

const char* MemoryCategoryName(MemoryCategory c) {
  switch (c) {
    case MemoryCategory::kGlobalCells: return "global cells";
    case MemoryCategory::kPageTable: return "page table";
    case MemoryCategory::kSharedCells: return "shared cells";
    case MemoryCategory::kVectorClocks: return "location vector clocks";
    case MemoryCategory::kSyncLocations: return "synchronisation locations";
    case MemoryCategory::kSpareCells: return "spare cells";
    case MemoryCategory::kCount: break;
  }
  return "?";
}

void MemoryAccounting::Snapshot(ShadowStats* out) const {
  for (int i = 0; i < kMemoryCategoryCount; ++i) {
    out->bytes[i] = Clamp(bytes_[i].load(std::memory_order_relaxed));
  }
  for (int i = 0; i < kShadowEventCount; ++i) {
    out->events[i] = Clamp(events_[i].load(std::memory_order_relaxed));
  }
  out->total_bytes = Total();
  out->peak_total_bytes = Clamp(peak_.load(std::memory_order_relaxed));
  out->limit_bytes = limit();
}

}  // namespace barracuda::shadow
