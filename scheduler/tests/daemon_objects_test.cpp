// The watch cache's objects beyond nodes and pods: decoded by core's decoder,
// keyed as the API names them, and put into the engine's Cluster so that a
// pod's claims are judged on what the cluster holds: a workload object in
// place, a storage object by a rebuild.
#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "daemon/cache.hpp"
#include "daemon/object_store.hpp"
#include "tightpack/decode.hpp"
#include "tightpack/framework/framework.hpp"
#include "tightpack/profile.hpp"

namespace tightpack::daemon {
namespace {
namespace json = boost::json;

const WatchedKind& kind(std::string_view name) {
  for (const auto& k : kWatchedKinds) {
    if (k.kind == name) return k;
  }
  throw std::logic_error("no such kind");
}

DecodedObject decoded(std::string_view kind_name, std::string_view text) {
  auto d = decode_watched(kind_name, json::parse(text));
  EXPECT_TRUE(d) << (d ? "" : d.error().what());
  return d ? std::move(*d) : DecodedObject{};
}

autoscaler::CaNode node(const std::string& name) {
  autoscaler::CaNode n;
  n.node.name = name;
  n.node.labels = {{"kubernetes.io/hostname", name}};
  n.node.allocatable = {{"cpu", 4000}, {"memory", 16LL << 30}, {"pods", 110}};
  n.node.capacity = n.node.allocatable;
  return n;
}

Pod notebook(const std::string& claim) {
  auto p = decode_pod(json::parse(R"({"metadata": {"name": "jupyter-alice", "namespace": "jhub"},
    "spec": {"containers": [{"name": "notebook", "resources": {"requests": {"cpu": "500m"}}}],
             "volumes": [{"name": "home", "persistentVolumeClaim": {"claimName": ")" +
                                  claim + R"("}}]}})"),
                      JsonPath());
  EXPECT_TRUE(p);
  return p ? std::move(*p) : Pod{};
}

// kube-scheduler's verdict of the default profile, in a word.
std::string verdict(Cluster& c, const Pod& pod) {
  static const Profile profile = default_profile();
  auto plan = PodPlan::make(c, profile, pod);
  PlanScratch scratch;
  if (!plan) return "error: " + plan.error().what();
  const Decision d = decide(*plan, c, scratch);
  return d.chosen ? "bound to " + c.name(*d.chosen) : d.message;
}

constexpr std::string_view kNfsVolume = R"({"metadata": {"name": "home-nfs-pv"},
  "spec": {"capacity": {"storage": "1Mi"}, "accessModes": ["ReadWriteMany"], "storageClassName": "",
           "nfs": {"server": "10.0.0.2", "path": "/"},
           "claimRef": {"namespace": "jhub", "name": "home-nfs", "uid": "c1"}},
  "status": {"phase": "Bound"}})";
constexpr std::string_view kNfsClaim =
    R"({"metadata": {"name": "home-nfs", "namespace": "jhub", "uid": "c1",
    "annotations": {"pv.kubernetes.io/bind-completed": "yes"}},
  "spec": {"accessModes": ["ReadWriteMany"], "storageClassName": "", "volumeName": "home-nfs-pv",
           "resources": {"requests": {"storage": "1Mi"}}},
  "status": {"phase": "Bound"}})";

TEST(WatchedObjects, KeysAreNamespaceAndNameOrNameAndABadOneNamesItsField) {
  EXPECT_EQ(decoded("PersistentVolumeClaim", kNfsClaim).key, "jhub/home-nfs");
  EXPECT_EQ(decoded("PersistentVolume", kNfsVolume).key, "home-nfs-pv");
  auto nameless =
      decode_watched("StorageClass", json::parse(R"({"metadata": {}, "provisioner": "x"})"));
  ASSERT_FALSE(nameless);
  EXPECT_EQ(nameless.error().what(),
            "StorageClass.metadata.name: missing: an object without a name");
  auto bad = decode_watched("PersistentVolumeClaim",
                            json::parse(R"({"metadata": {"name": "c", "namespace": "jhub"},
                                            "spec": {"resources": {"requests": {"storage": "ten"}}}})"));
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().what().find("storage"), std::string::npos) << bad.error().what();
}

