// NodeVolumeLimits (CSILimits): the node's CSINode caps how many volumes of
// each CSI driver its pods may attach; with VolumeLimitScaling (beta and on
// in v1.37) a driver that asks for it must be installed on the node, with
// the semantics of pkg/scheduler/framework/plugins/nodevolumelimits.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "tightpack/cluster.hpp"
#include "tightpack/framework/plugin.hpp"
#include "tightpack/plugins/reads_pod_claims.hpp"
#include "tightpack/storage_state.hpp"

namespace tightpack::plugins {

inline constexpr const char* kMaxVolumeCountReason = "node(s) exceed max volume count";
std::string driver_not_installed_reason(const std::string& driver);

struct VolumeLimitsVerdict {
  enum Kind : uint8_t { kAdmits, kExceeded, kDriverMissing } kind = kAdmits;
  uint8_t driver = 0;  // kDriverMissing: index in the pod's attachable volumes
};

// `attachable` is the pod's own (StorageState::attachable); `relief` takes
// pods off the node first. `attached` is what the node's pods attach
// (Cluster::attached_volumes): without a relief it stands for walking `pods`.
// `drivers` are the CSIDrivers of `attachable`, in its order (null where
// none); `csi_node` the node's CSINode.
VolumeLimitsVerdict volume_limits(
    const std::vector<std::pair<std::string, std::string>>& attachable,
    const std::vector<const CsiDriver*>& drivers, const CsiNode* csi_node,
    const std::vector<BoundPod>& pods, const Relief* relief, bool limit_scaling,
    const std::vector<const std::pair<std::string, std::string>*>* attached = nullptr);

struct NodeVolumeLimitsPlugin : ReadsPodClaims<Plugin::NodeVolumeLimits> {
  static constexpr Plugin kId = Plugin::NodeVolumeLimits;
  struct State {
    std::optional<PreFilterFailure> failure;
    std::vector<std::pair<std::string, std::string>> attachable;  // StorageState::attachable
    std::vector<const CsiDriver*> drivers;  // their CSIDrivers, looked up once
    bool limit_scaling = true;              // kube_release::volume_limit_scaling
  };
  static State prepare(const PlanContext& ctx);
  static const std::optional<PreFilterFailure>& prefilter_failure(const State& s) {
    return s.failure;
  }
  static bool can_reject(const State& s) { return !s.attachable.empty(); }
  // detail 0: the count exceeded; 1 + i: the driver of attachable[i] is missing.
  static NodeStatus filter(const State& s, const Cluster& c, NodeIndex n, const Relief* relief);
  static std::vector<std::string> reasons(const State& s, const Cluster&, NodeIndex,
                                          const NodeStatus& status, const ReasonContext&) {
    if (status.detail == 0) return {kMaxVolumeCountReason};
    return {driver_not_installed_reason(s.attachable[status.detail - 1].second)};
  }
};

}  // namespace tightpack::plugins
