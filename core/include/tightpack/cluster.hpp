// The cluster as the scheduler sees it: nodes as columns (allocatable,
// requested, non-zero requested, pod counts) that scan at memory speed, static
// node attributes interned, and the bound pods kept per node for preemption.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "tightpack/affinity_terms.hpp"
#include "tightpack/error.hpp"
#include "tightpack/model.hpp"
#include "tightpack/objects.hpp"
#include "tightpack/storage_state.hpp"
#include "tightpack/string_pool.hpp"

namespace tightpack {

using NodeIndex = uint32_t;

struct HostPort {
  std::string ip;        // "0.0.0.0" when unset
  std::string protocol;  // "TCP" when unset
  int32_t port = 0;
  bool operator==(const HostPort&) const = default;
};

// What a pod takes from a node: the real requests the filter and
// BalancedAllocation see, the non-zero cpu/memory the other scores see.
struct PodUsage {
  int64_t cpu = 0;  // millicores
  int64_t memory = 0;
  int64_t ephemeral = 0;
  int64_t nz_cpu = 0;
  int64_t nz_memory = 0;
  // The same as v1.30 counts them (nonzero_requests_v130; equal unless the
  // pod has init containers).
  int64_t nz_cpu_v130 = 0;
  int64_t nz_memory_v130 = 0;
  std::vector<std::pair<uint32_t, int64_t>> scalars;             // (cluster scalar index, amount)
  std::vector<std::pair<std::string, int64_t>> unknown_scalars;  // no node offers these
  std::vector<HostPort> host_ports;

  bool operator==(const PodUsage&) const = default;
};

// What taking some pods off a node gives back: the victims of a preemption
// what-if, applied to the columns without changing them.
struct Relief {
  int64_t cpu = 0, memory = 0, ephemeral = 0, pods = 0;
  std::vector<std::pair<uint32_t, int64_t>> scalars;
  std::vector<HostPort> ports;
  std::vector<size_t> positions;  // the pods taken off, in pods_on(node)
};

struct BoundPod {
  std::string key;  // namespace/name
  int32_t priority = 0;
  PodUsage usage;
  std::string cohort;  // plugins::cohort_of: pods that leave together
  // status.startTime in seconds since the epoch; 0 when the pod has not
  // started (or is being placed), which DefaultPreemption counts as now.
  int64_t start = 0;
  // Namespace and labels, for other pods' selectors; null matches none.
  std::shared_ptr<const PodMeta> meta;
  // What it holds of the storage (claims, attached volumes, disks); null
  // for none.
  std::shared_ptr<const PodStorage> storage;
  // Its inter-pod (anti-)affinity terms, which filter and score other pods;
  // null for none.
  std::shared_ptr<const AffinityTerms> affinity;
};

struct ImageState {
  int64_t size = 0;
  int64_t num_nodes = 0;
};

// A fresh number for every Cluster object, copies included, so that caches
// keyed by (cluster, node generation) never mistake one cluster for another.
class InstanceId {
 public:
  InstanceId() : id_(next()) {}
  InstanceId(const InstanceId&) : id_(next()) {}
  InstanceId& operator=(const InstanceId&) {
    id_ = next();
    return *this;
  }
  uint64_t value() const { return id_; }

 private:
  static uint64_t next();
  uint64_t id_;
};

// Whether build() makes the same BoundPod of `a` and of `b`, bound to one
// node: what a watch cache asks of a pod that changed while it holds its
// node, to place it again only when what others' decisions read of it did.
bool same_bound_pod(const Pod& a, const Pod& b);

class Cluster {
 public:
  // Bound pods whose node is missing, and finished pods, are left out, as the
  // scheduler cache leaves them out.
  static Result<Cluster> build(std::vector<Node> nodes, const std::vector<Pod>& pods,
                               ApiObjects objects = {});
  // The same for pods held elsewhere (a scenario's), without copying them.
  static Result<Cluster> build_from(std::vector<Node> nodes, const std::vector<const Pod*>& pods,
                                    ApiObjects objects = {});

