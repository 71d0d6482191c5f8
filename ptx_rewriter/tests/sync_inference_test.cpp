// ClassifyAccesses: weak and strong accesses, explicit semantics, fence sides
// and scopes, per instruction (sync_inference.cpp); and the shapes the paper's
// adjacency inference used to bundle, which are now classified one by one.
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

AccessClass Make(Kind kind, Scope scope, bool loads, bool stores, bool is_volatile = false) {
  AccessClass c;
  c.kind = kind;
  c.scope = scope;
  c.loads = loads;
  c.stores = stores;
  c.is_volatile = is_volatile;
  return c;
}
const AccessClass kNone{};
const AccessClass kRead = Make(Kind::kRead, Scope::kNone, true, false);
const AccessClass kWrite = Make(Kind::kWrite, Scope::kNone, false, true);
AccessClass Atomic(Scope s = Scope::kGpu) { return Make(Kind::kAtomic, s, true, true); }
// A fence: loads = acquire side, stores = release side.
AccessClass Fence(Scope s, bool acquire = true, bool release = true) { return Make(Kind::kFence, s, acquire, release); }

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

TEST_CASE("explicit semantics map directly, relaxed and volatile are strong", "[sync_inference]") {
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
             Make(Kind::kAtomic, Scope::kGpu, true, false),  // relaxed: strong
             Make(Kind::kAtomic, Scope::kCta, false, true),
             Make(Kind::kAtomic, Scope::kSys, true, false, true),  // volatile = relaxed.sys
             Make(Kind::kAtomic, Scope::kSys, false, true, true),
             Atomic(),
             Atomic(Scope::kCta),
             Atomic(),
             Make(Kind::kRelease, Scope::kGpu, true, true),
         });
}

TEST_CASE("fences carry their scope and sides", "[sync_inference]") {
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
  // fence.acquire / fence.release of newer PTX have one side each.
  std::vector<AccessClass> c = Classify(R"(
    fence.acquire.sync_restrict::shared::cluster.cluster;
    fence.release.sync_restrict::shared::cta.cluster;
  )");
  REQUIRE(c.size() == 2);
  CHECK(c[0] == Fence(Scope::kCluster, true, false));
  CHECK(c[1] == Fence(Scope::kCluster, false, true));
}

TEST_CASE("the paper's bundles are no longer inferred: each instruction is what it is", "[sync_inference]") {
  // fence then weak store: the store stays a weak write (no release pattern in
  // the PTX model); fence then volatile store: a strong write and a fence,
  // which the detector pairs at run time; load then fence, fence/atom/fence,
  // cas then fence, fence then exch likewise.
  CHECK(Classify(R"(
    membar.gl;
    st.global.u32 [%rd1], %r1;
    membar.gl;
    st.volatile.global.u32 [%rd1], %r1;
    ld.volatile.global.u32 %r1, [%rd1];
    membar.cta;
    membar.gl;
    atom.global.add.u32 %r1, [%rd1], 1;
    membar.gl;
    atom.global.cas.b32 %r1, [%rd1], 0, 1;
    fence.sc.cta;
  )") == std::vector<AccessClass>{Fence(Scope::kGpu), kWrite, Fence(Scope::kGpu),
                                  Make(Kind::kAtomic, Scope::kSys, false, true, true),
                                  Make(Kind::kAtomic, Scope::kSys, true, false, true), Fence(Scope::kCta),
                                  Fence(Scope::kGpu), Atomic(), Fence(Scope::kGpu), Atomic(), Fence(Scope::kCta)});
}

TEST_CASE("non-coherent and uniform loads are weak reads", "[sync_inference]") {
  CHECK(Classify(R"(
    ld.global.nc.u32 %r1, [%rd1];
    membar.gl;
    ldu.global.u32 %r1, [%rd1];
    membar.gl;
  )") == std::vector<AccessClass>{kRead, Fence(Scope::kGpu), kRead, Fence(Scope::kGpu)});
}

TEST_CASE("warp-collective matrix loads and stores are weak accesses", "[sync_inference]") {
  CHECK(Classify(R"(
    ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%r1, %r2, %r3, %r4}, [%r5];
    stmatrix.sync.aligned.m8n8.x1.shared.b16 [%r5], {%r1};
    wmma.load.a.sync.aligned.row.m16n16k16.global.f16 {%r1, %r2, %r3, %r4, %r5, %r6, %r7, %r8}, [%rd1];
    wmma.store.d.sync.aligned.row.m8n8k4.f64 [%rd1], {%fd1, %fd2};
    wmma.mma.sync.aligned.row.col.m8n8k4.f64.f64.f64.f64 {%fd1, %fd2}, {%fd3}, {%fd4}, {%fd1, %fd2};
    mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%fd1, %fd2}, {%fd3}, {%fd4}, {%fd1, %fd2};
  )") == std::vector<AccessClass>{kRead, kWrite, kRead, kWrite, kNone, kNone});
}

TEST_CASE("generic and shared::cluster accesses are classified", "[sync_inference]") {
  CHECK(Classify(R"(
    membar.cta;
    st.shared::cta.u32 [%rd1], %r1;
    atom.shared::cluster.add.u32 %r1, [%rd1], 1;
    atom.cas.b32 %r1, [%rd1], 0, 1;
    fence.sc.cta;
  )") == std::vector<AccessClass>{Fence(Scope::kCta), kWrite, Atomic(), Atomic(), Fence(Scope::kCta)});
}

}  // namespace
}  // namespace barracuda::ptx
