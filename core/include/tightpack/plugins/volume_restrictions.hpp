// VolumeRestrictions: two pods of a node may not share an in-line GCE PD,
// EBS volume, iSCSI or RBD disk (unless both read it only), and a
// ReadWriteOncePod claim that some pod uses admits no other, with the
// semantics of pkg/scheduler/framework/plugins/volumerestrictions.
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

inline constexpr const char* kDiskConflictReason = "node(s) had no available disk";
inline constexpr const char* kReadWriteOncePodReason =
    "node(s) unavailable due to PersistentVolumeClaim with ReadWriteOncePod access mode already "
    "in-use by another pod";
inline constexpr const char* kReadWriteOncePodReasonV130 =
    "node has pod using PersistentVolumeClaim with the same name and ReadWriteOncePod access mode";

// PreFilter: the reason every node is rejected (a claim the listers lack),
// or what Filter reads.
struct VolumeRestrictionsPreFilter {
  std::optional<std::string> rejection;
  std::vector<std::string> read_write_once_pod;  // claim names, in the pod's namespace
  std::vector<PodVolume> disks;
};
VolumeRestrictionsPreFilter volume_restrictions_prefilter(const StorageState& s, const Pod& pod);

// isVolumeConflict of any of `disks` with a pod's disks.
bool disks_conflict(const std::vector<PodVolume>& disks, const PodStorage& other);

// conflictingPVCRefCountForPod: the pod's claim volumes (by name, as
// upstream counts them) that name one of the ReadWriteOncePod claims.
int64_t read_write_once_pod_refs(const std::vector<std::string>& claims, const PodStorage& other);

// Its Filter has two parts: the disks, which read the node's pods, and the
// ReadWriteOncePod claims, whose users are counted over the whole cluster as
// topology domains are (a domain filter, framework/plugin.hpp).
struct VolumeRestrictionsPlugin : ReadsPodClaims<Plugin::VolumeRestrictions> {
  static constexpr Plugin kId = Plugin::VolumeRestrictions;
  struct State {
    std::optional<PreFilterFailure> failure;
    std::vector<PodVolume> disks;
    std::string ns;                                // the pod's
    std::vector<std::string> read_write_once_pod;  // claim names in `ns`
  };
  static State prepare(const PlanContext& ctx);
  static const std::optional<PreFilterFailure>& prefilter_failure(const State& s) {
    return s.failure;
  }
  static bool can_reject(const State& s) { return !s.disks.empty(); }
  static NodeStatus filter(const State& s, const Cluster& c, NodeIndex n, const Relief* relief);
  // The ReadWriteOncePod part: the same verdict on every node without
  // victims, from the claims' users over the cluster.
  static bool domain_filters(const State& s) { return !s.read_write_once_pod.empty(); }
  static bool domain_may_reject(const State& s, const Cluster& c) {
    return read_write_once_pod_in_use(s, c) > 0;
  }
  static std::optional<NodeStatus> domain_filter(const State& s, const Cluster& c, NodeIndex n,
                                                 const Relief* relief);
  static bool reads_domains(const State& s, bool /*weighted*/) { return domain_filters(s); }
  // How many of the pod's ReadWriteOncePod claims a bound pod uses already.
  static int64_t read_write_once_pod_in_use(const State& s, const Cluster& c);
  // detail 1: the ReadWriteOncePod part rejected the node.
  static std::vector<std::string> reasons(const State&, const Cluster&, NodeIndex,
                                          const NodeStatus& status, const ReasonContext& ctx);
};

}  // namespace tightpack::plugins