  // The cluster objects beyond nodes and pods (Services, controllers, ...).
  const ApiObjects& objects() const { return objects_; }
  const OwnerIndex& owners() const { return owners_; }
  // The storage objects as the volume plugins see them, with what
  // VolumeBinding assumed for the pods placed since the cluster was built.
  const StorageState& storage() const { return storage_; }
  // How many bound pods use the claim namespace/name in a persistentVolumeClaim
  // volume (the snapshot's used-claim set).
  int64_t claim_users(const std::string& key) const;
  // Bound pods whose volumes NodeVolumeLimits would translate from in-tree
  // plugins to CSI, which the engine does not do yet.
  int64_t in_tree_volume_pods() const { return in_tree_volume_pods_; }

  size_t size() const { return nodes_.size(); }
  const Node& node(NodeIndex i) const { return nodes_[i]; }
  const std::string& name(NodeIndex i) const { return nodes_[i].name; }
  NodeIndex find(std::string_view name) const;  // size() when absent

  // Computes what `pod` takes, resolving resource names to this cluster's columns.
  PodUsage usage_of(const Pod& pod) const;

  // Node n changed in place (labels, taints, cordon, allocatable, images;
  // the same name): the cluster becomes what a build with the new node would
  // be, and a new instance(), so that every plan and count made before is
  // made again. False, with nothing changed, when a build would have other
  // scalar columns (the node offers one the cluster has no column for, or
  // no longer offers one nothing else offers or asks for): build it again.
  bool update_node(NodeIndex n, Node node);
  // A node joins, after the others (decisions do not depend on node order:
  // ties are broken by name), or leaves with the pods bound to it; the
  // cluster becomes what a build with or without it would be, and a new
  // instance(). False, with nothing changed, when a build would have other
  // scalar columns (the node adds one, or takes the last offer of one no
  // pod asks for), or, for add_node, when the name is taken.
  bool add_node(Node node);
  bool remove_node(NodeIndex n);
  // The namespaces, Services, ReplicaSets, StatefulSets and
  // ReplicationControllers of `objects` replace the cluster's (its storage
  // objects are kept): the cluster becomes what a build with them would be,
  // and a new instance(). Only plans read these (spread's system default
  // selector, affinity's namespace selector), so no pod is touched; a change
  // of storage objects needs a build, since bound pods' volumes are resolved
  // through them.
  void replace_workload_objects(ApiObjects objects);

  // Placing a pod whose unbound claims wait for their first consumer runs
  // VolumeBinding's Reserve: later pods see the claims assumed.
  void place(NodeIndex n, BoundPod pod);
  // Removes the pods at the given positions of pods_on(n).
  void remove(NodeIndex n, const std::vector<size_t>& positions);
  // What removing them would give back, without removing them.
  Relief relief_of(NodeIndex n, const std::vector<size_t>& positions) const;

  const std::vector<BoundPod>& pods_on(NodeIndex n) const { return pods_[n]; }

  // The volumes the node's pods attach, as NodeVolumeLimits counts them: each
  // volume name once, with the driver it was first seen with, in the order of
  // pods_on(n). Kept with the pods, so that a decision does not walk every
  // bound pod of the cluster to count them.
  using AttachedVolume = std::pair<std::string, std::string>;  // (volume, driver)
  const std::vector<const AttachedVolume*>& attached_volumes(NodeIndex n) const {
    return attached_[n];
  }
  // The node's CSINode, or null.
  const CsiNode* csi_node(NodeIndex n) const { return storage_.csi_node_at(csi_node_index_[n]); }

  // Changes whenever a pod is placed on or removed from node n; with
  // instance() it keys per-node caches of pod-dependent verdicts.
  uint32_t generation(NodeIndex n) const { return generation_[n]; }
  uint64_t instance() const { return instance_.value(); }
  // Changes whenever any node's generation does: state kept over all nodes
  // (topology domain counts) is up to date while it stays the same.
  uint64_t epoch() const { return epoch_; }
  const std::vector<HostPort>& used_ports(NodeIndex n) const { return ports_[n]; }

