#include "host_detector/gpu_agent/tensor_maps.h"

#include <atomic>

namespace barracuda::gpu_agent {

std::string TensorMapRegistry::Encoded(const void* map_bytes, gpu_queue::TensorMapEntry e, std::string why) {
  e.key = gpu_queue::TensorMapKeyOf(map_bytes);
  std::lock_guard<std::mutex> lock(mu_);
  if (by_key_.insert_or_assign(e.key, e).second) order_.push_back(e.key);
  WriteLocked(e);
  return why;
}

void TensorMapRegistry::AddressReplaced(uint64_t old_key, const void* new_bytes, uint64_t address) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = by_key_.find(old_key);
  if (it == by_key_.end()) return;  // a map the agent did not see made: its copies stay unchecked
  gpu_queue::TensorMapEntry e = it->second;
  e.address = address;
  e.key = gpu_queue::TensorMapKeyOf(new_bytes);
  if (by_key_.insert_or_assign(e.key, e).second) order_.push_back(e.key);
  WriteLocked(e);
}

void TensorMapRegistry::WriteLocked(const gpu_queue::TensorMapEntry& e) {
  if (set_ != nullptr && !gpu_queue::AddTensorMap(set_, e)) ++overflowed_;
}

void TensorMapRegistry::Attach(gpu_queue::QueueSet* set) {
  std::lock_guard<std::mutex> lock(mu_);
  set_ = set;
  if (set_ == nullptr) return;
  for (uint64_t key : order_) WriteLocked(by_key_.at(key));
}

uint32_t TensorMapRegistry::TakeUnchecked() {
  std::lock_guard<std::mutex> lock(mu_);
  if (set_ == nullptr) return 0;
  return std::atomic_ref<uint32_t>(set_->tensor_copies_unchecked).exchange(0, std::memory_order_acq_rel);
}

uint32_t TensorMapRegistry::overflowed() const {
  std::lock_guard<std::mutex> lock(mu_);
  return overflowed_;
}

}  // namespace barracuda::gpu_agent
