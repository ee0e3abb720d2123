// The Kubernetes objects the engine reads, reduced to what scheduling needs.
// Plain value types: the decoder (decode.hpp) is the only producer. Equality
// is field by field (pods that differ only by name share a PodPlan).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tightpack/quantity.hpp"
#include "tightpack/shared.hpp"

namespace tightpack {

// Resource amounts in the scheduler's integer units: millicores for "cpu",
// bytes or counts for everything else. Sorted by name; a key that is present
// with value 0 differs from an absent key (the non-zero defaults care).
using ResourceList = std::vector<std::pair<std::string, int64_t>>;

const int64_t* find_resource(const ResourceList& list, std::string_view name);
void set_resource(ResourceList& list, std::string_view name, int64_t value);
void add_resources(ResourceList& into, const ResourceList& other);
void max_resources(ResourceList& into, const ResourceList& other);

using Labels = std::vector<std::pair<std::string, std::string>>;  // sorted by key

const std::string* find_label(const Labels& labels, std::string_view key);

struct Taint {
  std::string key;
  std::string value;
  std::string effect;  // NoSchedule, PreferNoSchedule, NoExecute

  bool operator==(const Taint&) const = default;
};

struct Toleration {
  std::string key;
  std::string op;  // "", Equal, Exists
  std::string value;
  std::string effect;  // "" means every effect
  std::optional<int64_t> seconds;

  bool tolerates(const Taint& taint) const;  // v1.Toleration.ToleratesTaint

  bool operator==(const Toleration&) const = default;
};

bool tolerations_tolerate(const std::vector<Toleration>& tolerations, const Taint& taint);

struct NodeSelectorRequirement {
  std::string key;
  std::string op;  // In, NotIn, Exists, DoesNotExist, Gt, Lt
  std::vector<std::string> values;

  bool operator==(const NodeSelectorRequirement&) const = default;
};

struct NodeSelectorTerm {
  std::vector<NodeSelectorRequirement> match_expressions;
  std::vector<NodeSelectorRequirement> match_fields;
  bool empty() const { return match_expressions.empty() && match_fields.empty(); }

  bool operator==(const NodeSelectorTerm&) const = default;
};

struct PreferredSchedulingTerm {
  int32_t weight = 0;
  NodeSelectorTerm preference;

  bool operator==(const PreferredSchedulingTerm&) const = default;
};

struct NodeAffinity {
  // requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms, when set.
  std::optional<std::vector<NodeSelectorTerm>> required;
  std::vector<PreferredSchedulingTerm> preferred;

  bool operator==(const NodeAffinity&) const = default;
};

struct LabelSelectorRequirement {
  std::string key;
  std::string op;  // In, NotIn, Exists, DoesNotExist
  std::vector<std::string> values;

  bool operator==(const LabelSelectorRequirement&) const = default;
};

struct LabelSelector {
  Labels match_labels;
  std::vector<LabelSelectorRequirement> match_expressions;

  bool operator==(const LabelSelector&) const = default;
};

// One inter-pod (anti-)affinity term, required or preferred.
struct PodAffinityTerm {
  bool anti = false;
  bool required = false;
  int32_t weight = 0;                           // preferred terms
  std::optional<LabelSelector> label_selector;  // absent selects no pod
  std::vector<std::string> namespaces;
  std::optional<LabelSelector> namespace_selector;
  std::string topology_key;

  bool operator==(const PodAffinityTerm&) const = default;
};

// v1.TopologySpreadConstraint, as validated by the API server.
struct TopologySpreadConstraint {
  int32_t max_skew = 0;
  std::string topology_key;
  std::string when_unsatisfiable;               // DoNotSchedule, ScheduleAnyway
  std::optional<LabelSelector> label_selector;  // absent selects no pod
  std::optional<int32_t> min_domains;
  std::string node_affinity_policy;  // "", Honor, Ignore
  std::string node_taints_policy;    // "", Honor, Ignore
  std::vector<std::string> match_label_keys;

  bool operator==(const TopologySpreadConstraint&) const = default;
};

// The ownerReference with controller: true (metav1.GetControllerOf).
struct OwnerReference {
  std::string api_version;
  std::string kind;
  std::string name;
  std::string uid;

  bool operator==(const OwnerReference&) const = default;
};

struct ContainerPort {
  int32_t container_port = 0;
  int32_t host_port = 0;
  std::string protocol;  // "" means TCP
  std::string host_ip;   // "" means 0.0.0.0

  bool operator==(const ContainerPort&) const = default;
};

struct Container {
  std::string name;
  std::string image;
  ResourceList requests;  // after API defaulting: limits fill absent requests
  ResourceList limits;
  std::vector<ContainerPort> ports;
  bool restart_always = false;  // an init container with restartPolicy: Always (a sidecar)