  // Columns.
  const std::vector<int64_t>& alloc_cpu() const { return alloc_cpu_; }
  const std::vector<int64_t>& alloc_memory() const { return alloc_mem_; }
  const std::vector<int64_t>& alloc_ephemeral() const { return alloc_eph_; }
  const std::vector<int64_t>& allowed_pods() const { return allowed_pods_; }
  const std::vector<int64_t>& req_cpu() const { return req_cpu_; }
  const std::vector<int64_t>& req_memory() const { return req_mem_; }
  const std::vector<int64_t>& req_ephemeral() const { return req_eph_; }
  const std::vector<int64_t>& nz_cpu() const { return nz_cpu_; }
  const std::vector<int64_t>& nz_memory() const { return nz_mem_; }
  const std::vector<int64_t>& nz_cpu_v130() const { return nz_cpu_v130_; }
  const std::vector<int64_t>& nz_memory_v130() const { return nz_mem_v130_; }
  const std::vector<int64_t>& pod_count() const { return pod_count_; }
  size_t scalar_count() const { return scalar_names_.size(); }
  const std::string& scalar_name(uint32_t s) const { return scalar_names_[s]; }
  uint32_t scalar_index(std::string_view name) const;  // UINT32_MAX when no node has it
  const std::vector<int64_t>& alloc_scalar(uint32_t s) const { return alloc_scalar_[s]; }
  const std::vector<int64_t>& req_scalar(uint32_t s) const { return req_scalar_[s]; }
  bool has_scalar(uint32_t s, NodeIndex n) const { return has_scalar_[s][n] != 0; }

  // Static attributes, interned.
  uint32_t taint_set(NodeIndex n) const { return taint_set_[n]; }
  size_t taint_set_count() const { return taint_sets_.size(); }
  const std::vector<Taint>& taints_of_set(uint32_t set) const { return taint_sets_[set]; }
  const std::vector<StrId>& images(NodeIndex n) const { return image_sets_[image_set_[n]]; }
  // Nodes of a pool hold the same images: scores that depend only on them are
  // computed once per distinct set.
  uint32_t image_set(NodeIndex n) const { return image_set_[n]; }
  size_t image_set_count() const { return image_sets_.size(); }
  // The value of one label key on every node (kNoStr where absent), or nullptr
  // when no node has the key.
  const std::vector<StrId>* label_column(std::string_view key) const;
  // The topology domains of a label key: each node's domain (numbered from 0
  // in node order, -1 where the node lacks the key) and how many there are.
  // Computed once per key, when first asked (not safe from two threads).
  struct Domains {
    std::vector<int32_t> of_node;
    size_t count = 0;
  };
  const Domains& domains(std::string_view key) const;
  const ImageState* image_state(StrId image) const;
  const StringPool& strings() const { return strings_; }

  // Bound pods with inter-pod (anti-)affinity terms, which can filter or
  // score other pods: how many, and a number that changes whenever one is
  // placed or removed, in all and per node (what InterPodAffinity recounts
  // for a pod without terms of its own).
  int64_t affinity_pods() const { return affinity_pods_; }
  uint64_t affinity_epoch() const { return affinity_epoch_; }
  uint32_t affinity_generation(NodeIndex n) const { return affinity_generation_[n]; }
  uint32_t affinity_pods_on(NodeIndex n) const {
    return static_cast<uint32_t>(affinity_positions_[n].size());
  }
  // Their positions in pods_on(n), ascending: a pod without terms of its own
  // looks at these, not at the node's every pod.
  const std::vector<uint32_t>& affinity_positions(NodeIndex n) const {
    return affinity_positions_[n];
  }
  // The bound pods labelled key=value, by node and metadata, in no order:
  // where a selector with that requirement can match anything.
  // PodTopologySpread and InterPodAffinity count the pods their selectors
  // match; with this they look at those pods, or their nodes, instead of
  // every pod of the cluster. Kept up to date by place() and remove().
  struct LabelledPod {
    uint32_t slot;        // its node's slot: node_of() gives the node
    const PodMeta* meta;  // the bound pod's, which keeps it alive
  };
  NodeIndex node_of(const LabelledPod& p) const { return slot_node_[p.slot]; }
  const std::vector<LabelledPod>& pods_with_label(std::string_view key,
                                                  std::string_view value) const;
  // Marks in `into` (one entry per node) the nodes where `selector` can
  // match a bound pod: those with a pod carrying a value of one of its In
  // requirements (the one that names the fewest). False when it has none,
  // so that it may match pods anywhere (Everything, only NotIn or Exists).
  bool mark_selector_candidates(const Selector& selector, std::vector<uint8_t>& into) const;

  // Bound pods with a term whose namespace selector reads other namespace
  // labels than kubernetes.io/metadata.name.
  int64_t namespace_label_readers() const { return namespace_label_readers_; }

