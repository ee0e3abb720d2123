#include "tightpack/plugins/pod_topology_spread.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "test_util.hpp"
#include "tightpack/framework/framework.hpp"
#include "tightpack/go_math.hpp"
#include "tightpack/replay.hpp"
#include "tightpack/simulate.hpp"

namespace tightpack {
namespace {

using testing::json_of;
using testing::labels;
using testing::make_node;
using testing::make_pod;

constexpr int64_t kGi = testing::kGi;
constexpr size_t kSpread = slot<Plugin::PodTopologySpread>();
// PodPlan keeps a pointer to its profile, so the tests share one that outlives them.
const Profile kDefault = default_profile();

Node zoned(std::string name, const char* zone) {
  Node n = make_node(std::move(name), 4000, 16 * kGi);
  n.labels = labels({{"kubernetes.io/hostname", n.name.c_str()}});
  if (zone)
    n.labels =
        labels({{"kubernetes.io/hostname", n.name.c_str()}, {"topology.kubernetes.io/zone", zone}});
  return n;
}

Pod member(std::string name, std::string node, const char* app, const char* rs) {
  Pod p = make_pod(std::move(name));
  p.node_name = std::move(node);
  p.labels = labels({{"app", app}});
  if (rs) p.controller = OwnerReference{"apps/v1", "ReplicaSet", rs, ""};
  return p;
}

ApiObjects replica_set(const char* name, const char* app) {
  ApiObjects o;
  o.replica_sets.push_back(
      SelectorObject{"default", name, LabelSelector{labels({{"app", app}}), {}}});
  return o;
}

Cluster cluster(std::vector<Node> nodes, const std::vector<Pod>& pods, ApiObjects objects = {}) {
  auto c = Cluster::build(std::move(nodes), pods, std::move(objects));
  EXPECT_TRUE(c) << c.error().what();
  return std::move(*c);
}

std::map<std::string, int64_t> spread_scores(const Cluster& c, const Pod& pod,
                                             const Profile& profile) {
  auto plan = PodPlan::make(c, profile, pod);
  PlanScratch scratch;
  EXPECT_TRUE(plan) << plan.error().what();
  Decision d = decide(*plan, c, scratch);
  std::map<std::string, int64_t> out;
  for (size_t j = 0; j < d.feasible.size(); ++j)
    out[c.name(d.feasible[j])] = d.scores[j].weighted[kSpread];
  return out;
}

TEST(GoLog, IsGosMathLogBitForBit) {
  // math.Float64bits(math.Log(n)) printed by Go 1.26 on amd64: the first
  // counts where the C library's log differs in the last bit, and two more.
  const std::pair<double, uint64_t> go[] = {
      {3, 0x3ff193ea7aad030a},   {14, 0x40051cca16d7bba8},   {48, 0x400ef8383c50bb74},
      {74, 0x4011375cd6fcab1c},  {176, 0x4014ae935b3cb89e},  {196, 0x40151cca16d7bba8},
      {220, 0x4015931319798d6e}, {299, 0x4016cd411481a020},  {308, 0x4016eb9f470ac0b8},
      {334, 0x40173e9bbe951e9c}, {343, 0x401759d602a5c3c2},  {346, 0x401762c0d8a3c1c4},
      {362, 0x4017910b2e25d668}, {5002, 0x40210901f6dc84b9}, {1e6 + 7, 0x402ba18b8471548a}};
  for (const auto& [x, bits] : go) EXPECT_EQ(double_bits(go_log(x)), bits) << x;
  EXPECT_EQ(go_log(1.0), 0.0);
  EXPECT_TRUE(std::isinf(go_log(0.0)));
  EXPECT_TRUE(std::isnan(go_log(-1.0)));
}

TEST(DefaultSelector, ServicesAndTheControllingReplicaSet) {
  ApiObjects o = replica_set("w-rs", "w");
  o.services.push_back(MapSelectorObject{"default", "sched", labels({{"app", "w"}})});
  o.services.push_back(MapSelectorObject{"other", "elsewhere", labels({{"app", "w"}})});
  o.services.push_back(MapSelectorObject{"default", "none", std::nullopt});  // selects nothing
  o.services.push_back(MapSelectorObject{"default", "all", Labels{}});  // every pod, adds nothing
  Pod p = member("w3", "", "w", "w-rs");
  p.labels = labels({{"app", "w"}, {"tier", "t"}});
  const Selector s = plugins::default_selector(p, o, OwnerIndex(o));
  EXPECT_EQ(s.requirements().size(), 2u);  // the Service's app=w and the ReplicaSet's app=w
  EXPECT_TRUE(s.matches(labels({{"app", "w"}})));
  EXPECT_FALSE(s.matches(labels({{"app", "x"}})));

  Pod orphan = p;
  orphan.controller.reset();
  EXPECT_EQ(plugins::default_selector(orphan, o, OwnerIndex(o)).requirements().size(), 1u);
  Pod gone = p;
  gone.controller->name = "gone";
  EXPECT_EQ(plugins::default_selector(gone, o, OwnerIndex(o)).requirements().size(), 1u);
  Pod old_group = p;
  old_group.controller->api_version = "extensions/v1beta1";  // not apps/v1: not looked up
  EXPECT_EQ(plugins::default_selector(old_group, o, OwnerIndex(o)).requirements().size(), 1u);
  Pod lone = p;
  lone.ns = "lonely";
  lone.controller.reset();
  EXPECT_TRUE(plugins::default_selector(lone, o, OwnerIndex(o)).empty());
}

TEST(PodTopologySpread, SystemDefaultsScoreAReplicaSetsPods) {
  // hostname: 3 domains, log(5); zone: z1 and z2, log(4). raw a = b =
  // round(1·log 5 + 2 + 2·log 4 + 4) = 10, c = round(0 + 2 + 0 + 4) = 6;
  // normalised 100·(10 + 6 − raw)/10: a, b 60, c 100; weight 2.
  Cluster c = cluster({zoned("a", "z1"), zoned("b", "z1"), zoned("c", "z2")},
                      {member("w1", "a", "w", "w-rs"), member("w2", "b", "w", "w-rs")},
                      replica_set("w-rs", "w"));
  const Pod w3 = member("w3", "", "w", "w-rs");
  EXPECT_EQ(spread_scores(c, w3, default_profile()),
            (std::map<std::string, int64_t>{{"a", 120}, {"b", 120}, {"c", 200}}));
  // A pod no workload selects: PreScore skips, no score.
  Pod lone = make_pod("lone");
  auto plan = PodPlan::make(c, kDefault, lone);
  ASSERT_TRUE(plan);
  PlanScratch scratch;
  const Decision d = decide(*plan, c, scratch);
  ASSERT_FALSE(d.feasible.empty());
  EXPECT_FALSE(d.scoring[slot<Plugin::PodTopologySpread>()]);
  EXPECT_TRUE(d.scoring[slot<Plugin::NodeAffinity>()]);
}

TEST(PodTopologySpread, ZonelessNodesAreScoredUnderTheSystemDefaults) {
  // The node without a zone label misses the zone term: raw 0 + 2 = 2,
  // while a has round(1·log 4 + 2 + 1·log 4 + 4) = 9 (hostname and zone each
  // with 2 domains: the zone-less node is the domain ""). c: 100·(9+2−2)/9.
  Cluster c = cluster({zoned("a", "z1"), zoned("n", nullptr)}, {member("w1", "a", "w", "w-rs")},
                      replica_set("w-rs", "w"));
  EXPECT_EQ(spread_scores(c, member("w2", "", "w", "w-rs"), default_profile()),
            (std::map<std::string, int64_t>{{"a", 2 * (100 * (9 + 2 - 9) / 9)}, {"n", 200}}));
}

TEST(PodTopologySpread, DoNotScheduleFiltersBySkewAndMissingLabels) {
  auto nodes = [] {
    return std::vector<Node>{zoned("a", "z1"), zoned("b", "z1"), zoned("c", "z2"),
                             zoned("d", nullptr)};
  };
  std::vector<Pod> bound = {member("x1", "a", "x", nullptr), member("x2", "a", "x", nullptr),
                            member("x3", "c", "x", nullptr)};
  Pod p = member("x4", "", "x", nullptr);
  p.topology_spread = {TopologySpreadConstraint{1, "topology.kubernetes.io/zone", "DoNotSchedule",
                                                LabelSelector{labels({{"app", "x"}}), {}}}};
  Cluster c = cluster(nodes(), bound);
  auto plan = PodPlan::make(c, kDefault, p);
  PlanScratch scratch;
  ASSERT_TRUE(plan) << plan.error().what();
  Decision d = decide(*plan, c, scratch);
  // z1 holds 2, z2 holds 1: a and b would make z1 3 − 1 = 2 > 1; c makes 2 − 1 = 1.
  ASSERT_EQ(d.feasible.size(), 1u);
  EXPECT_EQ(c.name(d.feasible[0]), "c");
  for (size_t j = 0; j < d.filtered.size(); ++j) {
    const std::string n = c.name(d.filtered[j]);
    if (n == "a" || n == "b") {
      EXPECT_EQ(d.statuses[j].code, Code::Unschedulable) << n;
      EXPECT_EQ(plan->reasons(c, d.filtered[j], d.statuses[j]),
                std::vector<std::string>{plugins::kSpreadReason});
    }
    if (n == "d") {
      EXPECT_EQ(d.statuses[j].code, Code::UnschedulableAndUnresolvable);
      EXPECT_EQ(plan->reasons(c, d.filtered[j], d.statuses[j]),
                std::vector<std::string>{plugins::kSpreadMissingLabelReason});
    }
  }
  // With minDomains 3 there are too few domains: the global minimum is 0,
  // and c (1 + 1 − 0 = 2) no longer fits either.
  p.topology_spread[0].min_domains = 3;
  auto strict = PodPlan::make(c, kDefault, p);
  ASSERT_TRUE(strict);
  d = decide(*strict, c, scratch);
  EXPECT_TRUE(d.feasible.empty());
  EXPECT_EQ(
      d.message,
      "0/4 nodes are available: 1 node(s) didn't match pod topology spread constraints (missing "
      "required "
      "label), 3 node(s) didn't match pod topology spread constraints. preemption: 0/4 nodes are "
      "available: 1 "
      "Preemption is not helpful for scheduling, 3 No preemption victims found for incoming pod.");
}

TEST(PodTopologySpread, ReplicasMoveTheCountsOfTheirDomain) {
  // Four replicas, maxSkew 1 over two zones: they alternate, whatever else
  // the scores say.
  Cluster c = cluster({zoned("a1", "z1"), zoned("a2", "z1"), zoned("b1", "z2")}, {});
  Pod p = member("r", "", "r", nullptr);
  p.topology_spread = {TopologySpreadConstraint{1, "topology.kubernetes.io/zone", "DoNotSchedule",
                                                LabelSelector{labels({{"app", "r"}}), {}}}};
  auto r = simulate_replicas(c, default_profile(), p, 4);
  ASSERT_TRUE(r) << r.error().what();
  int z1 = 0, z2 = 0;
  for (size_t i = 0; i < r->replicas.size(); ++i) {
    ASSERT_TRUE(r->replicas[i].node);
    (c.name(*r->replicas[i].node) == "b1" ? z2 : z1) += 1;
    EXPECT_LE(std::abs(z1 - z2), 1) << "after replica " << i;
  }
}

TEST(PodTopologySpread, TerminatingAndOtherNamespacePodsDoNotCount) {
  std::vector<Pod> bound = {member("x1", "a", "x", nullptr), member("x2", "a", "x", nullptr)};
  bound[0].deletion_timestamp = "2026-11-30T10:00:00Z";
  bound[1].ns = "elsewhere";
  Pod p = member("x3", "", "x", nullptr);
  p.topology_spread = {TopologySpreadConstraint{1, "kubernetes.io/hostname", "DoNotSchedule",
                                                LabelSelector{labels({{"app", "x"}}), {}}}};
  Cluster c = cluster({zoned("a", "z1"), zoned("b", "z1")}, bound);
  auto plan = PodPlan::make(c, kDefault, p);
  PlanScratch scratch;
  ASSERT_TRUE(plan);
  EXPECT_EQ(decide(*plan, c, scratch).feasible.size(), 2u);
}

std::string scenario_error(std::string_view scenario) {
  auto s = decode_scenario(json_of(scenario));
  return s ? "" : s.error().what();
}

TEST(ScenarioObjects, UnknownKeysAndBadConstraintsAreErrors) {
  EXPECT_NE(scenario_error(R"({"nodes": [], "persistentVolumeClaim": []})")
                .find("$.persistentVolumeClaim: unknown scenario key \"persistentVolumeClaim\""),
            std::string::npos);
  EXPECT_EQ(
      scenario_error(
          R"({"nodes": [], "services": [{"metadata": {"name": "s"}, "spec": {"selector": {"a": "b"}}}],
      "replicaSets": [{"metadata": {"name": "r", "namespace": "x"}, "spec": {"selector": {"matchLabels": {"a": "b"}}}}]})"),
      "");
  EXPECT_EQ(scenario_error(
                R"({"incoming": [{"metadata": {"name": "p"}, "spec": {"topologySpreadConstraints": [
      {"maxSkew": 0, "topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule"}]}}]})"),
            "$.incoming[0].spec.topologySpreadConstraints[0].maxSkew: maxSkew 0 must be greater "
            "than zero");
  EXPECT_EQ(
      scenario_error(
          R"({"incoming": [{"metadata": {"name": "p"}, "spec": {"topologySpreadConstraints": [
      {"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "ScheduleAnyway", "minDomains": 2}]}}]})"),
      "$.incoming[0].spec.topologySpreadConstraints[0].minDomains: can only use minDomains if "
      "whenUnsatisfiable=DoNotSchedule, not ScheduleAnyway");
  EXPECT_EQ(scenario_error(R"({"replicaSets": [{"metadata": {"name": "r"}, "spec": {"selector": {
      "matchExpressions": [{"key": "a", "operator": "Is", "values": ["b"]}]}}}]})"),
            "$.replicaSets[0].spec.selector.matchExpressions[0].operator: \"Is\" is not a valid "
            "selector operator "
            "(In, NotIn, Exists, DoesNotExist)");
  EXPECT_NE(scenario_error(R"({"services": [{"spec": {}}]})").find("$.services[0].metadata.name"),
            std::string::npos);
}

