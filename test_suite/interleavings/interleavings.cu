// Interleaving-dependent bugs: each is invisible under the emulator's default
// (round-robin) schedule, which runs the blocks' cross-block operations in
// block order, and shows only when some block's atomics or strong accesses
// come earlier or later. A bug shows as a data race in a path only that
// interleaving takes, or as a wrong result (the program checks and exits 1),
// or as a bounded spin that gives up (also exit 1). Usage: interleavings NAME.
// The table of schedules needed to expose each under cd, random and pct is in
// README.md (exposure.py). Every spin is bounded (kSpins), so no schedule
// hangs. Skew(n) is private work that makes block b arrive about n rounds of
// the emulator's schedule after block 0: sequential under round-robin, and
// overlapping once a delay shifts one block.
#include <cstdio>
#include <cstring>

constexpr int kSpins = 4000;

__device__ unsigned g_timeout;  // a bounded spin gave up
__device__ unsigned g_sink;

__device__ void Skew(int units) {
  unsigned x = threadIdx.x + 1;
  for (int i = 0; i < units * 200; ++i) x = x * 1664525u + 1013904223u;
  if (x == 0x12345678u) g_sink = x;  // keeps the loop; practically never taken
}

__device__ unsigned Load(const unsigned* p) { return *reinterpret_cast<const volatile unsigned*>(p); }
__device__ void Store(unsigned* p, unsigned v) { *reinterpret_cast<volatile unsigned*>(p) = v; }

// Spins until *p >= v (strong loads); false (and g_timeout) when it gives up.
__device__ bool WaitAtLeast(const unsigned* p, unsigned v) {
  for (int i = 0; i < kSpins; ++i)
    if (Load(p) >= v) return true;
  atomicExch(&g_timeout, 1u);
  return false;
}
__device__ bool WaitEqual(const unsigned* p, unsigned v) {
  for (int i = 0; i < kSpins; ++i)
    if (Load(p) == v) return true;
  atomicExch(&g_timeout, 1u);
  return false;
}

struct Mem {
  unsigned word[64];   // protocol words
  unsigned data[64];   // payload
  unsigned out[64];    // results the host checks
};

// 1. Tickets assumed to follow block order; a block out of order writes the shared word: a race.
__global__ void TicketRace(Mem* m) {
  if (threadIdx.x != 0) return;
  const unsigned t = atomicAdd(&m->word[0], 1u);
  if (t != blockIdx.x) m->data[0] = blockIdx.x;
}

// 2. The same assumption, checked by the host: out[b] must be b.
__global__ void TicketResult(Mem* m) {
  if (threadIdx.x != 0) return;
  m->out[blockIdx.x] = atomicAdd(&m->word[0], 1u);
}

// 3. Flag protocol off by one: the consumer (block 0) waits for P-1 of P
// producers, then reads every producer's payload.
__global__ void FlagOffByOne(Mem* m) {
  if (threadIdx.x != 0) return;
  const unsigned producers = gridDim.x - 1;
  if (blockIdx.x == 0) {
    if (!WaitAtLeast(&m->word[0], producers - 1)) return;  // bug: should be `producers`
    __threadfence();
    unsigned sum = 0;
    for (unsigned p = 1; p <= producers; ++p) sum += m->data[p];
    m->out[0] = sum;
  } else {
    m->data[blockIdx.x] = blockIdx.x;
    __threadfence();
    atomicAdd(&m->word[0], 1u);
  }
}

// 4. Double-checked initialisation: the losers wait until the state is not 0,
// but 1 means "being initialised" (should wait for 2).
__global__ void DoubleCheckedInit(Mem* m) {
  if (threadIdx.x != 0) return;
  if (atomicCAS(&m->word[0], 0u, 1u) == 0u) {
    m->data[0] = 42;
    __threadfence();
    atomicExch(&m->word[0], 2u);
  } else {
    for (int i = 0; i < kSpins && Load(&m->word[0]) == 0u; ++i) {
    }  // bug: should wait for 2
    __threadfence();
    m->out[blockIdx.x] = m->data[0];
  }
}

