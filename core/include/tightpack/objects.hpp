// The cluster objects beyond nodes and pods that scheduling reads, each
// reduced to what kube-scheduler's plugins read of it: namespaces
// (InterPodAffinity), the owners and Services behind PodTopologySpread's
// system defaults, and the storage objects of the volume plugins.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "tightpack/model.hpp"

namespace tightpack {

// The cluster objects beyond nodes and pods under their keys in a corpus
// scenario, scheduling's and cluster-autoscaler's alike (../shared/corpus and
// ../shared/autoscaler, README.md), with the kind of the objects each holds.
inline constexpr std::pair<std::string_view, std::string_view> kScenarioObjectKeys[] = {
    {"namespaces", "Namespace"},
    {"services", "Service"},
    {"replicaSets", "ReplicaSet"},
    {"statefulSets", "StatefulSet"},
    {"replicationControllers", "ReplicationController"},
    {"persistentVolumeClaims", "PersistentVolumeClaim"},
    {"persistentVolumes", "PersistentVolume"},
    {"storageClasses", "StorageClass"},
    {"csiNodes", "CSINode"},
    {"csiDrivers", "CSIDriver"},
    {"csiStorageCapacities", "CSIStorageCapacity"},
};

struct Namespace {
  std::string name;
  Labels labels;
  bool operator==(const Namespace&) const = default;
};

// A Service (spec.selector: absent selects nothing, {} every pod of its
// namespace) or a ReplicationController (spec.selector, a plain map).
struct MapSelectorObject {
  std::string ns;
  std::string name;
  std::optional<Labels> selector;
  bool operator==(const MapSelectorObject&) const = default;
};

// A ReplicaSet or StatefulSet (spec.selector, a LabelSelector).
struct SelectorObject {
  std::string ns;
  std::string name;
  std::optional<LabelSelector> selector;
  bool operator==(const SelectorObject&) const = default;
};

// v1.PersistentVolumeAccessMode, as a set.
enum AccessMode : uint8_t {
  kReadWriteOnce = 1,
  kReadOnlyMany = 2,
  kReadWriteMany = 4,
  kReadWriteOncePod = 8,
};

// Storage amounts are kept in bytes, rounded up as Quantity.Value() rounds:
// kube-scheduler compares claim requests with volume capacities by
// Quantity.Cmp, which differs from comparing whole bytes only for amounts
// with fractions of a byte.

struct ClaimReference {
  std::string ns;
  std::string name;
  std::string uid;  // empty: any claim of that name
  bool operator==(const ClaimReference&) const = default;
};

// v1.PersistentVolumeClaim.
struct PersistentVolumeClaim {
  std::string ns;
  std::string name;
  std::string uid;
  // volume.GetPersistentVolumeClaimClass: the beta annotation, else
  // spec.storageClassName; "" for none.
  std::string class_name;
  // Neither the annotation nor spec.storageClassName is set (null is not
  // ""): DefaultStorageClass admission, and the PV controller's retroactive
  // default class, give such a claim the default class.
  bool class_unset = false;
  // What-if only: the class is the default one assign_default_storage_class
  // gave (the claim is one about to be created, as a client sends it).
  bool class_defaulted = false;
  std::string volume_name;                   // spec.volumeName
  bool bind_completed = false;               // pv.kubernetes.io/bind-completed
  std::optional<std::string> selected_node;  // volume.kubernetes.io/selected-node
  // metadata.annotations holds anything: VolumeBinding's PreBind tells a
  // claim whose annotations were reset from one whose provisioner removed
  // the selected node.
  bool annotated = false;
  uint8_t access_modes = 0;
  bool block = false;                        // spec.volumeMode: Block
  std::optional<int64_t> request;            // spec.resources.requests.storage
  std::optional<LabelSelector> selector;     // spec.selector
  std::string attributes_class;              // spec.volumeAttributesClassName
  bool lost = false;                         // status.phase: Lost
  bool deleting = false;                     // metadata.deletionTimestamp
  std::optional<OwnerReference> controller;  // generic ephemeral volumes: the pod

