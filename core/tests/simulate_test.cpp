#include "tightpack/simulate.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <numeric>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "test_util.hpp"
#include "tightpack/built_in_profiles.hpp"
#include "tightpack/replay.hpp"

namespace tightpack {
namespace {

using testing::bound_pod;
using testing::build_cluster;
using testing::json_of;
using testing::kGi;
using testing::kMi;
using testing::make_node;
using testing::make_pod;
using testing::resources;

Profile z2jh_profile() {
  auto c = decode_scheduler_configuration(json_of(kZ2jhUserSchedulerConfig), JsonPath());
  return c ? c->profiles.front() : Profile{};
}

Profile tightpack_profile() {
  auto p = built_in_profile("tightpack");
  return p ? *p : Profile{};
}

Profile rtc_profile() {
  std::string name;
  auto p = resolve_scenario_profile(boost::json::value("rtc"), JsonPath(), name);
  return p ? *p : Profile{};
}

std::vector<std::string> placements(const Cluster& c, const SimulationResult& r) {
  std::vector<std::string> out;
  for (const auto& p : r.replicas) out.push_back(p.node ? c.name(*p.node) : "-");
  return out;
}

TEST(SimulateReplicas, LeastAllocatedSpreads) {
  Cluster c = build_cluster({make_node("a", 4000, 8 * kGi), make_node("b", 4000, 8 * kGi)});
  Profile profile = default_profile();
  auto r = simulate_replicas(c, profile,
                             make_pod("web", {resources({{"cpu", 1000}, {"memory", kGi}})}), 4);
  ASSERT_TRUE(r) << r.error().what();
  EXPECT_EQ(placements(c, *r), (std::vector<std::string>{"a", "b", "a", "b"}));
  EXPECT_EQ(r->replicas[0].pod, "default/web-0");
  EXPECT_EQ(r->replicas[3].pod, "default/web-3");
  EXPECT_EQ(r->replicas[0].tied, 2u);  // both empty nodes score the same
  EXPECT_EQ(r->replicas[1].tied, 1u);
  EXPECT_TRUE(r->unschedulable_message.empty());
  EXPECT_EQ(c.pods_on(0).size(), 2u);
  EXPECT_EQ(c.req_cpu()[1], 2000);
  EXPECT_EQ(c.pods_on(1)[1].key, "default/web-3");
}

TEST(SimulateReplicas, MostAllocatedPacks) {
  Cluster c = build_cluster({make_node("a", 4000, 8 * kGi), make_node("b", 4000, 8 * kGi)});
  Profile profile = z2jh_profile();
  auto r = simulate_replicas(c, profile,
                             make_pod("nb", {resources({{"cpu", 1000}, {"memory", kGi}})}), 6);
  ASSERT_TRUE(r) << r.error().what();
  EXPECT_EQ(placements(c, *r), (std::vector<std::string>{"a", "a", "a", "a", "b", "b"}));
}

TEST(SimulateReplicas, ReplicasThatDoNotFit) {
  Cluster c = build_cluster({make_node("a", 2000, 8 * kGi)});
  Profile profile = default_profile();
  auto r = simulate_replicas(c, profile, make_pod("w", {resources({{"cpu", 1000}})}), 4);
  ASSERT_TRUE(r) << r.error().what();
  EXPECT_EQ(placements(c, *r), (std::vector<std::string>{"a", "a", "-", "-"}));
  EXPECT_EQ(r->replicas[2].tied, 0u);
  // One period at the end since kubernetes#123301.
  EXPECT_EQ(r->unschedulable_message,
            "0/1 nodes are available: 1 Insufficient cpu. preemption: 0/1 nodes are available: 1 "
            "No preemption victims found for incoming pod.");
  ASSERT_TRUE(r->preemption.has_value());
  EXPECT_FALSE(r->preemption->helps);
  EXPECT_EQ(c.pods_on(0).size(), 2u);
}

TEST(SimulateReplicas, HostPortsAllowOneReplicaPerNode) {
  Cluster c = build_cluster({make_node("a", 4000, 8 * kGi), make_node("b", 4000, 8 * kGi)});
  Pod p = make_pod("ds", {resources({{"cpu", 100}})});
  p.containers.mut()[0].ports = {ContainerPort{80, 8080, "", ""}};
  Profile profile = default_profile();
  auto r = simulate_replicas(c, profile, p, 3);
  ASSERT_TRUE(r) << r.error().what();
  EXPECT_EQ(placements(c, *r), (std::vector<std::string>{"a", "b", "-"}));
  EXPECT_EQ(r->unschedulable_message,
            "0/2 nodes are available: 2 node(s) didn't have free ports for the requested pod "
            "ports. preemption: 0/2 nodes are available: 2 No preemption victims found for "
            "incoming pod.");
}

TEST(SimulateReplicas, ZeroReplicas) {
  Cluster c = build_cluster({make_node("a", 4000, 8 * kGi)});
  Profile profile = default_profile();
  auto r = simulate_replicas(c, profile, make_pod("w"), 0);
  ASSERT_TRUE(r);
  EXPECT_TRUE(r->replicas.empty());
}

TEST(SimulateReplicas, NoNodes) {
  Cluster c = build_cluster({});
  Profile profile = default_profile();
  auto r = simulate_replicas(c, profile, make_pod("w"), 2);
  ASSERT_TRUE(r);
  EXPECT_EQ(placements(c, *r), (std::vector<std::string>{"-", "-"}));
  EXPECT_EQ(r->unschedulable_message, "no nodes available to schedule pods");
}

// ------------------------------------------------------------------ property

// A random but reproducible world: nodes, bound pods and a pod template.
class World {
 public:
  explicit World(uint64_t seed) : rng_(seed) {
    const int node_count = uniform(1, 10);
    std::vector<int> ids(static_cast<size_t>(node_count));
    std::iota(ids.begin(), ids.end(), 0);
    std::shuffle(ids.begin(), ids.end(), rng_);  // index order differs from name order
    for (int id : ids) nodes.push_back(random_node("node-" + std::to_string(id)));
    const int pod_count = uniform(0, 15);
    for (int i = 0; i < pod_count; ++i) pods.push_back(random_bound_pod(i));
    tmpl = random_template();
    replicas = uniform(1, 4) == 1 ? uniform(20, 60) : uniform(1, 20);
  }