// 5. Lock-free stack (index-linked) with an ABA pop: block 0 pops once, block
// 1 pops two nodes and pushes the first back. The head word's old value
// matches again, so block 0's late compare-and-swap installs a popped node.
__device__ unsigned Pop(Mem* m) {
  for (int i = 0; i < kSpins; ++i) {
    const unsigned h = Load(&m->word[0]);
    if (h == 0xffffffffu) return h;
    const unsigned n = Load(&m->word[8 + h]);
    if (atomicCAS(&m->word[0], h, n) == h) return h;
  }
  atomicExch(&g_timeout, 1u);
  return 0xffffffffu;
}
__device__ void Push(Mem* m, unsigned node) {
  for (int i = 0; i < kSpins; ++i) {
    const unsigned h = Load(&m->word[0]);
    Store(&m->word[8 + node], h);
    if (atomicCAS(&m->word[0], h, node) == h) return;
  }
  atomicExch(&g_timeout, 1u);
}
__global__ void StackAba(Mem* m) {
  if (threadIdx.x != 0) return;
  if (blockIdx.x == 0) {
    m->out[0] = Pop(m);
  } else if (blockIdx.x == 1) {
    const unsigned a = Pop(m);
    m->out[1] = Pop(m);
    Push(m, a);
  }
}

// 6. Grid barrier whose counter block 0 resets right after leaving it, while
// another block may still be reading it; the second barrier then never opens.
__global__ void GridBarrierReset(Mem* m) {
  if (threadIdx.x != 0) return;
  atomicAdd(&m->word[0], 1u);
  if (!WaitAtLeast(&m->word[0], gridDim.x)) return;
  if (blockIdx.x == 0) atomicExch(&m->word[0], 0u);  // bug: reset while others may still wait
  atomicAdd(&m->word[0], 1u);
  if (!WaitAtLeast(&m->word[0], gridDim.x)) return;
  m->out[blockIdx.x] = 1;
}

// 7. Increment by strong load and store: blocks that overlap lose updates.
__global__ void LostUpdate(Mem* m) {
  if (threadIdx.x != 0) return;
  Skew(blockIdx.x * 4);
  const unsigned v = Load(&m->word[0]);
  Store(&m->word[0], v + 1);
}

// 8. Maximum by load-compare-exchange: a late exchange overwrites a larger value.
__global__ void LostMaximum(Mem* m) {
  if (threadIdx.x != 0) return;
  Skew(blockIdx.x * 4);
  const unsigned mine = blockIdx.x + 1;
  if (mine > Load(&m->word[0])) atomicExch(&m->word[0], mine);
}

// 9. Check-then-allocate: two blocks that both see one free slot both take it.
__global__ void CheckThenAllocate(Mem* m) {
  if (threadIdx.x != 0) return;
  Skew(blockIdx.x * 4);
  const unsigned capacity = gridDim.x - 1;
  if (Load(&m->word[0]) < capacity) {
    const unsigned slot = atomicAdd(&m->word[0], 1u);
    m->data[slot] = blockIdx.x + 1;  // slot == capacity overwrites the guard word
  }
}

// 10. A lock taken by test-then-set (not atomic): two blocks can both enter,
// and the critical section's plain update races.
__global__ void TestThenSetLock(Mem* m) {
  if (threadIdx.x != 0) return;
  Skew(blockIdx.x * 4);
  if (!WaitEqual(&m->word[0], 0u)) return;
  Store(&m->word[0], 1u);  // bug: not atomic with the test
  __threadfence();
  m->data[0] = m->data[0] + 1;  // critical section
  __threadfence();
  Store(&m->word[0], 0u);
}

// 11. Sequence lock whose reader checks the sequence only before reading
// (block 0 reads a pair, block 1 updates it).
__global__ void SeqlockTornRead(Mem* m) {
  if (threadIdx.x != 0) return;
  if (blockIdx.x == 0) {
    for (int i = 0; i < kSpins && (Load(&m->word[0]) & 1u) != 0; ++i) {
    }
    const unsigned a = atomicAdd(&m->data[0], 0u);
    const unsigned b = atomicAdd(&m->data[1], 0u);  // bug: no second sequence check
    m->out[0] = a == b ? 1 : 0;
  } else if (blockIdx.x == 1) {
    atomicAdd(&m->word[0], 1u);
    atomicExch(&m->data[0], 7u);
    atomicExch(&m->data[1], 7u);
    atomicAdd(&m->word[0], 1u);
  }
}

