// What a Dask cluster's scheduler learns about the nodes its workers run on:
// how many of its workers each holds, and whether anything else keeps it.
#include "tightpack/pools/dask_nodes.hpp"

#include <gtest/gtest.h>

#include "test_util.hpp"

namespace tightpack::pools {
namespace {

using autoscaler::CaNode;
using autoscaler::CaPod;
using testing::json_of;

CaPod pod(const std::string& json) {
  auto p = autoscaler::decode_ca_pod(json_of(json), JsonPath());
  EXPECT_TRUE(p.ok()) << (p.ok() ? "" : p.error().what());
  return *p;
}

CaPod operator_worker(const std::string& name, const std::string& node,
                      const std::string& cluster = "alice") {
  return pod(
      R"({"metadata": {"name": ")" + name +
      R"(", "namespace": "jhub", "labels": {"dask.org/cluster-name": ")" + cluster +
      R"(", "dask.org/component": "worker"}, "ownerReferences": [{"kind": "ReplicaSet", "name": "rs",
             "controller": true}]}, "spec": {"nodeName": ")" +
      node + R"("}})");
}

CaNode node(const std::string& name, bool disabled = false) {
  std::string annotations =
      disabled
          ? R"(, "annotations": {"cluster-autoscaler.kubernetes.io/scale-down-disabled": "true"})"
          : "";
  auto n = autoscaler::decode_ca_node(
      json_of(R"({"metadata": {"name": ")" + name +
              R"(", "labels": {"cloud.google.com/gke-nodepool": ")" +
              (name.starts_with("core") ? "core" : "workers") + R"("})" + annotations + "}}"),
      JsonPath());
  EXPECT_TRUE(n.ok());
  return *n;
}

TEST(DaskNodeHints, CountsWorkersAndSaysWhatElseKeepsANode) {
  std::vector<CaNode> nodes{node("w-1"), node("w-2"), node("w-3"), node("w-4", true),
                            node("core-0")};
  std::vector<CaPod> pods{
      operator_worker("alice-a", "w-1"),
      operator_worker("alice-b", "w-1"),  // only alice's: empties
      operator_worker("alice-c", "w-2"), operator_worker("bob-a", "w-2", "bob"),  // bob keeps w-2
      operator_worker("alice-d", "w-3"),
      pod(R"({"metadata": {"name": "fluentbit-x", "namespace": "kube-system", "ownerReferences": [{"kind":
          "DaemonSet", "name": "fluentbit", "controller": true}]}, "spec": {"nodeName": "w-3"}})"),
      operator_worker("alice-e", "w-4"),  // scale-down disabled
      // alice's scheduler is no worker: it stays when the workers go.
      pod(R"({"metadata": {"name": "alice-scheduler", "namespace": "jhub", "labels": {"dask.org/cluster-name":
          "alice", "dask.org/component": "scheduler"}}, "spec": {"nodeName": "core-0"}})"),
      operator_worker("alice-f", "core-0"),
      // A dask-gateway cluster of the same name in another namespace is another cluster.
      pod(R"({"metadata": {"name": "g", "namespace": "other", "labels": {"gateway.dask.org/cluster": "alice",
          "app.kubernetes.io/component": "dask-worker"}}, "spec": {"nodeName": "w-3"}})")};
  std::vector<const CaNode*> np;
  for (const CaNode& n : nodes) np.push_back(&n);
  std::vector<const CaPod*> pp;
  for (const CaPod& p : pods) pp.push_back(&p);
  PoolsConfig config;
  NodePool core;
  core.name = "core";
  core.min_size = 1;
  core.node_labels = {{"cloud.google.com/gke-nodepool", "core"}};
  config.pools.push_back(core);
  std::vector<Node> plain;
  for (const CaNode& n : nodes) plain.push_back(n.node);
  ResolvedPools resolved = resolve_pools(config, plain);

  auto hints = dask_node_hints(np, pp, resolved, DaskCluster{"jhub", "alice"});
  ASSERT_EQ(hints.size(), 5u);
  auto at = [&](size_t i) { return std::tuple(hints[i].node, hints[i].workers, hints[i].kept); };
  EXPECT_EQ(at(0), std::tuple(std::string("core-0"), int64_t{1},
                              true));  // its scheduler, and core at min size
  EXPECT_EQ(at(1), std::tuple(std::string("w-1"), int64_t{2}, false));
  EXPECT_EQ(at(2), std::tuple(std::string("w-2"), int64_t{1}, true));
  EXPECT_EQ(at(3),
            std::tuple(std::string("w-3"), int64_t{1}, true));  // the gateway cluster "other/alice"
  EXPECT_EQ(at(4), std::tuple(std::string("w-4"), int64_t{1}, true));

  // dask-gateway's labels, and nothing for a cluster with no workers.
  auto gateway = dask_node_hints(np, pp, resolved, DaskCluster{"other", "alice"});
  ASSERT_EQ(gateway.size(), 1u);
  EXPECT_EQ(gateway[0].node, "w-3");
  EXPECT_TRUE(gateway[0].kept);  // alice's operator worker there
  EXPECT_TRUE(dask_node_hints(np, pp, resolved, DaskCluster{"jhub", "carol"}).empty());
}

}  // namespace
}  // namespace tightpack::pools
