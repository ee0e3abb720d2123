#include "tightpack/pools/scale_up_prediction.hpp"

#include <gtest/gtest.h>

#include "test_util.hpp"
#include "tightpack/autoscaler/estimator.hpp"
#include "tightpack/autoscaler/expander.hpp"
#include "tightpack/autoscaler/node_template.hpp"

namespace tightpack::pools {
namespace {

using testing::json_of;
using testing::pod_from_json;

// A NodePools pool whose template is `cpu` / `memory` plus `template_fields`
// (labels, taints), with `fields` for the pool itself.
std::string pool(const std::string& name, const std::string& cpu, const std::string& memory,
                 const std::string& fields = "", const std::string& template_fields = "") {
  return R"({"name":")" + name + R"(","template":{"allocatable":{"cpu":")" + cpu +
         R"(","memory":")" + memory + R"(","pods":"110"})" +
         (template_fields.empty() ? "" : "," + template_fields) + "}" +
         (fields.empty() ? "" : "," + fields) + "}";
}

// A node of a GKE pool.
std::string node(const std::string& name, const std::string& pool_name, const std::string& cpu,
                 const std::string& memory, const std::string& more_allocatable = "",
                 const std::string& taints = "[]") {
  return R"({"kind":"Node","metadata":{"name":")" + name +
         R"(","labels":{"cloud.google.com/gke-nodepool":")" + pool_name +
         R"("}},"spec":{"taints":)" + taints + R"(},"status":{"allocatable":{"cpu":")" + cpu +
         R"(","memory":")" + memory + R"(","pods":"110")" + more_allocatable + "}}}";
}

std::string bound(const std::string& name, const std::string& node_name,
                  const std::string& requests) {
  return R"({"kind":"Pod","metadata":{"name":")" + name +
         R"(","namespace":"ns"},"spec":{"nodeName":")" + node_name +
         R"(","containers":[{"name":"c","resources":{"requests":)" + requests + "}}]}}";
}

