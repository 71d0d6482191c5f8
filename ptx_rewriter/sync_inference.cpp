// ClassifyAccesses: the paper's acquire/release inference (§3.1) over a
// function body, with explicit PTX memory semantics taking precedence.
//
// Decisions beyond the paper (the header states the paper's rules):
// - Adjacency is in the statement list: labels, .loc, declarations, pragmas
//   and `{`/`}` are skipped, and so are register-only instructions (mov, add,
//   cvta, setp, ...: no memory access, fence, barrier, warp primitive, branch,
//   call or exit). nvcc nearly always schedules such instructions between
//   `__threadfence()` and the flag store (`membar.gl; mov.u32 %r, 1;
//   st.volatile.u32 [%rd], %r`), and they cannot order memory, so skipping
//   them keeps the paper's "immediately preceded in static code" meaning at
//   the level of memory-relevant instructions. A conditional branch back to
//   a label at or before the instruction it follows is skipped too: it closes
//   a polling loop (`$L: atom.cas; setp; @p bra $L; membar.gl` is the lock
//   acquire of CUDA by Example), and the fall-through after it is only reached
//   after the loop's last access. Any other instruction (memory, fence,
//   barrier, warp primitive, forward or unconditional branch, call, exit)
//   breaks the adjacency. A label between
//   a fence and an access does not break the bundle (as in the paper): the
//   static classification cannot be per path, and the common nvcc shapes put
//   labels there only for loops that re-execute the fence too.
// - A guarded fence bundles only with an access under the same guard (an
//   unguarded fence bundles with any): `@p membar.gl; st` would otherwise make
//   the store a release on paths where no fence ran.
// - One fence between a load and a store (`ld; fence; st`) serves both: the
//   load becomes an acquire and the store a release.
// - Strong accesses without acquire/release meaning (.relaxed, .volatile, plain
//   atom/red) take part in the inference like weak ones: `membar.gl;
//   st.volatile` is the classic flag publication. Explicit .acquire/.release/
//   .acq_rel accesses are never bundled; a fence next to them stays a kFence.
// - ld.relaxed / st.relaxed (cuda::atomic_ref with memory_order_relaxed) are
//   atomics (kAtomic; loads/stores say which): the PTX memory model makes them
//   morally strong, so they do not race with other atomics. ld.volatile /
//   st.volatile stay plain accesses, as the paper treats them (the suite's
//   volatile-flag programs: without fences the flag accesses race).
// - One-sided atomics (the paper names only fence,atom,fence -> acq_rel,
//   cas,fence -> acquire and fence,exch -> release): atom then fence is an
//   acquire for every operation (the PTX acquire pattern: a strong read then a
//   fence; e.g. a test-and-set lock taken with atomicExch); fence then cas or
//   exch is a release; fence then any other RMW (inc, add, ...) is acq_rel: the
//   ticket of the CUDA sample threadFenceReduction, on which the paper tuned
//   its inference, publishes the block's partial result and, for the block
//   that draws the last ticket, also orders its reads of the other partials.
// - A guarded forward branch between a fence and the next access (`membar.gl;
//   @p bra $L; atom` = `__threadfence(); if (t == 0) atomicInc(...)`) does
//   not break the fence-before adjacency: the fall-through is reached only
//   through the branch. It still breaks access-then-fence adjacency (the fence
//   after it runs on one path only).
// - Never synchronisation: .local/.param/.const spaces (kNone, not logged),
//   ld.global.nc and ldu (plain reads that never bundle), prefetch & co.
// - Scopes: explicit scope if written; atom/red without one are .gpu (PTX
//   ISA: "if no scope is specified, .gpu is assumed"); ld.acquire/st.release
//   require a scope in the grammar, a missing one is read as .gpu too. An
//   inferred bundle takes the fence's scope, narrowed by the access's own scope
//   when it has one; a fence with no scope is .gpu (membar.gl is the
//   pre-scope spelling of the same fence). Every synchronisation class carries
//   a scope (the detector reads kNone as cta).
// - Fences: fence.sc / fence.acq_rel / fence (no .sem: acq_rel) / membar.*
//   order both ways; fence.acquire only makes a preceding load an acquire,
//   fence.release only a following store a release. fence.proxy.* /
//   membar.proxy / fence.mbarrier_init order proxies, not threads: kNone.
// - red is treated like atom (no return value does not change what it
//   orders): fence, red, fence -> acq_rel; there is no red.cas / red.exch.
#include "ptx_rewriter/sync_inference.h"

#include <algorithm>
#include <optional>

#include "absl/container/flat_hash_map.h"
#include "ptx_rewriter/site_table.h"

