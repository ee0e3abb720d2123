// The expanders against cluster-autoscaler's expander/ (waste, mostpods,
// priority, factory/chain.go) at the commit tests/conformance/autoscaler-reference
// pins. The first four tests walk several rules at once; each later one pins
// one rule, named with its upstream file, its expectations read off that
// source rather than off the engine. The price filter is tightpack's own
// (docs/autoscaler.md), pinned as documented. A DISABLED_ test is an upstream
// rule the engine does not follow yet: its comment says how the engine differs.
#include "tightpack/autoscaler/expander.hpp"

#include <gtest/gtest.h>

#include <map>
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

ExpansionOption option(std::string group, int64_t nodes, const std::vector<Pod>& pods,
                       const Node& tmpl) {
  return ExpansionOption{std::move(group), nodes, pointers(pods), &tmpl};
}

std::vector<std::string> groups(const std::vector<ExpansionOption>& options,
                                const std::vector<size_t>& picked) {
  std::vector<std::string> out;
  for (size_t i : picked) out.push_back(options[i].group);
  return out;
}

TEST(AutoscalerExpander, LeastWasteOverCapacityAndUncappedNodeCount) {
  Node big = make_node("big", 8000, 32 * kGi);
  big.capacity = resources({{"cpu", 8000}, {"memory", 32 * kGi}});
  big.allocatable = resources({{"cpu", 7910}, {"memory", 30 * kGi}});
  Node small = make_node("small", 4000, 16 * kGi);
  std::vector<Pod> pods = {sized("p", 2000, 8 * kGi)};
  std::vector<ExpansionOption> options = {option("big", 2, pods, big),
                                          option("small", 1, pods, small)};
  Waste w = waste_of(options[0]);
  EXPECT_DOUBLE_EQ(w.cpu, static_cast<double>(16000 - 2000) / 16000);
  EXPECT_DOUBLE_EQ(w.memory,
                   static_cast<double>(64 * kGi - 8 * kGi) / static_cast<double>(64 * kGi));
  EXPECT_EQ(least_waste(options, {0, 1}), (std::vector<size_t>{1}));
}

TEST(AutoscalerExpander, MostPodsKeepsTies) {
  Node n = make_node("n", 4000, 16 * kGi);
  std::vector<Pod> two = {sized("a", 1, 1), sized("b", 1, 1)};
  std::vector<Pod> one = {sized("c", 1, 1)};
  std::vector<ExpansionOption> options = {option("x", 1, two, n), option("y", 1, one, n),
                                          option("z", 2, two, n)};
  EXPECT_EQ(most_pods(options, {0, 1, 2}), (std::vector<size_t>{0, 2}));
  Choice c = choose_option(options, {"most-pods"}, {});
  EXPECT_EQ(options[c.chosen].group, "x");  // the tie goes to the lowest name
  EXPECT_EQ(c.tied, (std::vector<size_t>{0, 2}));
}

TEST(AutoscalerExpander, PriorityMatchesUnanchoredRegexpsHighestFirst) {
  Node n = make_node("n", 4000, 16 * kGi);
  std::vector<Pod> pods = {sized("a", 1000, kGi)};
  std::vector<ExpansionOption> options = {option("user-pool", 1, pods, n),
                                          option("dask-workers", 1, pods, n),
                                          option("gpu-t4", 1, pods, n)};
  Priorities prio = {{10, {".*"}}, {50, {"workers"}}};
  EXPECT_EQ(priority_filter(options, {0, 1, 2}, prio), (std::vector<size_t>{1}));
  // Nothing matches: every option stays.
  EXPECT_EQ(priority_filter(options, {0, 1, 2}, {{5, {"^nomatch$"}}}),
            (std::vector<size_t>{0, 1, 2}));
}

TEST(AutoscalerExpander, PriorityFallsBackToTheNextExpander) {
  Node n = make_node("n", 4000, 16 * kGi);
  std::vector<Pod> full = {sized("a", 4000, 16 * kGi)};
  std::vector<Pod> half = {sized("b", 2000, 8 * kGi)};
  std::vector<ExpansionOption> options = {
      option("dask-a", 1, half, n), option("dask-b", 1, full, n), option("other", 1, full, n)};
  Choice c = choose_option(options, {"priority", "least-waste"}, {{50, {"dask-.*"}}, {10, {".*"}}});
  EXPECT_EQ(options[c.chosen].group, "dask-b");
  EXPECT_TRUE(c.tied.empty());
}

