#include "tightpack/plugins/node_resources_fit.hpp"

#include <gtest/gtest.h>

#include <vector>

#include "test_util.hpp"

namespace tightpack::plugins {
namespace {

using tightpack::testing::bound_pod;
using tightpack::testing::build_cluster;
using tightpack::testing::kGi;
using tightpack::testing::make_node;
using tightpack::testing::make_pod;
using tightpack::testing::resources;

FitArgs args(ScoringStrategy s, std::vector<ResourceSpec> res = {{"cpu", 1}, {"memory", 1}},
             std::vector<ShapePoint> shape = {}) {
  FitArgs a;
  a.strategy = s;
  a.resources = std::move(res);
  a.shape = std::move(shape);
  return a;
}

int64_t score(const FitArgs& a, std::vector<int64_t> requested, std::vector<int64_t> allocatable) {
  return resource_allocation_score(a, requested.data(), allocatable.data(), requested.size());
}

TEST(LeastRequested, PerResource) {
  EXPECT_EQ(least_requested_score(0, 4000), 100);
  EXPECT_EQ(least_requested_score(3000, 4000), 25);
  EXPECT_EQ(least_requested_score(1000, 3000), 66);
  EXPECT_EQ(least_requested_score(4000, 4000), 0);
  EXPECT_EQ(least_requested_score(5000, 4000), 0);  // more than the node has
  EXPECT_EQ(least_requested_score(0, 0), 0);
}

TEST(MostRequested, PerResource) {
  EXPECT_EQ(most_requested_score(0, 4000), 0);
  EXPECT_EQ(most_requested_score(3000, 4000), 75);
  EXPECT_EQ(most_requested_score(2000, 3000), 66);
  EXPECT_EQ(most_requested_score(4000, 4000), 100);
  // Non-zero defaults can exceed the node: capped at 100.
  EXPECT_EQ(most_requested_score(5000, 4000), 100);
  EXPECT_EQ(most_requested_score(10, 0), 0);
}

// kube-scheduler's TestNodeResourcesLeastAllocated, "nothing scheduled, resources
// requested, differently sized nodes": pod 3000m / 5000 on 4000m/10000 and 6000m/10000.
TEST(LeastAllocated, DifferentlySizedNodes) {
  FitArgs a = args(ScoringStrategy::LeastAllocated);
  EXPECT_EQ(score(a, {3000, 5000}, {4000, 10000}), 37);  // (25 + 50) / 2
  EXPECT_EQ(score(a, {3000, 5000}, {6000, 10000}), 50);
  EXPECT_EQ(score(a, {0, 0}, {4000, 10000}), 100);
}

TEST(LeastAllocated, ResourceWeights) {
  // (25 × 2 + 50 × 1) / 3 = 33.
  EXPECT_EQ(score(args(ScoringStrategy::LeastAllocated, {{"cpu", 2}, {"memory", 1}}), {3000, 5000},
                  {4000, 10000}),
            33);
  EXPECT_EQ(score(args(ScoringStrategy::LeastAllocated, {{"cpu", 1}, {"memory", 3}}), {3000, 5000},
                  {4000, 10000}),
            43);
}

TEST(LeastAllocated, RequestedMoreThanCapacity) {
  // cpu 0 (over), memory 50.
  EXPECT_EQ(score(args(ScoringStrategy::LeastAllocated), {6000, 5000}, {4000, 10000}), 25);
}

TEST(MostAllocated, DifferentlySizedNodes) {
  FitArgs a = args(ScoringStrategy::MostAllocated);
  EXPECT_EQ(score(a, {3000, 5000}, {4000, 10000}), 62);  // (75 + 50) / 2
  EXPECT_EQ(score(a, {3000, 5000}, {6000, 10000}), 50);
  EXPECT_EQ(score(a, {0, 0}, {4000, 10000}), 0);
  EXPECT_EQ(score(a, {8000, 20000}, {4000, 10000}), 100);
}

TEST(ResourceAllocation, ResourcesWithoutAllocatableAreSkipped) {
  // Only memory counts: its weight alone divides.
  FitArgs a = args(ScoringStrategy::LeastAllocated, {{"cpu", 1}, {"memory", 1}});
  EXPECT_EQ(score(a, {0, 2500}, {0, 10000}), 75);
  EXPECT_EQ(score(a, {0, 0}, {0, 0}), 0);
  EXPECT_EQ(score(args(ScoringStrategy::MostAllocated), {1000, 0}, {4000, 0}), 25);
}

TEST(BrokenLinear, ScalesTheShapeToMaxNodeScore) {
  // helper.TestBrokenLinearFunction's shapes, on kube-scheduler's 0..100
  // scale (score × 10): points (10, 1) and (90, 9).
  std::vector<ShapePoint> shape = {{10, 1}, {90, 9}};
  EXPECT_EQ(broken_linear(shape, -10), 10);
  EXPECT_EQ(broken_linear(shape, 0), 10);
  EXPECT_EQ(broken_linear(shape, 9), 10);
  EXPECT_EQ(broken_linear(shape, 10), 10);
  EXPECT_EQ(broken_linear(shape, 15), 15);
  EXPECT_EQ(broken_linear(shape, 19), 19);
  EXPECT_EQ(broken_linear(shape, 20), 20);
  EXPECT_EQ(broken_linear(shape, 89), 89);
  EXPECT_EQ(broken_linear(shape, 90), 90);
  EXPECT_EQ(broken_linear(shape, 99), 90);
  EXPECT_EQ(broken_linear(shape, 100), 90);
  EXPECT_EQ(broken_linear(shape, 110), 90);
}

TEST(BrokenLinear, RisingThenFalling) {
  std::vector<ShapePoint> shape = {{0, 2}, {40, 10}, {100, 0}};
  EXPECT_EQ(broken_linear(shape, -10), 20);
  EXPECT_EQ(broken_linear(shape, 0), 20);
  EXPECT_EQ(broken_linear(shape, 20), 60);
  EXPECT_EQ(broken_linear(shape, 30), 80);
  EXPECT_EQ(broken_linear(shape, 40), 100);
  EXPECT_EQ(broken_linear(shape, 70), 50);
  EXPECT_EQ(broken_linear(shape, 100), 0);
  EXPECT_EQ(broken_linear(shape, 110), 0);
}

TEST(BrokenLinear, FlatShape) {
  std::vector<ShapePoint> shape = {{0, 2}, {40, 2}, {100, 2}};
  for (int64_t p : {-10, 0, 20, 30, 40, 70, 100, 110}) EXPECT_EQ(broken_linear(shape, p), 20) << p;
}

TEST(BrokenLinear, DecreasingShapeTruncatesTowardZero) {
  std::vector<ShapePoint> shape = {{0, 10}, {100, 0}};
  EXPECT_EQ(broken_linear(shape, 0), 100);
  EXPECT_EQ(broken_linear(shape, 25), 75);
  EXPECT_EQ(broken_linear(shape, 100), 0);
  // 100 + (0 - 100) × 1 / 3 = 100 - 33 (Go truncates -33.3 toward zero).
  std::vector<ShapePoint> thirds = {{0, 10}, {3, 0}};
  EXPECT_EQ(broken_linear(thirds, 1), 67);
  EXPECT_EQ(broken_linear(thirds, 2), 34);
  std::vector<ShapePoint> rising_thirds = {{0, 0}, {3, 10}};
  EXPECT_EQ(broken_linear(rising_thirds, 1), 33);
  EXPECT_EQ(broken_linear(rising_thirds, 2), 66);
}

TEST(BrokenLinear, SinglePoint) {
  std::vector<ShapePoint> shape = {{50, 7}};
  EXPECT_EQ(broken_linear(shape, 0), 70);
  EXPECT_EQ(broken_linear(shape, 50), 70);
  EXPECT_EQ(broken_linear(shape, 100), 70);
}

// kube-scheduler's TestRequestedToCapacityRatioScoringStrategy with the shape
// (0, 10), (100, 0): least-requested nodes have priority.
TEST(RequestedToCapacityRatio, DecreasingShapeRoundsHalfUp) {
  FitArgs a = args(ScoringStrategy::RequestedToCapacityRatio, {{"cpu", 1}, {"memory", 1}},
                   {{0, 10}, {100, 0}});
  EXPECT_EQ(score(a, {3000, 5000}, {4000, 10000}), 38);  // round((25 + 50) / 2) = round(37.5)
  EXPECT_EQ(score(a, {3000, 5000}, {6000, 10000}), 50);
  EXPECT_EQ(score(a, {0, 0}, {4000, 10000}), 100);
}

TEST(RequestedToCapacityRatio, AveragesOnlyPositiveScores) {
  FitArgs a = args(ScoringStrategy::RequestedToCapacityRatio, {{"cpu", 1}, {"memory", 1}},
                   {{0, 0}, {100, 10}});
  // cpu at 0% scores 0 and is left out of the average: memory's 50 alone.
  EXPECT_EQ(score(a, {0, 5000}, {4000, 10000}), 50);
  EXPECT_EQ(score(a, {0, 0}, {4000, 10000}), 0);
  EXPECT_EQ(score(a, {1000, 5000}, {4000, 10000}), 38);  // round(37.5)
  EXPECT_EQ(score(a, {600, 2000}, {4000, 10000}), 18);   // round((15 + 20) / 2) = round(17.5)
  EXPECT_EQ(score(a, {400, 2100}, {4000, 10000}), 16);   // round((10 + 21) / 2) = round(15.5)
  EXPECT_EQ(score(a, {500, 2000}, {4000, 10000}), 16);   // 12 (12.5 truncated) and 20: round(16)
}

TEST(RequestedToCapacityRatio, WeightedAverageRounds) {
  FitArgs a = args(ScoringStrategy::RequestedToCapacityRatio, {{"cpu", 1}, {"memory", 2}},
                   {{0, 0}, {100, 10}});
  // (10 × 1 + 21 × 2) / 3 = 17.33 → 17; (10 + 22 × 2) / 3 = 18.
  EXPECT_EQ(score(a, {400, 2100}, {4000, 10000}), 17);
  EXPECT_EQ(score(a, {400, 2200}, {4000, 10000}), 18);
}

TEST(RequestedToCapacityRatio, OverCapacityUsesFullUtilization) {
  FitArgs a = args(ScoringStrategy::RequestedToCapacityRatio, {{"cpu", 1}}, {{0, 0}, {100, 10}});
  EXPECT_EQ(score(a, {8000}, {4000}), 100);
  FitArgs down = args(ScoringStrategy::RequestedToCapacityRatio, {{"cpu", 1}}, {{0, 10}, {100, 0}});
  EXPECT_EQ(score(down, {8000}, {4000}), 0);
}

// TestResourceBinPackingSingleExtended: shape (0, 0), (100, 1) on intel.com/foo.
TEST(RequestedToCapacityRatio, ExtendedResourceBinPacking) {
  FitArgs a =
      args(ScoringStrategy::RequestedToCapacityRatio, {{"intel.com/foo", 1}}, {{0, 0}, {100, 1}});
  EXPECT_EQ(score(a, {2}, {8}), 2);  // 25% of a 0..10 line: 10 × 25 / 100 = 2 (truncated)
  EXPECT_EQ(score(a, {2}, {4}), 5);
  EXPECT_EQ(score(a, {4}, {4}), 10);
}

class FitFilter : public ::testing::Test {
 protected:
  FitRequest request_for(const Cluster& c, const Pod& p, const FitArgs& a = FitArgs{}) {
    return fit_request(c, c.usage_of(p), a);
  }
};

TEST_F(FitFilter, ReasonsInKubeSchedulerOrder) {
  Node n = make_node("n", 1000, kGi, 1);
  n.allocatable = testing::resources({{"cpu", 1000},
                                      {"memory", kGi},
                                      {"pods", 1},
                                      {"ephemeral-storage", kGi},
                                      {"example.com/b", 1}});
  Cluster c = build_cluster({n}, {bound_pod("x", "n", resources({{"cpu", 500}}))});
  Pod p = make_pod("p", {resources({{"cpu", 600},
                                    {"memory", 2 * kGi},
                                    {"ephemeral-storage", 2 * kGi},
                                    {"example.com/b", 2},
                                    {"example.com/a", 1}})});
  FitRequest r = request_for(c, p);
  EXPECT_FALSE(fits(c, 0, r));
  EXPECT_EQ(fit_reasons(c, 0, r),
            (std::vector<std::string>{"Too many pods", "Insufficient cpu", "Insufficient memory",
                                      "Insufficient ephemeral-storage",
                                      "Insufficient example.com/a", "Insufficient example.com/b"}));
}

TEST_F(FitFilter, ExactFitFits) {
  Cluster c = build_cluster({make_node("n", 1000, kGi, 2)},
                            {bound_pod("x", "n", resources({{"cpu", 400}}))});
  Pod p = make_pod("p", {resources({{"cpu", 600}, {"memory", kGi}})});
  EXPECT_TRUE(fits(c, 0, request_for(c, p)));
  EXPECT_TRUE(fit_reasons(c, 0, request_for(c, p)).empty());
  p.containers.mut()[0].requests = resources({{"cpu", 601}});
  EXPECT_EQ(fit_reasons(c, 0, request_for(c, p)), (std::vector<std::string>{"Insufficient cpu"}));
}

TEST_F(FitFilter, PodRequestingNothingOnlyNeedsAPodSlot) {
  Cluster c = build_cluster({make_node("full", 0, 0, 1), make_node("nopods", 1000, kGi, 0)});
  Pod p = make_pod("p");
  FitRequest r = request_for(c, p);
  EXPECT_TRUE(r.requests_nothing());
  EXPECT_TRUE(fits(c, 0, r));
  EXPECT_EQ(fit_reasons(c, 1, r), (std::vector<std::string>{"Too many pods"}));
}

TEST_F(FitFilter, NonZeroDefaultsDoNotCountForFitting) {
  // A pod without requests fits a node with no cpu left: the 100m default is for scoring only.
  Cluster c =
      build_cluster({make_node("n", 1000, kGi)}, {bound_pod("x", "n", resources({{"cpu", 1000}}))});
  EXPECT_TRUE(fits(c, 0, request_for(c, make_pod("p"))));
}

TEST_F(FitFilter, ExtendedResourceNoNodeOffers) {
  Cluster c = build_cluster({make_node("n", 1000, kGi)});
  Pod p = make_pod("p", {resources({{"example.com/aaa", 1}})});
  FitRequest r = request_for(c, p);
  ASSERT_EQ(r.scalars.size(), 1u);
  EXPECT_EQ(r.scalars[0].index, UINT32_MAX);
  EXPECT_EQ(fit_reasons(c, 0, r), (std::vector<std::string>{"Insufficient example.com/aaa"}));
}

TEST_F(FitFilter, IgnoredResourcesAndGroups) {
  Cluster c = build_cluster({make_node("n", 1000, kGi)});
  Pod p = make_pod("p", {resources({{"example.com/aaa", 1}, {"other.io/bbb", 1}})});
  FitArgs a;
  a.ignored_resources = {"example.com/aaa"};
  EXPECT_EQ(fit_reasons(c, 0, request_for(c, p, a)),
            (std::vector<std::string>{"Insufficient other.io/bbb"}));
  a.ignored_resource_groups = {"other.io"};
  EXPECT_TRUE(fits(c, 0, request_for(c, p, a)));
}

TEST_F(FitFilter, ZeroExtendedRequestIsNotChecked) {
  Cluster c = build_cluster({make_node("n", 1000, kGi)});
  Pod p = make_pod("p", {resources({{"example.com/aaa", 0}})});
  EXPECT_TRUE(fits(c, 0, request_for(c, p)));
}

TEST_F(FitFilter, ScalarUsageAccumulates) {
  Node n = make_node("n", 8000, 8 * kGi);
  set_resource(n.allocatable, "nvidia.com/gpu", 2);
  Cluster c = build_cluster({n}, {bound_pod("x", "n", resources({{"nvidia.com/gpu", 1}}))});
  Pod p = make_pod("p", {resources({{"nvidia.com/gpu", 1}})});
  EXPECT_TRUE(fits(c, 0, request_for(c, p)));
  c.place(0, BoundPod{"default/y", 0, c.usage_of(p)});
  EXPECT_EQ(fit_reasons(c, 0, request_for(c, p)),
            (std::vector<std::string>{"Insufficient nvidia.com/gpu"}));
}

TEST_F(FitFilter, ReliefGivesBackResources) {
  Cluster c = build_cluster({make_node("n", 1000, kGi, 2)},
                            {bound_pod("low", "n", resources({{"cpu", 800}}), 0),
                             bound_pod("high", "n", resources({{"cpu", 100}}), 100)});
  Pod p = make_pod("p", {resources({{"cpu", 500}})});
  FitRequest r = request_for(c, p);
  EXPECT_EQ(fit_reasons(c, 0, r), (std::vector<std::string>{"Too many pods", "Insufficient cpu"}));
  Relief relief = c.relief_of(0, {0});
  EXPECT_EQ(relief.cpu, 800);
  EXPECT_EQ(relief.pods, 1);
  EXPECT_TRUE(fits(c, 0, r, &relief));
}

// kubernetes#131345 (v1.34): a request larger than the node's allocatable
// makes the filter UnschedulableAndUnresolvable (no eviction can help); a
// request that only exceeds the free room stays Unschedulable.
TEST_F(FitFilter, RequestBeyondAllocatableIsUnresolvable) {
  Node n = make_node("n", 1000, kGi, 2);
  set_resource(n.allocatable, "ephemeral-storage", kGi);
  set_resource(n.allocatable, "nvidia.com/gpu", 2);
  Cluster c = build_cluster(
      {n},
      {bound_pod("x", "n", resources({{"cpu", 500}, {"memory", kGi / 2}, {"nvidia.com/gpu", 1}}))});
  auto verdict = [&](ResourceList requests) {
    return fit_verdict(c, 0, request_for(c, make_pod("p", {std::move(requests)})));
  };
  EXPECT_EQ(verdict(resources({{"cpu", 500}})), FitVerdict::kFits);
  // More than is free, no more than the node has.
  EXPECT_EQ(verdict(resources({{"cpu", 600}})), FitVerdict::kInsufficient);
  EXPECT_EQ(verdict(resources({{"cpu", 1000}})), FitVerdict::kInsufficient);
  EXPECT_EQ(verdict(resources({{"memory", kGi}})), FitVerdict::kInsufficient);
  EXPECT_EQ(verdict(resources({{"nvidia.com/gpu", 2}})), FitVerdict::kInsufficient);
  // More than the node has, per resource.
  EXPECT_EQ(verdict(resources({{"cpu", 1001}})), FitVerdict::kUnresolvable);
  EXPECT_EQ(verdict(resources({{"memory", 2 * kGi}})), FitVerdict::kUnresolvable);
  EXPECT_EQ(verdict(resources({{"ephemeral-storage", 2 * kGi}})), FitVerdict::kUnresolvable);
  EXPECT_EQ(verdict(resources({{"nvidia.com/gpu", 3}})), FitVerdict::kUnresolvable);
  // One unresolvable resource settles it, before or after an insufficient one.
  EXPECT_EQ(verdict(resources({{"cpu", 600}, {"memory", 2 * kGi}})), FitVerdict::kUnresolvable);
  EXPECT_EQ(verdict(resources({{"cpu", 2000}, {"memory", kGi}})), FitVerdict::kUnresolvable);
  // The reasons are the same either way.
  const Pod both = make_pod("p", {resources({{"cpu", 600}, {"memory", 2 * kGi}})});
  EXPECT_EQ(fit_reasons(c, 0, request_for(c, both)),
            (std::vector<std::string>{"Insufficient cpu", "Insufficient memory"}));
}

TEST_F(FitFilter, TooManyPodsIsNeverUnresolvable) {
  // fitsRequest never marks the pod count Unresolvable, even on a node that
  // takes no pod at all.
  Cluster c = build_cluster({make_node("full", 1000, kGi, 1), make_node("nopods", 1000, kGi, 0)},
                            {bound_pod("x", "full", resources({{"cpu", 100}}))});
  const FitRequest r = request_for(c, make_pod("p", {resources({{"cpu", 100}})}));
  EXPECT_EQ(fit_verdict(c, 0, r), FitVerdict::kInsufficient);
  EXPECT_EQ(fit_verdict(c, 1, r), FitVerdict::kInsufficient);
  EXPECT_EQ(fit_reasons(c, 1, r), (std::vector<std::string>{"Too many pods"}));
}

}  // namespace
}  // namespace tightpack::plugins
