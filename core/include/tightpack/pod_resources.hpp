// What a pod asks of a node, computed as kube-scheduler computes it
// (resourcehelper.PodRequests): containers summed; init containers as a maximum
// over their phases, with restartable init containers (sidecars) running on
// beside later ones and the app containers; pod-level spec.resources overriding
// the container sum for cpu and memory; spec.overhead added.
#pragma once

#include <cstdint>

#include "tightpack/model.hpp"

namespace tightpack {

inline constexpr int64_t kDefaultMilliCpuRequest = 100;  // schedutil.DefaultMilliCPURequest
inline constexpr int64_t kDefaultMemoryRequest =
    200LL * 1024 * 1024;  // schedutil.DefaultMemoryRequest

// The real requests (fitting, BalancedAllocation). With `non_zero`, every
// container that omits a cpu or memory request counts 100m / 200Mi for it: the
// view the other resource scores use.
ResourceList pod_requests(const Pod& pod, bool non_zero);

// The same with the defaults chosen per resource: for a pod with pod-level
// requests, NodeInfo adds a default only for a resource missing from the
// pod's whole request (getNonMissingContainerRequests).
ResourceList pod_requests(const Pod& pod, bool default_cpu, bool default_memory);

// A bound pod's (cpu, memory) in NodeInfo.NonZeroRequested before
// kubernetes#127878 (v1.32; kube_release::nonzero_sums_sidecars), as v1.30's
// calculateResource takes them: the app containers' non-zero requests summed,
// then the largest of that and each init container's step (its own requests
// plus the sidecars before it; a sidecar's step is the sidecars so far), a
// default filling a resource no container of the step names; sidecars are
// not added to the app containers. Then the overhead.
std::pair<int64_t, int64_t> nonzero_requests_v130(const Pod& pod);

// Whether spec.resources sets pod-level requests.
bool has_pod_level_requests(const Pod& pod);

// Resource name classes of k8s.io/kubernetes/pkg/scheduler/util and v1helper:
// extended is neither native (no "/", or "kubernetes.io/" in it) nor
// "requests."-prefixed, and a qualified name once so prefixed (what
// ExtendedResourceToleration admission and NodeResourcesFit both ask).
bool is_extended_resource(std::string_view name);
bool is_scalar_resource(std::string_view name);  // tracked in NodeInfo.ScalarResources

// apimachinery validation.IsQualifiedName: an optional DNS-1123 subdomain
// prefix and "/", then 1 to 63 of [-A-Za-z0-9_.] starting and ending
// alphanumeric.
bool is_qualified_name(std::string_view value);

}  // namespace tightpack
