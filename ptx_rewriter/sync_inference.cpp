// ClassifyAccesses: what each memory and fence instruction is in the PTX
// memory consistency model (host_detector/detector/SEMANTICS.md), decided per
// instruction, with no adjacency inference.
//
// Decisions (and why):
// - Fences are their own records (kFence; loads = acquire side, stores =
//   release side) and the detector handles them at run time with pending
//   release/acquire clocks per thread. The paper's static inference (fence
//   then st -> release, ld then fence -> acquire) matched instruction shapes:
//   it missed the fence after a spin loop's exit, fences in called functions
//   (-G builds: __threadfence and atomicCAS are calls), warp votes between the
//   load and the fence; and it made a WEAK store after a fence a release,
//   which the model does not (the store is data and may race).
// - Strong accesses without acquire/release meaning are kAtomic: atom/red
//   without .sem, ld/st.relaxed, and ld/st.volatile (.volatile is
//   .relaxed.sys in the model: morally strong, so two volatile accesses of one
//   word never race; data published through a volatile flag without fences
//   still races). loads/stores say whether it reads, writes or both.
// - ld.acquire / st.release / atom.acquire|release|acq_rel|sc: kAcquire /
//   kRelease / kAcqRel at their scope.
// - Never logged: .local/.param/.const spaces. ld.global.nc and ldu are weak
//   reads; so are ldmatrix and wmma.load, and stmatrix / wmma.store weak
//   writes (the ISA calls them weak memory operations).
// - Scopes: explicit scope if written; atom/red without one are .gpu (PTX ISA:
//   "if no scope is specified, .gpu is assumed"); ld.acquire/st.release/
//   .relaxed require a scope in the grammar, a missing one is read as .gpu;
//   .volatile is .sys; a fence with no scope (membar.gl) is .gpu.
// - Fences: fence.sc / fence.acq_rel / fence (no .sem: acq_rel) / membar.*
//   order both ways; fence.acquire only acquires, fence.release only releases.
//   fence.proxy.* / membar.proxy / fence.mbarrier_init order proxies, not
//   threads: kNone.
#include "ptx_rewriter/sync_inference.h"


namespace barracuda::ptx {
namespace {

using Kind = AccessClass::Kind;

bool NeverLogged(StateSpace s) {
  return s == StateSpace::kLocal || s == StateSpace::kParam || s == StateSpace::kConst ||
         s == StateSpace::kReg || s == StateSpace::kSreg || s == StateSpace::kTex;
}

Scope OrGpu(Scope s) { return s == Scope::kNone ? Scope::kGpu : s; }

// A weak access, or a strong one (relaxed/volatile without acquire/release
// meaning: kAtomic), or one with explicit acquire/release semantics.
AccessClass LoadOrStore(const ModifierInfo& m, bool store) {
  AccessClass c;
  c.loads = !store;
  c.stores = store;
  switch (m.sem) {
    case MemSemantics::kAcquire:
    case MemSemantics::kSc:
      c.kind = store ? Kind::kWrite : Kind::kAcquire;  // st.acquire does not exist
      c.scope = store ? Scope::kNone : OrGpu(m.scope);
      return c;
    case MemSemantics::kRelease:
      c.kind = store ? Kind::kRelease : Kind::kRead;  // ld.release does not exist
      c.scope = store ? OrGpu(m.scope) : Scope::kNone;
      return c;
    case MemSemantics::kRelaxed:
    case MemSemantics::kVolatile:
      c.kind = Kind::kAtomic;
      c.scope = StrongAccessScope(m);
      c.is_volatile = m.sem == MemSemantics::kVolatile;
      return c;
    default:
      c.kind = store ? Kind::kWrite : Kind::kRead;
      return c;
  }
}

AccessClass Describe(const Instruction& in) {
  AccessClass c;
  const ModifierInfo& m = in.info;
  switch (in.op) {
    case Opcode::kFence:
    case Opcode::kMembar: {
      bool proxy = m.proxy || m.async;
      for (const auto& mod : in.modifiers)
        if (mod.starts_with(".proxy") || mod.starts_with(".mbarrier_init")) proxy = true;
      if (proxy) return c;
      c.kind = Kind::kFence;
      c.loads = m.sem != MemSemantics::kRelease;   // acquire side
      c.stores = m.sem != MemSemantics::kAcquire;  // release side
      c.scope = OrGpu(m.scope);
      return c;
    }
    case Opcode::kLd:
    case Opcode::kLdu:
      if (NeverLogged(m.space)) return c;
      if (in.op == Opcode::kLdu || m.nc) {
        c.kind = Kind::kRead;
        c.loads = true;
        return c;
      }
      return LoadOrStore(m, false);
    case Opcode::kSt:
      if (NeverLogged(m.space)) return c;
      return LoadOrStore(m, true);
    case Opcode::kLdmatrix:
    case Opcode::kStmatrix:
    case Opcode::kWmma: {
      // Warp-collective matrix loads and stores: weak accesses (ISA: "treated
      // as a weak memory operation"); wmma.mma touches no memory.
      const bool store = in.op == Opcode::kStmatrix || (!in.modifiers.empty() && in.modifiers[0] == ".store");
      const bool load = in.op == Opcode::kLdmatrix || (!in.modifiers.empty() && in.modifiers[0] == ".load");
      if ((!store && !load) || NeverLogged(m.space)) return c;
      c.kind = store ? Kind::kWrite : Kind::kRead;
      c.loads = load;
      c.stores = store;
      return c;
    }
    case Opcode::kAtom:
    case Opcode::kRed:
      if (NeverLogged(m.space)) return c;
      c.loads = true;
      c.stores = true;
      c.scope = OrGpu(m.scope);
      switch (m.sem) {
        case MemSemantics::kAcquire: c.kind = Kind::kAcquire; break;
        case MemSemantics::kRelease: c.kind = Kind::kRelease; break;
        case MemSemantics::kAcqRel:
        case MemSemantics::kSc: c.kind = Kind::kAcqRel; break;
        default: c.kind = Kind::kAtomic; break;
      }
      return c;
    default:
      return c;
  }
}

}  // namespace

std::vector<AccessClass> ClassifyAccesses(const Function& function) {
  std::vector<AccessClass> out(function.body.size());
  for (size_t i = 0; i < function.body.size(); ++i)
    if (const auto* in = std::get_if<Instruction>(&function.body[i])) out[i] = Describe(*in);
  return out;
}

Scope StrongAccessScope(const ModifierInfo& m) {
  return m.sem == MemSemantics::kVolatile ? Scope::kSys : OrGpu(m.scope);
}

}  // namespace barracuda::ptx