namespace barracuda::ptx {
namespace {

using Kind = AccessClass::Kind;

enum class Role : uint8_t { kOther, kFence, kLoad, kStore, kAtomic };

struct Info {
  Role role = Role::kOther;
  AccessClass base;            // classification without adjacency
  bool bundles = false;        // may take part in fence inference
  bool fence_acquire = false;  // kFence: can make a preceding load an acquire
  bool fence_release = false;  // kFence: can make a following store a release
  Scope own_scope = Scope::kNone;
  AtomOp atom_op = AtomOp::kNone;
  const Guard* guard = nullptr;
};

bool NeverLogged(StateSpace s) {
  return s == StateSpace::kLocal || s == StateSpace::kParam || s == StateSpace::kConst ||
         s == StateSpace::kReg || s == StateSpace::kSreg || s == StateSpace::kTex;
}

// Narrower of two scopes (kNone = unspecified, the other wins).
Scope Narrower(Scope a, Scope b) {
  if (a == Scope::kNone) return b;
  if (b == Scope::kNone) return a;
  return std::min(a, b);  // kCta < kCluster < kGpu < kSys
}

Scope OrGpu(Scope s) { return s == Scope::kNone ? Scope::kGpu : s; }

bool IsExplicitSync(MemSemantics s) {
  return s == MemSemantics::kAcquire || s == MemSemantics::kRelease || s == MemSemantics::kAcqRel ||
         s == MemSemantics::kSc;
}

Info Describe(const Instruction& in) {
  Info d;
  d.guard = &in.guard;
  const ModifierInfo& m = in.info;
  switch (in.op) {
    case Opcode::kFence:
    case Opcode::kMembar: {
      // fence.proxy.*, membar.proxy, fence.mbarrier_init.*, fence.proxy.async:
      // proxy ordering, no thread-to-thread synchronisation.
      bool proxy = m.proxy || m.async;
      for (const auto& mod : in.modifiers)
        if (mod.starts_with(".proxy") || mod.starts_with(".mbarrier_init")) proxy = true;
      if (proxy) return d;
      d.role = Role::kFence;
      d.fence_acquire = m.sem != MemSemantics::kRelease;
      d.fence_release = m.sem != MemSemantics::kAcquire;
      d.own_scope = OrGpu(m.scope);
      d.base.kind = Kind::kFence;
      d.base.scope = d.own_scope;
      return d;
    }
    case Opcode::kLd:
    case Opcode::kLdu: {
      if (NeverLogged(m.space)) return d;
      d.role = Role::kLoad;
      d.base.loads = true;
      if (in.op == Opcode::kLdu || m.nc) {
        d.base.kind = Kind::kRead;
        return d;
      }
      if (m.sem == MemSemantics::kAcquire || m.sem == MemSemantics::kSc) {
        d.base.kind = Kind::kAcquire;
        d.base.scope = OrGpu(m.scope);
        return d;
      }
      d.base.kind = Kind::kRead;
      d.base.is_volatile = m.sem == MemSemantics::kVolatile;
      d.bundles = !IsExplicitSync(m.sem);
      d.own_scope = m.scope;
      if (m.sem == MemSemantics::kRelaxed) {  // a strong load: atomic, conflicts with plain writes only
        d.base.kind = Kind::kAtomic;
        d.base.scope = OrGpu(m.scope);
      }
      return d;
    }
    case Opcode::kSt: {
      if (NeverLogged(m.space)) return d;
      d.role = Role::kStore;
      d.base.stores = true;
      if (m.sem == MemSemantics::kRelease) {
        d.base.kind = Kind::kRelease;
        d.base.scope = OrGpu(m.scope);
        return d;
      }
      d.base.kind = Kind::kWrite;
      d.base.is_volatile = m.sem == MemSemantics::kVolatile;
      d.bundles = !IsExplicitSync(m.sem);
      d.own_scope = m.scope;
      if (m.sem == MemSemantics::kRelaxed) {  // a strong store: an atomic write
        d.base.kind = Kind::kAtomic;
        d.base.scope = OrGpu(m.scope);
      }
      return d;
    }
    case Opcode::kAtom:
    case Opcode::kRed: {
      if (NeverLogged(m.space)) return d;
      d.role = Role::kAtomic;
      d.atom_op = m.atom_op;
      d.base.loads = true;
      d.base.stores = true;
      d.base.scope = OrGpu(m.scope);
      switch (m.sem) {
        case MemSemantics::kAcquire: d.base.kind = Kind::kAcquire; return d;
        case MemSemantics::kRelease: d.base.kind = Kind::kRelease; return d;
        case MemSemantics::kAcqRel:
        case MemSemantics::kSc: d.base.kind = Kind::kAcqRel; return d;
        default: break;
      }
      d.base.kind = Kind::kAtomic;
      d.bundles = true;
      d.own_scope = m.scope;
      return d;
    }
    default:
      return d;
  }
}

// An unguarded fence bundles with anything; a guarded one only with an access
// under the same guard.
bool GuardsFit(const Info& fence, const Info& access) {
  return !fence.guard->present() || *fence.guard == *access.guard;
}

}  // namespace

// No memory access, fence, barrier, warp primitive or control transfer: the
// instruction only computes registers. Opaque or unknown instructions are not
// register-only (we cannot tell what they do).
static bool IsRegisterOnly(const Instruction& in) {
  if (in.opaque || in.op == Opcode::kUnknown) return false;
  if (ClassifySite(in).has_value()) return false;
  if (in.is_call() || in.is_terminator() || in.op == Opcode::kBrkpt || in.op == Opcode::kNanosleep) return false;
  switch (in.op) {
    case Opcode::kCp: case Opcode::kMbarrier: case Opcode::kTex: case Opcode::kTld4: case Opcode::kSuld:
    case Opcode::kSust: case Opcode::kSured: case Opcode::kWmma: case Opcode::kWgmma: case Opcode::kTcgen05:
    case Opcode::kGriddepcontrol: case Opcode::kAlloca: case Opcode::kStacksave: case Opcode::kStackrestore:
      return false;
    default:
      return true;
  }
}

std::vector<AccessClass> ClassifyAccesses(const Function& function) {
  const size_t n = function.body.size();
  std::vector<AccessClass> out(n);
  std::vector<Info> info(n);
  // Statement index of the previous / next instruction (adjacency skips
  // everything that is not an instruction).
  std::vector<std::optional<size_t>> prev(n), next(n);
  std::optional<size_t> last;
  absl::flat_hash_map<std::string_view, size_t> label_at;
  for (size_t i = 0; i < n; ++i)
    if (const auto* l = std::get_if<Label>(&function.body[i])) label_at.emplace(l->name, i);
  // `@p bra L` with L at or before the previous memory-relevant instruction.
  auto closes_loop = [&](const Instruction& in) {
    if (!in.is_branch() || !in.guard.present() || !last) return false;
    const Operand* t = in.branch_target();
    if (t == nullptr || !t->is_symbol()) return false;
    auto it = label_at.find(t->text);
    return it != label_at.end() && it->second <= *last;
  };
  // `@p bra L` forward: the instruction after it is reached only through it.
  auto skips_forward = [&](const Instruction& in, size_t at) {
    if (!in.is_branch() || !in.guard.present()) return false;
    const Operand* t = in.branch_target();
    if (t == nullptr || !t->is_symbol()) return false;
    auto it = label_at.find(t->text);
    return it != label_at.end() && it->second > at;
  };
  std::optional<size_t> skipped_branch;  // a guarded forward branch right before
  for (size_t i = 0; i < n; ++i) {
    const auto* in = std::get_if<Instruction>(&function.body[i]);
    if (!in) continue;
    info[i] = Describe(*in);
    if (IsRegisterOnly(*in) || closes_loop(*in)) continue;  // transparent for adjacency (see above)
    prev[i] = skipped_branch ? prev[*skipped_branch] : last;
    if (last) next[*last] = i;
    last = i;
    skipped_branch.reset();
    if (skips_forward(*in, i)) skipped_branch = i;
  }

  std::vector<bool> consumed(n, false);
  for (size_t i = 0; i < n; ++i) {
    const Info& d = info[i];
    out[i] = d.base;
    if (!d.bundles) continue;
    auto fence_before = [&]() -> const Info* {
      if (!prev[i]) return nullptr;
      const Info& f = info[*prev[i]];
      return f.role == Role::kFence && f.fence_release && GuardsFit(f, d) ? &f : nullptr;
    };
    auto fence_after = [&]() -> const Info* {
      if (!next[i]) return nullptr;
      const Info& f = info[*next[i]];
      return f.role == Role::kFence && f.fence_acquire && GuardsFit(f, d) ? &f : nullptr;
    };
    AccessClass& c = out[i];
    const Info* before = d.role == Role::kLoad ? nullptr : fence_before();
    const Info* after = d.role == Role::kStore ? nullptr : fence_after();
    Kind kind = c.kind;
    if (d.role == Role::kLoad && after) {
      kind = Kind::kAcquire;
      before = nullptr;
    } else if (d.role == Role::kStore && before) {
      kind = Kind::kRelease;
      after = nullptr;
    } else if (d.role == Role::kAtomic) {
      if (before && after) {
        kind = Kind::kAcqRel;
      } else if (after) {
        kind = Kind::kAcquire;  // atom then fence: the PTX acquire pattern (cas: paper)
      } else if (before && (d.atom_op == AtomOp::kExch || d.atom_op == AtomOp::kCas)) {
        kind = Kind::kRelease;  // fence then exch: the paper's lock release
      } else if (before) {
        kind = Kind::kAcqRel;  // fence then counter RMW: threadFenceReduction's ticket
      }
    } else {
      before = after = nullptr;
    }
    if (!before && !after) continue;
    c.kind = kind;
    c.inferred = true;
    Scope s = d.own_scope;
    if (before) s = Narrower(s, before->own_scope), consumed[*prev[i]] = true;
    if (after) s = Narrower(s, after->own_scope), consumed[*next[i]] = true;
    c.scope = OrGpu(s);
  }
  for (size_t i = 0; i < n; ++i)
    if (consumed[i]) out[i] = AccessClass{};
  return out;
}

}  // namespace barracuda::ptx
