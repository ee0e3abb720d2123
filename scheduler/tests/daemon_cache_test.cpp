// The watch cache keeps the engine's Cluster equal to its objects while pods
// come, go, are assumed and forgotten; /snapshot redacts it without changing
// what placement sees.
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <random>

#include "daemon/cache.hpp"
#include "daemon/snapshot.hpp"
#include "tightpack/what_if.hpp"

namespace tightpack::daemon {
namespace {
namespace json = boost::json;

autoscaler::CaNode node(const std::string& name, int cpu, const std::string& pool = "workers") {
  autoscaler::CaNode n;
  n.node.name = name;
  n.node.labels = {{"cloud.google.com/gke-nodepool", pool}};
  n.node.allocatable = {{"cpu", cpu * 1000}, {"memory", int64_t(cpu) * (4LL << 30)}, {"pods", 110}};
  n.node.capacity = n.node.allocatable;
  return n;
}

autoscaler::CaPod pod(const std::string& name, int64_t millicores, const std::string& node_name = "") {
  autoscaler::CaPod p;
  p.pod.ns = "jhub";
  p.pod.name = name;
  p.pod.uid = "uid-" + name;
  p.pod.node_name = node_name;
  p.pod.phase = node_name.empty() ? "Pending" : "Running";
  p.pod.labels = {{"app", "secret-" + name}};
  Container c;
  c.name = "notebook-of-" + name;
  c.image = "registry.example/private/" + name + ":1";
  c.requests = {{"cpu", millicores}, {"memory", 1LL << 30}};
  p.pod.containers.push_back(c);
  return p;
}

// The requested cpu per node name, as a Cluster sees it.
std::map<std::string, int64_t> cpu_by_node(const Cluster& c) {
  std::map<std::string, int64_t> out;
  for (NodeIndex n = 0; n < c.size(); ++n) out[c.name(n)] = c.req_cpu()[n];
  return out;
}

TEST(ClusterCache, IncrementalClusterEqualsARebuildAfterRandomEvents) {
  std::mt19937 rng(42);
  ClusterCache cache;
  std::vector<autoscaler::CaNode> nodes;
  for (int i = 0; i < 6; ++i) nodes.push_back(node("node-" + std::to_string(i), 8));
  cache.replace_nodes(nodes);
  std::vector<std::string> names;
  for (int step = 0; step < 2000; ++step) {
    const int op = static_cast<int>(rng() % 7);
    const std::string target = "node-" + std::to_string(rng() % 7);  // node-6 does not exist
    if (op <= 1 || names.empty()) {
      const std::string name = "p" + std::to_string(step);
      cache.upsert_pod(pod(name, 100 + 100 * (rng() % 5), op == 0 ? target : ""));
      names.push_back(name);
      continue;
    }
    const std::string name = names[rng() % names.size()];
    const std::string key = "jhub/" + name;
    const PodRecord* rec = cache.pod(key);
    switch (op) {
      case 2:  // bound by the watch
        if (rec) cache.upsert_pod(pod(name, rec->pod.pod.containers[0].requests[0].second, target));
        break;
      case 3:
        if (rec && rec->pending()) {
          Cluster& c = cache.cluster();
          cache.assume(key, target, BoundPod{key, 0, c.usage_of(rec->pod.pod), ""});
        }
        break;
      case 4:
        cache.forget(key);
        break;
      case 5:
        cache.remove_pod(key);
        break;
      case 6:
        if (rng() % 10 == 0) {  // a node changes or goes: the next cluster() rebuilds
          if (rng() % 2) cache.remove_node(target);
          else cache.upsert_node(node(target, 8 + static_cast<int>(rng() % 3)));
        }
        break;
    }
    if (step % 50 != 0) continue;
    const auto incremental = cpu_by_node(cache.cluster());
    // The same objects, decided from scratch.
    ClusterCache fresh;
    std::vector<autoscaler::CaNode> now_nodes;
    for (const auto& [n, v] : cache.nodes()) now_nodes.push_back(v);
    fresh.replace_nodes(now_nodes);
    std::map<std::string, int64_t> expected;
    for (const auto& [n, v] : cache.nodes()) expected[n] = 0;
    for (const auto& [k, r] : cache.pods()) {
      if (!r.holds().empty() && expected.count(r.holds())) expected[r.holds()] += r.pod.pod.containers[0].requests[0].second;
    }
    ASSERT_EQ(incremental, expected) << "step " << step;
  }
}

TEST(ClusterCache, ARelistKeepsAssumptionsOfPodsStillPending) {
  ClusterCache cache;
  cache.replace_nodes({node("a", 4)});
  cache.upsert_pod(pod("w", 1000));
  Cluster& c = cache.cluster();
  cache.assume("jhub/w", "a", BoundPod{"jhub/w", 0, c.usage_of(cache.pod("jhub/w")->pod.pod), ""});
  cache.replace_pods({pod("w", 1000)});
  EXPECT_EQ(cache.pod("jhub/w")->assumed_node, "a");
  EXPECT_EQ(cache.cluster().req_cpu()[0], 1000);
  cache.replace_pods({pod("w", 1000, "a")});  // the binding arrived
  EXPECT_EQ(cache.pod("jhub/w")->assumed_node, "");
  EXPECT_EQ(cache.cluster().req_cpu()[0], 1000);
}

TEST(Snapshot, NamesNoPodImageOrLabelAndPlacesTheSame) {
  ClusterCache cache;
  cache.replace_nodes({node("node-a", 8), node("node-b", 8, "gpu")});
  auto owned = pod("alice-worker", 1500, "node-a");
  owned.controller_kind = "ReplicaSet";
  owned.controller_name = "alice-dask-workers";
  owned.pod.annotations = {{"cluster-autoscaler.kubernetes.io/safe-to-evict", "true"}, {"secret-note", "alice"}};
  Container sidecar;
  sidecar.name = "alice-sidecar";
  sidecar.requests = {{"cpu", 250}};
  sidecar.restart_always = true;
  owned.pod.init_containers.push_back(sidecar);
  owned.pod.tolerations.push_back(Toleration{"dask", "Equal", "worker", "NoSchedule", std::nullopt});
  cache.upsert_pod(owned);
  cache.upsert_pod(pod("bob-notebook", 500, "node-b"));
  cache.upsert_pod(pod("carol-pending", 700));  // holds no room: not published
  const json::object snap = redacted_snapshot(cache, json::object{{"kind", "KubeSchedulerConfiguration"}}, std::nullopt,
                                              json::array{json::object{{"display_name", "Small"}}});
  const std::string text = json::serialize(snap);
  for (const char* secret : {"alice", "bob", "carol", "registry.example", "secret", "notebook-of", "jhub"}) {
    EXPECT_EQ(text.find(secret), std::string::npos) << secret << " in " << text;
  }
  EXPECT_NE(text.find("safe-to-evict"), std::string::npos);
  for (const char* key : {"cluster", "pools", "schedulerConfiguration", "profiles"}) EXPECT_TRUE(snap.contains(key)) << key;

  // The sidebar's engine sees the same fill as the scheduler.
  auto loaded = WhatIfCluster::load(snap.at("cluster"), JsonPath("cluster"));
  ASSERT_TRUE(loaded) << loaded.error().what();
  const Cluster& published = loaded->cluster();
  const Cluster& ours = cache.cluster();
  ASSERT_EQ(published.size(), ours.size());
  for (NodeIndex n = 0; n < ours.size(); ++n) {
    const NodeIndex m = published.find(ours.name(n));
    ASSERT_LT(m, published.size());
    EXPECT_EQ(published.req_cpu()[m], ours.req_cpu()[n]) << ours.name(n);
    EXPECT_EQ(published.req_memory()[m], ours.req_memory()[n]) << ours.name(n);
    EXPECT_EQ(published.nz_cpu()[m], ours.nz_cpu()[n]) << ours.name(n);
    EXPECT_EQ(published.pod_count()[m], ours.pod_count()[n]) << ours.name(n);
    EXPECT_EQ(published.alloc_cpu()[m], ours.alloc_cpu()[n]) << ours.name(n);
  }
}

}  // namespace
}  // namespace tightpack::daemon