  std::vector<Node> nodes;
  std::vector<Pod> pods;
  Pod tmpl;
  int64_t replicas = 1;

 private:
  int uniform(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }
  bool chance(int percent) { return uniform(1, 100) <= percent; }
  template <class T>
  const T& pick(const std::vector<T>& v) {
    return v[static_cast<size_t>(uniform(0, static_cast<int>(v.size()) - 1))];
  }

  Node random_node(std::string name) {
    Node n = make_node(std::move(name), pick<int64_t>({1000, 2000, 4000, 8000}),
                       pick<int64_t>({2 * kGi, 4 * kGi, 8 * kGi, 16 * kGi}),
                       pick<int64_t>({3, 5, 10, 110}));
    if (chance(20)) set_resource(n.allocatable, "nvidia.com/gpu", uniform(1, 2));
    if (chance(30))
      set_resource(n.allocatable, "ephemeral-storage", pick<int64_t>({10 * kGi, 100 * kGi}));
    std::vector<std::pair<const char*, const char*>> l = {
        {"zone", pick<const char*>({"a", "b", "c"})}};
    if (chance(50)) l.push_back({"disk", pick<const char*>({"ssd", "hdd"})});
    if (chance(50)) l.push_back({"gen", pick<const char*>({"1", "2", "3", "4", "5"})});
    for (const auto& [k, v] : l) n.labels.emplace_back(k, v);
    // Hostname domains: usually the node's own, sometimes shared, sometimes none.
    if (chance(85))
      n.labels.emplace_back("kubernetes.io/hostname", chance(10) ? "shared-host" : n.name);
    std::sort(n.labels.begin(), n.labels.end());
    if (chance(30)) {
      const std::vector<Taint> pool = {{"dedicated", "gpu", "NoSchedule"},
                                       {"spot", "", "PreferNoSchedule"},
                                       {"maintenance", "true", "PreferNoSchedule"},
                                       {"evict", "x", "NoExecute"}};
      const int count = uniform(1, 2);
      for (int i = 0; i < count; ++i) n.taints.push_back(pick(pool));
    }
    n.unschedulable = chance(10);
    if (chance(30))
      n.images.push_back(ContainerImage{{"app:v1"}, pick<int64_t>({100 * kMi, 600 * kMi})});
    if (chance(20)) n.images.push_back(ContainerImage{{"sidecar:1"}, 50 * kMi});
    return n;
  }