 private:
  template <class PodList>
  static Result<Cluster> build_impl(std::vector<Node> nodes, const PodList& pods,
                                    ApiObjects objects);
  // Node n's allocatable, scalar and label columns from `node` (its label
  // entries empty before), its images counted in image_states_; returns its
  // image set, sorted.
  std::vector<StrId> set_node_columns(NodeIndex n, const Node& node);
  // Node n's taint and image sets, shared by value with the other nodes.
  void set_node_sets(NodeIndex n, const std::vector<Taint>& taints, std::vector<StrId> images);
  bool has_scalar_columns_of(const Node& node) const;
  // Whether a build would still have every scalar column node n offers,
  // without it or with `replacement` in its place.
  bool keeps_scalar_columns(NodeIndex n, const Node* replacement) const;
  void forget_images_of(NodeIndex n);
  // Every plan, count and domain made before is made again.
  void nodes_changed();
  // The per-node int64 columns, for adding and erasing a node's entry.
  std::array<std::vector<int64_t>*, 12> int64_columns();
  // Takes a bound pod out of the cluster-wide counts (affinity pods, claim
  // users, in-tree volumes), as remove() and remove_node() do.
  void forget_counts_of(const BoundPod& pod);
  void add_usage(NodeIndex n, const PodUsage& u, int sign);
  void add_scalar(PodUsage& u, const std::string& name, int64_t amount) const;
  static void add_host_ports(PodUsage& u, const Container& c);

  std::vector<Node> nodes_;
  // Looked up by string_view without building a string: find() runs for
  // every pod a cluster is built from.
  struct NameHash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  std::unordered_map<std::string, NodeIndex, NameHash, std::equal_to<>> by_name_;
  StringPool strings_;

  std::vector<int64_t> alloc_cpu_, alloc_mem_, alloc_eph_, allowed_pods_;
  std::vector<int64_t> req_cpu_, req_mem_, req_eph_, nz_cpu_, nz_mem_, nz_cpu_v130_, nz_mem_v130_,
      pod_count_;
  std::vector<std::string> scalar_names_;
  std::vector<std::vector<int64_t>> alloc_scalar_, req_scalar_;
  std::vector<std::vector<uint8_t>> has_scalar_;

  std::vector<uint32_t> taint_set_;
  std::vector<std::vector<Taint>> taint_sets_;
  std::vector<uint32_t> image_set_;
  std::vector<std::vector<StrId>> image_sets_;
  std::unordered_map<std::string, std::vector<StrId>> label_columns_;
  std::unordered_map<StrId, ImageState> image_states_;

  std::vector<std::vector<BoundPod>> pods_;
  std::vector<uint32_t> generation_;
  uint64_t epoch_ = 0;
  InstanceId instance_;
  ApiObjects objects_;
  OwnerIndex owners_;
  StorageState storage_;
  std::unordered_map<std::string, int64_t> claim_users_;
  int64_t in_tree_volume_pods_ = 0;
  std::vector<std::vector<HostPort>> ports_;
  // Point into the pods' PodStorage, which their shared_ptrs keep alive in
  // every copy of the cluster.
  std::vector<std::vector<const AttachedVolume*>> attached_;
  std::vector<uint32_t> csi_node_index_;
  int64_t affinity_pods_ = 0;
  void index_labels(NodeIndex n, const BoundPod& pod, int sign);
  // Each node's slot in the label index, its own while the node lives: a node
  // removed takes its pods' entries with it, and no other entry changes (the
  // nodes after it change index, their slots do not). A full pass renumbering
  // every entry took 13 ms at 150,000 pods of real hubs (bench/RESULTS.md).
  std::vector<uint32_t> node_slot_;   // by NodeIndex
  std::vector<NodeIndex> slot_node_;  // by slot; kFreeSlot when no node holds it
  std::vector<uint32_t> free_slots_;
  static constexpr NodeIndex kFreeSlot = UINT32_MAX;
  uint32_t take_slot(NodeIndex n);
  mutable std::unordered_map<std::string, Domains, NameHash, std::equal_to<>> domains_;
  std::unordered_map<std::string, std::vector<LabelledPod>, NameHash, std::equal_to<>> label_pods_;
  std::string label_key_buffer_;
  int64_t namespace_label_readers_ = 0;
  uint64_t affinity_epoch_ = 0;
  std::vector<uint32_t> affinity_generation_;
  std::vector<std::vector<uint32_t>> affinity_positions_;
};

}  // namespace tightpack
