// The autoscaler's loop end to end, capping, limits, utilization and templates;
// the estimator, the expanders and the drain rules have a file each beside this one.
#include "tightpack/autoscaler/autoscaler.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <boost/json.hpp>

#include "autoscaler/sized_pods.hpp"
#include "test_util.hpp"

namespace tightpack::autoscaler {
namespace {

using testing::kGi;
using testing::make_container;
using testing::make_node;
using testing::make_pod;
using testing::resources;

TEST(AutoscalerCapping, DeltaCappedToMaxSizeNotTheEstimate) {
  EXPECT_EQ(capped_delta(6, 0, 1), 1);
  EXPECT_EQ(capped_delta(3, 2, 10), 3);
  EXPECT_EQ(capped_delta(4, 5, 5), 0);
}

TEST(AutoscalerCapping, ClusterResourceLimits) {
  Node n = make_node("n", 3500, 16 * kGi);
  const ResourcesLeft per_node = node_delta(n);
  EXPECT_EQ(per_node.cores, 4);  // whole cores, rounded up
  EXPECT_EQ(limit_exceeded(ResourcesLeft{3, 64 * kGi}, per_node), "max cluster cpu limit reached");
  EXPECT_EQ(limit_exceeded(ResourcesLeft{3, kGi}, per_node),
            "max cluster cpu, memory limit reached");
  EXPECT_EQ(limit_exceeded(ResourcesLeft{4, 16 * kGi}, per_node), "");
  EXPECT_EQ(apply_resource_limits(10, ResourcesLeft{9, 100 * kGi}, per_node), 2);
}

// A minimal scenario: one empty group with a template of 4 cpu / 16Gi.
std::string scenario(int64_t max_size, int64_t existing, int64_t replicas) {
  std::string nodes, names;
  for (int64_t i = 0; i < existing; ++i) {
    std::string name = "w-" + std::to_string(i);
    nodes += std::string(i ? "," : "") + R"({"metadata":{"name":")" + name +
             R"("},"status":{"capacity":{"cpu":"4","memory":"16Gi","pods":"110"}}})";
    names += std::string(i ? "," : "") + "\"" + name + "\"";
  }
  return R"({"nodes":[)" + nodes + R"(],"pods":[],
    "nodeGroups":[{"name":"workers","minSize":0,"maxSize":)" +
         std::to_string(max_size) + R"(,"nodes":[)" + names + R"(],
      "template":{"status":{"capacity":{"cpu":"4","memory":"16Gi","pods":"110"}}}}],
    "pending":[{"metadata":{"name":"job","namespace":"ns"},
      "spec":{"containers":[{"name":"c","resources":{"requests":{"cpu":"3","memory":"1Gi"}}}]},
      "replicas":)" +
         std::to_string(replicas) + R"(}],
    "expander":"least-waste"})";
}

boost::json::object run_text(const std::string& text) {
  return boost::json::parse(autoscale_text(text)).as_object();
}

TEST(AutoscalerLoop, ScaleUpIsCappedAndTheRestWaits) {
  auto r = run_text(scenario(2, 0, 3));
  ASSERT_FALSE(r.contains("error")) << r;
  const auto& ups = r["scaleUp"].as_array();
  ASSERT_EQ(ups.size(), 1u);
  // The estimator stops at the group's room (max − target: 2), since
  // kubernetes/autoscaler#5917; CA 1.26 estimated 3 and capped the increase.
  EXPECT_EQ(ups[0].at("estimated").as_int64(), 2);
  EXPECT_EQ(ups[0].at("delta").as_int64(), 2);
  EXPECT_EQ(ups[0].at("pods").as_array().size(), 2u);
  // Loop 2: two pods fit the upcoming nodes; the group is at max size.
  EXPECT_EQ(r["unhelped"].as_array(), (boost::json::array{"ns/job-2"}));
  EXPECT_EQ(r["loops"].as_int64(), 2);
}

TEST(AutoscalerLoop, GroupAtMaxSizeIsSkippedBeforeAnyCheck) {
  auto r = run_text(scenario(1, 1, 2));
  ASSERT_FALSE(r.contains("error")) << r;
  EXPECT_TRUE(r["scaleUp"].as_array().empty());
  EXPECT_EQ(r["fitsExisting"].as_array().size(), 1u);
  const auto& nsu = r["noScaleUp"].as_array()[0].as_object();
  EXPECT_EQ(nsu.at("skipped").at("workers").as_array()[0].as_string(),
            "max node group size reached");
  EXPECT_FALSE(nsu.contains("rejected"));
}

TEST(AutoscalerLoop, MaxNodesTotalCapsTheIncrease) {
  std::string text = scenario(10, 1, 9);
  text.insert(text.rfind('}'), R"(,"options":{"maxNodesTotal":3})");
  auto r = run_text(text);
  ASSERT_FALSE(r.contains("error")) << r;
  const auto& ups = r["scaleUp"].as_array();
  ASSERT_EQ(ups.size(), 1u);
  // One pod fits the existing node; of the other eight, the cluster's room
  // (3 − 1 node) stops the estimator at two.
  EXPECT_EQ(ups[0].at("estimated").as_int64(), 2);
  EXPECT_EQ(ups[0].at("delta").as_int64(), 2);
}

