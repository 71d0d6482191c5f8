// The definition MergeLogger gives the device logger's one external callee,
// __barracuda_cluster_shared (device_logger/logger_abi.h kClusterShared): the
// owner of a distributed shared memory address. The logger is compute_75 PTX,
// which cannot name the cluster instructions; the module they are merged into
// can when it targets sm_90 or later (the PTX ISA's requirement for
// isspacep.shared::cluster, getctarank, mapa and the %cluster_* registers),
// and only such a module can launch clusters at all. Elsewhere the answer is
// always "in no cluster CTA's window".
#include "ptx_rewriter/instrument/cluster_hook.h"

#include <charconv>
#include <string>

#include "device_logger/logger_abi.h"
#include "ptx_rewriter/text_concat.h"

namespace barracuda::ptx {

namespace abi = barracuda::logger_abi;

bool TargetHasClusters(const Module& module) {
  for (const std::string& t : module.targets) {
    if (t.rfind("sm_", 0) != 0) continue;
    unsigned sm = 0;
    const char* first = t.data() + 3;
    if (std::from_chars(first, t.data() + t.size(), sm).ptr != first && sm >= 90) return true;
  }
  return false;
}

std::string ClusterSharedDefinition(bool clusters) {
  const std::string head = Cat(".func (.param .b64 __bcda_r) ", abi::kClusterShared,
                               "(.param .b64 __bcda_a, .param .b32 __bcda_c)\n{\n");
  if (!clusters) return head + "st.param.b64 [__bcda_r], -1;\nret;\n}\n";
  // The owner's rank (getctarank) and the same byte in the own window (mapa
  // to the own rank); the rank is x + y nx + z nx ny over %cluster_ctaid,
  // the owner's %ctaid the caller's moved by the difference in the cluster.
  return head + R"(.reg .pred %p<3>;
.reg .b32 %r<21>;
.reg .b64 %rd<4>;
ld.param.b64 %rd1, [__bcda_a];
ld.param.b32 %r1, [__bcda_c];
mov.u32 %r2, %cluster_ctarank;
setp.ne.u32 %p1, %r1, 0;
@%p1 bra $__bcda_cluster_space;
isspacep.shared::cluster %p2, %rd1;
@!%p2 bra $__bcda_none;
getctarank.u64 %r3, %rd1;
mapa.u64 %rd2, %rd1, %r2;
cvta.to.shared.u64 %rd2, %rd2;
cvt.u32.u64 %r4, %rd2;
bra.uni $__bcda_owner;
$__bcda_cluster_space:
cvt.u32.u64 %r5, %rd1;
getctarank.shared::cluster.u32 %r3, %r5;
mapa.shared::cluster.u32 %r4, %r5, %r2;
$__bcda_owner:
mov.u32 %r6, %cluster_nctaid.x;
mov.u32 %r7, %cluster_nctaid.y;
rem.u32 %r8, %r3, %r6;
div.u32 %r9, %r3, %r6;
rem.u32 %r10, %r9, %r7;
div.u32 %r11, %r9, %r7;
mov.u32 %r12, %ctaid.x;
mov.u32 %r13, %cluster_ctaid.x;
sub.u32 %r12, %r12, %r13;
add.u32 %r12, %r12, %r8;
mov.u32 %r14, %ctaid.y;
mov.u32 %r15, %cluster_ctaid.y;
sub.u32 %r14, %r14, %r15;
add.u32 %r14, %r14, %r10;
mov.u32 %r16, %ctaid.z;
mov.u32 %r17, %cluster_ctaid.z;
sub.u32 %r16, %r16, %r17;
add.u32 %r16, %r16, %r11;
mov.u32 %r18, %nctaid.x;
mov.u32 %r19, %nctaid.y;
mad.lo.u32 %r20, %r16, %r19, %r14;
mad.lo.u32 %r20, %r20, %r18, %r12;
mov.b64 %rd3, {%r4, %r20};
st.param.b64 [__bcda_r], %rd3;
ret;
$__bcda_none:
st.param.b64 [__bcda_r], -1;
ret;
}
)";
}

std::string ClusterMapDefinition(bool clusters) {
  const std::string head = Cat(".func (.param .b32 __bcda_r) ", abi::kClusterMap,
                               "(.param .b32 __bcda_a, .param .b32 __bcda_k)\n{\n");
  if (!clusters)
    return head + R"(.reg .pred %p<2>;
.reg .b32 %r<3>;
ld.param.b32 %r1, [__bcda_a];
ld.param.b32 %r2, [__bcda_k];
setp.ne.u32 %p1, %r2, 0;
@%p1 mov.u32 %r1, -1;
st.param.b32 [__bcda_r], %r1;
ret;
}
)";
  return head + R"(.reg .pred %p<2>;
.reg .b32 %r<5>;
ld.param.b32 %r1, [__bcda_a];
ld.param.b32 %r2, [__bcda_k];
mov.u32 %r3, %cluster_nctarank;
setp.ge.u32 %p1, %r2, %r3;
@%p1 bra $__bcda_past;
mapa.shared::cluster.u32 %r4, %r1, %r2;
st.param.b32 [__bcda_r], %r4;
ret;
$__bcda_past:
st.param.b32 [__bcda_r], -1;
ret;
}
)";
}

std::string LoggerHookDefinition(std::string_view name, bool clusters) {
  if (name == abi::kClusterShared) return ClusterSharedDefinition(clusters);
  if (name == abi::kClusterMap) return ClusterMapDefinition(clusters);
  return {};
}

}  // namespace barracuda::ptx
