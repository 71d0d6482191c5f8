#include "host_detector/gpu_agent/queue_drainer.h"

#include <algorithm>
#include <chrono>

namespace barracuda::gpu_agent {

QueueDrainer::QueueDrainer(gpu_queue::QueueSet* set, transport::Producer* producer)
    : set_(set), producer_(producer), rings_(std::max<uint32_t>(1, set->queue_count)), counts_(rings_, 0) {
  thread_ = std::thread([this] { Run(); });
}

QueueDrainer::~QueueDrainer() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

size_t QueueDrainer::DrainAllLocked() {
  size_t total = 0;
  for (uint32_t q = 0; q < set_->queue_count; ++q) {
    const size_t n = gpu_queue::Drain(set_, q, [&](const protocol::Record& r) {
      if (!in_launch_ || failed_.load(std::memory_order_relaxed)) return;
      if (!producer_->PushRecord(q, r)) failed_.store(true);
    });
    if (in_launch_) {
      counts_[q] += n;
    } else {
      unframed_.fetch_add(n, std::memory_order_relaxed);
    }
    total += n;
  }
  drained_.fetch_add(total, std::memory_order_relaxed);
  return total;
}

void QueueDrainer::Run() {
  // While a launch is open the kernel may log at any time, and a queue it
  // filled blocks it until this thread reads: poll, backing off to 1 ms.
  std::unique_lock<std::mutex> lock(mu_);
  auto pause = std::chrono::microseconds(20);
  while (!stop_) {
    if (!in_launch_) {
      wake_.wait(lock, [this] { return stop_ || in_launch_; });
      pause = std::chrono::microseconds(20);
      continue;
    }
    const size_t n = DrainAllLocked();
    lock.unlock();  // let FinishLaunch in between passes
    if (n == 0) {
      std::this_thread::sleep_for(pause);
      pause = std::min<std::chrono::microseconds>(pause * 2, std::chrono::microseconds(1000));
    } else {
      pause = std::chrono::microseconds(20);
    }
    lock.lock();
  }
}

void QueueDrainer::BeginLaunch() {
  std::unique_lock<std::mutex> lock(mu_);
  DrainAllLocked();  // anything left over belongs to no launch we framed
  std::fill(counts_.begin(), counts_.end(), 0);
  in_launch_ = true;
  wake_.notify_all();
}

bool QueueDrainer::FinishLaunch(const protocol::Record& end) {
  std::lock_guard<std::mutex> lock(mu_);
  DrainAllLocked();
  in_launch_ = false;
  if (failed_.load()) return false;
  if (!producer_->EndLaunch(end, counts_)) {
    failed_.store(true);
    return false;
  }
  return true;
}

}  // namespace barracuda::gpu_agent
