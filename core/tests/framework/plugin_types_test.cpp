// The plugins that are types (framework/plugin_types.hpp), asked as the
// framework asks them: prepare once, then filter, score and reasons per node
// from the state alone.
#include <gtest/gtest.h>

#include "test_util.hpp"
#include "tightpack/framework/framework.hpp"

namespace tightpack {
namespace {

using testing::build_cluster;
using testing::kGi;
using testing::labels;
using testing::make_node;
using testing::make_pod;
using testing::resources;

static_assert(CycleState::contains<Plugin::TaintToleration>());
static_assert(CycleState::contains<Plugin::PodTopologySpread>());
static_assert(!CycleState::contains<Plugin::DynamicResources>());
static_assert(kDomainFilterPlugins == 3);
static_assert(
    std::is_same_v<CycleState::PluginOf<Plugin::NodeAffinity>, plugins::NodeAffinityPlugin>);

// Each type's id names a modelled plugin of the registry, once.
constexpr bool ids_are_modelled_and_distinct() {
  const auto& ids = CycleState::kIds;
  for (size_t i = 0; i < ids.size(); ++i) {
    if (!plugin_info(ids[i]).modelled) return false;
    for (size_t j = 0; j < i; ++j) {
      if (ids[i] == ids[j]) return false;
    }
  }
  return true;
}
static_assert(ids_are_modelled_and_distinct());

// The framework runs a filter with the filters its registry line says it is
// among: those that read the node alone, or the node's pods (with a
// preemption what-if's relief).
template <class T>
constexpr bool filter_matches_registry() {
  constexpr bool node_only = requires(const typename T::State& s, const Cluster& c) {
    T::filter(s, c, NodeIndex{});
  };
  constexpr bool node_pods = requires(const typename T::State& s, const Cluster& c) {
    T::filter(s, c, NodeIndex{}, static_cast<const Relief*>(nullptr));
  };
  constexpr Reads reads = plugin_info(T::kId).filter_reads;
  if (node_only) return !node_pods && reads == Reads::kNode;
  if (node_pods) return reads == Reads::kNodePods;
  return true;
}
static_assert([] {
  bool ok = true;
  CycleState::for_each(
      [&](auto tag) { ok = ok && filter_matches_registry<typename decltype(tag)::type>(); });
  return ok;
}());

Cluster tainted_cluster() {
  std::vector<Node> nodes;
  for (int i = 0; i < 4; ++i) {
    Node n = make_node("n" + std::to_string(i), 4000, 16 * kGi);
    n.labels = labels({{"pool", i < 2 ? "core" : "workers"}});
    if (i >= 2) n.taints.push_back({"dask", "worker", "NoSchedule"});
    if (i == 3) n.taints.push_back({"spot", "", "PreferNoSchedule"});
    nodes.push_back(std::move(n));
  }
  return build_cluster(nodes, {});
}

TEST(PluginTypes, TaintTolerationJudgesEachTaintSetOnce) {
  const Cluster c = tainted_cluster();
  const Pod pod = make_pod("p", {resources({{"cpu", 100}})});
  const Profile profile = default_profile();
  const RequiredNodeAffinity required(pod);
  const plugins::TaintTolerationPlugin::State s = plugins::TaintTolerationPlugin::prepare(
      PlanContext{c, profile, pod, c.usage_of(pod), false, required});
  EXPECT_EQ(s.untolerated.size(), c.taint_set_count());
  EXPECT_TRUE(plugins::TaintTolerationPlugin::filter(s, c, 0).ok());
  const NodeStatus rejected = plugins::TaintTolerationPlugin::filter(s, c, 2);
  EXPECT_EQ(rejected.code, Code::UnschedulableAndUnresolvable);
  EXPECT_EQ(rejected.plugin, Plugin::TaintToleration);
  EXPECT_EQ(rejected.taint, 0);
  EXPECT_EQ(plugins::TaintTolerationPlugin::score(s, c, 2), 0);
  EXPECT_EQ(plugins::TaintTolerationPlugin::score(s, c, 3), 1);
  // The taint is named before v1.35's generic reason (kubernetes#134740).
  EXPECT_EQ(plugins::TaintTolerationPlugin::reasons(s, c, 2, rejected, ReasonContext{37}),
            std::vector<std::string>{"node(s) had untolerated taint(s)"});
  EXPECT_EQ(plugins::TaintTolerationPlugin::reasons(s, c, 2, rejected, ReasonContext{30}),
            std::vector<std::string>{"node(s) had untolerated taint {dask: worker}"});
}

TEST(PluginTypes, NodeAffinityFailsOnlyAProfileThatScoresWithIt) {
  const Cluster c = tainted_cluster();
  Pod pod = make_pod("p", {resources({{"cpu", 100}})});
  pod.node_affinity.preferred.push_back(
      PreferredSchedulingTerm{5, NodeSelectorTerm{{{"pool", "Gt", {"x"}}}, {}}});
  const RequiredNodeAffinity required(pod);
  Profile scoring = default_profile();
  auto failed = plugins::NodeAffinityPlugin::prepare(
      PlanContext{c, scoring, pod, c.usage_of(pod), false, required});
  ASSERT_FALSE(failed);
  EXPECT_EQ(failed.error().path,
            "spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[0]");
  Profile filtering = scoring;
  filtering.scores.clear();
  auto state = plugins::NodeAffinityPlugin::prepare(
      PlanContext{c, filtering, pod, c.usage_of(pod), false, required});
  ASSERT_TRUE(state);
  EXPECT_TRUE(state->preferred.empty());
}

TEST(PluginTypes, NodeAffinityScoresByPreferredTermsAndFiltersByRequired) {
  const Cluster c = tainted_cluster();
  Pod pod = make_pod("p", {resources({{"cpu", 100}})});
  pod.node_selector = labels({{"pool", "workers"}});
  pod.node_affinity.preferred.push_back(
      PreferredSchedulingTerm{7, NodeSelectorTerm{{{"pool", "In", {"core"}}}, {}}});
  RequiredNodeAffinity required(pod);
  required.bind(c);
  const Profile profile = default_profile();
  for (bool first_fit : {false, true}) {
    SCOPED_TRACE(first_fit ? "first fit" : "decide");
    auto s = plugins::NodeAffinityPlugin::prepare(
        PlanContext{c, profile, pod, c.usage_of(pod), first_fit, required});
    ASSERT_TRUE(s);
    EXPECT_TRUE(plugins::NodeAffinityPlugin::can_reject(*s));
    EXPECT_FALSE(plugins::NodeAffinityPlugin::filter(*s, c, 0).ok());
    EXPECT_TRUE(plugins::NodeAffinityPlugin::filter(*s, c, 2).ok());
    // A first-fit plan never scores.
    EXPECT_EQ(plugins::NodeAffinityPlugin::score(*s, c, 0), first_fit ? 0 : 7);
    EXPECT_EQ(plugins::NodeAffinityPlugin::score(*s, c, 2), 0);
  }
}

}  // namespace
}  // namespace tightpack
