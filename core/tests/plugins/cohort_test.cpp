// TightpackCohort: pods of one Dask cluster gather on the nodes their
// cluster already uses.
#include "tightpack/plugins/cohort.hpp"

#include <gtest/gtest.h>

#include "test_util.hpp"
#include "tightpack/built_in_profiles.hpp"
#include "tightpack/framework/framework.hpp"
#include "tightpack/profile.hpp"

namespace tightpack {
namespace {

// The plugin's raw score of node n for `pod`, from the state its prepare keeps.
int64_t cohort_score(const Cluster& c, const Pod& pod, NodeIndex n) {
  return plugins::TightpackCohortPlugin::score({plugins::cohort_of(pod)}, c, n);
}

using namespace testing;

Profile profile_of(const char* config) {
  auto c = decode_scheduler_configuration(json_of(config), JsonPath());
  EXPECT_TRUE(c.ok());
  return c->profiles.front();
}

TEST(Cohort, FirstCohortLabelWins) {
  Pod p = make_pod("w");
  EXPECT_EQ(plugins::cohort_of(p), "");
  p.labels = labels({{"gateway.dask.org/cluster", "g1"}, {"dask.org/cluster-name", "alice"}});
  EXPECT_EQ(plugins::cohort_of(p), "dask.org/cluster-name=alice");
  p.labels = labels({{"gateway.dask.org/cluster", "g1"}});
  EXPECT_EQ(plugins::cohort_of(p), "gateway.dask.org/cluster=g1");
}

TEST(Cohort, ScoreIsTheLargerShareInWholePercent) {
  EXPECT_EQ(plugins::cohort_score(0, 0, 8000, 32 * kGi), 0);
  EXPECT_EQ(plugins::cohort_score(2000, 4 * kGi, 8000, 32 * kGi), 25);   // cpu 25 %, memory 12 %
  EXPECT_EQ(plugins::cohort_score(1000, 16 * kGi, 8000, 32 * kGi), 50);  // memory 50 %
  EXPECT_EQ(plugins::cohort_score(9000, 0, 8000, 32 * kGi), 100);        // over-committed
  EXPECT_EQ(plugins::cohort_score(1000, 0, 0, 0), 0);                    // nothing allocatable
  EXPECT_EQ(plugins::cohort_score(2999, 0, 9000, 0), 33);                // rounds down
}

// Node a is fuller with another user's workers; node b holds one of alice's.
// z2jh's MostAllocated sends alice's next worker to a; tightpack keeps it
// with her cluster on b, so b empties when her cluster ends.
TEST(Cohort, TightpackKeepsACohortTogetherWhereZ2jhPicksTheFullestNode) {
  auto worker = [](std::string name, const char* cluster, std::string node) {
    Pod p = bound_pod(std::move(name), std::move(node),
                      resources({{"cpu", 1000}, {"memory", 2 * kGi}}));
    p.labels = labels({{"dask.org/cluster-name", cluster}});
    return p;
  };
  std::vector<Pod> pods = {worker("bob-1", "bob", "a"), worker("bob-2", "bob", "a"),
                           worker("bob-3", "bob", "a"), worker("alice-1", "alice", "b")};
  Cluster c = build_cluster({make_node("a", 8000, 32 * kGi), make_node("b", 8000, 32 * kGi)}, pods);
  Pod next = make_pod("alice-2", {resources({{"cpu", 1000}, {"memory", 2 * kGi}})});
  next.labels = labels({{"dask.org/cluster-name", "alice"}});

  const Profile z2jh = profile_of(kZ2jhUserSchedulerConfig);
  auto zplan = PodPlan::make(c, z2jh, next);
  PlanScratch scratch;
  ASSERT_TRUE(zplan);
  EXPECT_EQ(c.name(*decide(*zplan, c, scratch).chosen), "a");

  const Profile tp = built_in_profile("tightpack").value();
  auto tplan = PodPlan::make(c, tp, next);
  ASSERT_TRUE(tplan);
  Decision d = decide(*tplan, c, scratch);
  EXPECT_EQ(c.name(*d.chosen), "b");
  // a: MostAllocated 37 (cpu 50 %, memory 25 %) × 121 = 4477;
  // b: MostAllocated 18 × 121 + cohort 12 (1 of 8 cpus) × 1210 = 16698;
  // both: TaintToleration 100 × 3.
  EXPECT_EQ(d.scores[0].total + d.scores[1].total, 4477 + 16698 + 2 * 300);
  EXPECT_EQ(cohort_score(c, next, c.find("b")), 12);
  EXPECT_EQ(cohort_score(c, next, c.find("a")), 0);

  // Without a cohort label the two profiles agree.
  next.labels.clear();
  auto plain = PodPlan::make(c, tp, next);
  ASSERT_TRUE(plain);
  EXPECT_EQ(c.name(*decide(*plain, c, scratch).chosen), "a");
}

TEST(Cohort, PlacedReplicasJoinTheirCohort) {
  Cluster c = build_cluster({make_node("a", 8000, 32 * kGi)});
  Pod w = make_pod("w", {resources({{"cpu", 2000}})});
  w.labels = labels({{"dask.org/cluster-name", "alice"}});
  const Profile tp = built_in_profile("tightpack").value();
  auto plan = PodPlan::make(c, tp, w);
  ASSERT_TRUE(plan);
  EXPECT_EQ(cohort_score(c, w, 0), 0);
  // The placed copy carries the cohort (the plugin's Reserve).
  c.place(0, plan->bound("default/w-0"));
  EXPECT_EQ(cohort_score(c, w, 0), 25);
}

}  // namespace
}  // namespace tightpack