  ResourceList random_requests() {
    ResourceList r;
    int64_t cpu = pick<int64_t>({-1, 0, 100, 250, 500, 1000, 1500});
    if (cpu >= 0) set_resource(r, "cpu", cpu);
    int64_t mem = pick<int64_t>({-1, 128 * kMi, 512 * kMi, kGi, 3 * kGi});
    if (mem >= 0) set_resource(r, "memory", mem);
    return r;
  }

  Pod random_bound_pod(int i) {
    Pod p = bound_pod("bound-" + std::to_string(i), pick(nodes).name, random_requests(),
                      pick<int32_t>({0, 10, 100}));
    if (chance(10)) set_resource(p.containers.mut()[0].requests, "nvidia.com/gpu", 1);
    if (chance(10)) p.containers.mut()[0].ports = {ContainerPort{80, 8080, "", ""}};
    if (chance(10)) p.phase = pick<std::string>({"Succeeded", "Failed", "Running"});
    if (chance(5)) p.node_name = "gone";  // bound to a node that no longer exists
    if (chance(40))
      p.labels = testing::labels({{"dask.org/cluster-name", pick<const char*>({"a", "b"})}});
    return p;
  }

  Pod random_template() {
    Pod p = make_pod("rep", {random_requests()});
    if (chance(60)) p.labels = testing::labels({{"dask.org/cluster-name", "a"}});
    if (chance(30)) p.containers.push_back(testing::make_container(random_requests(), "second"));
    if (chance(20)) p.containers.mut()[0].image = "app:v1";
    if (chance(10)) {
      p.containers.push_back(testing::make_container({}, "proxy"));
      p.containers.mut().back().image = "sidecar:1";
    }
    if (chance(15)) {
      Container init = testing::make_container(random_requests(), "init");
      init.restart_always = chance(50);
      p.init_containers.push_back(init);
    }
    if (chance(10)) set_resource(p.containers.mut()[0].requests, "nvidia.com/gpu", 1);
    if (chance(10)) set_resource(p.containers.mut()[0].requests, "ephemeral-storage", 5 * kGi);
    if (chance(10)) p.overhead = resources({{"memory", 64 * kMi}});
    if (chance(15)) p.containers.mut()[0].ports = {ContainerPort{80, 8080, "", ""}};
    const std::vector<Toleration> pool = {
        {"dedicated", "Equal", "gpu", "NoSchedule", std::nullopt},
        {"spot", "Exists", "", "", std::nullopt},
        {"maintenance", "", "true", "PreferNoSchedule", std::nullopt},
        {"", "Exists", "", "NoExecute", std::nullopt},
        {"node.kubernetes.io/unschedulable", "Exists", "", "NoSchedule", std::nullopt}};
    const int tolerations = uniform(0, 2);
    for (int i = 0; i < tolerations; ++i) p.tolerations.push_back(pick(pool));
    if (chance(15)) p.node_selector = {{"zone", pick<std::string>({"a", "b"})}};
    if (chance(15)) {
      p.node_affinity.required =
          std::vector<NodeSelectorTerm>{NodeSelectorTerm{{{"zone", "NotIn", {"c"}}}, {}},
                                        NodeSelectorTerm{{{"disk", "In", {"ssd"}}}, {}}};
    }
    if (chance(40)) {
      const std::vector<NodeSelectorTerm> terms = {
          NodeSelectorTerm{{{"zone", "In", {"a"}}}, {}},
          NodeSelectorTerm{{{"disk", "Exists", {}}}, {}},
          NodeSelectorTerm{{{"gen", "Gt", {"2"}}}, {}},
          NodeSelectorTerm{{{"zone", "NotIn", {"b"}}}, {}}};
      const int count = uniform(1, 3);
      for (int i = 0; i < count; ++i) {
        p.node_affinity.preferred.push_back(PreferredSchedulingTerm{uniform(1, 100), pick(terms)});
      }
    }
    p.priority = pick<int32_t>({0, 50, 200});
    p.preempt_never = chance(10);
    if (chance(40)) {
      // Spread constraints: every placement moves the counts of a domain.
      const int count = uniform(1, 3);
      for (int i = 0; i < count; ++i) {
        TopologySpreadConstraint c;
        c.max_skew = uniform(1, 3);
        c.topology_key =
            pick<std::string>({"zone", "kubernetes.io/hostname", "kubernetes.io/hostname", "disk"});
        c.when_unsatisfiable = chance(50) ? "DoNotSchedule" : "ScheduleAnyway";
        if (std::any_of(p.topology_spread.begin(), p.topology_spread.end(), [&](const auto& o) {
              return o.topology_key == c.topology_key &&
                     o.when_unsatisfiable == c.when_unsatisfiable;
            })) {
          continue;
        }
        if (chance(90))
          c.label_selector = LabelSelector{testing::labels({{"dask.org/cluster-name", "a"}}), {}};
        if (c.when_unsatisfiable == "DoNotSchedule" && chance(20)) c.min_domains = uniform(1, 4);
        if (chance(20)) c.node_affinity_policy = pick<std::string>({"Honor", "Ignore"});
        if (chance(20)) c.node_taints_policy = pick<std::string>({"Honor", "Ignore"});
        p.topology_spread.push_back(std::move(c));
      }
    }
    return p;
  }

