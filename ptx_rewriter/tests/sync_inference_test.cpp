// ClassifyAccesses: one test per rule of the paper's inference (§3.1) and per
// explicit-semantics mapping, plus the adjacency decisions documented in
// sync_inference.cpp.
#include "ptx_rewriter/sync_inference.h"

#include <catch2/catch.hpp>

#include <string>
#include <variant>
#include <vector>

#include "ptx_rewriter/parser.h"

namespace barracuda::ptx {
namespace {

using Kind = AccessClass::Kind;

// Classes of the instructions of a one-kernel module built around `body`, in order.
std::vector<AccessClass> Classify(const std::string& body) {
  const std::string text = ".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k(.param .u64 p)\n{\n"
                           ".reg .b32 %r<8>;\n.reg .b64 %rd<8>;\n.reg .pred %p<4>;\n" +
                           body + "\n}\n";
  auto m = ParseModule(text, "sync.ptx");
  REQUIRE(m.ok());
  const Function* f = m->FindFunction("k");
  REQUIRE(f != nullptr);
  const std::vector<AccessClass> all = ClassifyAccesses(*f);
  REQUIRE(all.size() == f->body.size());
  std::vector<AccessClass> out;
  for (size_t i = 0; i < all.size(); ++i) {
    if (std::holds_alternative<Instruction>(f->body[i])) {
      out.push_back(all[i]);
    } else {
      CHECK(all[i] == AccessClass{});  // non-instructions are kNone
    }
  }
  return out;
}

AccessClass Make(Kind kind, Scope scope, bool loads, bool stores, bool is_volatile = false, bool inferred = false) {
  AccessClass c;
  c.kind = kind;
  c.scope = scope;
  c.loads = loads;
  c.stores = stores;
  c.is_volatile = is_volatile;
  c.inferred = inferred;
  return c;
}
const AccessClass kNone{};
const AccessClass kRead = Make(Kind::kRead, Scope::kNone, true, false);
const AccessClass kWrite = Make(Kind::kWrite, Scope::kNone, false, true);
AccessClass Atomic(Scope s = Scope::kGpu) { return Make(Kind::kAtomic, s, true, true); }
AccessClass Fence(Scope s) { return Make(Kind::kFence, s, false, false); }

TEST_CASE("plain accesses and spaces", "[sync_inference]") {
  CHECK(Classify(R"(
    ld.global.u32 %r1, [%rd1];
    st.shared.u32 [%rd1], %r1;
    ld.u32 %r1, [%rd1];
    st.u64 [%rd1], %rd2;
    ld.local.u32 %r1, [%rd1];
    st.local.u32 [%rd1], %r1;
    ld.param.u64 %rd1, [p];
    ld.const.u32 %r1, [%rd1];
    add.s32 %r1, %r1, 1;
    ret;
  )") == std::vector<AccessClass>{kRead, kWrite, kRead, kWrite, kNone, kNone, kNone, kNone, kNone, kNone});
}

TEST_CASE("explicit semantics map directly", "[sync_inference]") {
  CHECK(Classify(R"(
    ld.acquire.gpu.global.u32 %r1, [%rd1];
    st.release.cta.shared.u32 [%rd1], %r1;
    atom.acquire.sys.global.add.u32 %r1, [%rd1], 1;
    atom.release.cluster.global.exch.b32 %r1, [%rd1], 1;
    atom.acq_rel.gpu.global.cas.b32 %r1, [%rd1], 0, 1;
    ld.relaxed.gpu.global.u32 %r1, [%rd1];
    st.relaxed.cta.global.u32 [%rd1], %r1;
    ld.volatile.global.u32 %r1, [%rd1];
    st.volatile.shared.u32 [%rd1], %r1;
    atom.global.add.u32 %r1, [%rd1], 1;
    atom.relaxed.cta.shared.add.u32 %r1, [%rd1], 1;
    red.global.add.u32 [%rd1], 1;
    red.release.gpu.global.add.u32 [%rd1], 1;
  )") == std::vector<AccessClass>{
             Make(Kind::kAcquire, Scope::kGpu, true, false),
             Make(Kind::kRelease, Scope::kCta, false, true),
             Make(Kind::kAcquire, Scope::kSys, true, true),
             Make(Kind::kRelease, Scope::kCluster, true, true),
             Make(Kind::kAcqRel, Scope::kGpu, true, true),
             Make(Kind::kAtomic, Scope::kGpu, true, false),  // relaxed: strong, so atomic
             Make(Kind::kAtomic, Scope::kCta, false, true),
             Make(Kind::kRead, Scope::kNone, true, false, true),
             Make(Kind::kWrite, Scope::kNone, false, true, true),
             Atomic(),
             Atomic(Scope::kCta),
             Atomic(),
             Make(Kind::kRelease, Scope::kGpu, true, true),
         });
}

TEST_CASE("unbundled fences carry their scope", "[sync_inference]") {
  CHECK(Classify(R"(
    membar.cta;
    membar.gl;
    membar.sys;
    fence.sc.cta;
    fence.acq_rel.gpu;
    fence.sc.sys;
    fence.acq_rel.cluster;
    fence.proxy.alias;
    membar.proxy.alias;
  )") == std::vector<AccessClass>{Fence(Scope::kCta), Fence(Scope::kGpu), Fence(Scope::kSys), Fence(Scope::kCta),
                                  Fence(Scope::kGpu), Fence(Scope::kSys), Fence(Scope::kCluster), kNone, kNone});
}

TEST_CASE("fence then store is a release (paper)", "[sync_inference]") {
  CHECK(Classify(R"(
    membar.gl;
    st.global.u32 [%rd1], %r1;
    fence.sc.cta;
    st.volatile.shared.u32 [%rd1], %r1;
  )") == std::vector<AccessClass>{kNone, Make(Kind::kRelease, Scope::kGpu, false, true, false, true), kNone,
                                  Make(Kind::kRelease, Scope::kCta, false, true, true, true)});
}

