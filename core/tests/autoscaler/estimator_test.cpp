// The binpacking estimator against cluster-autoscaler's estimator/
// (binpacking_estimator.go, decreasing_pod_orderer.go and the limiter's
// thresholds) at the commit tests/conformance/autoscaler-reference pins. The
// first four tests walk several rules at once; each later one pins one rule,
// named with its upstream file, its expectations read off that source rather
// than off the engine. A DISABLED_ test is an upstream rule the engine does
// not follow yet: its comment says how the engine differs.
#include "tightpack/autoscaler/estimator.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "autoscaler/sized_pods.hpp"
#include "test_util.hpp"

namespace tightpack::autoscaler {
namespace {

using testing::kGi;
using testing::make_container;
using testing::make_node;
using testing::make_pod;
using testing::resources;

TEST(AutoscalerEstimator, FirstFitDecreasingByScore) {
  NodeTemplate t{make_node("tmpl", 10000, 100 * kGi), {}};
  // In the given order first fit would need three nodes (4+4, 6, 6); sorted
  // by score, 6+4 twice needs two.
  std::vector<Pod> pods = {sized("a", 4000, kGi), sized("b", 4000, kGi), sized("c", 6000, kGi),
                           sized("d", 6000, kGi)};
  auto e = estimate(t, pointers(pods), default_profile());
  ASSERT_TRUE(e.ok()) << e.error().what();
  EXPECT_EQ(e->node_count, 2);
  EXPECT_EQ(e->scheduled, (std::vector<size_t>{2, 3, 0, 1}));
}

TEST(AutoscalerEstimator, ScoreIsCpuPlusMemoryFractionOfTemplateAllocatable) {
  Node n = make_node("tmpl", 4000, 8 * kGi);
  EXPECT_DOUBLE_EQ(estimator_score(sized("p", 1000, 4 * kGi), n), 0.25 + 0.5);
}

TEST(AutoscalerEstimator, PodThatFitsNoFreshNodeOpensOneNodeAtMost) {
  NodeTemplate t{make_node("tmpl", 4000, 8 * kGi), {}};
  std::vector<Pod> pods = {sized("huge", 9000, kGi), sized("huge2", 8000, kGi),
                           sized("small", 1000, kGi)};
  auto e = estimate(t, pointers(pods), default_profile());
  ASSERT_TRUE(e.ok());
  // huge opens a node it does not fit; huge2 sees that empty node and adds
  // none; small lands on it.
  EXPECT_EQ(e->node_count, 1);
  EXPECT_EQ(e->scheduled, (std::vector<size_t>{2}));
}

TEST(AutoscalerEstimator, LimiterStopsAddingNodes) {
  NodeTemplate t{make_node("tmpl", 4000, 8 * kGi), {}};
  std::vector<Pod> pods(5, sized("p", 3000, kGi));
  auto e = estimate(t, pointers(pods), default_profile(), 2);
  ASSERT_TRUE(e.ok());
  EXPECT_EQ(e->node_count, 2);
  EXPECT_EQ(e->scheduled.size(), 2u);
}

// decreasing_pod_orderer.go calculatePodScore: a term for cpu and one for
// memory, each only when the template's allocatable has the resource above
// zero, and over allocatable, not capacity.
TEST(AutoscalerEstimator, ScoreSkipsAResourceTheTemplateDoesNotAllocate) {
  Node n = make_node("tmpl", 4000, 8 * kGi);
  n.allocatable = resources({{"cpu", 2000}});
  EXPECT_DOUBLE_EQ(estimator_score(sized("p", 1000, 4 * kGi), n), 0.5);
  n.allocatable = resources({{"cpu", 2000}, {"memory", 0}});
  EXPECT_DOUBLE_EQ(estimator_score(sized("p", 1000, 4 * kGi), n), 0.5);
  n.allocatable = resources({{"memory", 8 * kGi}});
  EXPECT_DOUBLE_EQ(estimator_score(sized("p", 1000, 4 * kGi), n), 0.5);
}

// calculatePodScore reads podutils.PodRequests(samplePod): the larger of the
// containers' sum and each init container, plus the overhead. Through the
// order, that decides the count: sorted by what the pods really request, a
// (6 of 10 cpus) + b, c + d + e fill two nodes; by their containers alone, a
// comes last and needs a third (the app containers alone score these pods
// 0.25 and 0.5).
TEST(AutoscalerEstimator, ScoreCountsInitContainersAndOverhead) {
  const Node n = make_node("tmpl", 4000, 8 * kGi);
  Pod init = sized("init", 1000, kGi);
  init.init_containers = {make_container(resources({{"cpu", 3000}}), "setup")};
  EXPECT_DOUBLE_EQ(estimator_score(init, n), 0.75 + 0.125);
  Pod overhead = sized("overhead", 1000, kGi);
  overhead.overhead = resources({{"cpu", 1000}, {"memory", kGi}});
  EXPECT_DOUBLE_EQ(estimator_score(overhead, n), 0.5 + 0.25);

  const NodeTemplate t{make_node("tmpl", 10000, 100 * kGi), {}};
  std::vector<Pod> pods = {sized("a", 1000, 0), sized("b", 4000, 0), sized("c", 4000, 0),
                           sized("d", 3000, 0), sized("e", 3000, 0)};
  pods[0].init_containers = {make_container(resources({{"cpu", 6000}}), "setup")};
  auto e = estimate(t, pointers(pods), default_profile());
  ASSERT_TRUE(e.ok()) << e.error().what();
  EXPECT_EQ(e->node_count, 2);
}

// binpacking_estimator.go tryToScheduleOnExistingNodes: a pod first tries
// every node the estimate opened, not just the last, before
// tryToScheduleOnNewNodes adds one. On 10-cpu nodes 7, 6, 3, 3 need two
// nodes (7+3, 6+3); last-node-only packing would need three.
TEST(AutoscalerEstimator, PodTriesEveryOpenedNodeBeforeANewOne) {
  const NodeTemplate t{make_node("tmpl", 10000, 100 * kGi), {}};
  const std::vector<Pod> pods = {sized("a", 7000, kGi), sized("b", 6000, kGi),
                                 sized("c", 3000, kGi), sized("d", 3000, kGi)};
  auto e = estimate(t, pointers(pods), default_profile());
  ASSERT_TRUE(e.ok()) << e.error().what();
  EXPECT_EQ(e->node_count, 2);
  EXPECT_EQ(e->scheduled.size(), 4u);
}

// addNewNodeToSnapshot adds SanitizedNodeInfo(template): the template's node
// with its pods (DaemonSet and mirror pods), which take their share of each
// new node.
TEST(AutoscalerEstimator, NewNodesCarryTheTemplatesPods) {
  NodeTemplate t{make_node("tmpl", 4000, 16 * kGi), {}};
  const std::vector<Pod> pods = {sized("a", 2000, kGi), sized("b", 2000, kGi)};
  auto bare = estimate(t, pointers(pods), default_profile());
  ASSERT_TRUE(bare.ok()) << bare.error().what();
  EXPECT_EQ(bare->node_count, 1);
  t.pods = {sized("fluentd", 1000, kGi)};
  auto with_daemon = estimate(t, pointers(pods), default_profile());
  ASSERT_TRUE(with_daemon.ok()) << with_daemon.error().what();
  EXPECT_EQ(with_daemon->node_count, 2);
}

// Estimate returns len(newNodesWithPods) and the pods scheduled: a node
// opened for a pod that then does not fit it is not counted, and neither is
// the pod.
TEST(AutoscalerEstimator, PodThatFitsNoTemplateIsNotCounted) {
  const NodeTemplate t{make_node("tmpl", 4000, 16 * kGi), {}};
  const std::vector<Pod> pods = {sized("huge", 5000, kGi)};
  auto e = estimate(t, pointers(pods), default_profile());
  ASSERT_TRUE(e.ok()) << e.error().what();
  EXPECT_EQ(e->node_count, 0);
  EXPECT_TRUE(e->scheduled.empty());
}

// Estimate: once tryToScheduleOnNewNodes is refused a node
// (newNodesAvailable false), the pods of later equivalence groups still try
// the nodes already opened.
TEST(AutoscalerEstimator, AfterTheLimiterRefusesPodsStillFillOpenedNodes) {
  const NodeTemplate t{make_node("tmpl", 4000, 16 * kGi), {}};
  const std::vector<Pod> pods = {sized("big", 3000, kGi), sized("mid", 2500, kGi),
                                 sized("small", 1000, kGi)};
  auto e = estimate(t, pointers(pods), default_profile(), 1);
  ASSERT_TRUE(e.ok()) << e.error().what();
  EXPECT_EQ(e->node_count, 1);
  EXPECT_EQ(e->scheduled, (std::vector<size_t>{0, 2}));
}

// threshold_based_limiter.go PermissionToAddNode: a negative limit refuses
// every node.
TEST(AutoscalerEstimator, NegativeLimitAddsNoNode) {
  const NodeTemplate t{make_node("tmpl", 4000, 16 * kGi), {}};
  const std::vector<Pod> pods = {sized("p", 1000, kGi)};
  auto e = estimate(t, pointers(pods), default_profile(), -1);
  ASSERT_TRUE(e.ok()) << e.error().what();
  EXPECT_EQ(e->node_count, 0);
  EXPECT_TRUE(e->scheduled.empty());
}

// static_threshold.go with --max-nodes-per-scaleup's default (1000), folded
// by threshold_based_limiter.go getMinLimit: the smallest positive limit.
TEST(AutoscalerEstimator, StaticThresholdIsMaxNodesPerScaleUp) {
  EXPECT_EQ(estimation_limit(5000, 0, 0, 0), 1000);
  EXPECT_EQ(estimation_limit(5000, 0, 2000, 10), 1000);
}

// sng_capacity_threshold.go: the group's max size − target size; no room
// (zero or less) is −1, which getMinLimit lets win over every other limit.
TEST(AutoscalerEstimator, NodeGroupThresholdIsTheRoomLeft) {
  EXPECT_EQ(estimation_limit(10, 3, 0, 0), 7);
  EXPECT_EQ(estimation_limit(10, 10, 0, 0), -1);
  EXPECT_EQ(estimation_limit(5, 7, 100, 0), -1);
}

// cluster_capacity_threshold.go: --max-nodes-total − current nodes; 0 is no
// limit, and a cluster at or above the total is −1.
TEST(AutoscalerEstimator, ClusterThresholdIsMaxNodesTotalLeft) {
  EXPECT_EQ(estimation_limit(100, 0, 5, 3), 2);
  EXPECT_EQ(estimation_limit(100, 0, 5, 5), -1);
  EXPECT_EQ(estimation_limit(100, 0, 5, 9), -1);
  EXPECT_EQ(estimation_limit(100, 0, 0, 500), 100);
  EXPECT_EQ(estimation_limit(10, 3, 50, 48), 2);
}

}  // namespace
}  // namespace tightpack::autoscaler