TEST(AutoscalerScaleDown, EligibilityThenDrainThenPlacement) {
  auto node = [](const std::string& name, const std::string& extra = "") {
    return R"({"metadata":{"name":")" + name + R"(")" + extra +
           R"(},"status":{"capacity":{"cpu":"4","memory":"16Gi","pods":"110"}}})";
  };
  auto pod = [](const std::string& name, const std::string& node, const std::string& cpu,
                const std::string& owner = "") {
    std::string refs = owner.empty() ? ""
                                     : R"(,"ownerReferences":[{"kind":"ReplicaSet","name":")" +
                                           owner + R"(","controller":true}])";
    return R"({"metadata":{"name":")" + name + R"(","namespace":"app")" + refs + R"(},
      "spec":{"nodeName":")" +
           node + R"(","containers":[{"name":"c","resources":{"requests":{"cpu":")" + cpu +
           R"("}}}]}})";
  };
  const std::string disabled =
      R"(,"annotations":{"cluster-autoscaler.kubernetes.io/scale-down-disabled":"true"})";
  const std::string nodes = node("alone") + "," + node("busy") + "," + node("idle") + "," +
                            node("pinned", disabled) + "," + node("bare") + "," + node("small") +
                            "," + node("core-0");
  const std::string pods = pod("a", "busy", "3") + "," + pod("b", "idle", "1", "rs") + "," +
                           pod("c", "bare", "1") + "," + pod("d", "small", "1500m", "rs");
  const std::string groups =
      R"([{"name":"g","minSize":0,"maxSize":10,"nodes":["busy","idle","pinned","bare","small"]},)"
      R"({"name":"core","minSize":1,"maxSize":1,"nodes":["core-0"]}])";
  const std::string text = R"({"scaleDown":true,"nodes":[)" + nodes + R"(],"pods":[)" + pods +
                           R"(],"replicaSets":[{"metadata":{"name":"rs","namespace":"app"}}],)" +
                           R"("nodeGroups":)" + groups + "}";
  auto r = run_text(text);
  ASSERT_FALSE(r.contains("error")) << r;
  const auto& sd = r["scaleDown"].as_object();
  const auto& blocked = sd.at("blocked").as_object();
  EXPECT_EQ(blocked.at("alone").as_string(), "NotAutoscaled");
  EXPECT_EQ(blocked.at("busy").as_string(), "NotUnderutilized");
  EXPECT_EQ(blocked.at("core-0").as_string(), "NodeGroupMinSizeReached");
  EXPECT_EQ(blocked.at("pinned").as_string(), "ScaleDownDisabledAnnotation");
  EXPECT_EQ(blocked.at("bare").as_string(), "BlockedByPod/NotReplicated");
  // idle (1 cpu) and small (1.5 cpu) each fit elsewhere on their own.
  EXPECT_EQ(sd.at("unneeded").as_array(), (boost::json::array{"idle", "small"}));
}

TEST(AutoscalerUtilization, MaxOfCpuAndMemoryOverAllocatable) {
  Node n = make_node("n", 4000, 16 * kGi);
  std::vector<Pod> pods = {sized("a", 1000, 2 * kGi), sized("b", 500, 2 * kGi)};
  Utilization u = node_utilization(n, pointers(pods), "cloud.google.com/gke-accelerator");
  EXPECT_FALSE(u.gpu_node);
  EXPECT_DOUBLE_EQ(u.cpu, 1500.0 / 4000.0);
  EXPECT_DOUBLE_EQ(u.memory,
                   static_cast<double>(4 * kGi * 1000) / static_cast<double>(16 * kGi * 1000));
  EXPECT_EQ(u.resource, "cpu");
  EXPECT_DOUBLE_EQ(u.value, 0.375);
}

TEST(AutoscalerUtilization, GpuNodesAreJudgedByGpuAlone) {
  Node n = make_node("gpu", 8000, 30 * kGi);
  set_resource(n.allocatable, "nvidia.com/gpu", 4);
  n.labels = testing::labels({{"cloud.google.com/gke-accelerator", "nvidia-tesla-t4"}});
  std::vector<Pod> pods = {sized("busy", 7000, 28 * kGi)};  // cpu and memory nearly full, no GPU
  Utilization u = node_utilization(n, pointers(pods), "cloud.google.com/gke-accelerator");
  EXPECT_TRUE(u.gpu_node);
  EXPECT_EQ(u.resource, "nvidia.com/gpu");
  EXPECT_EQ(u.value, 0);
  pods[0].containers.mut()[0].requests = resources({{"cpu", 1}, {"nvidia.com/gpu", 3}});
  EXPECT_DOUBLE_EQ(node_utilization(n, pointers(pods), "cloud.google.com/gke-accelerator").value,
                   0.75);
}