TEST(WatchedObjects, ClaimsAreJudgedOnWhatTheCacheHolds) {
  ClusterCache cache;
  cache.replace_nodes({node("user-a")});
  const Pod pod = notebook("home-nfs");
  // Until every storage kind is listed, a claim cannot be judged.
  EXPECT_NE(verdict(cache.cluster(), pod).find("error: "), std::string::npos);

  for (const auto& k : kWatchedKinds) {
    if (k.storage) cache.replace_objects(k, {});
  }
  EXPECT_EQ(verdict(cache.cluster(), pod),
            "0/1 nodes are available: persistentvolumeclaim \"home-nfs\" not found. preemption: "
            "0/1 nodes are "
            "available: 1 Preemption is not helpful for scheduling.");

  cache.upsert_object(kind("PersistentVolume"), decoded("PersistentVolume", kNfsVolume));
  cache.upsert_object(kind("PersistentVolumeClaim"), decoded("PersistentVolumeClaim", kNfsClaim));
  EXPECT_EQ(verdict(cache.cluster(), pod), "bound to user-a");

  cache.remove_object(kind("PersistentVolumeClaim"), "jhub/home-nfs");
  EXPECT_NE(verdict(cache.cluster(), pod).find("not found"), std::string::npos);
}

TEST(WatchedObjects, AWorkloadObjectChangesTheClusterInPlaceAStorageObjectRebuildsIt) {
  ClusterCache cache;
  cache.replace_nodes({node("user-a"), node("user-b")});
  const uint64_t first = cache.cluster().instance();
  const int64_t rebuilds = cache.rebuilds();

  cache.upsert_object(kind("ReplicaSet"),
                      decoded("ReplicaSet", R"({"metadata": {"name": "w", "namespace": "jhub"},
                                                "spec": {"selector": {"matchLabels": {"app": "w"}}}})"));
  const Cluster& after_rs = cache.cluster();
  EXPECT_EQ(cache.rebuilds(), rebuilds);
  EXPECT_NE(after_rs.instance(), first);
  EXPECT_EQ(after_rs.objects().replica_sets.size(), 1u);

  cache.upsert_object(kind("StorageClass"),
                      decoded("StorageClass", R"({"metadata": {"name": "standard-rwo"},
                                                     "provisioner": "pd.csi.storage.gke.io"})"));
  const Cluster& after_class = cache.cluster();
  EXPECT_EQ(cache.rebuilds(), rebuilds + 1);
  EXPECT_NE(after_class.storage().storage_class("standard-rwo"), nullptr);
  EXPECT_EQ(after_class.objects().replica_sets.size(), 1u);  // kept through the rebuild
}

TEST(WatchedObjects, AStatusUpdateChangesNothing) {
  ClusterCache cache;
  cache.replace_nodes({node("user-a")});
  const auto rs = [](int ready) {
    return decoded("ReplicaSet",
                   R"({"metadata": {"name": "w", "namespace": "jhub", "resourceVersion": ")" +
                       std::to_string(100 + ready) + R"("},
        "spec": {"replicas": 1, "selector": {"matchLabels": {"app": "w"}}},
        "status": {"replicas": 1, "readyReplicas": )" +
                       std::to_string(ready) + "}}");
  };
  EXPECT_TRUE(cache.upsert_object(kind("ReplicaSet"), rs(0)));
  const uint64_t instance = cache.cluster().instance();
  const uint64_t generation = cache.generation();
  // The worker became ready: the ReplicaSet's status moved, its selector did not.
  EXPECT_FALSE(cache.upsert_object(kind("ReplicaSet"), rs(1)));
  EXPECT_EQ(cache.generation(), generation);
  EXPECT_EQ(cache.cluster().instance(), instance);
  // A claim's phase alone moves its resourceVersion, which a volume binding reads.
  EXPECT_TRUE(cache.upsert_object(kind("PersistentVolumeClaim"),
                                  decoded("PersistentVolumeClaim", kNfsClaim)));
  auto again = decoded("PersistentVolumeClaim", kNfsClaim);
  again.resource_version = 42;
  EXPECT_FALSE(cache.upsert_object(kind("PersistentVolumeClaim"), std::move(again)));
  EXPECT_EQ(cache.objects().claim_version("jhub/home-nfs"), 42u);
  EXPECT_TRUE(cache.remove_object(kind("PersistentVolumeClaim"), "jhub/home-nfs"));
  EXPECT_FALSE(cache.remove_object(kind("PersistentVolumeClaim"), "jhub/home-nfs"));
}

}  // namespace
}  // namespace tightpack::daemon