// waste/waste.go: wastedScore = wastedCPU + wastedMemory, each
// float64(avail − requested) / float64(avail); the lowest sum wins. Neither
// fraction alone nor the larger of the two decides.
TEST(AutoscalerExpander, LeastWasteAddsTheCpuAndMemoryFractions) {
  const Node n = make_node("n", 4000, 16 * kGi);
  const std::vector<Pod> cpu_full = {sized("a", 4000, 4 * kGi)};   // 0 + 0.75
  const std::vector<Pod> balanced = {sized("b", 3000, 12 * kGi)};  // 0.25 + 0.25
  std::vector<ExpansionOption> options = {option("cpu-full", 1, cpu_full, n),
                                          option("balanced", 1, balanced, n)};
  EXPECT_DOUBLE_EQ(waste_of(options[0]).score(), 0.75);
  EXPECT_DOUBLE_EQ(waste_of(options[1]).score(), 0.5);
  EXPECT_EQ(least_waste(options, {0, 1}), (std::vector<size_t>{1}));

  const Node m = make_node("m", 10000, 10 * kGi);
  const std::vector<Pod> skewed = {sized("c", 10000, 7 * kGi)};  // 0 + 0.3, max 0.3
  const std::vector<Pod> even = {sized("d", 8000, 8 * kGi)};     // 0.2 + 0.2, max 0.2
  options = {option("skewed", 1, skewed, m), option("even", 1, even, m)};
  EXPECT_EQ(least_waste(options, {0, 1}), (std::vector<size_t>{0}));
}

// waste/waste.go appends an option whose score equals the least so far; the
// chain (factory/chain.go) hands a tie to the random strategy, which the
// reference and the corpus replace by the lowest node-group name.
TEST(AutoscalerExpander, LeastWasteKeepsEqualScoresAndTheTieGoesToTheLowestName) {
  const Node n = make_node("n", 4000, 16 * kGi);
  const std::vector<Pod> pods = {sized("p", 2000, 8 * kGi)};
  const std::vector<ExpansionOption> options = {option("pool-b", 1, pods, n),
                                                option("pool-a", 1, pods, n)};
  EXPECT_EQ(least_waste(options, {0, 1}), (std::vector<size_t>{0, 1}));
  const Choice c = choose_option(options, {"least-waste"}, {});
  EXPECT_EQ(options[c.chosen].group, "pool-a");
  EXPECT_EQ(c.tied, (std::vector<size_t>{0, 1}));
}

// waste/waste.go resourcesForPods sums podutils.PodRequests: the larger of
// the containers' sum and each init container, plus the pod's overhead
// (component-helpers resource.PodRequests), not the containers alone
// (which would find cpu waste 0.75 for the first pod below, 0.25 for the
// second).
TEST(AutoscalerExpander, LeastWasteCountsInitContainersAndOverhead) {
  const Node n = make_node("n", 4000, 16 * kGi);
  std::vector<Pod> init = {sized("init", 1000, 4 * kGi)};
  init[0].init_containers = {make_container(resources({{"cpu", 4000}}), "setup")};
  EXPECT_DOUBLE_EQ(waste_of(option("g", 1, init, n)).cpu, 0.0);
  std::vector<Pod> overhead = {sized("overhead", 3000, 4 * kGi)};
  overhead[0].overhead = resources({{"cpu", 1000}, {"memory", 4 * kGi}});
  const Waste w = waste_of(option("g", 1, overhead, n));
  EXPECT_DOUBLE_EQ(w.cpu, 0.0);
  EXPECT_DOUBLE_EQ(w.memory, 0.5);
}

// mostpods/mostpods.go: the options with the most pods, ties kept; node
// count and waste play no part.
TEST(AutoscalerExpander, MostPodsCountsPodsAlone) {
  const Node n = make_node("n", 4000, 16 * kGi);
  const std::vector<Pod> three = {sized("a", 1, 1), sized("b", 1, 1), sized("c", 1, 1)};
  const std::vector<Pod> two = {sized("d", 2000, 8 * kGi), sized("e", 2000, 8 * kGi)};
  const std::vector<ExpansionOption> options = {option("snug", 1, two, n),
                                                option("sprawling", 3, three, n)};
  EXPECT_EQ(most_pods(options, {0, 1}), (std::vector<size_t>{1}));
}