  std::string key() const { return ns + "/" + name; }
  bool operator==(const PersistentVolumeClaim&) const = default;
};

// v1.PersistentVolume.
struct PersistentVolume {
  std::string name;
  Labels labels;
  std::string class_name;  // the beta annotation, else spec.storageClassName
  int64_t capacity = 0;    // spec.capacity.storage
  uint8_t access_modes = 0;
  bool block = false;
  std::optional<ClaimReference> claim_ref;
  std::string phase;  // status.phase: Available, Bound, Released, Failed, Pending
  bool deleting = false;
  std::string attributes_class;
  // spec.nodeAffinity.required.nodeSelectorTerms, when set.
  std::optional<std::vector<NodeSelectorTerm>> node_affinity;
  std::string csi_driver;  // spec.csi
  std::string csi_handle;
  // The in-tree plugin (kubernetes.io/gce-pd, ...) of an in-tree source that
  // CSI migration translates; empty otherwise.
  std::string in_tree_plugin;
  bool operator==(const PersistentVolume&) const = default;
};

// One storage.k8s.io/v1 TopologySelectorTerm: every key has one of its values.
struct TopologySelectorTerm {
  std::vector<std::pair<std::string, std::vector<std::string>>> match_label_expressions;
  bool operator==(const TopologySelectorTerm&) const = default;
};

// storage.k8s.io/v1 StorageClass.
struct StorageClass {
  std::string name;
  std::string provisioner;
  bool wait_for_first_consumer = false;  // volumeBindingMode, defaulted to Immediate
  std::vector<TopologySelectorTerm> allowed_topologies;  // empty: everywhere
  // storageclass.kubernetes.io/is-default-class (or the beta key) "true", and
  // metadata.creationTimestamp in seconds: the newest default is the default.
  bool is_default = false;
  int64_t created = 0;
  bool operator==(const StorageClass&) const = default;
};

// storage.k8s.io/v1 CSINode.
struct CsiNode {
  struct Driver {
    std::string name;
    std::optional<int32_t> count;  // allocatable.count
    bool operator==(const Driver&) const = default;
  };
  std::string name;
  std::vector<Driver> drivers;
  // storage.alpha.kubernetes.io/migrated-plugins, split at commas.
  std::vector<std::string> migrated_plugins;
  bool operator==(const CsiNode&) const = default;
};

// storage.k8s.io/v1 CSIDriver.
struct CsiDriver {
  std::string name;
  bool storage_capacity = false;  // spec.storageCapacity
  // spec.preventPodSchedulingIfMissing (VolumeLimitScaling, beta and on in v1.37)
  bool prevent_if_missing = false;
  bool operator==(const CsiDriver&) const = default;
};

// storage.k8s.io/v1 CSIStorageCapacity.
struct CsiStorageCapacity {
  std::string ns;
  std::string name;
  std::string class_name;                      // storageClassName
  std::optional<LabelSelector> node_topology;  // absent: no node has access
  std::optional<int64_t> capacity;
  std::optional<int64_t> maximum_volume_size;
  bool operator==(const CsiStorageCapacity&) const = default;
};

struct ApiObjects {
  std::vector<Namespace> namespaces;
  std::vector<MapSelectorObject> services;
  std::vector<SelectorObject> replica_sets;
  std::vector<SelectorObject> stateful_sets;
  std::vector<MapSelectorObject> replication_controllers;
  std::vector<PersistentVolumeClaim> claims;
  std::vector<PersistentVolume> volumes;
  std::vector<StorageClass> storage_classes;
  std::vector<CsiNode> csi_nodes;
  std::vector<CsiDriver> csi_drivers;
  std::vector<CsiStorageCapacity> csi_capacities;
  // Whether the source lists the storage objects at all (a scenario does;
  // a snapshot does when it holds claims, volumes or classes). Without them
  // a pod's claims cannot be judged: "not found" would be a wrong answer.
  bool storage_listed = false;
  // The same for Namespaces: a namespace selector on other labels than
  // kubernetes.io/metadata.name cannot be judged without them.
  bool namespaces_listed = false;
};

// The workload objects of an ApiObjects by namespace and name, for
// PodTopologySpread's DefaultSelector, which looks up the controller of
// every pod it plans for (a hub with thousands of Dask workers has a
// ReplicaSet each). The first object of a name, as a search in input order
// finds it. It holds positions, not pointers: look up in the ApiObjects it
// was built from (or an equal copy).
class OwnerIndex {
 public:
  OwnerIndex() = default;
  explicit OwnerIndex(const ApiObjects& objects);
  const SelectorObject* replica_set(const ApiObjects& o, std::string_view ns,
                                    std::string_view name) const;
  const SelectorObject* stateful_set(const ApiObjects& o, std::string_view ns,
                                     std::string_view name) const;
  const MapSelectorObject* replication_controller(const ApiObjects& o, std::string_view ns,
                                                  std::string_view name) const;

 private:
  struct Hash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  using Index = std::unordered_map<std::string, uint32_t, Hash, std::equal_to<>>;
  Index replica_sets_, stateful_sets_, replication_controllers_;
};

}  // namespace tightpack
