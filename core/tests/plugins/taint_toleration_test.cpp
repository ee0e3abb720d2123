#include "tightpack/plugins/taint_toleration.hpp"

#include <gtest/gtest.h>

#include <vector>

#include "tightpack/plugins/node_unschedulable.hpp"
#include "tightpack/plugins/normalize.hpp"

namespace tightpack::plugins {
namespace {

Taint taint(std::string key, std::string value, std::string effect) {
  return Taint{std::move(key), std::move(value), std::move(effect)};
}

Toleration toleration(std::string key, std::string op, std::string value, std::string effect) {
  return Toleration{std::move(key), std::move(op), std::move(value), std::move(effect),
                    std::nullopt};
}

// The normalised TaintToleration scores of nodes with these taints, as
// NormalizeScore computes them over the feasible nodes.
std::vector<int64_t> scores(const std::vector<std::vector<Taint>>& nodes,
                            const std::vector<Toleration>& tols) {
  auto prefer = prefer_no_schedule_tolerations(tols);
  std::vector<int64_t> raw;
  int64_t max = 0;
  for (const auto& taints : nodes) {
    raw.push_back(intolerable_prefer_no_schedule(taints, prefer));
    max = std::max(max, raw.back());
  }
  for (auto& r : raw) r = default_normalize(r, max, true);
  return raw;
}

TEST(Toleration, EqualAndExists) {
  Taint t = taint("dedicated", "user1", "NoSchedule");
  EXPECT_TRUE(toleration("dedicated", "Equal", "user1", "NoSchedule").tolerates(t));
  EXPECT_FALSE(toleration("dedicated", "Equal", "user2", "NoSchedule").tolerates(t));
  EXPECT_TRUE(toleration("dedicated", "Exists", "", "NoSchedule").tolerates(t));
  EXPECT_FALSE(toleration("other", "Exists", "", "NoSchedule").tolerates(t));
  // An Exists toleration ignores its value.
  EXPECT_TRUE(toleration("dedicated", "Exists", "whatever", "NoSchedule").tolerates(t));
}

TEST(Toleration, OmittedOperatorMeansEqual) {
  Taint t = taint("dedicated", "user1", "NoSchedule");
  EXPECT_TRUE(toleration("dedicated", "", "user1", "NoSchedule").tolerates(t));
  EXPECT_FALSE(toleration("dedicated", "", "user2", "NoSchedule").tolerates(t));
  EXPECT_FALSE(toleration("dedicated", "", "", "NoSchedule").tolerates(t));
  // An empty value equals an empty value.
  EXPECT_TRUE(toleration("spot", "", "", "").tolerates(taint("spot", "", "NoSchedule")));
}

TEST(Toleration, EmptyKeyWithExistsToleratesEverything) {
  Toleration all = toleration("", "Exists", "", "");
  for (const Taint& t : {taint("a", "b", "NoSchedule"), taint("c", "", "NoExecute"),
                         taint("node.kubernetes.io/unschedulable", "", "NoSchedule"),
                         taint("x", "y", "PreferNoSchedule")}) {
    EXPECT_TRUE(all.tolerates(t)) << t.key;
  }
  // With an effect, only that effect.
  Toleration no_schedule = toleration("", "Exists", "", "NoSchedule");
  EXPECT_TRUE(no_schedule.tolerates(taint("a", "b", "NoSchedule")));
  EXPECT_FALSE(no_schedule.tolerates(taint("a", "b", "NoExecute")));
}

TEST(Toleration, EmptyEffectMatchesAllEffects) {
  Toleration t = toleration("foo", "Equal", "bar", "");
  EXPECT_TRUE(t.tolerates(taint("foo", "bar", "NoSchedule")));
  EXPECT_TRUE(t.tolerates(taint("foo", "bar", "NoExecute")));
  EXPECT_TRUE(t.tolerates(taint("foo", "bar", "PreferNoSchedule")));
  EXPECT_FALSE(toleration("foo", "Equal", "bar", "PreferNoSchedule")
                   .tolerates(taint("foo", "bar", "NoSchedule")));
}

TEST(Toleration, UnknownOperatorToleratesNothing) {
  EXPECT_FALSE(toleration("foo", "Gt", "1", "").tolerates(taint("foo", "1", "NoSchedule")));
}

// Filter cases of kube-scheduler's tainttoleration TestTaintTolerationFilter.
TEST(TaintFilter, NoTolerationsAgainstATaint) {
  std::vector<Taint> taints = {taint("dedicated", "user1", "NoSchedule")};
  EXPECT_EQ(first_untolerated_taint(taints, {}), 0);
  // The reason names no taint since kubernetes#134740.
  EXPECT_STREQ(kUntoleratedTaintReason, "node(s) had untolerated taint(s)");
}

TEST(TaintFilter, DedicatedNodes) {
  std::vector<Taint> taints = {taint("dedicated", "user1", "NoSchedule")};
  EXPECT_EQ(
      first_untolerated_taint(taints, {toleration("dedicated", "Equal", "user1", "NoSchedule")}),
      -1);
  EXPECT_EQ(
      first_untolerated_taint(taints, {toleration("dedicated", "Equal", "user2", "NoSchedule")}),
      0);
  EXPECT_EQ(first_untolerated_taint({taint("foo", "bar", "NoSchedule")},
                                    {toleration("foo", "Exists", "", "NoSchedule")}),
            -1);
}

TEST(TaintFilter, MultipleTaintsAllTolerated) {
  std::vector<Taint> taints = {taint("dedicated", "user2", "NoSchedule"),
                               taint("foo", "bar", "NoSchedule")};
  std::vector<Toleration> tols = {toleration("dedicated", "Equal", "user2", "NoSchedule"),
                                  toleration("foo", "Exists", "", "NoSchedule")};
  EXPECT_EQ(first_untolerated_taint(taints, tols), -1);
}

TEST(TaintFilter, EffectMustMatch) {
  std::vector<Taint> taints = {taint("foo", "bar", "NoSchedule")};
  EXPECT_EQ(
      first_untolerated_taint(taints, {toleration("foo", "Equal", "bar", "PreferNoSchedule")}), 0);
  EXPECT_EQ(first_untolerated_taint(taints, {toleration("foo", "Equal", "bar", "")}), -1);
}

TEST(TaintFilter, PreferNoScheduleNeverFilters) {
  EXPECT_EQ(first_untolerated_taint({taint("dedicated", "user1", "PreferNoSchedule")},
                                    {toleration("dedicated", "Equal", "user2", "NoSchedule")}),
            -1);
  EXPECT_EQ(first_untolerated_taint({taint("dedicated", "user1", "PreferNoSchedule")}, {}), -1);
}

TEST(TaintFilter, NoExecuteFilters) {
  EXPECT_EQ(first_untolerated_taint({taint("a", "", "NoExecute")}, {}), 0);
}

TEST(TaintFilter, FirstUntoleratedInNodeOrder) {
  std::vector<Taint> taints = {taint("p", "1", "PreferNoSchedule"), taint("a", "1", "NoSchedule"),
                               taint("b", "2", "NoExecute"), taint("c", "3", "NoSchedule")};
  EXPECT_EQ(first_untolerated_taint(taints, {}), 1);
  EXPECT_EQ(first_untolerated_taint(taints, {toleration("a", "Exists", "", "")}), 2);
  EXPECT_EQ(first_untolerated_taint(
                taints, {toleration("a", "Exists", "", ""), toleration("b", "", "2", "")}),
            3);
  EXPECT_EQ(first_untolerated_taint(taints, {toleration("", "Exists", "", "")}), -1);
}

// Score cases of kube-scheduler's TestTaintTolerationScore.
TEST(TaintScore, ToleratedTaintScoresHigher) {
  EXPECT_EQ(scores({{taint("foo", "bar", "PreferNoSchedule")},
                    {taint("foo", "blah", "PreferNoSchedule")}},
                   {toleration("foo", "Equal", "bar", "PreferNoSchedule")}),
            (std::vector<int64_t>{100, 0}));
}

TEST(TaintScore, AllToleratedScoreTheSame) {
  std::vector<Toleration> tols = {toleration("cpu-type", "Equal", "arm64", "PreferNoSchedule"),
                                  toleration("disk-type", "Equal", "ssd", "PreferNoSchedule")};
  EXPECT_EQ(scores({{},
                    {taint("cpu-type", "arm64", "PreferNoSchedule")},
                    {taint("cpu-type", "arm64", "PreferNoSchedule"),
                     taint("disk-type", "ssd", "PreferNoSchedule")}},
                   tols),
            (std::vector<int64_t>{100, 100, 100}));
}

TEST(TaintScore, MoreIntolerableTaintsScoreLower) {
  EXPECT_EQ(scores({{},
                    {taint("cpu-type", "arm64", "PreferNoSchedule")},
                    {taint("cpu-type", "arm64", "PreferNoSchedule"),
                     taint("disk-type", "ssd", "PreferNoSchedule")}},
                   {toleration("foo", "Equal", "bar", "PreferNoSchedule")}),
            (std::vector<int64_t>{100, 50, 0}));
}

TEST(TaintScore, OnlyPreferNoScheduleCounts) {
  std::vector<Toleration> tols = {toleration("cpu-type", "Equal", "arm64", "NoSchedule"),
                                  toleration("disk-type", "Equal", "ssd", "NoSchedule")};
  // The NoSchedule tolerations do not tolerate PreferNoSchedule taints.
  EXPECT_EQ(scores({{},
                    {taint("cpu-type", "arm64", "NoSchedule")},
                    {taint("cpu-type", "arm64", "PreferNoSchedule"),
                     taint("disk-type", "ssd", "PreferNoSchedule")}},
                   tols),
            (std::vector<int64_t>{100, 100, 0}));
}

TEST(TaintScore, NoTaintsNoTolerations) {
  EXPECT_EQ(scores({{}, {taint("cpu-type", "arm64", "PreferNoSchedule")}}, {}),
            (std::vector<int64_t>{100, 0}));
  EXPECT_EQ(scores({{}, {}}, {}), (std::vector<int64_t>{100, 100}));
}

TEST(TaintScore, ThreeLevels) {
  // 100 × 1 / 3 = 33 (integer), reversed: 67.
  std::vector<Taint> three = {taint("a", "", "PreferNoSchedule"),
                              taint("b", "", "PreferNoSchedule"),
                              taint("c", "", "PreferNoSchedule")};
  EXPECT_EQ(scores({three, {three[0]}, {three[0], three[1]}, {}}, {}),
            (std::vector<int64_t>{0, 67, 34, 100}));
}

TEST(TaintScore, PreferNoScheduleTolerationsAreTheEmptyOrPreferEffectOnes) {
  std::vector<Toleration> tols = {toleration("a", "Exists", "", "NoSchedule"),
                                  toleration("b", "Exists", "", ""),
                                  toleration("c", "Exists", "", "PreferNoSchedule"),
                                  toleration("d", "Exists", "", "NoExecute")};
  auto prefer = prefer_no_schedule_tolerations(tols);
  ASSERT_EQ(prefer.size(), 2u);
  EXPECT_EQ(prefer[0].key, "b");
  EXPECT_EQ(prefer[1].key, "c");
  EXPECT_EQ(intolerable_prefer_no_schedule(
                {taint("a", "", "PreferNoSchedule"), taint("b", "", "PreferNoSchedule"),
                 taint("c", "", "PreferNoSchedule"), taint("d", "", "PreferNoSchedule"),
                 taint("e", "", "NoSchedule")},
                prefer),
            2);
}

TEST(Unschedulable, TolerationOfTheUnschedulableTaint) {
  EXPECT_FALSE(tolerates_unschedulable({}));
  EXPECT_TRUE(tolerates_unschedulable(
      {toleration("node.kubernetes.io/unschedulable", "Exists", "", "NoSchedule")}));
  EXPECT_TRUE(
      tolerates_unschedulable({toleration("node.kubernetes.io/unschedulable", "Exists", "", "")}));
  EXPECT_TRUE(tolerates_unschedulable({toleration("", "Exists", "", "")}));
  EXPECT_FALSE(tolerates_unschedulable(
      {toleration("node.kubernetes.io/unschedulable", "Exists", "", "NoExecute")}));
  EXPECT_FALSE(tolerates_unschedulable(
      {toleration("node.kubernetes.io/unschedulable", "Equal", "true", "")}));
}

TEST(Normalize, DefaultNormalizeScore) {
  EXPECT_EQ(default_normalize(5, 10, false), 50);
  EXPECT_EQ(default_normalize(5, 10, true), 50);
  EXPECT_EQ(default_normalize(1, 3, false), 33);
  EXPECT_EQ(default_normalize(1, 3, true), 67);
  EXPECT_EQ(default_normalize(0, 0, false), 0);
  EXPECT_EQ(default_normalize(0, 0, true), 100);
  EXPECT_EQ(default_normalize(7, 7, false), 100);
}

}  // namespace
}  // namespace tightpack::plugins
