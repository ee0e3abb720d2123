// VolumeZone: a bound claim's volume carries zone and region labels, and a
// node with any zone or region label must have one of each label's values,
// with the semantics of pkg/scheduler/framework/plugins/volumezone.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "tightpack/cluster.hpp"
#include "tightpack/framework/plugin.hpp"
#include "tightpack/model.hpp"
#include "tightpack/plugins/reads_pod_claims.hpp"
#include "tightpack/storage_state.hpp"

namespace tightpack::plugins {

inline constexpr const char* kVolumeZoneReason = "node(s) had no available volume zone";

// One zone or region label of a volume: its key and the zones it names.
struct VolumeTopology {
  std::string key;
  std::vector<std::string> values;
};

// PreFilter (getPVbyPod): nullopt when the plugin skips the pod; otherwise
// the topologies, or the reason every node is rejected
// (UnschedulableAndUnresolvable).
struct VolumeZonePreFilter {
  std::vector<VolumeTopology> topologies;
  std::optional<std::string> rejection;
};
std::optional<VolumeZonePreFilter> volume_zone_prefilter(const StorageState& s, const Pod& pod);

bool volume_zone_admits(const std::vector<VolumeTopology>& topologies, const Labels& node_labels);

struct VolumeZonePlugin : ReadsPodClaims<Plugin::VolumeZone> {
  static constexpr Plugin kId = Plugin::VolumeZone;
  struct State {
    std::optional<PreFilterFailure> failure;
    std::vector<VolumeTopology> topologies;
  };
  static State prepare(const PlanContext& ctx);
  static const std::optional<PreFilterFailure>& prefilter_failure(const State& s) {
    return s.failure;
  }
  static bool can_reject(const State& s) { return !s.topologies.empty(); }
  static NodeStatus filter(const State& s, const Cluster& c, NodeIndex n) {
    if (volume_zone_admits(s.topologies, c.node(n).labels)) return {};
    return NodeStatus{Code::UnschedulableAndUnresolvable, kId};
  }
  static std::vector<std::string> reasons(const State&, const Cluster&, NodeIndex,
                                          const NodeStatus&, const ReasonContext&) {
    return {kVolumeZoneReason};
  }
};

}  // namespace tightpack::plugins