// priority/priority.go: an option whose group no pattern matches is dropped
// ("The group won't be used") when another matches; with no configuration
// (the ConfigMap not found) every option stays.
TEST(AutoscalerExpander, PriorityDropsGroupsNoPatternMatches) {
  const Node n = make_node("n", 4000, 16 * kGi);
  const std::vector<Pod> pods = {sized("p", 1000, kGi)};
  const std::vector<ExpansionOption> options = {
      option("gpu-t4", 1, pods, n), option("dask-a", 1, pods, n), option("cpu-e2", 1, pods, n)};
  EXPECT_EQ(groups(options, priority_filter(options, {0, 1, 2}, {{10, {"^dask-"}}})),
            (std::vector<std::string>{"dask-a"}));
  EXPECT_EQ(priority_filter(options, {0, 1, 2}, {}), (std::vector<size_t>{0, 1, 2}));
}

// priority/priority.go starts from maxPrio := -1 and skips any priority
// below it: a group matched only at −1 is chosen as at any higher priority.
TEST(AutoscalerExpander, PriorityMinusOneIsStillAPriority) {
  const Node n = make_node("n", 4000, 16 * kGi);
  const std::vector<Pod> pods = {sized("p", 1000, kGi)};
  const std::vector<ExpansionOption> options = {option("cpu", 1, pods, n),
                                                option("gpu", 1, pods, n)};
  EXPECT_EQ(groups(options, priority_filter(options, {0, 1}, {{-1, {"gpu"}}})),
            (std::vector<std::string>{"gpu"}));
}

// The same maxPrio := -1: a priority below −1 never enters `best`, so when
// only such priorities match, no option is filtered ("no priorities info
// found for any of the expansion options"); starting from the lowest int64
// instead would keep only the group matched at −5.
TEST(AutoscalerExpander, PriorityBelowMinusOneFiltersNothing) {
  const Node n = make_node("n", 4000, 16 * kGi);
  const std::vector<Pod> pods = {sized("p", 1000, kGi)};
  const std::vector<ExpansionOption> options = {option("cpu", 1, pods, n),
                                                option("gpu", 1, pods, n)};
  EXPECT_EQ(priority_filter(options, {0, 1}, {{-5, {"gpu"}}}), (std::vector<size_t>{0, 1}));
}

// factory/chain.go: the filters in the order given, each on what the last
// left, stopping as soon as one option is left.
TEST(AutoscalerExpander, ChainStopsAtTheFirstFilterThatLeavesOne) {
  const Node n = make_node("n", 4000, 16 * kGi);
  const std::vector<Pod> many_small = {sized("a", 100, kGi), sized("b", 100, kGi)};
  const std::vector<Pod> one_full = {sized("c", 4000, 16 * kGi)};
  const std::vector<ExpansionOption> options = {option("many", 1, many_small, n),
                                                option("full", 1, one_full, n)};
  EXPECT_EQ(options[choose_option(options, {"most-pods", "least-waste"}, {}).chosen].group, "many");
  EXPECT_EQ(options[choose_option(options, {"least-waste", "most-pods"}, {}).chosen].group, "full");
}

// tightpack's price filter (expander.hpp; CA's expander/price/price.go also
// weighs pod prices and a preferred node, which this does not): the least
// node count × price per node, ties kept; a group without a price ranks after
// the priced ones; with none priced every option stays.
TEST(AutoscalerExpander, PriceIsNodeCountTimesThePriceOfANode) {
  const Node n = make_node("n", 4000, 16 * kGi);
  const std::vector<Pod> pods = {sized("p", 1000, kGi)};
  const std::vector<ExpansionOption> options = {
      option("cheap-many", 3, pods, n), option("dear-one", 1, pods, n),
      option("same-cost", 2, pods, n), option("unpriced", 1, pods, n)};
  const std::map<std::string, double> prices = {
      {"cheap-many", 0.5}, {"dear-one", 1.0}, {"same-cost", 0.75}};
  EXPECT_EQ(groups(options, price_filter(options, {0, 1, 2, 3}, prices)),
            (std::vector<std::string>{"dear-one"}));
  EXPECT_EQ(groups(options, price_filter(options, {0, 2, 3}, prices)),
            (std::vector<std::string>{"cheap-many", "same-cost"}));
  EXPECT_EQ(price_filter(options, {0, 3}, {{"dear-one", 1.0}}), (std::vector<size_t>{0, 3}));
}

}  // namespace
}  // namespace tightpack::autoscaler