  std::mt19937_64 rng_;
};

struct Reference {
  std::vector<std::optional<NodeIndex>> nodes;
  std::vector<size_t> tied;
  std::string message;
  std::optional<Preemption> preemption;
};

// The contract of simulate.hpp, spelled out: a fresh plan and decide() for
// every replica, each placement seen by the next.
Reference decide_one_by_one(Cluster& c, const Profile& profile, const Pod& tmpl, int64_t replicas) {
  Reference ref;
  for (int64_t r = 0; r < replicas; ++r) {
    auto plan = PodPlan::make(c, profile, tmpl);
    PlanScratch scratch;
    if (!plan) {
      ADD_FAILURE() << plan.error().what();
      return ref;
    }
    Decision d = decide(*plan, c, scratch);
    ref.nodes.push_back(d.chosen);
    ref.tied.push_back(d.chosen ? d.top.size() : 0);
    if (!d.chosen && ref.message.empty()) {
      ref.message = d.message;
      ref.preemption = d.preemption;
    }
    if (d.chosen)
      c.place(*d.chosen, plan->bound(tmpl.ns + "/" + tmpl.name + "-" + std::to_string(r)));
  }
  return ref;
}

TEST(SimulateReplicasProperty, SameAsDecidingEachReplica) {
  const std::vector<std::pair<std::string, Profile>> profiles = {
      {"default", default_profile()},
      {"z2jh", z2jh_profile()},
      {"rtc", rtc_profile()},
      {"tightpack", tightpack_profile()}};
  int placed = 0, unschedulable = 0, ties = 0;
  for (uint64_t seed = 1; seed <= 300; ++seed) {
    World w(seed);
    for (const auto& [profile_name, profile] : profiles) {
      SCOPED_TRACE("seed " + std::to_string(seed) + ", profile " + profile_name);
      Cluster fast = build_cluster(w.nodes, w.pods);
      Cluster slow = build_cluster(w.nodes, w.pods);
      auto sim = simulate_replicas(fast, profile, w.tmpl, w.replicas);
      ASSERT_TRUE(sim) << sim.error().what();
      Reference ref = decide_one_by_one(slow, profile, w.tmpl, w.replicas);
      ASSERT_EQ(sim->replicas.size(), ref.nodes.size());
      for (size_t r = 0; r < ref.nodes.size(); ++r) {
        ASSERT_EQ(sim->replicas[r].node, ref.nodes[r]) << "replica " << r;
        EXPECT_EQ(sim->replicas[r].tied, ref.tied[r]) << "replica " << r;
        EXPECT_EQ(sim->replicas[r].pod, "default/rep-" + std::to_string(r));
        if (ref.nodes[r]) {
          ++placed;
          ties += ref.tied[r] > 1;
        } else {
          ++unschedulable;
        }
      }
      EXPECT_EQ(sim->unschedulable_message, ref.message);
      EXPECT_EQ(sim->preemption.has_value(), ref.preemption.has_value());
      if (sim->preemption && ref.preemption) {
        EXPECT_EQ(sim->preemption->helps, ref.preemption->helps);
        EXPECT_EQ(sim->preemption->message, ref.preemption->message);
      }
      // Both clusters end in the same state.
      EXPECT_EQ(fast.req_cpu(), slow.req_cpu());
      EXPECT_EQ(fast.req_memory(), slow.req_memory());
      EXPECT_EQ(fast.nz_cpu(), slow.nz_cpu());
      EXPECT_EQ(fast.nz_memory(), slow.nz_memory());
      EXPECT_EQ(fast.pod_count(), slow.pod_count());
    }
  }
  // The generator must exercise all three outcomes, or the property says little.
  EXPECT_GT(placed, 1000);
  EXPECT_GT(unschedulable, 100);
  EXPECT_GT(ties, 100);
}

TEST(SimulateReplicasProperty, DaskHubDemoCluster) {
  // The repository's demo cluster, in `kubectl get nodes,pods -A -o json` shape.
  std::ifstream in(std::string(TIGHTPACK_SOURCE_DIR) + "/examples/daskhub-demo/cluster.json");
  if (!in) GTEST_SKIP() << "examples/daskhub-demo/cluster.json is absent";
  std::stringstream text;
  text << in.rdbuf();
  ClusterObjects objects;
  auto status = decode_objects(json_of(text.str()), JsonPath(), objects);
  ASSERT_TRUE(status) << status.error().what();
  ASSERT_FALSE(objects.nodes.empty());
  Pod worker =
      testing::pod_from_json(R"({"metadata": {"name": "dask-worker", "namespace": "daskhub"},
    "spec": {"priority": -5,
      "containers": [{"name": "worker", "image": "ghcr.io/dask/dask:2024.12.1",
                      "resources": {"limits": {"cpu": "2", "memory": "8Gi"}}}],
      "tolerations": [{"key": "k8s.dask.org/dedicated", "operator": "Equal", "value": "worker",
                       "effect": "NoSchedule"}],
      "affinity": {"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
        {"weight": 100, "preference": {"matchExpressions": [
          {"key": "k8s.dask.org/node-purpose", "operator": "In", "values": ["worker"]}]}}]}}}})");
  const std::vector<std::pair<std::string, Profile>> profiles = {
      {"default", default_profile()},
      {"z2jh", z2jh_profile()},
      {"rtc", rtc_profile()},
      {"tightpack", tightpack_profile()}};
  for (const auto& [profile_name, profile] : profiles) {
    SCOPED_TRACE(profile_name);
    Cluster fast = build_cluster(objects.nodes, objects.pods);
    Cluster slow = build_cluster(objects.nodes, objects.pods);
    auto sim = simulate_replicas(fast, profile, worker, 40);
    ASSERT_TRUE(sim) << sim.error().what();
    Reference ref = decide_one_by_one(slow, profile, worker, 40);
    ASSERT_EQ(sim->replicas.size(), ref.nodes.size());
    for (size_t r = 0; r < ref.nodes.size(); ++r)
      EXPECT_EQ(sim->replicas[r].node, ref.nodes[r]) << r;
    EXPECT_EQ(sim->unschedulable_message, ref.message);
  }
}

}  // namespace
}  // namespace tightpack