TEST(SpreadArgs, ListDefaultingFromTheConfiguration) {
  auto config =
      decode_scheduler_configuration(json_of(R"({"apiVersion": "kubescheduler.config.k8s.io/v1",
      "kind": "KubeSchedulerConfiguration", "profiles": [{"pluginConfig": [{"name": "PodTopologySpread",
      "args": {"defaultingType": "List", "defaultConstraints": [
        {"maxSkew": 1, "topologyKey": "topology.kubernetes.io/zone", "whenUnsatisfiable": "DoNotSchedule"}]}}]}]})"),
                                     JsonPath());
  ASSERT_TRUE(config) << config.error().what();
  const Profile& profile = config->profiles[0];
  EXPECT_FALSE(profile.spread.system_defaulting);
  ASSERT_EQ(profile.spread.default_constraints.size(), 1u);
  auto bad =
      decode_scheduler_configuration(json_of(R"({"apiVersion": "kubescheduler.config.k8s.io/v1",
      "kind": "KubeSchedulerConfiguration", "profiles": [{"pluginConfig": [{"name": "PodTopologySpread",
      "args": {"defaultConstraints": [{"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "ScheduleAnyway",
        "labelSelector": {}}]}}]}]})"),
                                     JsonPath());
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().what().find("must not define a selector"), std::string::npos);
  // The DoNotSchedule default filters the pods a ReplicaSet owns.
  Cluster c = cluster({zoned("a", "z1"), zoned("b", "z2")}, {member("w1", "a", "w", "w-rs")},
                      replica_set("w-rs", "w"));
  auto plan = PodPlan::make(c, profile, member("w2", "", "w", "w-rs"));
  PlanScratch scratch;
  ASSERT_TRUE(plan);
  Decision d = decide(*plan, c, scratch);
  ASSERT_EQ(d.feasible.size(), 1u);
  EXPECT_EQ(c.name(d.feasible[0]), "b");
}

}  // namespace
}  // namespace tightpack