TEST_CASE("load then fence is an acquire (paper)", "[sync_inference]") {
  CHECK(Classify(R"(
    ld.volatile.global.u32 %r1, [%rd1];
    membar.sys;
    ld.relaxed.cta.global.u32 %r1, [%rd1];
    fence.acq_rel.gpu;
  )") == std::vector<AccessClass>{Make(Kind::kAcquire, Scope::kSys, true, false, true, true), kNone,
                                  // the access's own scope narrows the fence's
                                  Make(Kind::kAcquire, Scope::kCta, true, false, false, true), kNone});
}

TEST_CASE("fence before a load and after a store bundle nothing", "[sync_inference]") {
  CHECK(Classify(R"(
    membar.gl;
    ld.global.u32 %r1, [%rd1];
    st.global.u32 [%rd1], %r1;
    membar.cta;
  )") == std::vector<AccessClass>{Fence(Scope::kGpu), kRead, kWrite, Fence(Scope::kCta)});
}

TEST_CASE("fence, atom, fence is acq_rel (paper)", "[sync_inference]") {
  CHECK(Classify(R"(
    membar.gl;
    atom.global.add.u32 %r1, [%rd1], 1;
    membar.cta;
    membar.gl;
    red.global.add.u32 [%rd1], 1;
    membar.gl;
  )") == std::vector<AccessClass>{kNone, Make(Kind::kAcqRel, Scope::kCta, true, true, false, true), kNone, kNone,
                                  Make(Kind::kAcqRel, Scope::kGpu, true, true, false, true), kNone});
}

TEST_CASE("cas then fence is an acquire, fence then exch a release (paper)", "[sync_inference]") {
  CHECK(Classify(R"(
    atom.global.cas.b32 %r1, [%rd1], 0, 1;
    membar.gl;
    add.s32 %r1, %r1, 1;
    membar.gl;
    atom.global.exch.b32 %r1, [%rd1], 0;
  )") == std::vector<AccessClass>{Make(Kind::kAcquire, Scope::kGpu, true, true, false, true), kNone, kNone,
                                  kNone, Make(Kind::kRelease, Scope::kGpu, true, true, false, true)});
}

