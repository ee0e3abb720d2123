#include "tightpack/plugins/balanced_allocation.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace tightpack::plugins {
namespace {

// The balance of one state of the node (balancedResourceScore).
int64_t score(std::vector<int64_t> requested, std::vector<int64_t> allocatable) {
  return balance_score(requested.data(), allocatable.data(), requested.size());
}

// The plugin's score: the change from `allocated` (without the pod) to
// `requested` (with it).
int64_t change(std::vector<int64_t> requested, std::vector<int64_t> allocated,
               std::vector<int64_t> allocatable) {
  return balanced_allocation_score(requested.data(), allocated.data(), allocatable.data(),
                                   requested.size());
}

// Cases of kube-scheduler v1.37's TestNodeResourcesBalancedAllocation, where
// each comment gives the balance before and after.
TEST(BalancedAllocation, ScoresTheChangeInBalance) {
  // Nothing scheduled, differently sized nodes: 100 -> 87 and 100 -> 100.
  EXPECT_EQ(change({3000, 5000}, {0, 0}, {4000, 10000}), 68);
  EXPECT_EQ(change({3000, 5000}, {0, 0}, {6000, 10000}), 75);
  // Pods scheduled with resources: 85 -> 82 and 97 -> 95.
  EXPECT_EQ(change({6000, 5000}, {3000, 0}, {10000, 20000}), 73);
  EXPECT_EQ(change({6000, 10000}, {3000, 5000}, {10000, 20000}), 74);
  // Differently sized: 90 -> 80.
  EXPECT_EQ(change({6000, 10000}, {3000, 5000}, {10000, 50000}), 70);
  // Reaching the minimum and the maximum: 50 -> 100 and 100 -> 50.
  EXPECT_EQ(change({3000, 5000}, {3000, 0}, {3000, 5000}), 100);
  EXPECT_EQ(change({0, 5000}, {0, 0}, {3000, 5000}), 50);
  // At capacity: 75 -> 50 and 100 -> 75.
  EXPECT_EQ(change({6000, 0}, {3000, 0}, {6000, 10000}), 62);
  EXPECT_EQ(change({6000, 5000}, {3000, 5000}, {6000, 10000}), 62);
  // A GPU the pod requests: 69 -> 70 and 62 -> 65 over three resources.
  EXPECT_EQ(change({3000, 5000, 4}, {3000, 5000, 3}, {3500, 40000, 8}), 75);
  EXPECT_EQ(change({3000, 5000, 1}, {3000, 5000, 0}, {3500, 40000, 8}), 76);
}

// Cases of kube-scheduler's TestNodeResourcesBalancedAllocation before v1.36,
// for the balance of one state.
TEST(BalancedAllocation, DifferentlySizedNodes) {
  // cpu 3000/4000 = 0.75, memory 5000/10000 = 0.5: std 0.125, score 87.5 → 87.
  EXPECT_EQ(score({3000, 5000}, {4000, 10000}), 87);
  EXPECT_EQ(score({3000, 5000}, {6000, 10000}), 100);
}

TEST(BalancedAllocation, PodsScheduledWithResources) {
  // cpu 0.6, memory 0: std 0.3, score 70.
  EXPECT_EQ(score({6000, 0}, {10000, 20000}), 70);
  // cpu 0.6, memory 0.25: std 0.175, score 82.5 → 82.
  EXPECT_EQ(score({6000, 5000}, {10000, 20000}), 82);
}

TEST(BalancedAllocation, NothingRequestedIsPerfectlyBalanced) {
  EXPECT_EQ(score({0, 0}, {4000, 10000}), 100);
}

TEST(BalancedAllocation, FractionsAreCappedAtOne) {
  // cpu 8000/4000 counts as 1: std (1 - 0.5) / 2 = 0.25.
  EXPECT_EQ(score({8000, 5000}, {4000, 10000}), 75);
  EXPECT_EQ(score({8000, 30000}, {4000, 10000}), 100);
}

TEST(BalancedAllocation, ResourcesWithoutAllocatableAreSkipped) {
  // One fraction left: no deviation.
  EXPECT_EQ(score({3000, 0}, {4000, 0}), 100);
  EXPECT_EQ(score({0, 0}, {0, 0}), 100);
}

TEST(BalancedAllocation, TruncatesLikeFloat64) {
  // Exact arithmetic says (1 - 0.1) × 100 = 90, but in float64
  // |0.7 - 0.9| / 2 = 0.09999999999999998 and (1 - std) × 100 = 89.99999999999999.
  EXPECT_EQ(score({7, 9}, {10, 10}), 89);
  EXPECT_EQ(score({9, 7}, {10, 10}), 89);
  EXPECT_EQ(score({3, 4}, {5, 5}), 89);
  // 0.1 and 0.8: exact 65, float64 64.99999999999999.
  EXPECT_EQ(score({1, 4}, {10, 5}), 64);
  // Where float64 happens to be exact, it agrees.
  EXPECT_EQ(score({1, 3}, {10, 10}), 90);
}

TEST(BalancedAllocation, ThreeOrMoreResourcesUseTheStandardDeviation) {
  // 0.2, 0.4, 0.6: mean 0.4, variance 0.08 / 3, std 0.1633 → 83.67 → 83.
  EXPECT_EQ(score({2, 4, 6}, {10, 10, 10}), 83);
  EXPECT_EQ(score({5, 5, 5}, {10, 10, 10}), 100);
  // 0, 1, 1, 0 → std 0.5.
  EXPECT_EQ(score({0, 10, 10, 0}, {10, 10, 10, 10}), 50);
  // A third resource without allocatable leaves two: the pairwise formula.
  EXPECT_EQ(score({3000, 5000, 1}, {4000, 10000, 0}), 87);
}

}  // namespace
}  // namespace tightpack::plugins