// 12. Last-block reductions of two arrays (blocks 0..n/2-1 and n/2..n-1)
// sharing one arrival counter: the block that sees ticket n/2-1 (or n-1) sums
// its own array, assuming the first n/2 tickets went to the first array.
__global__ void SharedArrivalCounter(Mem* m) {
  if (threadIdx.x != 0) return;
  const unsigned half = gridDim.x / 2;
  const unsigned array = blockIdx.x / half;
  m->data[blockIdx.x] = blockIdx.x + 1;
  __threadfence();
  const unsigned t = atomicAdd(&m->word[0], 1u);
  if (t % half == half - 1) {  // bug: one counter per array was meant
    __threadfence();
    unsigned sum = 0;
    for (unsigned b = array * half; b < (array + 1) * half; ++b) sum += m->data[b];
    m->out[array] = sum;
  }
}

// 13. A flag set twice to the same value: the consumer's second wait can be
// satisfied by the first set, and then reads the second payload unordered.
__global__ void FlagReuse(Mem* m) {
  if (threadIdx.x != 0) return;
  if (blockIdx.x == 1) {
    m->data[0] = 1;
    __threadfence();
    atomicExch(&m->word[0], 1u);
    m->data[1] = 2;
    __threadfence();
    atomicExch(&m->word[0], 1u);  // bug: should be 2
  } else if (blockIdx.x == 0) {
    if (!WaitEqual(&m->word[0], 1u)) return;
    __threadfence();
    const unsigned first = m->data[0];
    Skew(6);
    if (!WaitEqual(&m->word[0], 1u)) return;  // bug: should wait for 2
    __threadfence();
    m->out[0] = first + m->data[1];
  }
}

// 14. Ticket lock; the block with blockIdx 0 (not the one with ticket 0)
// initialises the table the others read.
__global__ void TicketLockInitOrder(Mem* m) {
  if (threadIdx.x != 0) return;
  const unsigned t = atomicAdd(&m->word[0], 1u);
  if (!WaitEqual(&m->word[1], t)) return;
  __threadfence();
  if (blockIdx.x == 0) {
    m->data[0] = 5;  // bug: the first ticket holder should initialise
  } else {
    m->out[blockIdx.x] = m->data[0];
  }
  __threadfence();
  atomicAdd(&m->word[1], 1u);
}

// 15. Work stealing: each block takes its own tasks with atomicSub and, when
// done, steals from the next block after checking that some are left; the
// check and the take are not one operation, so a task index can go below 0.
__global__ void StealCheckThenTake(Mem* m) {
  if (threadIdx.x != 0) return;
  const unsigned self = blockIdx.x, victim = (blockIdx.x + 1) % gridDim.x;
  Skew(blockIdx.x * 12);
  for (;;) {
    const int t = atomicSub(reinterpret_cast<int*>(&m->word[self]), 1) - 1;
    if (t < 0) break;
    atomicAdd(&m->out[self * 8 + t], 1u);
  }
  if (static_cast<int>(Load(&m->word[victim])) > 0) {
    const int t = atomicSub(reinterpret_cast<int*>(&m->word[victim]), 1) - 1;  // bug: t may be -1
    atomicAdd(&m->out[victim * 8 + (t & 7)], 1u);
  }
}

// 16. A barrier counter incremented by a plain read-modify-write under the
// assumption that blocks arrive one at a time.
__global__ void ArrivalCountRace(Mem* m) {
  if (threadIdx.x != 0) return;
  Skew(blockIdx.x * 4);
  const unsigned arrived = Load(&m->word[0]) + 1;
  Store(&m->word[0], arrived);
  if (arrived == gridDim.x) m->out[0] = 1;  // the "last" block publishes
}

