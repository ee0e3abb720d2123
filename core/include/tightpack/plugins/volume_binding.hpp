// VolumeBinding: the pod's claims against each node (bound claims' volume
// node affinity; unbound WaitForFirstConsumer claims either matched with an
// available static volume the node can reach, or provisioned where the
// class' allowedTopologies and CSIStorageCapacity allow), its PreFilter
// (missing, lost, deleted claims; unbound Immediate ones) and its score
// (StorageCapacityScoring, beta and on in v1.37), with the semantics of
// pkg/scheduler/framework/plugins/volumebinding (binder.go) and
// component-helpers/storage/volume (FindMatchingVolume).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "tightpack/cluster.hpp"
#include "tightpack/framework/plugin.hpp"
#include "tightpack/model.hpp"
#include "tightpack/objects.hpp"
#include "tightpack/plugins/reads_pod_claims.hpp"
#include "tightpack/storage_state.hpp"

namespace tightpack::plugins {

inline constexpr const char* kVolumeNodeConflictReason =
    "node(s) didn't match PersistentVolume's node affinity";
inline constexpr const char* kVolumeNodeConflictReasonV130 =
    "node(s) had volume node affinity conflict";
inline constexpr const char* kVolumeBindConflictReason =
    "node(s) didn't find available persistent volumes to bind";
inline constexpr const char* kVolumeNotEnoughSpaceReason =
    "node(s) did not have enough free storage";
inline constexpr const char* kVolumeMissingReason =
    "node(s) unavailable due to one or more pvc(s) bound to non-existent pv(s)";
inline constexpr const char* kUnboundImmediateReason =
    "pod has unbound immediate PersistentVolumeClaims";

// FindPodVolumes' conflicts, as a set; reasons() lists them in its order.
enum VolumeConflict : uint8_t {
  kVolumeNodeConflict = 1,
  kVolumeBindConflict = 2,
  kVolumeNotEnoughSpace = 4,
  kVolumeMissing = 8,
};
// `reworded`: kube_release::volume_reasons_reworded.
std::vector<std::string> volume_binding_reasons(uint8_t conflicts, bool reworded = true);

// GetPodVolumeClaims: the pod's claims, sorted as the binder sorts them.
struct PodClaims {
  std::vector<const PersistentVolumeClaim*> bound;    // volumeName and bind-completed
  std::vector<const PersistentVolumeClaim*> delayed;  // unbound, WaitForFirstConsumer
  // Per delayed claim, the volumes FindMatchingVolume could choose on some
  // node (matching_candidates), found once for every node; empty until
  // resolve_candidates().
  std::vector<std::vector<const PersistentVolume*>> candidates;
};
void resolve_candidates(const StorageState& s, PodClaims& claims);

// PreFilter: nullopt when the pod has no claim (the plugin skips it);
// otherwise its claims, or the reason every node is rejected
// (UnschedulableAndUnresolvable).
struct VolumeBindingPreFilter {
  PodClaims claims;
  std::optional<std::string> rejection;
};
std::optional<VolumeBindingPreFilter> volume_binding_prefilter(const StorageState& s,
                                                               const Pod& pod);

// What FindPodVolumes finds on one node.
struct NodeVolumes {
  uint8_t conflicts = 0;
  std::vector<std::pair<const PersistentVolumeClaim*, const PersistentVolume*>> static_bindings;
  // Claims to provision, with the CSIStorageCapacity that has room (null
  // when the driver does not track capacity).
  std::vector<std::pair<const PersistentVolumeClaim*, const CsiStorageCapacity*>> provisions;
};
NodeVolumes find_pod_volumes(const StorageState& s, const PodClaims& claims, const Node& node);

// What find_pod_volumes reads of a node: the label keys of the volumes' node
// affinity, the classes' allowedTopologies and the capacities' node
// topology, and the node's name when a claim has a selected node. Nodes
// alike in these give alike answers, so a plan asks once per distinct value.
struct VolumeNodeReads {
  std::vector<std::string> keys;
  bool name = false;
};
VolumeNodeReads find_pod_volumes_reads(const StorageState& s, const PodClaims& claims);

// FindMatchingVolume with delayBinding on, in two parts. The volumes of the
// claim's class that pass every check that does not read the node, in their
// order: the one bound to the claim, and available ones the claim fits.
std::vector<const PersistentVolume*> matching_candidates(
    const PersistentVolumeClaim& claim, const std::vector<const PersistentVolume*>& volumes);
// Then on a node: the volume bound to the claim if the node reaches it
// (null if not), else the smallest candidate the node reaches; null when none.
const PersistentVolume* find_matching_volume(const PersistentVolumeClaim& claim,
                                             const std::vector<const PersistentVolume*>& candidates,
                                             const Node& node,
                                             const std::vector<const PersistentVolume*>& excluded);

// Score: the shape's score of each class' requested/capacity, averaged over
// the classes (static bindings, else provisions with capacity tracking).
// `shape` is (utilization, score × 10) points; empty means no scorer.
int64_t volume_binding_score(const NodeVolumes& v,
                             const std::vector<std::pair<int64_t, int64_t>>& shape);

// What VolumeBinding's PreBind writes for a pod placed on a node
// (BindPodVolumes): each volume FindPodVolumes matched to a claim gets the
// claim as its claimRef, each claim to provision the node as its
// volume.kubernetes.io/selected-node. Empty for a pod without claims that
// wait for their first consumer.
struct BindingPlan {
  std::vector<std::pair<std::string, std::string>> static_bindings;  // (namespace/claim, volume)
  std::vector<std::string> provisions;                               // namespace/claim
  bool conflicts = false;  // the node is not one VolumeBinding's Filter accepts
  bool empty() const { return static_bindings.empty() && provisions.empty(); }
};
BindingPlan binding_plan(const StorageState& s, const PodStorage& pod, const Node& node);

// VolumeBinding's Reserve (AssumePodVolumes) for a pod placed on a node.
void assume_pod_volumes(StorageState& s, const PodStorage& pod, const Node& node);

struct VolumeBindingPlugin : ReadsPodClaims<Plugin::VolumeBinding> {
  static constexpr Plugin kId = Plugin::VolumeBinding;
  struct State {
    std::optional<PreFilterFailure> failure;
    // The pod's claims by key: judged against the cluster's storage when a
    // node is.
    std::vector<std::string> bound_claims, delayed_claims;
    bool filters = false;  // the pod has claims
    bool scores = false;   // and the release and profile score them
    // kDecide plans: FindPodVolumes' conflicts and the score, per node
    // (first-fit ones judge a node when asked).
    std::vector<uint8_t> conflicts;
    std::vector<int64_t> score;
  };
  static State prepare(const PlanContext& ctx);
  static const std::optional<PreFilterFailure>& prefilter_failure(const State& s) {
    return s.failure;
  }
  static bool can_reject(const State& s) { return s.filters; }
  // v1.37 scores every pod (0 without claims); results list it only for
  // pods with claims, where it can be more.
  static bool scores(const State& s) { return s.scores; }
  static NodeStatus filter(const State& s, const Cluster& c, NodeIndex n);
  static int64_t score(const State& s, const Cluster&, NodeIndex n) {
    return s.score.empty() ? 0 : s.score[n];
  }
  // detail: the VolumeConflict set.
  static std::vector<std::string> reasons(const State&, const Cluster&, NodeIndex,
                                          const NodeStatus& status, const ReasonContext& ctx);
  // The claims, resolved against the cluster's storage.
  static PodClaims claims(const State& s, const Cluster& c);
};

}  // namespace tightpack::plugins
