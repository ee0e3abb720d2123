// A PodPlan compiled for first fit (judging each node's static filters when
// asked) gives the verdicts the full plan computes up front, node for node.
#include <gtest/gtest.h>

#include "test_util.hpp"
#include "tightpack/framework/framework.hpp"

namespace tightpack {
namespace {

using testing::bound_pod;
using testing::build_cluster;
using testing::kGi;
using testing::labels;
using testing::make_node;
using testing::make_pod;
using testing::resources;

std::vector<Node> varied_nodes() {
  std::vector<Node> nodes;
  for (int i = 0; i < 12; ++i) {
    Node n = make_node("n" + std::to_string(i), 4000, 16 * kGi);
    n.labels = labels({{"pool", i % 3 == 0 ? "core" : "workers"}, {"zone", i % 2 ? "a" : "b"}});
    if (i % 3 == 1) n.taints.push_back({"dask", "worker", "NoSchedule"});
    if (i % 5 == 4) n.taints.push_back({"gpu", "present", "NoExecute"});
    n.unschedulable = i == 7;
    nodes.push_back(std::move(n));
  }
  return nodes;
}

std::vector<Pod> varied_pods() {
  std::vector<Pod> pods;
  pods.push_back(make_pod("plain", {resources({{"cpu", 1000}})}));
  Pod tolerant = make_pod("tolerant", {resources({{"cpu", 3500}})});
  tolerant.tolerations.push_back({"dask", "Equal", "worker", "NoSchedule", std::nullopt});
  tolerant.tolerations.push_back({"", "Exists", "", "", std::nullopt});  // cordons too
  pods.push_back(tolerant);
  Pod selective = make_pod("selective", {resources({{"cpu", 100}})});
  selective.node_selector = labels({{"zone", "a"}});
  selective.node_affinity.required =
      std::vector<NodeSelectorTerm>{NodeSelectorTerm{{{"pool", "In", {"workers"}}}, {}}};
  selective.tolerations.push_back({"dask", "Exists", "", "", std::nullopt});
  pods.push_back(selective);
  Pod named = make_pod("named", {resources({{"cpu", 100}})});
  named.node_name = "n3";
  pods.push_back(named);
  Pod ported = make_pod("ported", {resources({{"cpu", 100}})});
  ported.containers.mut()[0].ports.push_back({8080, 8080, "", ""});
  pods.push_back(ported);
  return pods;
}

TEST(FirstFitPlan, JudgesEveryNodeAsTheFullPlanDoes) {
  Pod holder = bound_pod("holder", "n2", resources({{"cpu", 1000}}));
  holder.containers.mut()[0].ports.push_back({8080, 8080, "", ""});
  Cluster c =
      build_cluster(varied_nodes(), {bound_pod("busy", "n0", resources({{"cpu", 3000}})), holder});
  const Profile profile = default_profile();
  for (const Pod& pod : varied_pods()) {
    auto full = PodPlan::make(c, profile, pod);
    auto lazy = PodPlan::make(c, profile, pod, PodPlan::Use::kFirstFit);
    PlanScratch full_scratch, lazy_scratch;
    ASSERT_TRUE(full.ok() && lazy.ok()) << pod.name;
    EXPECT_EQ(full->prefilter_conflict(), lazy->prefilter_conflict());
    // Nodes in an order other than the index's, each asked twice: a lazy
    // verdict must not depend on which nodes were judged before.
    for (int round = 0; round < 2; ++round) {
      for (NodeIndex k = 0; k < c.size(); ++k) {
        const NodeIndex n = (k * 5 + 3) % static_cast<NodeIndex>(c.size());
        NodeStatus a = full->filter(full_scratch, c, n), b = lazy->filter(lazy_scratch, c, n);
        EXPECT_EQ(a.code, b.code) << pod.name << " on " << c.name(n);
        EXPECT_EQ(a.plugin, b.plugin) << pod.name << " on " << c.name(n);
        EXPECT_EQ(a.taint, b.taint) << pod.name << " on " << c.name(n);
        EXPECT_EQ(full->in_prefilter_set(n), lazy->in_prefilter_set(n));
      }
    }
    EXPECT_EQ(full->bound("x").usage.cpu, lazy->bound("x").usage.cpu);
  }
}

}  // namespace
}  // namespace tightpack