// simulator/utilization/info.go CalculateUtilizationOfResource sums
// podutils.PodRequests of each pod: resourcehelper.PodRequests, where an init
// container counts when it asks more than the app containers, a sidecar
// (restartPolicy Always) adds to them, and the overhead is added.
TEST(AutoscalerUtilization, CountsInitContainersSidecarsAndOverhead) {
  Node n = make_node("n", 4000, 16 * kGi);
  std::vector<Pod> pods = {sized("init", 1000, 2 * kGi), sized("overhead", 500, kGi),
                           sized("sidecar", 250, 0)};
  pods[0].init_containers = {make_container(resources({{"cpu", 2000}}), "setup")};
  pods[1].overhead = resources({{"cpu", 250}, {"memory", kGi}});
  Container sidecar = make_container(resources({{"cpu", 250}}), "proxy");
  sidecar.restart_always = true;
  pods[2].init_containers = {sidecar};
  const Utilization u = node_utilization(n, pointers(pods), "cloud.google.com/gke-accelerator");
  EXPECT_DOUBLE_EQ(u.cpu, (2000.0 + 750.0 + 500.0) / 4000.0);
  EXPECT_DOUBLE_EQ(u.memory, 0.25);
  EXPECT_EQ(u.resource, "cpu");
}

// simulator/utilization/info.go leaves long-terminating pods out of the sum
// (utils/drain IsPodLongTerminating against the loop's time, the scenario's
// `now`), and the longterminating drain rule skips them: a node whose only
// pod was deleted an hour ago is idle, not 75 % busy, and has nothing to move.
TEST(AutoscalerScaleDown, LongTerminatingPodsAreNeitherCountedNorMoved) {
  const std::string text = R"({"scaleDown":true,"options":{"now":"2026-01-01T12:00:00Z"},
    "nodes":[{"metadata":{"name":"n"},"status":{"capacity":{"cpu":"4","memory":"16Gi","pods":"110"}}},
             {"metadata":{"name":"m"},"status":{"capacity":{"cpu":"4","memory":"16Gi","pods":"110"}}}],
    "pods":[{"metadata":{"name":"gone","namespace":"app","deletionTimestamp":"2026-01-01T11:00:00Z"},
      "spec":{"nodeName":"n","containers":[{"name":"c","resources":{"requests":{"cpu":"3"}}}]}}],
    "nodeGroups":[{"name":"g","minSize":0,"maxSize":10,"nodes":["n","m"]}]})";
  auto r = run_text(text);
  ASSERT_FALSE(r.contains("error")) << r;
  const auto& sd = r["scaleDown"].as_object();
  EXPECT_FALSE(sd.at("blocked").as_object().contains("n")) << sd;
  const auto& unneeded = sd.at("unneeded").as_array();
  EXPECT_NE(std::find(unneeded.begin(), unneeded.end(), boost::json::value("n")), unneeded.end())
      << sd;
}

TEST(AutoscalerDecode, UndecodableScenarioIsAnErrorDocument) {
  auto r = run_text(R"({"nodeGroups": [{"name": "x", "minSize": "one"}]})");
  ASSERT_TRUE(r.contains("error"));
  EXPECT_NE(std::string(r["error"].as_string()).find("$.nodeGroups[0].minSize"), std::string::npos)
      << r;
  EXPECT_TRUE(run_text(R"({"expander": "fastest"})").contains("error"));
}

}  // namespace
}  // namespace tightpack::autoscaler

namespace tightpack::autoscaler {
namespace {

TEST(AutoscalerTemplate, AGroupsTemplateNodeKeepsItsTaintsButCasOwnAndTransientOnes) {
  // utils/taints.SanitizeTaints at master: CriticalAddonsOnly (the old rescheduler's) stays.
  AutoscaleScenario s;
  CaNode n;
  n.node = testing::make_node("core-0", 4000, 16 * testing::kGi);
  for (const char* key :
       {"CriticalAddonsOnly", "dedicated", "ToBeDeletedByClusterAutoscaler",
        "node.kubernetes.io/not-ready", "ignore-taint.cluster-autoscaler.kubernetes.io/gpu",
        "startup-taint.cluster-autoscaler.kubernetes.io/cni",
        "status-taint.cluster-autoscaler.kubernetes.io/drain"}) {
    n.node.taints.push_back(Taint{key, "true", "NoSchedule"});
  }
  s.nodes.push_back(n);
  NodeGroupSpec g;
  g.name = "core";
  g.nodes = {"core-0"};
  const NodeTemplate t = group_template(s, g);
  std::vector<std::string> kept;
  for (const Taint& taint : t.node.taints) kept.push_back(taint.key);
  EXPECT_EQ(kept, (std::vector<std::string>{"CriticalAddonsOnly", "dedicated"}));
}

}  // namespace
}  // namespace tightpack::autoscaler
