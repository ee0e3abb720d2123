// The cluster objects beyond nodes, pods and budgets that kube-scheduler's
// plugins read through informers (namespaces, Services, the workload
// controllers behind PodTopologySpread's system defaults, and the storage
// objects of the volume plugins), as the watches show them: decoded by
// core's decoder into what scheduling reads, by kind and key.
#pragma once

#include <boost/json/value.hpp>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tightpack/error.hpp"
#include "tightpack/objects.hpp"

namespace tightpack::daemon {

// One watched collection.
struct WatchedKind {
  const char* path;      // the collection's API path
  const char* kind;      // the object kind core decodes
  const char* resource;  // the resource, as RBAC and the logs name it
  bool storage;          // read through bound pods' volumes: a change needs a rebuild
};

// What the scheduler watches beside nodes, pods and budgets: kube-scheduler's
// informers for the in-tree plugins of its default profile but
// VolumeAttachments (the engine counts what bound pods' volumes attach) and
// DRA's objects (not modelled).
inline constexpr WatchedKind kWatchedKinds[] = {
    {"/api/v1/namespaces", "Namespace", "namespaces", false},
    {"/api/v1/services", "Service", "services", false},
    {"/api/v1/replicationcontrollers", "ReplicationController", "replicationcontrollers", false},
    {"/apis/apps/v1/replicasets", "ReplicaSet", "replicasets", false},
    {"/apis/apps/v1/statefulsets", "StatefulSet", "statefulsets", false},
    {"/api/v1/persistentvolumeclaims", "PersistentVolumeClaim", "persistentvolumeclaims", true},
    {"/api/v1/persistentvolumes", "PersistentVolume", "persistentvolumes", true},
    {"/apis/storage.k8s.io/v1/storageclasses", "StorageClass", "storageclasses", true},
    {"/apis/storage.k8s.io/v1/csinodes", "CSINode", "csinodes", true},
    {"/apis/storage.k8s.io/v1/csidrivers", "CSIDriver", "csidrivers", true},
    {"/apis/storage.k8s.io/v1/csistoragecapacities", "CSIStorageCapacity", "csistoragecapacities",
     true},
};

// Whose home a claim is: KubeSpawner annotates the claims it makes with the
// hub user's name (hub.jupyter.org/username, unescaped) and, for a named
// server, the server's (hub.jupyter.org/servername).
struct HubOwner {
  std::string user, server;
  bool operator==(const HubOwner&) const = default;
};

// One decoded object: its key (namespace/name, or name for cluster-scoped
// kinds) and an ApiObjects holding it alone.
struct DecodedObject {
  std::string key;
  ApiObjects one;
  uint64_t resource_version = 0;      // metadata.resourceVersion (etcd's revision), 0 when absent
  std::optional<HubOwner> hub_owner;  // claims KubeSpawner made
};

// metadata.resourceVersion as a number (0 when absent or not a decimal):
// kube-scheduler's storage.APIObjectVersioner compares them so.
uint64_t parse_resource_version(const boost::json::value& object);

// Decodes an object of `kind` (one of kWatchedKinds') with core's decoder.
Result<DecodedObject> decode_watched(std::string_view kind, const boost::json::value& object);

// The key of an object of any kind (for deletions): namespace/name or name.
Result<std::string> watched_key(std::string_view kind, const boost::json::value& object);

// A namespace/name key as (namespace, name).
std::pair<std::string, std::string> split_key(const std::string& key);

// metadata.resourceVersion as the API server wrote it ("" when absent): what a
// write gives back as its precondition.
std::string resource_version_text(const boost::json::value& object);

class ObjectStore {
 public:
  // A relist of `kind`: what it does not hold is gone.
  void replace(std::string_view kind, std::vector<DecodedObject> items);
  // Whether what scheduling reads changed (a status heartbeat, a replica
  // count or a resourceVersion alone does not: the decoded object is equal).
  bool upsert(std::string_view kind, DecodedObject item);
  bool remove(std::string_view kind, const std::string& key);

  // Every kind of kWatchedKinds listed at least once: until then a claim
  // "not found" may only be not listed yet.
  bool storage_listed() const;
  bool namespaces_listed() const { return listed_.count("Namespace") > 0; }

  // One claim (namespace/name) or volume (name), or null.
  const PersistentVolumeClaim* claim(const std::string& key) const;
  const PersistentVolume* volume(const std::string& name) const;
  // The resourceVersion the watch last showed for a claim or volume (0:
  // none): a write's own version tells whether the cache has caught up.
  uint64_t claim_version(const std::string& key) const;
  uint64_t volume_version(const std::string& name) const;

  // The claims KubeSpawner made for hub user `user`, in key order.
  std::vector<std::pair<const PersistentVolumeClaim*, HubOwner>> claims_of_hub_user(
      const std::string& user) const;
  // Every StorageClass, by name.
  const std::map<std::string, StorageClass>& storage_classes() const { return classes_; }

  // Everything, in key order, as Cluster::build takes it; or only the
  // workload objects, as Cluster::replace_workload_objects takes them.
  ApiObjects objects() const;
  ApiObjects workload_objects() const;

 private:
  template <class F>
  void with_map(std::string_view kind, F&& f);
  std::map<std::string, uint64_t>* versions(std::string_view kind);

  std::map<std::string, Namespace> namespaces_;
  std::map<std::string, MapSelectorObject> services_, replication_controllers_;
  std::map<std::string, SelectorObject> replica_sets_, stateful_sets_;
  std::map<std::string, PersistentVolumeClaim> claims_;
  std::map<std::string, PersistentVolume> volumes_;
  std::map<std::string, StorageClass> classes_;
  std::map<std::string, CsiNode> csi_nodes_;
  std::map<std::string, CsiDriver> csi_drivers_;
  std::map<std::string, CsiStorageCapacity> capacities_;
  std::map<std::string, uint64_t> claim_versions_, volume_versions_;
  std::map<std::string, HubOwner> claim_owners_;  // by claim key
  std::set<std::string, std::less<>> listed_;
};

}  // namespace tightpack::daemon