TEST_CASE("one-sided atomics: fence after acquires, fence before releases (cas/exch) or both (counters)",
          "[sync_inference]") {
  // exch then fence: the PTX acquire pattern (a test-and-set lock taken with atomicExch).
  CHECK(Classify(R"(
    atom.global.exch.b32 %r1, [%rd1], 1;
    membar.gl;
  )") == std::vector<AccessClass>{Make(Kind::kAcquire, Scope::kGpu, true, true, false, true), kNone});
  // fence then cas: a release, never an acquire (taking a lock needs the fence after).
  CHECK(Classify(R"(
    membar.gl;
    atom.global.cas.b32 %r1, [%rd1], 0, 1;
  )") == std::vector<AccessClass>{kNone, Make(Kind::kRelease, Scope::kGpu, true, true, false, true)});
  // fence then a counter RMW: acq_rel, the ticket of threadFenceReduction (paper §3.1
  // tuned its inference on that sample and reports it free of global races).
  CHECK(Classify(R"(
    membar.cta;
    atom.global.inc.u32 %r1, [%rd1], 7;
    red.global.add.u32 [%rd1], 1;
  )") == std::vector<AccessClass>{kNone, Make(Kind::kAcqRel, Scope::kCta, true, true, false, true), Atomic()});
}

TEST_CASE("adjacency skips labels, .loc, declarations and register-only instructions", "[sync_inference]") {
  // nvcc's shape of __threadfence(); flag = 1: a mov between fence and store.
  CHECK(Classify(R"(
    membar.gl;
  $L_a:
    .loc 1 10 3
    .reg .b32 %extra;
    st.global.u32 [%rd1], %r1;
    membar.gl;
    mov.u32 %r2, 1;
    cvta.to.global.u64 %rd3, %rd2;
    st.volatile.global.u32 [%rd3], %r2;
  )") == std::vector<AccessClass>{kNone, Make(Kind::kRelease, Scope::kGpu, false, true, false, true), kNone, kNone,
                                  kNone, Make(Kind::kRelease, Scope::kGpu, false, true, true, true)});
}

TEST_CASE("a polling loop's back edge does not break the adjacency", "[sync_inference]") {
  // CUDA by Example's lock: spin on atom.cas, then __threadfence(): acquire.
  CHECK(Classify(R"(
  $L_spin:
    atom.global.cas.b32 %r1, [%rd1], 0, 1;
    setp.ne.s32 %p1, %r1, 0;
    @%p1 bra $L_spin;
    membar.gl;
    ld.global.u32 %r2, [%rd2];
  )") == std::vector<AccessClass>{Make(Kind::kAcquire, Scope::kGpu, true, true, false, true), kNone, kNone, kNone,
                                  kRead});
  // A forward branch still breaks it.
  CHECK(Classify(R"(
    atom.global.cas.b32 %r1, [%rd1], 0, 1;
    setp.ne.s32 %p1, %r1, 0;
    @%p1 bra $L_out;
    membar.gl;
  $L_out:
    ret;
  )") == std::vector<AccessClass>{Atomic(), kNone, kNone, Fence(Scope::kGpu), kNone});
}

TEST_CASE("memory instructions, branches and calls break the adjacency", "[sync_inference]") {
  CHECK(Classify(R"(
    membar.gl;
    ld.global.u32 %r3, [%rd2];
    st.global.u32 [%rd1], %r1;
  )") == std::vector<AccessClass>{Fence(Scope::kGpu), kRead, kWrite});
  CHECK(Classify(R"(
    membar.gl;
    bra.uni $L_x;
    st.global.u32 [%rd1], %r1;
  $L_x:
    ret;
  )") == std::vector<AccessClass>{Fence(Scope::kGpu), kNone, kWrite, kNone});
  CHECK(Classify(R"(
    ld.global.u32 %r3, [%rd2];
    @%p1 bra $L_x;
    membar.gl;
  $L_x:
    ret;
  )") == std::vector<AccessClass>{kRead, kNone, Fence(Scope::kGpu), kNone});
}

TEST_CASE("a guarded forward branch between a fence and the next access keeps them adjacent", "[sync_inference]") {
  // __threadfence(); if (t == 0) { ticket = atomicInc(...); }: the fall-through access
  // is reached only through the branch, right after the fence.
  CHECK(Classify(R"(
    membar.gl;
    setp.ne.s32 %p1, %r1, 0;
    @%p1 bra $L_x;
    st.global.u32 [%rd1], %r1;
  $L_x:
    ret;
  )") == std::vector<AccessClass>{kNone, kNone, kNone, Make(Kind::kRelease, Scope::kGpu, false, true, false, true),
                                  kNone});
  CHECK(Classify(R"(
    membar.gl;
    @%p1 bra $L_x;
    atom.global.inc.u32 %r1, [%rd1], 7;
    st.shared.u32 [%rd2], %r1;
  $L_x:
    ret;
  )") == std::vector<AccessClass>{kNone, kNone, Make(Kind::kAcqRel, Scope::kGpu, true, true, false, true),
                                  Make(Kind::kWrite, Scope::kNone, false, true), kNone});
}

TEST_CASE("one fence between a load and a store serves both", "[sync_inference]") {
  CHECK(Classify(R"(
    ld.global.u32 %r1, [%rd1];
    membar.gl;
    st.global.u32 [%rd2], %r1;
  )") == std::vector<AccessClass>{Make(Kind::kAcquire, Scope::kGpu, true, false, false, true), kNone,
                                  Make(Kind::kRelease, Scope::kGpu, false, true, false, true)});
}

TEST_CASE("explicit acquire/release accesses never bundle", "[sync_inference]") {
  CHECK(Classify(R"(
    fence.sc.gpu;
    ld.acquire.gpu.global.u32 %r1, [%rd1];
    fence.sc.gpu;
    st.release.gpu.global.u32 [%rd1], %r1;
    fence.sc.cta;
    atom.acquire.gpu.global.cas.b32 %r1, [%rd1], 0, 1;
    fence.sc.cta;
  )") == std::vector<AccessClass>{Fence(Scope::kGpu), Make(Kind::kAcquire, Scope::kGpu, true, false),
                                  Fence(Scope::kGpu), Make(Kind::kRelease, Scope::kGpu, false, true),
                                  Fence(Scope::kCta), Make(Kind::kAcquire, Scope::kGpu, true, true),
                                  Fence(Scope::kCta)});
}

TEST_CASE("non-coherent and uniform loads are plain reads that never bundle", "[sync_inference]") {
  CHECK(Classify(R"(
    ld.global.nc.u32 %r1, [%rd1];
    membar.gl;
    ldu.global.u32 %r1, [%rd1];
    membar.gl;
  )") == std::vector<AccessClass>{kRead, Fence(Scope::kGpu), kRead, Fence(Scope::kGpu)});
}

TEST_CASE("guarded fences bundle only under the same guard", "[sync_inference]") {
  CHECK(Classify(R"(
    @%p1 membar.gl;
    st.global.u32 [%rd1], %r1;
    @%p1 membar.gl;
    @%p1 st.global.u32 [%rd1], %r1;
    membar.gl;
    @!%p2 st.global.u32 [%rd1], %r1;
  )") == std::vector<AccessClass>{Fence(Scope::kGpu), kWrite, kNone,
                                  Make(Kind::kRelease, Scope::kGpu, false, true, false, true), kNone,
                                  Make(Kind::kRelease, Scope::kGpu, false, true, false, true)});
}

TEST_CASE("one-way fences bundle one way", "[sync_inference]") {
  // fence.acquire / fence.release forms of newer PTX: modelled by semantics
  // (the sync_restrict qualifiers they require are left unclassified).
  std::vector<AccessClass> c = Classify(R"(
    fence.acquire.sync_restrict::shared::cluster.cluster;
    st.global.u32 [%rd1], %r1;
    ld.global.u32 %r1, [%rd1];
    fence.acquire.sync_restrict::shared::cluster.cluster;
  )");
  REQUIRE(c.size() == 4);
  CHECK(c[0] == Fence(Scope::kCluster));
  CHECK(c[1] == kWrite);
  CHECK(c[2] == Make(Kind::kAcquire, Scope::kCluster, true, false, false, true));
  CHECK(c[3] == kNone);
}

TEST_CASE("generic and shared::cluster accesses are classified", "[sync_inference]") {
  CHECK(Classify(R"(
    membar.cta;
    st.shared::cta.u32 [%rd1], %r1;
    atom.shared::cluster.add.u32 %r1, [%rd1], 1;
    atom.cas.b32 %r1, [%rd1], 0, 1;
    fence.sc.cta;
  )") == std::vector<AccessClass>{kNone, Make(Kind::kRelease, Scope::kCta, false, true, false, true), Atomic(),
                                  Make(Kind::kAcquire, Scope::kCta, true, true, false, true), kNone});
}

}  // namespace
}  // namespace barracuda::ptx
