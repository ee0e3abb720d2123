// The scheduler's view of the cluster: the watched Nodes, Pods,
// PodDisruptionBudgets and the objects the plugins read beside them
// (object_store.hpp) as core decoded them, the pods this scheduler assumed
// on a node before the API confirmed the binding, and the engine's Cluster
// kept equal to all of that: pod events and nodes added, removed or changed
// (labels, taints, cordon, allocatable) change it in place; a relist, or a
// node that would change the cluster's scalar columns, rebuilds it before
// the next decision.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "daemon/object_store.hpp"
#include "tightpack/autoscaler/scenario.hpp"
#include "tightpack/cluster.hpp"
#include "tightpack/shared.hpp"

namespace tightpack::daemon {

struct PodRecord {
  autoscaler::CaPod pod;
  std::string assumed_node;  // this scheduler's choice until the watch shows the binding
  // What /snapshot publishes of it but its names and node (published_pod.hpp),
  // shared by the pods alike: a snapshot does not write it again under the lock.
  Shared<std::string> published;

  // The node whose room the pod takes, or "".
  const std::string& holds() const;
  bool pending() const { return pod.pod.node_name.empty() && !pod.pod.terminated(); }
};

// Drops what no decision of the daemon reads, before a pod is kept: every
// annotation but cluster-autoscaler's, the mirror mark, tightpack.io/unreadable
// and tightpack.io/reduced (a kubectl last-applied-configuration alone can be
// kilobytes), and a bound pod's image and container names. 150,000 pods are
// kept at once. A pod the daemon does not place (`placed_here` false: bound,
// or another scheduler's) with more than kMaxKeptTolerations tolerations is
// kept reduced: no tolerations and no controller, annotated
// tightpack.io/reduced; any pod creator can write 10,000 tolerations, which
// would cost 2 MB a pod. Such a pod whose other kept parts (labels, terms,
// containers, volumes) still weigh more than pod_budget.hpp's budget is kept
// as a stand-in that fills its node, annotated likewise.
inline constexpr size_t kMaxKeptTolerations = 128;
inline constexpr const char* kReducedAnnotation = "tightpack.io/reduced";
void slim(autoscaler::CaPod& pod, bool placed_here = true);
bool reduced(const autoscaler::CaPod& pod);

// Hashes of the parts of a pod the cache keeps once (shared.hpp's Interner).
struct ContentHash {
  size_t operator()(const Labels& labels) const;
  size_t operator()(const std::vector<Toleration>& tolerations) const;
  size_t operator()(const std::vector<Container>& containers) const;
};

// One copy of each label set, node selector, toleration set and container
// list among the pods it has seen (a relist's pods as they are decoded, the
// cache's as they are kept).
class PodInterner {
 public:
  void intern(Pod& pod);

 private:
  Interner<Labels, ContentHash> labels_;
  Interner<std::vector<Toleration>, ContentHash> tolerations_;
  Interner<std::vector<Container>, ContentHash> containers_;
};

class ClusterCache {
 public:
  // Nodes. upsert_node returns whether scheduling could see a difference.
  void replace_nodes(std::vector<autoscaler::CaNode> nodes);
  bool upsert_node(autoscaler::CaNode node);
  bool remove_node(const std::string& name);
  const std::map<std::string, autoscaler::CaNode>& nodes() const { return nodes_; }
  // Nodes a move is emptying (move_steps.hpp): the engine's cluster sees them
  // cordoned, so no pod this scheduler places goes there, without a write to
  // the Node (a cordon would outlive a daemon that dies mid-move). Returns
  // whether the set changed.
  bool set_closed(std::set<std::string> nodes);
  const std::set<std::string>& closed() const { return closed_; }

  // Pods, by namespace/name.
  // Which pending pods this daemon places (its profiles); unset: all of them.
  void set_places(std::function<bool(const Pod&)> places) { places_ = std::move(places); }
  // Whether this daemon places the pod (pending, one of its profiles'). Reads
  // only what set_places gave before the watches started: safe without the
  // cache's lock, so a relist can slim() its pods as they come.
  bool placed_here(const Pod& pod) const;
  void replace_pods(std::vector<autoscaler::CaPod> pods);
  // What the cache's pods hold once, for a relist to intern its pods against
  // as they are read (a copy: the relist runs without the lock), so that the
  // new list shares the old cache's label sets, tolerations and containers
  // instead of holding its own beside them until replace_pods.
  const PodInterner& interner() const { return interner_; }
  // The record before the change (nullopt when new), for the caller's events.
  std::optional<PodRecord> upsert_pod(autoscaler::CaPod pod);
  std::optional<PodRecord> remove_pod(const std::string& key);
  const PodRecord* pod(const std::string& key) const;
  const std::unordered_map<std::string, PodRecord>& pods() const { return pods_; }
  size_t reduced_pods() const { return reduced_; }  // kept reduced (slim)