namespace tightpack {
namespace {

TEST(PodTopologySpread, PreemptionTakesOffATerminatingVictimItNeverCounted) {
  // updateWithPod (RemovePod) does not skip terminating pods as
  // countPodsMatchSelector does: a's domain counts 1 (the terminating pod is
  // not counted) and loses 1 when the terminating pod is a victim, so the
  // pod fits there after preemption (kube-scheduler v1.37.2, checked with
  // kube-scheduler-reference).
  auto node = [](const char* name, const char* pool, const char* cpu) {
    return std::string(R"({"metadata": {"name": ")") + name + R"(", "labels": {"pool": ")" + pool +
           R"("}}, "status": {"capacity": {"cpu": ")" + cpu +
           R"(", "memory": "8Gi", "pods": "110"}}})";
  };
  auto pod = [](const char* name, const char* node_name, const char* app, int priority,
                const char* cpu, bool terminating) {
    return std::string(R"({"metadata": {"name": ")") + name + R"(", "labels": {"app": ")" + app +
           "\"}" + (terminating ? R"(, "deletionTimestamp": "2026-11-30T10:00:00Z")" : "") +
           R"(}, "spec": {"nodeName": ")" + node_name + R"(", "priority": )" +
           std::to_string(priority) +
           R"(, "containers": [{"name": "c", "resources": {"requests": {"cpu": ")" + cpu +
           R"("}}}]}})";
  };
  const std::string scenario =
      R"({"profile": "default", "nodes": [)" + node("a", "p1", "4") + "," + node("b", "p2", "1") +
      R"(], "pods": [)" + pod("x1", "a", "x", 1000, "1", false) + "," +
      pod("x2", "a", "x", 0, "1", true) + "," + pod("full", "b", "y", 1000, "1", false) +
      R"(], "incoming": [{"metadata": {"name": "p", "labels": {"app": "x"}},
      "spec": {"priority": 100, "containers": [{"name": "c", "resources": {"requests": {"cpu": "1"}}}],
      "topologySpreadConstraints": [{"maxSkew": 1, "topologyKey": "pool", "whenUnsatisfiable": "DoNotSchedule",
                                     "labelSelector": {"matchLabels": {"app": "x"}}}]}}]})";
  boost::json::value v = json_of(replay_text(scenario));
  EXPECT_EQ(v.at("results").at(0).at("message").as_string(),
            "0/2 nodes are available: 1 Insufficient cpu, 1 node(s) didn't match pod topology "
            "spread constraints. "
            "preemption: found a potential placement for pod on node a, preempting 1 victims");
}

}  // namespace
}  // namespace tightpack
