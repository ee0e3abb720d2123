// What changed between the kube-scheduler releases the engine decides and
// words its answers as (Profile::kube_minor): v1.37 (v1.37.2, the default),
// v1.36 (v1.36.3), v1.35 (v1.35.4; zero-to-jupyterhub's next major pins
// v1.35.7, docs/conformance.md) and v1.30 (v1.30.14, the release
// zero-to-jupyterhub's released charts run). Each predicate is one upstream
// change and says from which minor release it holds; tests/conformance
// judges every one of them against that release's own framework.
#pragma once

#include <optional>
#include <string_view>

#include "tightpack/error.hpp"

namespace tightpack {
struct Profile;
}

namespace tightpack::kube_release {

// The releases a profile can ask for, as a scenario's or a request's
// "release" names them.
inline constexpr const char* kNames = "v1.37, v1.36, v1.35, v1.30";

// Makes `profile` decide and word as kube-scheduler `release` ("v1.37",
// "v1.36", "v1.35" or "v1.30"); an error names `field` and the value otherwise.
std::optional<Error> apply(Profile& profile, std::string_view release, std::string_view field);

// TaintToleration's reason names no taint, "node(s) had untolerated
// taint(s)", one count for all (kubernetes#134740, v1.35, back-ported to the
// v1.32–v1.34 patch releases): taints may be sensitive. Before, "node(s) had
// untolerated taint {key: value}" for each node's first untolerated taint.
constexpr bool taint_reason_is_generic(int minor) {
  return minor >= 32;
}

// A request above a node's allocatable makes NodeResourcesFit
// UnschedulableAndUnresolvable, so preemption does not try the node
// (kubernetes#131345, v1.34). Before, Unschedulable like any shortage.
constexpr bool fit_can_be_unresolvable(int minor) {
  return minor >= 34;
}

// Best-effort pods skip NodeResourcesBalancedAllocation: its PreScore
// returns Skip (kubernetes#130260, v1.33).
constexpr bool balanced_skips_best_effort(int minor) {
  return minor >= 33;
}

// NodeInfo.NonZeroRequested, which the resource scores read, adds a bound
// pod's sidecars to its app containers (kubernetes#127878, October 2024: in
// v1.35, not in v1.30); v1.30's calculateResource only takes the larger of
// the two (pod_resources.hpp, nonzero_requests_v130).
constexpr bool nonzero_sums_sidecars(int minor) {
  return minor >= 32;
}

// NodeResourcesBalancedAllocation scores the change in balance the pod
// makes (kubernetes#135573, v1.36); before, the balance with the pod placed.
constexpr bool balanced_scores_the_change(int minor) {
  return minor >= 36;
}

// VolumeBinding's and VolumeRestrictions' reasons as v1.35 words them
// (kubernetes#129887: "didn't match PersistentVolume's node affinity" for
// "had volume node affinity conflict"; kubernetes#129145: the ReadWriteOncePod
// conflict's text), both of early 2025; v1.30 has the old words.
constexpr bool volume_reasons_reworded(int minor) {
  return minor >= 33;
}

// The nodes a PreFilter left out count in the message as "N node(s) didn't
// satisfy plugin(s) [P]" (kubernetes#126022, v1.32). Before they are in no
// count (preemption calls them not helpful since kubernetes#125197, which
// v1.27–v1.30 got as a back-port).
constexpr bool message_counts_prefilter_absent(int minor) {
  return minor >= 32;
}

// NodeName has a PreFilter: a pod that already names its node (a bound pod
// whose resize kube-scheduler defers) is judged on that node alone, the
// others "didn't satisfy plugin(s) [NodeName]" (v1.37).
constexpr bool node_name_prefilter(int minor) {
  return minor >= 37;
}

// DynamicResources is in the default profile: the DynamicResourceAllocation
// gate is on from v1.34 (GA); in v1.30 it is alpha and off.
constexpr bool dra_in_default_profile(int minor) {
  return minor >= 34;
}

// DynamicResources' PostFilter says "no new claims to deallocate" for a pod
// without claims; kubernetes#140222 (v1.37) dropped the text.
constexpr bool dra_says_no_new_claims(int minor) {
  return minor < 37;
}

// A preemption that frees a node names DefaultPreemption's choice
// ("found a potential placement for pod on node N, preempting K victims",
// kubernetes#140180, v1.37); before, no PostFilter text.
constexpr bool preemption_names_its_choice(int minor) {
  return minor >= 37;
}

// ImageLocality's sum counts the images of image volumes a node holds
// (v1.36: sumImageScores loops over spec.volumes[].image); v1.35 sums the
// containers' images only. Image volumes exist from v1.31 (alpha).
constexpr bool image_volumes_in_sum(int minor) {
  return minor >= 36;
}

// ImageLocality's threshold counts image volumes too (kubernetes#138951,
// v1.37).
constexpr bool image_volumes_in_threshold(int minor) {
  return minor >= 37;
}

// InterPodAffinity takes an incoming term whose namespaceSelector selects an
// empty label set as matching every namespace: mergeAffinityTermNamespaces-
// IfNotEmpty received the term by value once the framework's types moved to
// k8s.io/kube-scheduler (by v1.35), and kubernetes#138198 (v1.37) fixed it.
// v1.30 passed a pointer and has no such defect.
constexpr bool legacy_namespace_selectors(int minor) {
  return minor >= 34 && minor < 37;
}

// Gates on by default from v1.37: VolumeBinding's Score (StorageCapacity-
// Scoring) and NodeVolumeLimits' check that a driver asking for it is
// installed on the node (VolumeLimitScaling).
constexpr bool volume_binding_scores(int minor) {
  return minor >= 37;
}
constexpr bool volume_limit_scaling(int minor) {
  return minor >= 37;
}

}  // namespace tightpack::kube_release