  void replace_pdbs(std::map<std::string, autoscaler::PdbSpec> pdbs) {
    ++generation_;
    pdbs_ = std::move(pdbs);
  }
  void upsert_pdb(const std::string& key, autoscaler::PdbSpec pdb) {
    ++generation_;
    pdbs_[key] = std::move(pdb);
  }
  void remove_pdb(const std::string& key) {
    ++generation_;
    pdbs_.erase(key);
  }
  const std::map<std::string, autoscaler::PdbSpec>& pdbs() const { return pdbs_; }

  // Namespaces, Services, controllers and storage objects (object_store.hpp).
  // A change of a workload object is applied to the cluster in place; of a
  // storage object, by a rebuild (bound pods' volumes are resolved through
  // them). Each returns whether scheduling could see a difference.
  void replace_objects(const WatchedKind& kind, std::vector<DecodedObject> items);
  bool upsert_object(const WatchedKind& kind, DecodedObject item);
  bool remove_object(const WatchedKind& kind, const std::string& key);
  const ObjectStore& objects() const { return objects_; }

  // This scheduler chose `node` for the pod: it takes the room at once.
  void assume(const std::string& key, const std::string& node, BoundPod bound);
  // The binding failed: the room is given back (unless the API bound it meanwhile).
  void forget(const std::string& key);

  // The engine's cluster, rebuilt first after a relist or a node event it
  // could not take in place.
  Cluster& cluster();
  int64_t rebuilds() const { return rebuilds_; }
  // Nodes changed, added and removed in place (Cluster::update_node,
  // add_node, remove_node) rather than by a rebuild.
  int64_t node_updates() const { return node_updates_; }
  int64_t node_adds() const { return node_adds_; }
  int64_t node_removes() const { return node_removes_; }
  // Changes with every change above: what /snapshot publishes is rebuilt only
  // when it moved.
  uint64_t generation() const { return generation_; }

 private:
  // slim(), then equal label sets, node selectors, toleration sets and
  // containers shared with the pods already kept: on a hub of 150,000 pods
  // the same few of each, written out per pod, were 2 KB of its 3.4.
  // Returns what /snapshot will publish of it.
  Shared<std::string> keep(autoscaler::CaPod& pod);
  void sync(const std::string& key);
  void objects_changed(const WatchedKind& kind);
  void place(const std::string& key, const PodRecord& rec, NodeIndex n,
             std::optional<BoundPod> bound = std::nullopt);
  void unplace(const std::string& key);
  // Pods that hold a node the cluster does not have (yet: the watch can show
  // a pod before its node, or still after it), placed when it comes.
  void wait(const std::string& key, const std::string& node);
  void place_waiting(const std::string& node);
  void unwait(const std::string& key);

  // A node as the engine's cluster holds it: closed ones cordoned.
  Node as_scheduled(const autoscaler::CaNode& node) const;

  std::map<std::string, autoscaler::CaNode> nodes_;
  std::set<std::string> closed_;

  std::unordered_map<std::string, PodRecord> pods_;
  PodInterner interner_;
  Interner<std::string, std::hash<std::string>> published_;
  std::function<bool(const Pod&)> places_;
  size_t reduced_ = 0;
  std::map<std::string, autoscaler::PdbSpec> pdbs_;
  ObjectStore objects_;
  std::optional<Cluster> cluster_;
  bool dirty_ = true;
  bool workload_objects_changed_ = false;  // applied in place before the next decision
  std::unordered_map<std::string, std::string> placed_;     // what cluster_ holds: pod key -> node
  std::unordered_map<std::string, std::string> waits_for_;  // pod key -> node missing from cluster_
  std::unordered_map<std::string, std::set<std::string>> waiting_;  // node -> pod keys
  int64_t rebuilds_ = 0;
  int64_t node_updates_ = 0;
  int64_t node_adds_ = 0;
  int64_t node_removes_ = 0;
  uint64_t generation_ = 0;
};

}  // namespace tightpack::daemon
