#include "tightpack/framework/preemption.hpp"

#include <gtest/gtest.h>

#include <climits>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "test_util.hpp"
#include "tightpack/built_in_profiles.hpp"
#include "tightpack/profile.hpp"

namespace tightpack {
namespace {

using testing::bound_pod;
using testing::build_cluster;
using testing::json_of;
using testing::kGi;
using testing::make_node;
using testing::make_pod;
using testing::resources;

const Profile& default_scheduler() {
  static const Profile profile = default_profile();
  return profile;
}

const Profile& z2jh_scheduler() {
  static const Profile profile = [] {
    auto c = decode_scheduler_configuration(json_of(kZ2jhUserSchedulerConfig), JsonPath());
    return c ? c->profiles.front() : Profile{};
  }();
  return profile;
}

Pod preemptor(int64_t milli_cpu, int32_t priority, int64_t memory = 0) {
  Pod p = make_pod("preemptor", {resources({{"cpu", milli_cpu}, {"memory", memory}})});
  p.priority = priority;
  return p;
}

Pod bound_memory_pod(std::string name, std::string node, int64_t memory, int32_t priority) {
  return bound_pod(std::move(name), std::move(node), resources({{"memory", memory}}), priority);
}

// The preemption for a pod that fits nowhere, decided the way decide() leaves it.
std::optional<PreemptionChoice> choose(const Cluster& c, const Pod& pod,
                                       const PreemptionFacts& facts = {},
                                       const Profile& profile = default_scheduler()) {
  auto plan = PodPlan::make(c, profile, pod);
  PlanScratch scratch;
  if (!plan) {
    ADD_FAILURE() << plan.error().what();
    return std::nullopt;
  }
  const Decision d = decide(*plan, c, scratch);
  EXPECT_TRUE(d.feasible.empty()) << pod.name << " fits without preempting";
  return select_preemption(*plan, c, scratch, d, facts);
}

// The victims' names, in the choice's order.
std::vector<std::string> victims(const Cluster& c, const PreemptionChoice& choice) {
  std::vector<std::string> out;
  for (size_t k : choice.victims) {
    const std::string& key = c.pods_on(choice.node)[k].key;
    out.push_back(key.substr(key.find('/') + 1));
  }
  return out;
}

// Start times and budgets by pod name.
PreemptionFacts facts_of(std::map<std::string, int64_t> start, std::vector<int32_t> allowed = {},
                         std::map<std::string, std::vector<size_t>> budgets = {}) {
  auto name = [](const BoundPod& p) { return p.key.substr(p.key.find('/') + 1); };
  PreemptionFacts f;
  f.pdb_disruptions_allowed = std::move(allowed);
  f.start_time = [start = std::move(start), name](const BoundPod& p) {
    auto it = start.find(name(p));
    return it == start.end() ? int64_t{0} : it->second;
  };
  f.pdbs_of = [budgets = std::move(budgets), name](const BoundPod& p) {
    auto it = budgets.find(name(p));
    return it == budgets.end() ? std::vector<size_t>{} : it->second;
  };
  return f;
}

// zero-to-jupyterhub: user placeholders (priority -10) hold room for real
// users (priority 0); a user that does not fit evicts as few placeholders as
// it needs, the youngest, and the reprieve keeps the rest.
TEST(Preemption, Z2jhUserEvictsTheFewestYoungestPlaceholders) {
  Cluster c = build_cluster({make_node("user-1", 8000, 32 * kGi)},
                            {bound_memory_pod("jupyter-alice", "user-1", 8 * kGi, 0),
                             bound_memory_pod("placeholder-0", "user-1", 8 * kGi, -10),
                             bound_memory_pod("placeholder-1", "user-1", 8 * kGi, -10),
                             bound_memory_pod("placeholder-2", "user-1", 8 * kGi, -10)});
  const PreemptionFacts facts = facts_of({{"jupyter-alice", 50},
                                          {"placeholder-0", 300},
                                          {"placeholder-1", 100},
                                          {"placeholder-2", 200}});

  auto one = choose(c, preemptor(0, 0, 8 * kGi), facts, z2jh_scheduler());
  ASSERT_TRUE(one.has_value());
  EXPECT_EQ(one->node, 0u);
  EXPECT_EQ(victims(c, *one), (std::vector<std::string>{"placeholder-0"}));
  EXPECT_EQ(one->pdb_violations, 0);

  auto two = choose(c, preemptor(0, 0, 12 * kGi), facts, z2jh_scheduler());
  ASSERT_TRUE(two.has_value());
  EXPECT_EQ(victims(c, *two), (std::vector<std::string>{"placeholder-2", "placeholder-0"}));

  // Three placeholders free 24 GiB; the user pod stays.
  EXPECT_FALSE(choose(c, preemptor(0, 0, 25 * kGi), facts, z2jh_scheduler()).has_value());
}

TEST(Preemption, HigherAndEqualPriorityPodsAreNeverVictims) {
  Cluster c = build_cluster({make_node("n", 1000, kGi)},
                            {bound_pod("high", "n", resources({{"cpu", 400}}), 100),
                             bound_pod("same", "n", resources({{"cpu", 100}}), 50),
                             bound_pod("low-1", "n", resources({{"cpu", 250}}), 10),
                             bound_pod("low-2", "n", resources({{"cpu", 250}}), 20)});
  auto choice = choose(c, preemptor(500, 50));
  ASSERT_TRUE(choice.has_value());
  // Highest priority first.
  EXPECT_EQ(victims(c, *choice), (std::vector<std::string>{"low-2", "low-1"}));
  // 600m would need `same` or `high` gone too.
  EXPECT_FALSE(choose(c, preemptor(600, 50)).has_value());
}

TEST(Preemption, PreemptionPolicyNeverPreemptsNothing) {
  Cluster c = build_cluster({make_node("n", 1000, kGi)},
                            {bound_pod("low", "n", resources({{"cpu", 800}}), 0)});
  Pod p = preemptor(500, 100);
  ASSERT_TRUE(choose(c, p).has_value());
  p.preempt_never = true;
  EXPECT_FALSE(choose(c, p).has_value());
}

TEST(Preemption, NoCandidateWhenEvictingEverythingDoesNotFit) {
  Cluster c = build_cluster({make_node("a", 1000, kGi), make_node("b", 2000, kGi)},
                            {bound_pod("low-a", "a", resources({{"cpu", 900}}), 0),
                             bound_pod("high-b", "b", resources({{"cpu", 1500}}), 200),
                             bound_pod("low-b", "b", resources({{"cpu", 400}}), 0)});
  // a is too small even empty; b keeps its 1500m of higher priority.
  EXPECT_FALSE(choose(c, preemptor(1200, 100)).has_value());
  // A node without lower-priority pods is no candidate either.
  EXPECT_FALSE(choose(build_cluster({make_node("n", 1000, kGi)},
                                    {bound_pod("same", "n", resources({{"cpu", 800}}), 100)}),
                      preemptor(500, 100))
                   .has_value());
}

TEST(Preemption, BudgetViolationsCountAndAreReprievedFirst) {
  Cluster c = build_cluster({make_node("n", 1000, kGi)},
                            {bound_pod("old", "n", resources({{"cpu", 500}}), 0),
                             bound_pod("young", "n", resources({{"cpu", 500}}), 0)});
  const std::map<std::string, int64_t> start{{"old", 100}, {"young", 200}};

  // Without budgets the older pod is put back first: the young one goes.
  auto plain = choose(c, preemptor(500, 10), facts_of(start));
  ASSERT_TRUE(plain.has_value());
  EXPECT_EQ(victims(c, *plain), (std::vector<std::string>{"young"}));

  // A budget that allows no disruption of `young` puts it back before `old`.
  auto guarded = choose(c, preemptor(500, 10), facts_of(start, {0}, {{"young", {0}}}));
  ASSERT_TRUE(guarded.has_value());
  EXPECT_EQ(victims(c, *guarded), (std::vector<std::string>{"old"}));
  EXPECT_EQ(guarded->pdb_violations, 0);

  // One disruption allowed for both: the more important `old` uses it up,
  // so evicting `young` as well violates the budget once.
  auto both = choose(c, preemptor(1000, 10), facts_of(start, {1}, {{"old", {0}}, {"young", {0}}}));
  ASSERT_TRUE(both.has_value());
  EXPECT_EQ(victims(c, *both), (std::vector<std::string>{"old", "young"}));
  EXPECT_EQ(both->pdb_violations, 1);

  // Listed twice, a budget still counts once; an unknown index matches nothing.
  auto odd =
      choose(c, preemptor(1000, 10), facts_of(start, {1}, {{"old", {0, 0, 7}}, {"young", {7}}}));
  ASSERT_TRUE(odd.has_value());
  EXPECT_EQ(odd->pdb_violations, 0);
}

TEST(Preemption, FewerBudgetViolationsWinFirst) {
  // On a the victim has priority 0 but violates a budget; on b it has
  // priority 50 and violates none: the budget outranks priority.
  Cluster c = build_cluster({make_node("a", 1000, kGi), make_node("b", 1000, kGi)},
                            {bound_pod("guarded", "a", resources({{"cpu", 800}}), 0),
                             bound_pod("free", "b", resources({{"cpu", 800}}), 50)});
  const PreemptionFacts facts = facts_of({}, {0}, {{"guarded", {0}}});
  auto choice = choose(c, preemptor(500, 100), facts);
  ASSERT_TRUE(choice.has_value());
  EXPECT_EQ(c.name(choice->node), "b");
  EXPECT_EQ(choice->pdb_violations, 0);

  Cluster only_a = build_cluster({make_node("a", 1000, kGi)},
                                 {bound_pod("guarded", "a", resources({{"cpu", 800}}), 0)});
  choice = choose(only_a, preemptor(500, 100), facts);
  ASSERT_TRUE(choice.has_value());
  EXPECT_EQ(choice->pdb_violations, 1);
}

TEST(Preemption, LowestHighestVictimPriorityWins) {
  // a needs one victim of 20; b two of 10 and 5.
  Cluster c = build_cluster({make_node("a", 1000, kGi), make_node("b", 1000, kGi)},
                            {bound_pod("a-20", "a", resources({{"cpu", 1000}}), 20),
                             bound_pod("b-10", "b", resources({{"cpu", 500}}), 10),
                             bound_pod("b-5", "b", resources({{"cpu", 500}}), 5)});
  auto choice = choose(c, preemptor(1000, 100));
  ASSERT_TRUE(choice.has_value());
  EXPECT_EQ(c.name(choice->node), "b");
  EXPECT_EQ(victims(c, *choice), (std::vector<std::string>{"b-10", "b-5"}));
}

TEST(Preemption, PrioritySumCountsEveryVictimAsNonNegative) {
  // Two placeholders of -10 sum to -20 below one's -10; with 2^31 added per
  // victim the single placeholder weighs less, as upstream intends.
  Cluster c = build_cluster({make_node("a", 1000, kGi), make_node("b", 1000, kGi)},
                            {bound_pod("a-1", "a", resources({{"cpu", 500}}), -10),
                             bound_pod("a-2", "a", resources({{"cpu", 500}}), -10),
                             bound_pod("b-1", "b", resources({{"cpu", 1000}}), -10)});
  auto choice = choose(c, preemptor(1000, 0));
  ASSERT_TRUE(choice.has_value());
  EXPECT_EQ(c.name(choice->node), "b");
}

TEST(Preemption, PrioritySumBeforeVictimCount) {
  // The same highest priority (0) everywhere. A victim of priority INT32_MIN
  // adds 0 to the sum: on a, {0, INT32_MIN} ties b's {0}, and the count
  // decides for b.
  Cluster tie = build_cluster({make_node("a", 1000, kGi), make_node("b", 1000, kGi)},
                              {bound_pod("a-0", "a", resources({{"cpu", 500}}), 0),
                               bound_pod("a-min", "a", resources({{"cpu", 500}}), INT32_MIN),
                               bound_pod("b-0", "b", resources({{"cpu", 1000}}), 0)});
  auto choice = choose(tie, preemptor(1000, 10));
  ASSERT_TRUE(choice.has_value());
  EXPECT_EQ(tie.name(choice->node), "b");

  // a's {0, INT32_MIN, INT32_MIN} sums below b's {0, -1} although it has
  // more victims: the sum comes first.
  Cluster sum = build_cluster({make_node("a", 900, kGi), make_node("b", 1000, kGi)},
                              {bound_pod("a-0", "a", resources({{"cpu", 300}}), 0),
                               bound_pod("a-min-1", "a", resources({{"cpu", 300}}), INT32_MIN),
                               bound_pod("a-min-2", "a", resources({{"cpu", 300}}), INT32_MIN),
                               bound_pod("b-0", "b", resources({{"cpu", 500}}), 0),
                               bound_pod("b-1", "b", resources({{"cpu", 500}}), -1)});
  choice = choose(sum, preemptor(900, 10));
  ASSERT_TRUE(choice.has_value());
  EXPECT_EQ(sum.name(choice->node), "a");
  EXPECT_EQ(choice->victims.size(), 3u);
}

TEST(Preemption, LatestStartOfTheHighestPriorityVictimsBreaksTies) {
  Cluster c = build_cluster(
      {make_node("a", 1000, kGi), make_node("b", 1000, kGi), make_node("c", 1000, kGi)},
      {bound_pod("a-low", "a", resources({{"cpu", 1000}}), 0),
       bound_pod("b-low", "b", resources({{"cpu", 1000}}), 0),
       bound_pod("c-low", "c", resources({{"cpu", 1000}}), 0)});
  auto choice =
      choose(c, preemptor(1000, 10), facts_of({{"a-low", 100}, {"b-low", 300}, {"c-low", 200}}));
  ASSERT_TRUE(choice.has_value());
  EXPECT_EQ(c.name(choice->node), "b");
  // A pod without a known start counts as started now: the latest of all.
  choice = choose(c, preemptor(1000, 10), facts_of({{"a-low", 100}, {"b-low", 300}}));
  ASSERT_TRUE(choice.has_value());
  EXPECT_EQ(c.name(choice->node), "c");
  // Without start times every criterion ties: the smallest name
  // (TiesGoToTheSmallestNodeName).
  choice = choose(c, preemptor(1000, 10));
  ASSERT_TRUE(choice.has_value());
  EXPECT_EQ(c.name(choice->node), "a");
}

TEST(Preemption, UnresolvableNodesAreSkipped) {
  // `tainted` would be the better candidate (a lower victim priority), but its
  // taint rejects the pod whatever is evicted.
  Node tainted = make_node("tainted", 1000, kGi);
  tainted.taints = {Taint{"dedicated", "gpu", "NoSchedule"}};
  Cluster c = build_cluster({tainted, make_node("plain", 1000, kGi)},
                            {bound_pod("t-low", "tainted", resources({{"cpu", 800}}), -10),
                             bound_pod("p-low", "plain", resources({{"cpu", 800}}), 0)});
  auto choice = choose(c, preemptor(500, 10));
  ASSERT_TRUE(choice.has_value());
  EXPECT_EQ(c.name(choice->node), "plain");

  Cluster only_tainted =
      build_cluster({tainted}, {bound_pod("t-low", "tainted", resources({{"cpu", 800}}), -10)});
  EXPECT_FALSE(choose(only_tainted, preemptor(500, 10)).has_value());

  // The decision's verdict is what counts: a node it calls
  // UnschedulableAndUnresolvable is not tried at all.
  Cluster plain = build_cluster({make_node("a", 1000, kGi), make_node("b", 1000, kGi)},
                                {bound_pod("a-low", "a", resources({{"cpu", 800}}), -10),
                                 bound_pod("b-low", "b", resources({{"cpu", 800}}), 0)});
  auto plan = PodPlan::make(plain, default_scheduler(), preemptor(500, 10));
  PlanScratch scratch;
  ASSERT_TRUE(plan);
  Decision d = decide(*plan, plain, scratch);
  ASSERT_EQ(d.statuses.size(), 2u);
  auto tried = select_preemption(*plan, plain, scratch, d, {});
  ASSERT_TRUE(tried.has_value());
  EXPECT_EQ(plain.name(tried->node), "a");  // the lower victim priority
  d.statuses[0].code = Code::UnschedulableAndUnresolvable;
  auto skipped = select_preemption(*plan, plain, scratch, d, {});
  ASSERT_TRUE(skipped.has_value());
  EXPECT_EQ(plain.name(skipped->node), "b");
}

TEST(Preemption, NodesThePreFilterLeftOutAreNoCandidates) {
  // b is outside the PreFilter's node set (matchFields on metadata.name). It
  // would take the pod beside its lower-priority pod without any victim, and
  // with 1.26 it was tried and won at once; since kubernetes#125197 the nodes
  // a PreFilter leaves out are UnschedulableAndUnresolvable, so only a, which
  // needs a victim, is a candidate.
  Cluster c = build_cluster({make_node("a", 1000, kGi), make_node("b", 1000, kGi)},
                            {bound_pod("a-low", "a", resources({{"cpu", 800}}), 0),
                             bound_pod("b-low", "b", resources({{"cpu", 100}}), 0)});
  Pod p = preemptor(500, 10);
  p.node_affinity.required =
      std::vector<NodeSelectorTerm>{NodeSelectorTerm{{}, {{"metadata.name", "In", {"a"}}}}};
  auto plan = PodPlan::make(c, default_scheduler(), p);
  PlanScratch scratch;
  ASSERT_TRUE(plan);
  const Decision d = decide(*plan, c, scratch);
  ASSERT_EQ(d.filtered.size(), 1u);
  EXPECT_TRUE(d.feasible.empty());
  auto choice = select_preemption(*plan, c, scratch, d, {});
  ASSERT_TRUE(choice.has_value());
  EXPECT_EQ(c.name(choice->node), "a");
  EXPECT_EQ(victims(c, *choice), (std::vector<std::string>{"a-low"}));
  EXPECT_EQ(preemption_success_message(c, *choice),
            "found a potential placement for pod on node a, preempting 1 victims");

  // The same with a decision made by hand that leaves b out.
  Decision outside_b;
  outside_b.filtered = {0};
  outside_b.statuses = {plan->filter(scratch, c, 0)};
  choice = select_preemption(*plan, c, scratch, outside_b, {});
  ASSERT_TRUE(choice.has_value());
  EXPECT_EQ(c.name(choice->node), "a");
}

TEST(Preemption, TiesGoToTheSmallestNodeName) {
  // Every criterion of pickOneNodeForPreemption ties (no budgets, the same
  // priorities, counts and start times): kube-scheduler takes one candidate
  // in Go's map order, the engine the smallest name, whatever the cluster
  // order (before, the first node in cluster order).
  Cluster c = build_cluster(
      {make_node("c", 1000, kGi), make_node("a", 1000, kGi), make_node("b", 1000, kGi)},
      {bound_pod("c-low", "c", resources({{"cpu", 800}}), 0),
       bound_pod("a-low", "a", resources({{"cpu", 800}}), 0),
       bound_pod("b-low", "b", resources({{"cpu", 800}}), 0)});
  auto choice = choose(c, preemptor(500, 10));
  ASSERT_TRUE(choice.has_value());
  EXPECT_EQ(c.name(choice->node), "a");
  EXPECT_EQ(preemption_success_message(c, *choice),
            "found a potential placement for pod on node a, preempting 1 victims");
  // A criterion that does not tie still decides: b's victim started later.
  choice =
      choose(c, preemptor(500, 10), facts_of({{"c-low", 100}, {"a-low", 100}, {"b-low", 200}}));
  ASSERT_TRUE(choice.has_value());
  EXPECT_EQ(c.name(choice->node), "b");
  // The message counts the victims of the chosen node.
  Cluster two = build_cluster({make_node("n", 1000, kGi)},
                              {bound_pod("low-1", "n", resources({{"cpu", 400}}), 0),
                               bound_pod("low-2", "n", resources({{"cpu", 400}}), 0)});
  choice = choose(two, preemptor(1000, 10));
  ASSERT_TRUE(choice.has_value());
  EXPECT_EQ(preemption_success_message(two, *choice),
            "found a potential placement for pod on node n, preempting 2 victims");
}

// Whether the preemptor fits on n with the pods at `positions` evicted.
bool fits_without(const PodPlan& plan, const Cluster& c, NodeIndex n,
                  const std::vector<size_t>& positions) {
  const Relief relief = c.relief_of(n, positions);
  PlanScratch scratch;
  return plan.filter(scratch, c, n, &relief).ok();
}

// On random small clusters, a choice exists exactly when evaluate_preemption
// says preemption helps, and it is sound: only lower-priority victims, highest
// first, whose eviction makes the pod fit and none of which could stay.
TEST(Preemption, AgreesWithEvaluatePreemptionOnRandomClusters) {
  std::mt19937 rng(20240611);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  const int32_t priorities[] = {-10, 0, 0, 5, 100};
  int decided = 0, chosen = 0;
  for (int round = 0; round < 400; ++round) {
    std::vector<Node> nodes;
    std::vector<Pod> pods;
    std::map<std::string, int64_t> start;
    std::map<std::string, std::vector<size_t>> budgets;
    const int num_nodes = pick(1, 4);
    for (int i = 0; i < num_nodes; ++i) {
      const std::string name = "n" + std::to_string(i);
      const int64_t cpu = 500 * pick(2, 8);
      const int64_t max_pods = pick(2, 6);
      nodes.push_back(make_node(name, cpu, 4 * kGi, max_pods));
      if (pick(0, 5) == 0) nodes.back().taints = {Taint{"spot", "", "NoSchedule"}};
      int64_t used = 0;
      for (int k = 0, n = pick(0, static_cast<int>(max_pods)); k < n; ++k) {
        const int64_t request = 100 * pick(1, 10);
        if (used + request > cpu) break;
        used += request;
        const std::string pod = name + "-p" + std::to_string(k);
        pods.push_back(bound_pod(pod, name, resources({{"cpu", request}}), priorities[pick(0, 4)]));
        start[pod] = pick(0, 5);
        if (pick(0, 2) == 0) budgets[pod] = {static_cast<size_t>(pick(0, 1))};
      }
    }
    Cluster c = build_cluster(nodes, pods);
    Pod p = preemptor(100 * pick(2, 30), priorities[pick(1, 4)]);
    p.preempt_never = pick(0, 9) == 0;
    auto plan = PodPlan::make(c, default_scheduler(), p);
    PlanScratch scratch;
    ASSERT_TRUE(plan) << plan.error().what();
    const Decision d = decide(*plan, c, scratch);
    if (!d.feasible.empty()) continue;
    ++decided;
    const PreemptionFacts facts = facts_of(start, {static_cast<int32_t>(pick(0, 1)), 0}, budgets);
    const auto choice = select_preemption(*plan, c, scratch, d, facts);
    const Preemption verdict = evaluate_preemption(*plan, c, scratch, d);
    ASSERT_EQ(choice.has_value(), verdict.helps) << "round " << round << ": " << verdict.message;
    if (!choice) continue;
    ++chosen;

    const auto& on_node = c.pods_on(choice->node);
    ASSERT_FALSE(choice->victims.empty()) << "round " << round;
    EXPECT_LE(choice->pdb_violations, static_cast<int64_t>(choice->victims.size()));
    for (size_t i = 0; i < choice->victims.size(); ++i) {
      ASSERT_LT(choice->victims[i], on_node.size());
      EXPECT_LT(on_node[choice->victims[i]].priority, p.priority) << "round " << round;
      if (i > 0) {
        EXPECT_GE(on_node[choice->victims[i - 1]].priority, on_node[choice->victims[i]].priority);
      }
    }
    EXPECT_TRUE(fits_without(*plan, c, choice->node, choice->victims)) << "round " << round;
    for (size_t i = 0; i < choice->victims.size(); ++i) {
      std::vector<size_t> kept = choice->victims;
      kept.erase(kept.begin() + static_cast<std::ptrdiff_t>(i));
      EXPECT_FALSE(fits_without(*plan, c, choice->node, kept))
          << "round " << round << ": victim " << on_node[choice->victims[i]].key << " could stay";
    }
  }
  // The generator must exercise both outcomes.
  EXPECT_GT(decided, 100);
  EXPECT_GT(chosen, 30);
  EXPECT_LT(chosen, decided);
}

}  // namespace
}  // namespace tightpack