  bool operator==(const Container&) const = default;
};

// One entry of spec.volumes, reduced to what the volume plugins read
// (VolumeBinding, VolumeZone, VolumeRestrictions, NodeVolumeLimits).
struct PodVolume {
  enum class Source : uint8_t {
    kOther,              // read by no scheduling plugin (emptyDir, configMap, nfs, csi, ...)
    kClaim,              // persistentVolumeClaim
    kEphemeral,          // ephemeral: a claim named <pod>-<volume>, owned by the pod
    kGcePersistentDisk,  // in-tree sources VolumeRestrictions compares ...
    kAwsElasticBlockStore,
    kIscsi,
    kRbd,
    kInTreeMigratable,  // ... and the other in-tree ones CSI migration translates
  };
  std::string name;
  Source source = Source::kOther;
  std::string claim;  // kClaim: claimName; kEphemeral: the generated claim name
  std::string disk;  // pdName, volumeID, iqn, rbd image; kInTreeMigratable: the in-tree plugin name
  std::string pool;  // rbd
  std::vector<std::string> monitors;  // rbd
  bool read_only = false;

  bool operator==(const PodVolume&) const = default;
};

// The amounts PodRequests adds, in the form ParseQuantity gave them: each
// container's and init container's requests (after defaulting from limits),
// the overhead and the pod-level requests. Kept only for a pod with an amount
// that int64 sums cannot add as kube-scheduler does (a fraction of a unit,
// or beyond 2^53: go_quantity.hpp); shared, and compared by value.
using QuantityList = std::vector<std::pair<std::string, Quantity>>;
struct GoRequests {
  std::vector<QuantityList> containers;
  std::vector<QuantityList> init_containers;
  QuantityList overhead;
  QuantityList pod_requests;

  bool operator==(const GoRequests&) const = default;
};
struct GoRequestsRef {
  std::shared_ptr<const GoRequests> requests;

  explicit operator bool() const { return requests != nullptr; }
  bool operator==(const GoRequestsRef& o) const {
    return requests == o.requests || (requests && o.requests && *requests == *o.requests);
  }
};

// The only annotations of a pod the engine reads, and so the only ones its
// decoder keeps: cluster-autoscaler's drain rules and its test for mirror
// pods. kubectl's last-applied copy of a pod alone can be kilobytes.
inline constexpr std::string_view kPodAnnotationsRead[] = {
    "cluster-autoscaler.kubernetes.io/daemonset-pod",
    "cluster-autoscaler.kubernetes.io/safe-to-evict",
    "cluster-autoscaler.kubernetes.io/safe-to-evict-local-volumes",
    "kubernetes.io/config.mirror",
};

struct Pod {
  std::string ns = "default";
  std::string name;
  std::string uid;
  // The parts many pods hold alike are Shared (shared.hpp): the scheduler's
  // cache interns them.
  Shared<Labels> labels;
  std::string node_name;
  std::string scheduler_name;
  std::string phase;
  Shared<std::vector<Container>> containers;
  Shared<std::vector<Container>> init_containers;
  ResourceList overhead;
  ResourceList pod_requests;  // spec.resources (pod-level), after defaulting from limits
  GoRequestsRef go_requests;  // set only where int64 sums would differ from PodRequests'
  Shared<Labels> node_selector;
  Shared<std::vector<Toleration>> tolerations;
  NodeAffinity node_affinity;
  int32_t priority = 0;
  bool preempt_never = false;
  std::string nominated_node_name;
  std::vector<PodAffinityTerm>
      pod_affinity_terms;  // required and preferred, affinity and anti-affinity
  std::vector<PodVolume>
      volumes;  // only those a scheduling plugin reads (Source other than kOther)
  std::vector<TopologySpreadConstraint> topology_spread;
  std::optional<OwnerReference> controller;
  std::vector<std::string> image_volumes;  // spec.volumes[].image.reference (ImageLocality)
  bool scheduling_gated = false;           // spec.schedulingGates: no scheduler may take it yet
  bool resource_claims =
      false;  // spec.resourceClaims (DynamicResources, which the engine does not model)
  std::string creation_timestamp;
  std::string deletion_timestamp;  // set while a deleted pod terminates: it still holds its node
  std::string start_time;          // status.startTime
  std::vector<std::pair<std::string, std::string>> annotations;  // of kPodAnnotationsRead, sorted

  std::string key() const { return ns + "/" + name; }
  bool terminated() const { return phase == "Succeeded" || phase == "Failed"; }

  bool operator==(const Pod&) const = default;
};

// What other pods' selectors read of a bound pod (PodTopologySpread's
// counts): pods that share all three share one PodMeta.
struct PodMeta {
  std::string ns;
  // The pod's own label set, shared: a cluster built from 150,000 pods keeps
  // no second copy of what the pods (and the daemon's cache) hold.
  Shared<Labels> labels;
  bool terminating = false;  // metadata.deletionTimestamp is set

  bool operator==(const PodMeta&) const = default;
};

struct ContainerImage {
  std::vector<std::string> names;
  int64_t size_bytes = 0;
  bool operator==(const ContainerImage&) const = default;
};

struct Node {
  std::string name;
  Labels labels;
  std::vector<Taint> taints;
  bool unschedulable = false;
  ResourceList allocatable;  // status.allocatable, defaulted from status.capacity
  ResourceList capacity;
  std::vector<ContainerImage> images;
  bool operator==(const Node&) const = default;
};

}  // namespace tightpack