// 17. Leader by arrival count: the block whose atomicAdd returns n-1 is the
// leader; the others look at the count once more and, if it is complete,
// also act as leader (the check was meant for a second phase).
__global__ void SpuriousLeader(Mem* m) {
  if (threadIdx.x != 0) return;
  Skew(blockIdx.x * 4);
  const bool leader = atomicAdd(&m->word[0], 1u) == gridDim.x - 1;
  if (leader || Load(&m->word[0]) == gridDim.x) m->data[0] = blockIdx.x + 1;  // bug: the second test
  if (leader) m->out[0] = 1;
}

// 18. A one-shot "first block wins" election by strong load and store: two
// overlapping blocks can both see no winner and both act as winner.
__global__ void ElectionByLoadStore(Mem* m) {
  if (threadIdx.x != 0) return;
  Skew(blockIdx.x * 4);
  if (Load(&m->word[0]) == 0u) {
    Store(&m->word[0], blockIdx.x + 1);
    m->data[0] = blockIdx.x;  // the winner's plain write: two winners race
  }
}

// 19. Reference count dropped by load and store: an overlapped decrement is
// lost and the object is never freed (the host checks the count).
__global__ void RefcountDrop(Mem* m) {
  if (threadIdx.x != 0) return;
  Skew(blockIdx.x * 4);
  const unsigned v = Load(&m->word[0]);
  Store(&m->word[0], v - 1);
}

// 20. Bounded queue: producers reserve a slot with atomicAdd on the tail but
// publish the count with a strong store of (tail + 1), which can go backwards.
__global__ void PublishCountBackwards(Mem* m) {
  if (threadIdx.x != 0) return;
  Skew(blockIdx.x * 4);
  const unsigned slot = atomicAdd(&m->word[0], 1u);
  m->data[slot] = blockIdx.x + 1;
  __threadfence();
  Store(&m->word[1], slot + 1);  // bug: a later store of a smaller count wins
}

struct Bug {
  const char* name;
  void (*kernel)(Mem*);
  unsigned blocks;
  // Initial state and the host's check (true: the result is right).
  void (*init)(Mem&, unsigned blocks);
  bool (*check)(const Mem&, unsigned blocks);
};

void NoInit(Mem&, unsigned) {}
bool NoCheck(const Mem&, unsigned) { return true; }