std::string pending(const std::string& name, const std::string& requests) {
  return R"({"kind":"Pod","metadata":{"name":")" + name +
         R"(","namespace":"other"},"spec":{"containers":[{"name":"c","resources":{"requests":)" +
         requests + "}}]},\"status\":{\"phase\":\"Pending\"}}";
}

// The user's pod: `requests` plus `spec` fields.
Pod user_pod(const std::string& requests, const std::string& spec = "", int32_t priority = 0) {
  Pod p = pod_from_json(
      R"({"metadata":{"name":"w","namespace":"ns"},"spec":{"containers":[{"name":"c","resources":{"requests":)" +
      requests + "}}]" + (spec.empty() ? "" : "," + spec) + "}}");
  p.priority = priority;
  return p;
}

struct PoolsCase {
  ClusterSnapshot snapshot;
  PoolsConfig config;
  ResolvedPools pools;
};

// `cluster` is a comma-separated list of objects; `pools_doc` the NodePools
// fields after apiVersion and kind.
PoolsCase setup(const std::string& cluster, const std::string& pools_doc) {
  PoolsCase s;
  auto snap =
      decode_cluster_snapshot(json_of(R"({"kind":"List","items":[)" + cluster + "]}"), JsonPath());
  if (!snap) ADD_FAILURE() << snap.error().what();
  auto config = decode_pools_config(
      json_of(R"({"apiVersion":"tightpack.io/v1alpha1","kind":"NodePools",)" + pools_doc + "}"),
      JsonPath());
  if (!config) ADD_FAILURE() << config.error().what();
  if (!snap || !config) return s;
  s.snapshot = std::move(*snap);
  s.config = std::move(*config);
  std::vector<Node> nodes;
  for (const auto& n : s.snapshot.nodes) nodes.push_back(n.node);
  s.pools = resolve_pools(s.config, nodes);
  return s;
}

// `today`: where each replica runs today, "" for those that fit nowhere.
ScaleUpPrediction predict(const PoolsCase& s, const Pod& pod, std::vector<std::string> today) {
  auto p = predict_scale_up(s.snapshot, s.pools, s.config, default_profile(),
                            Replicas{pod, std::move(today)});
  if (!p) {
    ADD_FAILURE() << p.error().what();
    return {};
  }
  return std::move(*p);
}

ScaleUpPrediction predict(const PoolsCase& s, const Pod& pod, size_t waiting) {
  return predict(s, pod, std::vector<std::string>(waiting));
}

std::vector<std::string> keys(const std::string& ns_name, size_t from, size_t to) {
  std::vector<std::string> out;
  for (size_t i = from; i < to; ++i) out.push_back(ns_name + "-" + std::to_string(i));
  return out;
}

const PoolDetail& detail(const Unplaced& u, const std::string& pool_name) {
  for (const PoolDetail& d : u.pools) {
    if (d.pool == pool_name) return d;
  }
  static const PoolDetail none;
  ADD_FAILURE() << "no detail for " << pool_name;
  return none;
}

constexpr const char* kTwoCpu = R"({"cpu":"2","memory":"1Gi"})";

TEST(ScaleUpPrediction, FirstFitDecreasingAcrossReplicas) {
  // Ten workers of 2 CPU on pools of 8-CPU nodes need 3 new nodes, not 10.
  PoolsCase s = setup("", R"("pools":[)" + pool("workers", "8", "32Gi", R"("maxSize":20)") + "]");
  ScaleUpPrediction p = predict(s, user_pod(kTwoCpu), 10);
  EXPECT_EQ(p.replicas_pending, 10);
  ASSERT_EQ(p.growth.size(), 1u);
  const PoolGrowth& g = p.growth[0];
  EXPECT_EQ(g.pool, "workers");
  EXPECT_EQ(g.nodes_added, 3);
  EXPECT_EQ(g.estimated, 3);
  EXPECT_EQ(g.loops, (std::vector<int64_t>{1}));
  EXPECT_EQ(g.replicas, keys("ns/w", 0, 10));
  EXPECT_TRUE(g.other_pods.empty());
  EXPECT_FALSE(g.max_size_reached);
  EXPECT_TRUE(p.unplaced.empty());
  EXPECT_TRUE(p.every_replica_runs());
  EXPECT_EQ(p.loops, 2);  // the second finds every replica a place
}

TEST(ScaleUpPrediction, NothingPendingRunsNoLoop) {
  PoolsCase s = setup(node("n1", "workers", "8", "32Gi"), "\"pools\":[]");
  ScaleUpPrediction p = predict(s, user_pod(kTwoCpu), std::vector<std::string>{"n1", "n1"});
  EXPECT_EQ(p.replicas_pending, 0);
  EXPECT_EQ(p.loops, 0);
  EXPECT_TRUE(p.growth.empty());
  EXPECT_TRUE(p.every_replica_runs());
}

TEST(ScaleUpPrediction, ReplicasPlacedTodayTakeTheirRoom) {
  // Four replicas fill the existing 8-CPU node; CA must not count that room again.
  PoolsCase s = setup(node("n1", "workers", "8", "32Gi"), "\"pools\":[]");
  ScaleUpPrediction p =
      predict(s, user_pod(kTwoCpu), std::vector<std::string>{"n1", "n1", "n1", "n1", "", ""});
  EXPECT_EQ(p.replicas_pending, 2);
  ASSERT_EQ(p.growth.size(), 1u);
  EXPECT_EQ(p.growth[0].pool, "workers");  // inferred from the node's GKE label
  EXPECT_EQ(p.growth[0].source, PoolSource::kInferred);
  EXPECT_EQ(p.growth[0].nodes_added, 1);
  EXPECT_EQ(p.growth[0].replicas, (std::vector<std::string>{"ns/w-4", "ns/w-5"}));
  EXPECT_FALSE(p.growth[0].template_from_configuration);  // a copy of n1
  EXPECT_FALSE(p.growth[0].max_size.has_value());
}

TEST(ScaleUpPrediction, TheClustersPendingPodsCompete) {
  PoolsCase s = setup(pending("a", kTwoCpu) + "," + pending("b", kTwoCpu),
                      R"("pools":[)" + pool("workers", "8", "32Gi") + "]");
  ScaleUpPrediction p = predict(s, user_pod(kTwoCpu), 10);
  ASSERT_EQ(p.growth.size(), 1u);
  EXPECT_EQ(p.growth[0].nodes_added, 3);  // 12 pods, four per node
  EXPECT_EQ(p.growth[0].replicas.size(), 10u);
  EXPECT_EQ(p.growth[0].other_pods, (std::vector<std::string>{"other/a", "other/b"}));
}

TEST(ScaleUpPrediction, OnlyPoolsPassingTheFilters) {
  PoolsCase s = setup(
      "",
      R"("pools":[)" +
          pool(
              "tainted", "16", "64Gi", "",
              R"("labels":{"purpose":"worker"},"taints":[{"key":"dask","value":"worker","effect":"NoSchedule"}])") +
          "," + pool("unlabelled", "16", "64Gi") + "," +
          pool("small", "1", "64Gi", "", R"("labels":{"purpose":"worker"})") + "," +
          pool("right", "8", "32Gi", "", R"("labels":{"purpose":"worker"})") + "]");
  ScaleUpPrediction p = predict(s, user_pod(kTwoCpu, R"("nodeSelector":{"purpose":"worker"})"), 3);
  ASSERT_EQ(p.growth.size(), 1u);
  EXPECT_EQ(p.growth[0].pool, "right");
  EXPECT_EQ(p.growth[0].nodes_added, 1);
  EXPECT_TRUE(p.unplaced.empty());
}

TEST(ScaleUpPrediction, MaxSizeRespectedAndNamed) {
  PoolsCase s = setup("", R"("pools":[)" + pool("workers", "8", "32Gi", R"("maxSize":2)") + "]");
  ScaleUpPrediction p = predict(s, user_pod(kTwoCpu), 10);
  ASSERT_EQ(p.growth.size(), 1u);
  EXPECT_EQ(p.growth[0].nodes_added, 2);
  EXPECT_EQ(p.growth[0].estimated, 2);  // the estimator stops at the pool's room
  EXPECT_TRUE(p.growth[0].max_size_reached);
  EXPECT_EQ(p.growth[0].replicas, keys("ns/w", 0, 8));
  ASSERT_EQ(p.unplaced.size(), 1u);
  EXPECT_EQ(p.unplaced[0].replicas, keys("ns/w", 8, 10));
  EXPECT_EQ(p.unplaced[0].reason, "max size 2 of pool workers reached");
  EXPECT_EQ(detail(p.unplaced[0], "workers").autoscaler,
            (std::vector<std::string>{"max node group size reached"}));
  EXPECT_TRUE(detail(p.unplaced[0], "workers").filters.empty());
  EXPECT_FALSE(p.every_replica_runs());
}

TEST(ScaleUpPrediction, MaxSizeOfAPoolWithNodesAllBusy) {
  std::string cluster;
  for (int i = 0; i < 10; ++i) {
    const std::string n = "gpu-" + std::to_string(i);
    cluster += (i ? "," : "") + node(n, "gpu-t4", "8", "30Gi", R"(,"nvidia.com/gpu":"1")") + "," +
               bound("busy-" + std::to_string(i), n, R"({"cpu":"1","nvidia.com/gpu":"1"})");
  }
  PoolsCase s = setup(cluster, R"("pools":[{"name":"gpu-t4","maxSize":10}])");
  ScaleUpPrediction p = predict(s, user_pod(R"({"cpu":"1","nvidia.com/gpu":"1"})"), 2);
  EXPECT_TRUE(p.growth.empty());
  ASSERT_EQ(p.unplaced.size(), 1u);
  EXPECT_EQ(p.unplaced[0].reason, "max size 10 of pool gpu-t4 reached");
}

// Two pools that both take 4 workers of 2 CPU / 2 GiB: "small" needs two
// nodes and wastes less, "large" one node.
PoolsCase two_pools(const std::string& expander, const std::string& small_fields,
                    const std::string& large_fields) {
  return setup("", expander + R"("pools":[)" + pool("small", "4", "16Gi", small_fields) + "," +
                       pool("large", "16", "64Gi", large_fields) + "]");
}

std::string chosen(const ScaleUpPrediction& p) {
  return p.growth.empty() ? "" : p.growth[0].pool;
}

TEST(ScaleUpPrediction, Expanders) {
  const Pod w = user_pod(R"({"cpu":"2","memory":"2Gi"})");
  const std::string prices_small_02 = R"("pricePerHour":0.2)";
  const std::string prices_large_03 = R"("pricePerHour":0.3)";
  // least-waste (the default): small wastes 0 cpu + 0.75 memory, large 0.5 + 0.875.
  ScaleUpPrediction p = predict(two_pools("", prices_small_02, prices_large_03), w, 4);
  EXPECT_EQ(chosen(p), "small");
  EXPECT_EQ(p.growth[0].nodes_added, 2);
  EXPECT_DOUBLE_EQ(*p.growth[0].added_price_per_hour, 0.4);
  // price: 2 × 0.2 against 1 × 0.3.
  p = predict(two_pools(R"("expander":"price",)", prices_small_02, prices_large_03), w, 4);
  EXPECT_EQ(chosen(p), "large");
  EXPECT_EQ(p.growth[0].nodes_added, 1);
  EXPECT_DOUBLE_EQ(*p.growth[0].price_per_hour, 0.3);
  EXPECT_DOUBLE_EQ(*p.growth[0].added_price_per_hour, 0.3);
  // most-pods: both take 4, the tie goes to the lowest name and is reported.
  p = predict(two_pools(R"("expander":"most-pods",)", "", ""), w, 4);
  EXPECT_EQ(chosen(p), "large");
  EXPECT_EQ(p.growth[0].tied, (std::vector<std::string>{"small"}));
  // random: deterministic, the lowest name among the tied.
  p = predict(two_pools(R"("expander":"random",)", "", ""), w, 4);
  EXPECT_EQ(chosen(p), "large");
  EXPECT_EQ(p.growth[0].tied, (std::vector<std::string>{"small"}));
  // priority, with a pattern for small only.
  p = predict(two_pools(R"("expander":"priority","expanderPriorities":{"10":["sm.*"]},)", "", ""),
              w, 4);
  EXPECT_EQ(chosen(p), "small");
  EXPECT_TRUE(p.growth[0].tied.empty());
}

TEST(ScaleUpPrediction, PriceExpanderUnpricedPoolsRankLastAndTiesGoOn) {
  const Pod w = user_pod(R"({"cpu":"2","memory":"2Gi"})");
  // Only small has a price: it ranks first although 2 × 5.0 is dear.
  ScaleUpPrediction p =
      predict(two_pools(R"("expander":"price",)", R"("pricePerHour":5)", ""), w, 4);
  EXPECT_EQ(chosen(p), "small");
  // Only large has a price.
  p = predict(two_pools(R"("expander":"price",)", "", R"("pricePerHour":5)"), w, 4);
  EXPECT_EQ(chosen(p), "large");
  // 2 × 0.25 = 1 × 0.5: the tie goes to least-waste.
  p = predict(two_pools(R"("expander":"price,least-waste",)", R"("pricePerHour":0.25)",
                        R"("pricePerHour":0.5)"),
              w, 4);
  EXPECT_EQ(chosen(p), "small");
  // No prices at all: price narrows nothing, the tie goes to the lowest name.
  p = predict(two_pools(R"("expander":"price",)", "", ""), w, 4);
  EXPECT_EQ(chosen(p), "large");
  EXPECT_EQ(p.growth[0].tied, (std::vector<std::string>{"small"}));
}

TEST(ScaleUpPrediction, PriceFilterDirectly) {
  Node n = testing::make_node("n", 4000, 16 * testing::kGi);
  std::vector<autoscaler::ExpansionOption> options = {
      {"a", 3, {}, &n}, {"b", 1, {}, &n}, {"c", 2, {}, &n}, {"d", 1, {}, &n}};
  const std::map<std::string, double> prices = {{"a", 1.0}, {"b", 3.0}, {"c", 1.5}};
  // a: 3.0, b: 3.0, c: 3.0, d: unpriced.
  EXPECT_EQ(autoscaler::price_filter(options, {0, 1, 2, 3}, prices),
            (std::vector<size_t>{0, 1, 2}));
  EXPECT_EQ(autoscaler::price_filter(options, {2, 3}, prices), (std::vector<size_t>{2}));
  EXPECT_EQ(autoscaler::price_filter(options, {3}, prices), (std::vector<size_t>{3}));
  // b and d cost 0.5 each, a and c are unpriced: the tie goes to the lowest name.
  autoscaler::Choice c =
      autoscaler::choose_option(options, {"price"}, {}, {{"d", 0.5}, {"b", 0.5}});
  EXPECT_EQ(options[c.chosen].group, "b");
  EXPECT_EQ(c.tied, (std::vector<size_t>{1, 3}));
}

TEST(ScaleUpPrediction, NoPoolOffersTheResource) {
  PoolsCase s = setup(
      "", R"("pools":[)" + pool("core", "4", "16Gi") + "," + pool("workers", "16", "64Gi") + "]");
  ScaleUpPrediction p = predict(s, user_pod(R"({"cpu":"1","nvidia.com/gpu":"1"})"), 2);
  EXPECT_TRUE(p.growth.empty());
  ASSERT_EQ(p.unplaced.size(), 1u);
  EXPECT_EQ(p.unplaced[0].replicas, keys("ns/w", 0, 2));
  EXPECT_EQ(p.unplaced[0].reason, "no pool offers nvidia.com/gpu");
  EXPECT_EQ(detail(p.unplaced[0], "core").autoscaler,
            (std::vector<std::string>{"Insufficient nvidia.com/gpu"}));
  EXPECT_EQ(detail(p.unplaced[0], "workers").filters,
            (std::vector<std::string>{"Insufficient nvidia.com/gpu"}));
}

TEST(ScaleUpPrediction, UntoleratedTaintOnEveryPoolThatFits) {
  PoolsCase s =
      setup("", R"("pools":[)" + pool("core", "2", "8Gi") + "," +
                    pool("dask-workers", "16", "64Gi", "",
                         R"("taints":[{"key":"dask","value":"worker","effect":"NoSchedule"}])") +
                    "]");
  ScaleUpPrediction p = predict(s, user_pod(R"({"cpu":"4","memory":"9Gi"})"), 3);
  ASSERT_EQ(p.unplaced.size(), 1u);
  EXPECT_EQ(p.unplaced[0].reason,
            "untolerated taint dask=worker:NoSchedule on every pool that fits (dask-workers)");
  // The filter's reason names no taint since kubernetes#134740 (v1.35, which
  // cluster-autoscaler vendors); the unplaced reason above still does.
  EXPECT_EQ(detail(p.unplaced[0], "dask-workers").autoscaler,
            (std::vector<std::string>{"node(s) had untolerated taint(s)"}));
  EXPECT_EQ(detail(p.unplaced[0], "core").filters,
            (std::vector<std::string>{"Insufficient cpu", "Insufficient memory"}));
}

TEST(ScaleUpPrediction, TaintHidesNoMissingResource) {
  // CA stops at the taint; the diagnosis still sees that no pool has a GPU.
  PoolsCase s =
      setup("", R"("pools":[)" +
                    pool("dask-workers", "16", "64Gi", "",
                         R"("taints":[{"key":"dask","value":"worker","effect":"NoSchedule"}])") +
                    "]");
  ScaleUpPrediction p = predict(s, user_pod(R"({"cpu":"1","nvidia.com/gpu":"1"})"), 1);
  ASSERT_EQ(p.unplaced.size(), 1u);
  EXPECT_EQ(p.unplaced[0].reason, "no pool offers nvidia.com/gpu");
  const PoolDetail& d = detail(p.unplaced[0], "dask-workers");
  EXPECT_EQ(d.autoscaler, (std::vector<std::string>{"node(s) had untolerated taint(s)"}));
  EXPECT_EQ(d.filters, (std::vector<std::string>{"node(s) had untolerated taint(s)",
                                                 "Insufficient nvidia.com/gpu"}));
}

TEST(ScaleUpPrediction, SelectorMismatchAndMixedRejections) {
  const std::string pools =
      R"("pools":[)" + pool("a", "8", "32Gi", "", R"("labels":{"purpose":"core"})") + "," +
      pool("b", "8", "32Gi", "",
           R"("labels":{"purpose":"worker"},"taints":[{"key":"gpu","effect":"NoSchedule"}])") +
      "]";
  PoolsCase s = setup("", pools);
  ScaleUpPrediction p = predict(s, user_pod(kTwoCpu, R"("nodeSelector":{"purpose":"science"})"), 1);
  ASSERT_EQ(p.unplaced.size(), 1u);
  EXPECT_EQ(p.unplaced[0].reason, "node selector/affinity mismatch on every pool that fits (a, b)");
  p = predict(s, user_pod(kTwoCpu, R"("nodeSelector":{"purpose":"worker"})"), 1);
  ASSERT_EQ(p.unplaced.size(), 1u);
  EXPECT_EQ(p.unplaced[0].reason,
            "every pool that fits rejects it (a: node selector/affinity mismatch; b: untolerated "
            "taint gpu:NoSchedule)");
}

TEST(ScaleUpPrediction, TooLargeForEveryPool) {
  PoolsCase s =
      setup("", R"("pools":[)" + pool("a", "4", "16Gi") + "," + pool("b", "8", "8Gi") + "]");
  ScaleUpPrediction p = predict(s, user_pod(R"({"cpu":"10","memory":"1Gi"})"), 1);
  ASSERT_EQ(p.unplaced.size(), 1u);
  EXPECT_EQ(p.unplaced[0].reason, "no pool's new node has enough cpu for one replica");
  p = predict(s, user_pod(R"({"cpu":"6","memory":"12Gi"})"), 1);
  EXPECT_EQ(p.unplaced[0].reason,
            "no pool's new node is large enough (a: not enough cpu; b: not enough memory)");
}

TEST(ScaleUpPrediction, ExpendableReplicasNeverTriggerAScaleUp) {
  PoolsCase s = setup("", R"("pools":[)" + pool("workers", "8", "32Gi") + "]");
  ScaleUpPrediction p = predict(s, user_pod(kTwoCpu, "", -20), 2);
  EXPECT_TRUE(p.growth.empty());
  ASSERT_EQ(p.unplaced.size(), 1u);
  EXPECT_EQ(p.unplaced[0].reason,
            "priority -20 is below cluster-autoscaler's expendable-pods cutoff -10: no pool grows "
            "for it");
}

TEST(ScaleUpPrediction, NoPoolAtAll) {
  PoolsCase s =
      setup(R"({"kind":"Node","metadata":{"name":"bare"},"status":{"allocatable":{"cpu":"1"}}})",
            "\"pools\":[]");
  ScaleUpPrediction p = predict(s, user_pod(kTwoCpu), 1);
  ASSERT_EQ(p.unplaced.size(), 1u);
  EXPECT_NE(p.unplaced[0].reason.find("no pool can grow"), std::string::npos);
}

TEST(ScaleUpPrediction, WaitsAreProvisioningTimesAfterTheScanIntervals) {
  // "a" wastes less but holds one node; "b" takes the rest a loop later.
  PoolsCase s = setup(
      "", R"("pools":[)" + pool("a", "4", "4Gi", R"("maxSize":1,"provisioningTime":"2m")") + "," +
              pool("b", "16", "64Gi", R"("provisioningTime":"10m","preemptible":true)") + "]");
  ScaleUpPrediction p = predict(s, user_pod(R"({"cpu":"2","memory":"2Gi"})"), 6);
  ASSERT_EQ(p.growth.size(), 2u);
  EXPECT_EQ(p.growth[0].pool, "a");
  EXPECT_EQ(p.growth[0].nodes_added, 1);
  EXPECT_EQ(p.growth[0].replicas.size(), 2u);
  EXPECT_EQ(p.growth[0].provisioning_seconds, 120);
  EXPECT_EQ(p.growth[0].ready_in_seconds, 120);
  EXPECT_TRUE(p.growth[0].template_from_configuration);
  EXPECT_FALSE(p.growth[0].preemptible);
  EXPECT_EQ(p.growth[1].pool, "b");
  EXPECT_EQ(p.growth[1].loops, (std::vector<int64_t>{2}));
  EXPECT_EQ(p.growth[1].nodes_added, 1);
  EXPECT_EQ(p.growth[1].replicas.size(), 4u);
  EXPECT_EQ(p.growth[1].ready_in_seconds, kScanIntervalSeconds + 600);
  EXPECT_TRUE(p.growth[1].preemptible);
  EXPECT_TRUE(p.every_replica_runs());
}

TEST(ScaleUpPrediction, ReplicasOfASimulation) {
  Cluster c = testing::build_cluster({testing::make_node("n1", 4000, 16 * testing::kGi)});
  Pod w = user_pod(kTwoCpu);
  auto sim = simulate_replicas(c, default_profile(), w, 3);
  ASSERT_TRUE(sim.ok());
  Replicas r = replicas_of(w, *sim, c);
  EXPECT_EQ(r.pod.name, "w");
  EXPECT_EQ(r.nodes, (std::vector<std::string>{"n1", "n1", ""}));
}

// The estimator packs onto batches of template copies, one plan per class of
// pods that differ only by name; neither may change its answer.
std::vector<const Pod*> pointers(const std::vector<Pod>& pods) {
  std::vector<const Pod*> out;
  for (const Pod& p : pods) out.push_back(&p);
  return out;
}

Pod sized(std::string name, int64_t milli_cpu, int32_t host_port = 0) {
  Pod p = testing::make_pod(std::move(name),
                            {testing::resources({{"cpu", milli_cpu}, {"memory", testing::kGi}})});
  if (host_port)
    p.containers.mut()[0].ports.push_back(ContainerPort{host_port, host_port, "TCP", ""});
  return p;
}

TEST(EstimatorBatches, StartOverWithMoreNodesWhenTheFirstBatchRunsOut) {
  // A host port allows one pod per node whatever the requests: the first
  // batch, guessed from the requests, is too small.
  autoscaler::NodeTemplate t{testing::make_node("tmpl", 8000, 32 * testing::kGi), {}};
  std::vector<Pod> pods;
  for (int i = 0; i < 50; ++i) pods.push_back(sized("p-" + std::to_string(i), 100, 8080));
  auto e = autoscaler::estimate(t, pointers(pods), default_profile());
  ASSERT_TRUE(e.ok()) << e.error().what();
  EXPECT_EQ(e->node_count, 50);
  EXPECT_EQ(e->scheduled.size(), 50u);
  e = autoscaler::estimate(t, pointers(pods), default_profile(), 40);  // the limiter
  ASSERT_TRUE(e.ok());
  EXPECT_EQ(e->node_count, 40);
  EXPECT_EQ(e->scheduled.size(), 40u);
}

TEST(EstimatorBatches, SharedPlansGiveTheSameAnswer) {
  autoscaler::NodeTemplate t{testing::make_node("tmpl", 8000, 32 * testing::kGi), {}};
  std::vector<Pod> pods;
  std::vector<uint32_t> classes;
  for (int i = 0; i < 90; ++i) {
    const int kind = i % 3;  // interleaved, so that classes resume their scans
    pods.push_back(sized("p-" + std::to_string(i),
                         kind == 0   ? 3000
                         : kind == 1 ? 1500
                                     : 700,
                         kind == 2 ? 9000 : 0));
    classes.push_back(static_cast<uint32_t>(kind));
  }
  auto own = autoscaler::estimate(t, pointers(pods), default_profile());
  auto shared = autoscaler::estimate(t, pointers(pods), default_profile(),
                                     autoscaler::kMaxNodesPerScaleUp, classes);
  ASSERT_TRUE(own.ok() && shared.ok());
  // 15 nodes of two 3-CPU pods and one 1.5-CPU pod, 3 of five 1.5-CPU pods,
  // and one node per host-port pod (no node above has 0.7 CPU left).
  EXPECT_EQ(own->node_count, 48);
  EXPECT_EQ(shared->node_count, own->node_count);
  EXPECT_EQ(shared->scheduled, own->scheduled);
}

TEST(ScaleUpPrediction, TaintText) {
  EXPECT_EQ(taint_text(Taint{"dask", "worker", "NoSchedule"}), "dask=worker:NoSchedule");
  EXPECT_EQ(taint_text(Taint{"nvidia.com/gpu", "", "NoExecute"}), "nvidia.com/gpu:NoExecute");
}

}  // namespace
}  // namespace tightpack::pools
