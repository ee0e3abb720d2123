// The storage objects as kube-scheduler's volume plugins see them: by name,
// through the listers, and with VolumeBinding's assumptions for the pods
// placed since (its assume caches: a dynamically provisioned claim gets the
// chosen node's name, a statically matched volume the claim), and what a
// bound pod holds of them (the claims it uses, the volumes it attaches, its
// in-line disks).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "tightpack/error.hpp"
#include "tightpack/model.hpp"
#include "tightpack/objects.hpp"

namespace tightpack {

// ephemeral.VolumeClaimName: the claim of a generic ephemeral volume.
std::string claim_name(const Pod& pod, const PodVolume& v);

// The in-tree plugins kube-scheduler translates to CSI (NodeVolumeLimits'
// isCSIMigrationOn, VolumeBinding's isCSIMigrationOnForPlugin: one list).
bool migrates_to_csi(std::string_view in_tree_plugin);

// Why a volume plugin cannot judge the pod: it mounts persistent volume
// claims (or ephemeral ones) and the input does not give the cluster's
// claims, volumes and classes; nothing when it can. `plugin` names the
// plugin in the text.
std::optional<std::string> unlisted_claims(const ApiObjects& objects, const Pod& pod,
                                           std::string_view plugin);

// volume.CheckNodeAffinity: the volume's required node affinity against a
// node's labels (as a node without a name: matchFields never match).
bool volume_node_affinity_matches(const PersistentVolume& pv, const Labels& node_labels);

// v1helper.MatchTopologySelectorTerms (a StorageClass' allowedTopologies).
bool topology_matches(const std::vector<TopologySelectorTerm>& terms, const Labels& node_labels);

// What a pod on a node holds of the storage, for the other pods' filters.
struct PodStorage {
  // namespace/claim of each persistentVolumeClaim volume (the snapshot's
  // used-claim set that VolumeRestrictions reads).
  std::vector<std::string> claim_keys;
  // NodeVolumeLimits: unique volume name and CSI driver of each volume it
  // counts against the node's limits.
  std::vector<std::pair<std::string, std::string>> attached;
  // VolumeRestrictions: the in-line disks two pods of a node may not share.
  std::vector<PodVolume> disks;
  // The unbound WaitForFirstConsumer claims its placement makes
  // VolumeBinding assume (by claim key).
  std::vector<std::string> delayed_claims;
  // Uses a volume of an in-tree plugin that NodeVolumeLimits translates to
  // CSI on nodes with a CSINode (inline, through its volume or its class).
  bool in_tree = false;

  bool empty() const {
    return claim_keys.empty() && attached.empty() && disks.empty() && delayed_claims.empty() &&
           !in_tree;
  }

  bool operator==(const PodStorage&) const = default;
};

// Adds to a node's attached volumes those `storage` attaches that it does not
// hold yet: each volume name once, with the driver it was first seen with
// (NodeVolumeLimits' count). A node holds few: a list, not a map.
inline void add_attached_volumes(std::vector<const std::pair<std::string, std::string>*>& on,
                                 const PodStorage& storage) {
  for (const auto& volume : storage.attached) {
    bool held = false;
    for (const auto* a : on) held = held || a->first == volume.first;
    if (!held) on.push_back(&volume);
  }
}

class StorageState {
 public:
  StorageState() = default;
  explicit StorageState(const ApiObjects& objects);

  bool empty() const {
    return claims_.empty() && volumes_.empty() && classes_.empty() && csi_nodes_.empty();
  }

  const PersistentVolumeClaim* claim(std::string_view ns, std::string_view name) const;
  const PersistentVolume* volume(std::string_view name) const;
  const StorageClass* storage_class(std::string_view name) const;
  const CsiNode* csi_node(std::string_view node) const;
  // The same by position, so that a cluster can look each node's up once.
  static constexpr uint32_t kNoCsiNode = UINT32_MAX;
  uint32_t csi_node_index(std::string_view node) const;
  const CsiNode* csi_node_at(uint32_t index) const {
    return index == kNoCsiNode ? nullptr : &csi_nodes_[index];
  }
  const CsiDriver* csi_driver(std::string_view name) const;
  const std::vector<CsiStorageCapacity>& capacities() const { return capacities_; }
  bool csi_nodes_empty() const { return csi_nodes_.empty(); }
  // pvCache.ListPVs: the volumes of a class, in input order (kube-scheduler
  // lists them in Go map order; see volume_binding.cpp).
  std::vector<const PersistentVolume*> volumes_of_class(std::string_view class_name) const;

  // volume.IsDelayBindingMode: the claim's class exists and waits for the
  // first consumer.
  bool delay_binding(const PersistentVolumeClaim& claim) const;

  // In-tree plugins some CSINode says are migrated to CSI; the engine does
  // not translate in-tree volumes yet (NodeVolumeLimits, VolumeBinding).
  const std::vector<std::string>& migrated_plugins() const { return migrated_; }
  bool migrated(std::string_view in_tree_plugin) const;

  // NodeVolumeLimits' view of a pod's volumes (filterAttachableVolumes):
  // the unique name and driver of each it counts. A claim the listers lack
  // is skipped.
  std::vector<std::pair<std::string, std::string>> attachable(const Pod& pod) const;
  // What a pod about to be bound holds.
  std::shared_ptr<const PodStorage> storage_of(const Pod& pod) const;

  // A claim by its namespace/name key.
  const PersistentVolumeClaim* claim_by_key(std::string_view key) const;
  // VolumeBinding's assumptions (plugins/volume_binding.hpp), on objects of
  // this state: a volume matched to a claim gets it as its claimRef, a claim
  // to provision the chosen node's name.
  void assume_bound(const PersistentVolume& volume, const PersistentVolumeClaim& claim);
  void assume_provisioned(const PersistentVolumeClaim& claim, const std::string& node);
  // Changes with every assumption: plans that read unbound claims are stale.
  uint64_t epoch() const { return epoch_; }

 private:
  std::vector<PersistentVolumeClaim> claims_;
  std::vector<PersistentVolume> volumes_;
  std::vector<StorageClass> classes_;
  std::vector<CsiNode> csi_nodes_;
  std::vector<CsiDriver> drivers_;
  std::vector<CsiStorageCapacity> capacities_;
  // Looked up by string_view without building a string: the filters look
  // up a node's CSINode and a driver for every node of every decision.
  struct NameHash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  using Index = std::unordered_map<std::string, uint32_t, NameHash, std::equal_to<>>;
  Index claim_by_key_, volume_by_name_, class_by_name_, csi_node_by_name_, driver_by_name_;
  // The volumes of each class, by index in input order: listed per claim
  // of every plan, so kept rather than searched for.
  std::unordered_map<std::string, std::vector<uint32_t>> volumes_by_class_;
  std::vector<std::string> migrated_;
  uint64_t epoch_ = 0;
};

}  // namespace tightpack
