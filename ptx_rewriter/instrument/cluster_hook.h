// The module-supplied callees of the device logger: __barracuda_cluster_shared
// and __barracuda_cluster_map (device_logger/logger_abi.h kClusterShared,
// kClusterMap), defined by MergeLogger.
#ifndef BARRACUDA_PTX_REWRITER_INSTRUMENT_CLUSTER_HOOK_H_
#define BARRACUDA_PTX_REWRITER_INSTRUMENT_CLUSTER_HOOK_H_

#include <string>
#include <string_view>

#include "ptx_rewriter/ir.h"

namespace barracuda::ptx {

// The module's .target names sm_90 or later (sm_90a, sm_100, ...).
bool TargetHasClusters(const Module& module);
// The PTX definition of __barracuda_cluster_shared: with `clusters`, from
// isspacep.shared::cluster / getctarank / mapa and the %cluster_* registers;
// without, one that answers ~0 (no address is in a cluster CTA's window).
std::string ClusterSharedDefinition(bool clusters);
// The PTX definition of __barracuda_cluster_map (mapa.shared::cluster to a
// rank, ~0 past the cluster's size); without clusters rank 0 is the CTA.
std::string ClusterMapDefinition(bool clusters);
// The definition of logger callee `name` the module supplies (one of the two
// above), empty for any other name.
std::string LoggerHookDefinition(std::string_view name, bool clusters);

}  // namespace barracuda::ptx

#endif  // BARRACUDA_PTX_REWRITER_INSTRUMENT_CLUSTER_HOOK_H_