const Bug kBugs[] = {
    {"ticket_race", TicketRace, 4, NoInit, NoCheck},
    {"ticket_result", TicketResult, 4, NoInit,
     [](const Mem& m, unsigned n) {
       for (unsigned b = 0; b < n; ++b)
         if (m.out[b] != b) return false;
       return true;
     }},
    {"flag_off_by_one", FlagOffByOne, 4, NoInit, [](const Mem& m, unsigned) { return m.out[0] == 1 + 2 + 3; }},
    {"double_checked_init", DoubleCheckedInit, 4, NoInit,
     [](const Mem& m, unsigned n) {
       unsigned zeros = 0;
       for (unsigned b = 1; b < n; ++b) zeros += m.out[b] == 0;
       return zeros <= 1;  // the winner's own slot stays 0
     }},
    {"stack_aba", StackAba, 2,
     [](Mem& m, unsigned) {
       m.word[0] = 0;  // head: 0 -> 1 -> 2 -> 3
       for (unsigned i = 0; i < 4; ++i) m.word[8 + i] = i + 1 < 4 ? i + 1 : 0xffffffffu;
     },
     [](const Mem& m, unsigned) {
       // The nodes still held (block 0's and block 1's second pop) must not be on the stack.
       for (unsigned h = m.word[0], steps = 0; h != 0xffffffffu && steps < 8; h = m.word[8 + h], ++steps)
         if (h == m.out[0] || h == m.out[1]) return false;
       return true;
     }},
    {"grid_barrier_reset", GridBarrierReset, 4, NoInit,
     [](const Mem& m, unsigned n) {
       for (unsigned b = 0; b < n; ++b)
         if (m.out[b] != 1) return false;
       return true;
     }},
    {"lost_update", LostUpdate, 4, NoInit, [](const Mem& m, unsigned n) { return m.word[0] == n; }},
    {"lost_maximum", LostMaximum, 4, NoInit, [](const Mem& m, unsigned n) { return m.word[0] == n; }},
    {"check_then_allocate", CheckThenAllocate, 4, NoInit,
     [](const Mem& m, unsigned n) { return m.word[0] == n - 1 && m.data[n - 1] == 0; }},
    {"test_then_set_lock", TestThenSetLock, 4, NoInit, [](const Mem& m, unsigned n) { return m.data[0] == n; }},
    {"seqlock_torn_read", SeqlockTornRead, 2, NoInit, [](const Mem& m, unsigned) { return m.out[0] == 1; }},
    {"shared_arrival_counter", SharedArrivalCounter, 4, NoInit,
     [](const Mem& m, unsigned) { return m.out[0] == 1 + 2 && m.out[1] == 3 + 4; }},
    {"flag_reuse", FlagReuse, 2, NoInit, [](const Mem& m, unsigned) { return m.out[0] == 3; }},
    {"ticket_lock_init_order", TicketLockInitOrder, 4, NoInit,
     [](const Mem& m, unsigned n) {
       for (unsigned b = 1; b < n; ++b)
         if (m.out[b] != 5) return false;
       return true;
     }},
    {"steal_check_then_take", StealCheckThenTake, 4,
     [](Mem& m, unsigned n) {
       for (unsigned b = 0; b < n; ++b) m.word[b] = 3;
     },
     [](const Mem& m, unsigned n) {
       for (unsigned b = 0; b < n; ++b)
         for (unsigned t = 0; t < 8; ++t)
           if (m.out[b * 8 + t] != (t < 3 ? 1u : 0u)) return false;
       return true;
     }},
    {"arrival_count_race", ArrivalCountRace, 4, NoInit,
     [](const Mem& m, unsigned n) { return m.word[0] == n && m.out[0] == 1; }},
    {"spurious_leader", SpuriousLeader, 4, NoInit,
     [](const Mem& m, unsigned n) { return m.out[0] == 1 && m.data[0] == n; }},
    {"election_by_load_store", ElectionByLoadStore, 4, NoInit, [](const Mem& m, unsigned) { return m.word[0] == 1; }},
    {"refcount_drop", RefcountDrop, 4, [](Mem& m, unsigned n) { m.word[0] = n; },
     [](const Mem& m, unsigned) { return m.word[0] == 0; }},
    {"publish_count_backwards", PublishCountBackwards, 4, NoInit,
     [](const Mem& m, unsigned n) { return m.word[1] == n; }},
};

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s NAME   (one of:", argv[0]);
    for (const Bug& b : kBugs) std::fprintf(stderr, " %s", b.name);
    std::fprintf(stderr, ")\n");
    return 2;
  }
  for (const Bug& bug : kBugs) {
    if (std::strcmp(argv[1], bug.name) != 0) continue;
    Mem host{};
    bug.init(host, bug.blocks);
    Mem* dev = nullptr;
    if (cudaMalloc(&dev, sizeof(Mem)) != cudaSuccess) return 2;
    cudaMemcpy(dev, &host, sizeof(Mem), cudaMemcpyHostToDevice);
    bug.kernel<<<bug.blocks, 32>>>(dev);
    if (cudaDeviceSynchronize() != cudaSuccess) return 2;
    unsigned timeout = 0;
    cudaMemcpy(&host, dev, sizeof(Mem), cudaMemcpyDeviceToHost);
    cudaMemcpyFromSymbol(&timeout, g_timeout, sizeof timeout);
    if (timeout != 0) {
      std::printf("%s: FAIL (a bounded wait gave up)\n", bug.name);
      return 1;
    }
    if (!bug.check(host, bug.blocks)) {
      std::printf("%s: FAIL (wrong result)\n", bug.name);
      return 1;
    }
    std::printf("%s: PASS\n", bug.name);
    return 0;
  }
  std::fprintf(stderr, "%s: no bug named %s\n", argv[0], argv[1]);
  return 2;
}
