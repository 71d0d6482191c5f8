// Distributed shared memory lifetime (SEMANTICS.md "Distributed shared memory
// lifetime"): a block of a cluster releases its shared memory when it exits,
// so every access another block makes to it must happen before that exit
// (the CUDA programming guide: cluster.sync() before exit). Per block, the
// other blocks' accesses to its window, one entry per (thread, site,
// operation) with the highest clock, and the join of its threads' clocks at
// their exits. An access not covered by that join when the block has exited
// (or arriving after it: then it cannot be covered) is a lifetime race.
//
// Why entries and not the shadow cells: the answer must not depend on how the
// owner's exit and a neighbour's access interleave between workers. A key
// races iff its highest clock is not covered by the exit clock, whatever the
// order the two sides arrive in, and each key is reported once: at the exit
// for keys seen before it, at the access for keys seen after.
#ifndef BARRACUDA_HOST_DETECTOR_SHARED_LIFETIME_H_
#define BARRACUDA_HOST_DETECTOR_SHARED_LIFETIME_H_

#include <cstdint>
#include <mutex>

#include "absl/container/flat_hash_map.h"
#include "device_logger/protocol.h"
#include "host_detector/detector/report_model.h"
#include "vc_compression/vector_clock.h"

namespace barracuda::detector {

struct WindowLifetime {
  struct Key {
    uint64_t tid;  // the accessing thread (an async copy's thread for cp.async)
    uint32_t site;
    protocol::Op op;
    friend bool operator==(const Key&, const Key&) = default;
    template <typename H>
    friend H AbslHashValue(H h, const Key& k) {
      return H::combine(std::move(h), k.tid, k.site, static_cast<uint8_t>(k.op));
    }
  };
  struct Use {
    uint64_t clock = 0;    // the highest clock of the key's accesses
    uint64_t address = 0;  // the lowest byte they touched (shared address form)
    uint8_t size = 0;
    bool reported = false;
  };
  std::mutex mu;  // the owner's worker at exits, neighbours' workers at accesses
  absl::flat_hash_map<Key, Use> remote;
  vc::VectorClock exit_clock;  // join of the block's threads' clocks at their exits
  bool exited = false;         // every thread of the block exited
  AccessInfo exit;             // the exit that ended the block
};

}  // namespace barracuda::detector

#endif  // BARRACUDA_HOST_DETECTOR_SHARED_LIFETIME_H_
