// A plan is immutable once made: what its questions remember lives in the
// asker's PlanScratch. One plan asked through several scratches, against
// clusters that drift apart, in turn or from two threads, answers as a
// plan made afresh for each question; a scratch moved between plans
// forgets the other plan's counts.
#include <gtest/gtest.h>

#include <string>
#include <thread>
#include <vector>

#include "test_util.hpp"
#include "tightpack/framework/framework.hpp"

namespace tightpack {
namespace {

using testing::build_cluster;
using testing::kGi;
using testing::labels;
using testing::make_node;
using testing::pod_from_json;

const Profile kDefault = default_profile();

// Six nodes in three zones.
Cluster zones() {
  std::vector<Node> nodes;
  for (int i = 0; i < 6; ++i) {
    Node n = make_node("n" + std::to_string(i), 8000, 32 * kGi);
    const std::string zone = "z" + std::to_string(i % 3);
    n.labels = labels({{"kubernetes.io/hostname", n.name.c_str()},
                       {"topology.kubernetes.io/zone", zone.c_str()}});
    nodes.push_back(std::move(n));
  }
  return build_cluster(std::move(nodes));
}

// A Dask worker spread over zones (DoNotSchedule), preferring nodes without
// another worker of its cluster: both domain plugins count for it.
Pod worker(const std::string& name, const char* cluster = "alice") {
  return pod_from_json(R"({"metadata": {"name": ")" + name + R"(", "labels": {
      "dask.org/cluster-name": ")" +
                       cluster + R"("}}, "spec": {
      "containers": [{"name": "w", "resources": {"requests": {"cpu": "1", "memory": "2Gi"}}}],
      "topologySpreadConstraints": [{"maxSkew": 1, "topologyKey": "topology.kubernetes.io/zone",
        "whenUnsatisfiable": "DoNotSchedule",
        "labelSelector": {"matchLabels": {"dask.org/cluster-name": ")" +
                       cluster + R"("}}}],
      "affinity": {"podAntiAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
        {"weight": 100, "podAffinityTerm": {"topologyKey": "kubernetes.io/hostname",
          "labelSelector": {"matchLabels": {"dask.org/cluster-name": ")" +
                       cluster + R"("}}}}]}}}})");
}

// The decision as text: every node's verdict and total, and the choice.
std::string outcome(const Cluster& c, const Decision& d) {
  std::string out;
  for (size_t j = 0; j < d.filtered.size(); ++j) {
    out += c.name(d.filtered[j]) + ":" + std::to_string(static_cast<int>(d.statuses[j].code)) + " ";
  }
  for (size_t j = 0; j < d.feasible.size(); ++j)
    out += c.name(d.feasible[j]) + "=" + std::to_string(d.scores[j].total) + " ";
  return out + "-> " + (d.chosen ? c.name(*d.chosen) : d.message);
}

std::string fresh(const Cluster& c, const Pod& pod) {
  auto plan = PodPlan::make(c, kDefault, pod);
  EXPECT_TRUE(plan) << plan.error().what();
  PlanScratch scratch;
  return outcome(c, decide(*plan, c, scratch));
}

TEST(PlanScratch, OnePlanAnswersForClustersThatDriftApart) {
  Cluster left = zones();
  Cluster right = left;
  const Pod w = worker("w");
  auto plan = PodPlan::make(left, kDefault, w);
  ASSERT_TRUE(plan) << plan.error().what();
  PlanScratch on_left, on_right;
  for (int k = 0; k < 8; ++k) {
    const Decision l = decide(*plan, left, on_left);
    EXPECT_EQ(outcome(left, l), fresh(left, w)) << "left, copy " << k;
    const Decision r = decide(*plan, right, on_right);
    EXPECT_EQ(outcome(right, r), fresh(right, w)) << "right, copy " << k;
    ASSERT_TRUE(l.chosen && r.chosen);
    left.place(*l.chosen, plan->bound("default/w-" + std::to_string(k)));
    // The right cluster gains a worker of the same cluster where the left
    // one gains it, and one of another cluster on the node after.
    right.place(*r.chosen, plan->bound("default/w-" + std::to_string(k)));
    const NodeIndex other = (*r.chosen + 1) % static_cast<NodeIndex>(right.size());
    auto bob = PodPlan::make(right, kDefault, worker("b", "bob"));
    ASSERT_TRUE(bob);
    right.place(other, bob->bound("default/b-" + std::to_string(k)));
  }
}

TEST(PlanScratch, AScratchServesTheLastPlanItWasAskedAbout) {
  Cluster c = zones();
  auto alice = PodPlan::make(c, kDefault, worker("a", "alice"));
  auto bob = PodPlan::make(c, kDefault, worker("b", "bob"));
  ASSERT_TRUE(alice && bob);
  PlanScratch scratch;
  for (int k = 0; k < 6; ++k) {
    const PodPlan& plan = k % 2 ? *bob : *alice;
    const Decision d = decide(plan, c, scratch);
    EXPECT_EQ(outcome(c, d), fresh(c, worker(k % 2 ? "b" : "a", k % 2 ? "bob" : "alice")))
        << "decision " << k;
    ASSERT_TRUE(d.chosen);
    c.place(*d.chosen, plan.bound("default/x-" + std::to_string(k)));
  }
}

TEST(PlanScratch, ThreadsShareOnePlan) {
  const Cluster base = zones();
  const Pod w = worker("w");
  auto plan = PodPlan::make(base, kDefault, w);
  ASSERT_TRUE(plan);
  // Each thread places twelve copies on a cluster of its own, through its
  // own scratch; the same run alone is the reference.
  auto run = [&](std::vector<std::string>& out) {
    Cluster c = base;
    PlanScratch scratch;
    for (int k = 0; k < 12; ++k) {
      const Decision d = decide(*plan, c, scratch);
      out.push_back(outcome(c, d));
      if (!d.chosen) break;
      c.place(*d.chosen, plan->bound("default/w-" + std::to_string(k)));
    }
  };
  std::vector<std::string> alone, first, second;
  run(alone);
  std::thread a([&] { run(first); });
  std::thread b([&] { run(second); });
  a.join();
  b.join();
  EXPECT_EQ(first, alone);
  EXPECT_EQ(second, alone);
  EXPECT_EQ(alone.size(), 12u);
}

}  // namespace
}  // namespace tightpack
