// Workload objects (Services, ReplicaSets, ...) replaced in place leave the
// cluster what a build with them would be: the decisions that read them
// (PodTopologySpread's system default selector) are those of a build, and
// plans made before are made again (a new instance).
#include <gtest/gtest.h>

#include "decision_by_name.hpp"
#include "test_util.hpp"
#include "tightpack/cluster.hpp"
#include "tightpack/decode.hpp"

namespace tightpack {
namespace {

using testing::decision_by_name;
using testing::json_of;
using testing::node_from_json;
using testing::pod_from_json;

Node zoned(const std::string& name, const std::string& zone) {
  return node_from_json(
      R"({"metadata": {"name": ")" + name + R"(", "labels": {"kubernetes.io/hostname": ")" + name +
      R"(", "topology.kubernetes.io/zone": ")" + zone +
      R"("}}, "status": {"allocatable": {"cpu": "8", "memory": "32Gi", "pods": "110"}}})");
}

// An operator worker: its ReplicaSet's pod, labelled as the operator labels it.
Pod worker(const std::string& name, const std::string& node) {
  Pod p = pod_from_json(R"({"metadata": {"name": ")" + name + R"(", "namespace": "jhub",
      "labels": {"dask.org/cluster-name": "a", "dask.org/component": "worker"},
      "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "a-workers",
                           "uid": "u1", "controller": true}]},
    "spec": {"containers": [{"name": "worker", "resources": {"requests": {"cpu": "1", "memory": "4Gi"}}}]}})");
  p.node_name = node;
  return p;
}

ApiObjects workload_objects() {
  ApiObjects o;
  bool known = false;
  auto add = [&](std::string_view kind, std::string_view text) {
    auto s = decode_api_object(kind, json_of(text), JsonPath(), o, known);
    ASSERT_TRUE(s) << s.error().what();
    ASSERT_TRUE(known);
  };
  add("ReplicaSet", R"({"metadata": {"name": "a-workers", "namespace": "jhub"},
      "spec": {"selector": {"matchLabels": {"dask.org/cluster-name": "a", "dask.org/component": "worker"}}}})");
  add("Service", R"({"metadata": {"name": "a-scheduler", "namespace": "jhub"},
      "spec": {"selector": {"dask.org/cluster-name": "a"}}})");
  add("Namespace", R"({"metadata": {"name": "jhub", "labels": {"team": "geo"}}})");
  return o;
}

TEST(ClusterObjects, ReplacedWorkloadObjectsDecideAsABuildWithThem) {
  std::vector<Node> nodes = {zoned("a-0", "a"), zoned("a-1", "a"), zoned("b-0", "b"),
                             zoned("b-1", "b")};
  std::vector<Pod> pods = {worker("w0", "a-0"), worker("w1", "a-0"), worker("w2", "a-1"),
                           worker("w3", "b-0")};
  const Pod incoming = worker("w4", "");

  auto in_place = Cluster::build(nodes, pods);
  ASSERT_TRUE(in_place);
  auto with = Cluster::build(nodes, pods, workload_objects());
  ASSERT_TRUE(with);
  const auto before = decision_by_name(*in_place, incoming);
  // The system default spread applies only once the owners are known.
  ASSERT_NE(before, decision_by_name(*with, incoming));

  const uint64_t instance = in_place->instance();
  in_place->replace_workload_objects(workload_objects());
  EXPECT_NE(instance, in_place->instance());
  EXPECT_EQ(decision_by_name(*in_place, incoming), decision_by_name(*with, incoming));
  EXPECT_TRUE(in_place->objects().namespaces_listed);

  // And back: without them, as before.
  in_place->replace_workload_objects(ApiObjects{});
  EXPECT_EQ(decision_by_name(*in_place, incoming), before);
}

TEST(ClusterObjects, ReplacingWorkloadObjectsKeepsTheStorageObjects) {
  ApiObjects storage;
  bool known = false;
  ASSERT_TRUE(decode_api_object("StorageClass", json_of(R"({"metadata": {"name": "standard-rwo"},
      "provisioner": "pd.csi.storage.gke.io", "volumeBindingMode": "WaitForFirstConsumer"})"),
                                JsonPath(), storage, known));
  auto c = Cluster::build({zoned("a-0", "a")}, {}, storage);
  ASSERT_TRUE(c);
  c->replace_workload_objects(workload_objects());
  EXPECT_TRUE(c->objects().storage_listed);
  EXPECT_EQ(c->objects().storage_classes.size(), 1u);
  EXPECT_NE(c->storage().storage_class("standard-rwo"), nullptr);
  EXPECT_EQ(c->objects().replica_sets.size(), 1u);
}

}  // namespace
}  // namespace tightpack
