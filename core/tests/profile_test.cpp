#include "tightpack/profile.hpp"

#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "test_util.hpp"
#include "tightpack/built_in_profiles.hpp"
#include "tightpack/replay.hpp"

namespace tightpack {
namespace {

using testing::json_of;
using Scores = std::vector<std::pair<std::string, int64_t>>;

Scores scores_of(const Profile& p) {
  Scores out;
  for (const auto& e : p.scores) out.emplace_back(plugin_name(e.plugin), e.weight);
  return out;
}

std::vector<std::string> filters_of(const Profile& p) {
  std::vector<std::string> out;
  for (Plugin f : p.filters) out.emplace_back(plugin_name(f));
  return out;
}

Result<SchedulerConfiguration> decode_config(std::string_view text) {
  return decode_scheduler_configuration(json_of(text), JsonPath());
}

// The first profile of a configuration whose profile is `profile_json`.
Profile profile_from(std::string_view profile_json) {
  auto c = decode_config(R"({"apiVersion": "kubescheduler.config.k8s.io/v1",
                              "kind": "KubeSchedulerConfiguration", "profiles": [)" +
                         std::string(profile_json) + "]}");
  if (!c) {
    ADD_FAILURE() << c.error().what();
    return Profile{};
  }
  return c->profiles.front();
}

Error profile_error(std::string_view profile_json) {
  auto c = decode_config(R"({"apiVersion": "kubescheduler.config.k8s.io/v1",
                              "kind": "KubeSchedulerConfiguration", "profiles": [)" +
                         std::string(profile_json) + "]}");
  if (c) {
    ADD_FAILURE() << "decoded, expected an error: " << profile_json;
    return {};
  }
  return c.error();
}

Error config_error(std::string_view text) {
  auto c = decode_config(text);
  if (c) {
    ADD_FAILURE() << "decoded, expected an error: " << text;
    return {};
  }
  return c.error();
}

std::string fit_args(std::string_view strategy_json) {
  return R"({"pluginConfig": [{"name": "NodeResourcesFit", "args": {"scoringStrategy": )" +
         std::string(strategy_json) + "}}]}";
}

bool contains(const std::string& s, std::string_view needle) {
  return s.find(needle) != std::string::npos;
}

const std::vector<std::string> kDefaultFilters = {
    "NodeUnschedulable", "NodeName",         "TaintToleration",    "NodeAffinity",
    "NodePorts",         "NodeResourcesFit", "VolumeRestrictions", "NodeVolumeLimits",
    "VolumeBinding",     "VolumeZone",       "PodTopologySpread",  "InterPodAffinity"};

const Scores kDefaultScores = {{"TaintToleration", 3},
                               {"NodeAffinity", 2},
                               {"NodeResourcesFit", 1},
                               {"VolumeBinding", 1},
                               {"PodTopologySpread", 2},
                               {"InterPodAffinity", 2},
                               {"NodeResourcesBalancedAllocation", 1},
                               {"ImageLocality", 1}};

TEST(DefaultProfile, MatchesKubeSchedulerDefaults) {
  Profile p = default_profile();
  EXPECT_EQ(p.scheduler_name, "default-scheduler");
  EXPECT_EQ(filters_of(p), kDefaultFilters);
  EXPECT_EQ(scores_of(p), kDefaultScores);
  EXPECT_EQ(p.score_weight(Plugin::TaintToleration), 3);
  EXPECT_EQ(p.score_weight(Plugin::NodeAffinity), 2);
  EXPECT_EQ(p.score_weight(Plugin::NodeResourcesFit), 1);
  EXPECT_EQ(p.score_weight(Plugin::NodeResourcesBalancedAllocation), 1);
  EXPECT_EQ(p.score_weight(Plugin::ImageLocality), 1);
  EXPECT_EQ(p.score_weight(Plugin::NodePorts), 0);  // a filter only
  EXPECT_TRUE(p.filter_enabled(Plugin::NodeResourcesFit));
  EXPECT_FALSE(p.filter_enabled(Plugin::ImageLocality));
  EXPECT_TRUE(p.preemption);
  EXPECT_EQ(p.fit.strategy, ScoringStrategy::LeastAllocated);
  ASSERT_EQ(p.fit.resources.size(), 2u);
  EXPECT_EQ(p.fit.resources[0].name, "cpu");
  EXPECT_EQ(p.fit.resources[0].weight, 1);
  EXPECT_EQ(p.fit.resources[1].name, "memory");
  EXPECT_EQ(p.fit.resources[1].weight, 1);
  EXPECT_TRUE(p.fit.shape.empty());
  ASSERT_EQ(p.balanced_resources.size(), 2u);
  EXPECT_EQ(p.balanced_resources[0].name, "cpu");
  EXPECT_EQ(p.balanced_resources[1].name, "memory");
}

TEST(DefaultProfile, ShippedDefaultConfigAgrees) {
  auto c = decode_config(kDefaultSchedulerConfig);
  ASSERT_TRUE(c) << c.error().what();
  ASSERT_EQ(c->profiles.size(), 1u);
  EXPECT_EQ(filters_of(c->profiles[0]), kDefaultFilters);
  EXPECT_EQ(scores_of(c->profiles[0]), kDefaultScores);
  EXPECT_NE(c->find("default-scheduler"), nullptr);
  EXPECT_EQ(c->find("other"), nullptr);
}

TEST(DefaultProfile, ConfigurationWithoutProfiles) {
  auto c = decode_config(R"({"apiVersion": "kubescheduler.config.k8s.io/v1",
                             "kind": "KubeSchedulerConfiguration", "percentageOfNodesToScore": 30})");
  ASSERT_TRUE(c) << c.error().what();
  ASSERT_EQ(c->profiles.size(), 1u);
  EXPECT_EQ(scores_of(c->profiles[0]), kDefaultScores);
  EXPECT_EQ(c->profiles[0].percentage_of_nodes_to_score, 30);
}

TEST(Z2jhProfile, UserSchedulerWeights) {
  auto c = decode_config(kZ2jhUserSchedulerConfig);
  ASSERT_TRUE(c) << c.error().what();
  ASSERT_EQ(c->profiles.size(), 1u);
  const Profile& p = c->profiles[0];
  EXPECT_EQ(p.scheduler_name, "jupyterhub-user-scheduler");
  // MultiPoint plugins first, then the re-enabled ones in their listed order.
  EXPECT_EQ(scores_of(p), (Scores{{"TaintToleration", 3},
                                  {"VolumeBinding", 1},
                                  {"PodTopologySpread", 2},
                                  {"NodeAffinity", 14631},
                                  {"InterPodAffinity", 1331},
                                  {"NodeResourcesFit", 121},
                                  {"ImageLocality", 11}}));
  EXPECT_EQ(p.score_weight(Plugin::NodeResourcesBalancedAllocation), 0);
  EXPECT_EQ(filters_of(p), kDefaultFilters);
  EXPECT_TRUE(p.preemption);
  EXPECT_EQ(p.fit.strategy, ScoringStrategy::MostAllocated);
  ASSERT_EQ(p.fit.resources.size(), 2u);
  EXPECT_EQ(p.fit.resources[0].weight, 1);
  EXPECT_EQ(p.fit.resources[1].weight, 1);
}

TEST(ScenarioProfiles, NamedProfiles) {
  std::string name;
  auto def = resolve_scenario_profile(boost::json::value("default"), JsonPath(), name);
  ASSERT_TRUE(def) << def.error().what();
  EXPECT_EQ(name, "default");
  EXPECT_EQ(scores_of(*def), kDefaultScores);

  auto most = resolve_scenario_profile(boost::json::value("most-allocated"), JsonPath(), name);
  ASSERT_TRUE(most) << most.error().what();
  EXPECT_EQ(name, "most-allocated");
  EXPECT_EQ(most->score_weight(Plugin::NodeAffinity), 14631);
  EXPECT_EQ(most->fit.strategy, ScoringStrategy::MostAllocated);

  auto rtc = resolve_scenario_profile(boost::json::value("rtc"), JsonPath(), name);
  ASSERT_TRUE(rtc) << rtc.error().what();
  EXPECT_EQ(scores_of(*rtc), kDefaultScores);
  EXPECT_EQ(rtc->fit.strategy, ScoringStrategy::RequestedToCapacityRatio);
  ASSERT_EQ(rtc->fit.shape.size(), 2u);
  EXPECT_EQ(rtc->fit.shape[0].utilization, 0);
  EXPECT_EQ(rtc->fit.shape[0].score, 0);
  EXPECT_EQ(rtc->fit.shape[1].utilization, 100);
  EXPECT_EQ(rtc->fit.shape[1].score, 10);

  const JsonPath root;
  auto bad = resolve_scenario_profile(boost::json::value("fastest"), root.field("profile"), name);
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().path, "$.profile");
  EXPECT_TRUE(contains(bad.error().message, "\"fastest\"")) << bad.error().message;
}

TEST(ScenarioProfiles, Overrides) {
  std::string name;
  auto p = resolve_scenario_profile(json_of(R"({"name": "default",
      "scoreWeights": {"NodeAffinity": 10, "ImageLocality": 4},
      "disabledScore": ["NodeResourcesBalancedAllocation"],
      "scoringStrategy": {"type": "RequestedToCapacityRatio",
                          "resources": [{"name": "cpu", "weight": 3}],
                          "shape": [{"utilization": 0, "score": 10}, {"utilization": 100, "score": 0}]}})"),
                                    JsonPath(), name);
  ASSERT_TRUE(p) << p.error().what();
  EXPECT_EQ(p->score_weight(Plugin::NodeAffinity), 10);
  EXPECT_EQ(p->score_weight(Plugin::ImageLocality), 4);
  EXPECT_EQ(p->score_weight(Plugin::NodeResourcesBalancedAllocation), 0);
  EXPECT_EQ(p->score_weight(Plugin::TaintToleration), 3);
  EXPECT_EQ(p->fit.strategy, ScoringStrategy::RequestedToCapacityRatio);
  ASSERT_EQ(p->fit.resources.size(), 1u);
  EXPECT_EQ(p->fit.resources[0].weight, 3);
  ASSERT_EQ(p->fit.shape.size(), 2u);
  EXPECT_EQ(p->fit.shape[0].score, 10);

  auto unknown =
      resolve_scenario_profile(json_of(R"({"name": "default", "weights": {}})"), JsonPath(), name);
  ASSERT_FALSE(unknown);
  EXPECT_EQ(unknown.error().path, "$.weights");
  EXPECT_EQ(unknown.error().message,
            "unknown field \"weights\" (known: name, scoringStrategy, scoreWeights, "
            "disabledScore, schedulerConfig, release)");
}

TEST(MultiPoint, ScoreEntryOverridesTheMultiPointWeight) {
  Profile p = profile_from(
      R"({"plugins": {"score": {"enabled": [{"name": "ImageLocality", "weight": 7}]}}})");
  // Explicitly re-configured plugins run first (expandMultiPointPlugins' part 1).
  ASSERT_FALSE(p.scores.empty());
  EXPECT_EQ(p.scores[0].plugin, Plugin::ImageLocality);
  EXPECT_EQ(p.score_weight(Plugin::ImageLocality), 7);
  EXPECT_EQ(p.score_weight(Plugin::TaintToleration), 3);
  EXPECT_EQ(p.scores.size(), kDefaultScores.size());
}

TEST(MultiPoint, ScoreEntryWithoutWeightCountsOne) {
  // getScoreWeights visits Score.Enabled before MultiPoint and keeps the first:
  // an unweighted explicit entry gets weight 1, not the MultiPoint 3.
  Profile p = profile_from(R"({"plugins": {"score": {"enabled": [{"name": "TaintToleration"}]}}})");
  EXPECT_EQ(p.score_weight(Plugin::TaintToleration), 1);
}

TEST(MultiPoint, CustomMultiPointReplacesTheDefaultInPlace) {
  Profile p = profile_from(
      R"({"plugins": {"multiPoint": {"enabled": [{"name": "NodeAffinity", "weight": 5}]}}})");
  Scores want = kDefaultScores;
  want[1].second = 5;
  EXPECT_EQ(scores_of(p), want);
}

TEST(MultiPoint, DisabledInMultiPoint) {
  Profile p = profile_from(R"({"plugins": {"multiPoint": {"disabled": [{"name": "ImageLocality"},
                                                                        {"name": "TaintToleration"}]}}})");
  EXPECT_EQ(p.score_weight(Plugin::ImageLocality), 0);
  EXPECT_EQ(p.score_weight(Plugin::TaintToleration), 0);
  EXPECT_FALSE(p.filter_enabled(Plugin::TaintToleration));
  EXPECT_TRUE(p.filter_enabled(Plugin::NodeAffinity));
}

TEST(MultiPoint, DisableAllScorePlugins) {
  Profile p = profile_from(R"({"plugins": {"score": {"disabled": [{"name": "*"}],
                                                     "enabled": [{"name": "NodeResourcesFit", "weight": 5}]}}})");
  EXPECT_EQ(scores_of(p), (Scores{{"NodeResourcesFit", 5}}));
  EXPECT_EQ(filters_of(p), kDefaultFilters);  // filters are untouched
  EXPECT_TRUE(p.preemption);
}

TEST(MultiPoint, DisableAllMultiPointPlugins) {
  // kube-scheduler needs a queue sort and a bind plugin in every profile.
  Profile p = profile_from(R"({"plugins": {"multiPoint": {"disabled": [{"name": "*"}],
      "enabled": [{"name": "PrioritySort"}, {"name": "NodeResourcesFit"}, {"name": "DefaultBinder"}]}}})");
  EXPECT_EQ(filters_of(p), (std::vector<std::string>{"NodeResourcesFit"}));
  EXPECT_EQ(scores_of(p), (Scores{{"NodeResourcesFit", 1}}));
  EXPECT_FALSE(p.preemption);
}

TEST(MultiPoint, DisableOneFilterOrPreemption) {
  Profile p = profile_from(R"({"plugins": {"filter": {"disabled": [{"name": "NodePorts"}]},
                                           "postFilter": {"disabled": [{"name": "DefaultPreemption"}]}}})");
  EXPECT_FALSE(p.filter_enabled(Plugin::NodePorts));
  EXPECT_TRUE(p.filter_enabled(Plugin::NodeResourcesFit));
  EXPECT_FALSE(p.preemption);
  EXPECT_EQ(scores_of(p), kDefaultScores);
}

TEST(MultiPoint, ExplicitFilterOrderRunsFirst) {
  Profile p =
      profile_from(R"({"plugins": {"filter": {"enabled": [{"name": "NodeResourcesFit"}]}}})");
  ASSERT_FALSE(p.filters.empty());
  EXPECT_EQ(p.filters[0], Plugin::NodeResourcesFit);
  EXPECT_EQ(p.filters.size(), kDefaultFilters.size());
}

TEST(PluginConfig, ScoringStrategies) {
  Profile p = profile_from(fit_args(R"({"type": "MostAllocated",
      "resources": [{"name": "cpu", "weight": 2}, {"name": "memory"}, {"name": "nvidia.com/gpu", "weight": 100}]})"));
  EXPECT_EQ(p.fit.strategy, ScoringStrategy::MostAllocated);
  ASSERT_EQ(p.fit.resources.size(), 3u);
  EXPECT_EQ(p.fit.resources[0].weight, 2);
  EXPECT_EQ(p.fit.resources[1].weight, 1);  // defaulted
  EXPECT_EQ(p.fit.resources[2].name, "nvidia.com/gpu");
  EXPECT_EQ(p.fit.resources[2].weight, 100);

  p = profile_from(fit_args(R"({"type": "LeastAllocated", "resources": []})"));
  EXPECT_EQ(p.fit.resources.size(), 2u);  // an empty list is defaulted

  p = profile_from(fit_args(R"({"type": "RequestedToCapacityRatio",
      "requestedToCapacityRatio": {"shape": [{"utilization": 0, "score": 10}, {"utilization": 50, "score": 2},
                                             {"utilization": 100, "score": 0}]}})"));
  EXPECT_EQ(p.fit.strategy, ScoringStrategy::RequestedToCapacityRatio);
  ASSERT_EQ(p.fit.shape.size(), 3u);
  EXPECT_EQ(p.fit.shape[1].utilization, 50);
  EXPECT_EQ(p.fit.shape[1].score, 2);

  p = profile_from(R"({"pluginConfig": [{"name": "NodeResourcesFit",
      "args": {"ignoredResources": ["example.com/a"], "ignoredResourceGroups": ["example.org"]}}]})");
  EXPECT_EQ(p.fit.ignored_resources, (std::vector<std::string>{"example.com/a"}));
  EXPECT_EQ(p.fit.ignored_resource_groups, (std::vector<std::string>{"example.org"}));
  EXPECT_EQ(p.fit.strategy, ScoringStrategy::LeastAllocated);

  p = profile_from(R"({"pluginConfig": [{"name": "NodeResourcesBalancedAllocation",
      "args": {"resources": [{"name": "cpu", "weight": 1}, {"name": "nvidia.com/gpu", "weight": 1}]}}]})");
  ASSERT_EQ(p.balanced_resources.size(), 2u);
  EXPECT_EQ(p.balanced_resources[1].name, "nvidia.com/gpu");
}

TEST(ConfigErrors, UnknownPlugin) {
  Error e =
      profile_error(R"({"plugins": {"score": {"enabled": [{"name": "Magic", "weight": 1}]}}})");
  EXPECT_EQ(e.path, "$.profiles[0].plugins.score.enabled[0].name");
  EXPECT_TRUE(contains(e.message, "unknown plugin \"Magic\"")) << e.message;

  e = profile_error(
      R"({"plugins": {"filter": {"disabled": [{"name": "NodePorts"}, {"name": "Nope"}]}}})");
  EXPECT_EQ(e.path, "$.profiles[0].plugins.filter.disabled[1].name");
  EXPECT_TRUE(contains(e.message, "\"Nope\"")) << e.message;

  e = profile_error(R"({"plugins": {"multiPoint": {"enabled": [{"name": "Nope"}]}}})");
  EXPECT_TRUE(contains(e.path, "$.profiles[0].plugins")) << e.path;
  EXPECT_TRUE(contains(e.message, "\"Nope\"")) << e.message;

  e = profile_error(R"({"pluginConfig": [{"name": "Nope", "args": {}}]})");
  EXPECT_EQ(e.path, "$.profiles[0].pluginConfig[0].name");
  EXPECT_TRUE(contains(e.message, "\"Nope\"")) << e.message;
}

TEST(ConfigErrors, PluginAtTheWrongExtensionPoint) {
  Error e = profile_error(R"({"plugins": {"score": {"enabled": [{"name": "NodePorts"}]}}})");
  EXPECT_EQ(e.path, "$.profiles[0].plugins.score.enabled[0].name");
  EXPECT_TRUE(contains(e.message, "does not extend score")) << e.message;
  e = profile_error(
      R"({"plugins": {"score": {"enabled": [{"name": "ImageLocality"}, {"name": "ImageLocality"}]}}})");
  EXPECT_EQ(e.path, "$.profiles[0].plugins.score.enabled[1].name");
}

TEST(ConfigErrors, UnknownFields) {
  Error e = config_error(
      R"({"apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration",
                             "profile": []})");
  EXPECT_EQ(e.path, "$.profile");
  EXPECT_EQ(e.message.rfind("unknown field \"profile\" (known: apiVersion, kind, ", 0), 0u)
      << e.message;

  e = profile_error(R"({"schedulerName": "x", "plugin": {}})");
  EXPECT_EQ(e.path, "$.profiles[0].plugin");
  EXPECT_EQ(e.message,
            "unknown field \"plugin\" (known: schedulerName, percentageOfNodesToScore, plugins, "
            "pluginConfig)");

  e = profile_error(R"({"plugins": {"scores": {}}})");
  EXPECT_EQ(e.path, "$.profiles[0].plugins.scores");

  e = profile_error(R"({"plugins": {"score": {"enable": []}}})");
  EXPECT_EQ(e.path, "$.profiles[0].plugins.score.enable");

  e = profile_error(
      R"({"plugins": {"score": {"enabled": [{"name": "ImageLocality", "wieght": 2}]}}})");
  EXPECT_EQ(e.path, "$.profiles[0].plugins.score.enabled[0].wieght");

  e = profile_error(fit_args(R"({"type": "MostAllocated", "shape": []})"));
  EXPECT_EQ(e.path, "$.profiles[0].pluginConfig[0].args.scoringStrategy.shape");
  EXPECT_EQ(e.message,
            "unknown field \"shape\" (known: type, resources, requestedToCapacityRatio)");

  e = profile_error(
      R"({"pluginConfig": [{"name": "NodeResourcesFit", "args": {"scoringStrategy": {},
                                                                               "ignoredResource": []}}]})");
  EXPECT_EQ(e.path, "$.profiles[0].pluginConfig[0].args.ignoredResource");
}

TEST(ConfigErrors, BadScoringStrategyType) {
  Error e = profile_error(fit_args(R"({"type": "Balanced"})"));
  EXPECT_EQ(e.path, "$.profiles[0].pluginConfig[0].args.scoringStrategy.type");
  EXPECT_TRUE(contains(e.message, "\"Balanced\"")) << e.message;
}

TEST(ConfigErrors, ResourceWeightOutOfRange) {
  Error e = profile_error(
      fit_args(R"({"type": "LeastAllocated", "resources": [{"name": "cpu", "weight": 101}]})"));
  EXPECT_EQ(e.path, "$.profiles[0].pluginConfig[0].args.scoringStrategy.resources[0].weight");
  EXPECT_EQ(e.message, "resource weight of cpu (101) not in valid range [1, 100]");

  e = profile_error(fit_args(R"({"type": "LeastAllocated",
                                 "resources": [{"name": "cpu"}, {"name": "memory", "weight": -1}]})"));
  EXPECT_EQ(e.path, "$.profiles[0].pluginConfig[0].args.scoringStrategy.resources[1].weight");
  EXPECT_TRUE(contains(e.message, "(-1) not in valid range [1, 100]")) << e.message;

  e = profile_error(R"({"pluginConfig": [{"name": "NodeResourcesBalancedAllocation",
                                          "args": {"resources": [{"name": "cpu", "weight": 1000}]}}]})");
  EXPECT_EQ(e.path, "$.profiles[0].pluginConfig[0].args.resources[0].weight");
}

TEST(ConfigErrors, RequestedToCapacityRatioShape) {
  const std::string rtc =
      R"({"type": "RequestedToCapacityRatio", "requestedToCapacityRatio": {"shape": )";
  Error e = profile_error(
      fit_args(rtc + R"([{"utilization": 50, "score": 1}, {"utilization": 50, "score": 2}]}})"));
  EXPECT_EQ(e.path,
            "$.profiles[0].pluginConfig[0].args.scoringStrategy.requestedToCapacityRatio.shape[1]."
            "utilization");
  EXPECT_TRUE(contains(e.message, "increasing order")) << e.message;

  e = profile_error(
      fit_args(rtc + R"([{"utilization": 60, "score": 1}, {"utilization": 40, "score": 2}]}})"));
  EXPECT_EQ(e.path,
            "$.profiles[0].pluginConfig[0].args.scoringStrategy.requestedToCapacityRatio.shape[1]."
            "utilization");

  e = profile_error(
      fit_args(rtc + R"([{"utilization": 0, "score": 0}, {"utilization": 100, "score": 11}]}})"));
  EXPECT_EQ(
      e.path,
      "$.profiles[0].pluginConfig[0].args.scoringStrategy.requestedToCapacityRatio.shape[1].score");
  EXPECT_EQ(e.message, "score 11 not in valid range [0, 10]");

  e = profile_error(fit_args(rtc + R"([{"utilization": 0, "score": -1}]}})"));
  EXPECT_EQ(
      e.path,
      "$.profiles[0].pluginConfig[0].args.scoringStrategy.requestedToCapacityRatio.shape[0].score");

  e = profile_error(fit_args(rtc + R"([{"utilization": 101, "score": 1}]}})"));
  EXPECT_EQ(e.path,
            "$.profiles[0].pluginConfig[0].args.scoringStrategy.requestedToCapacityRatio.shape[0]."
            "utilization");
  EXPECT_EQ(e.message, "utilization 101 not in valid range [0, 100]");

  e = profile_error(fit_args(rtc + R"([]}})"));
  EXPECT_EQ(e.path,
            "$.profiles[0].pluginConfig[0].args.scoringStrategy.requestedToCapacityRatio.shape");

  e = profile_error(fit_args(R"({"type": "RequestedToCapacityRatio"})"));
  EXPECT_EQ(e.path, "$.profiles[0].pluginConfig[0].args.scoringStrategy.requestedToCapacityRatio");
}

TEST(ConfigErrors, WrongApiVersionOrKind) {
  Error e = config_error(
      R"({"apiVersion": "kubescheduler.config.k8s.io/v1beta3", "kind": "KubeSchedulerConfiguration"})");
  EXPECT_EQ(e.path, "$.apiVersion");
  EXPECT_TRUE(contains(e.message, "\"kubescheduler.config.k8s.io/v1beta3\"")) << e.message;

  e = config_error(R"({"kind": "KubeSchedulerConfiguration"})");
  EXPECT_EQ(e.path, "$.apiVersion");

  e = config_error(R"({"apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "Pod"})");
  EXPECT_EQ(e.path, "$.kind");
  EXPECT_TRUE(contains(e.message, "\"Pod\"")) << e.message;
}

TEST(ConfigErrors, DuplicateSchedulerName) {
  Error e =
      profile_error(R"({"schedulerName": "a"}, {"schedulerName": "b"}, {"schedulerName": "a"})");
  EXPECT_EQ(e.path, "$.profiles[2].schedulerName");
  EXPECT_TRUE(contains(e.message, "\"a\"")) << e.message;
}

TEST(ConfigErrors, SchedulerNameRequired) {
  // Only a lone profile without a name becomes default-scheduler.
  EXPECT_EQ(profile_from(R"({})").scheduler_name, "default-scheduler");
  EXPECT_EQ(profile_from(R"({"schedulerName": null})").scheduler_name, "default-scheduler");
  Error e = profile_error(R"({"schedulerName": "a"}, {})");
  EXPECT_EQ(e.path, "$.profiles[1].schedulerName");
  EXPECT_TRUE(contains(e.message, "required")) << e.message;
  e = profile_error(R"({}, {"schedulerName": "default-scheduler"})");
  EXPECT_EQ(e.path, "$.profiles[0].schedulerName");
  e = profile_error(R"({"schedulerName": ""})");
  EXPECT_EQ(e.path, "$.profiles[0].schedulerName");
  e = profile_error(R"({"schedulerName": 5})");
  EXPECT_EQ(e.path, "$.profiles[0].schedulerName");
  EXPECT_EQ(e.message, "expected a string, got an integer");
}

TEST(ConfigErrors, Miscellaneous) {
  Error e = config_error(
      R"({"apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration",
                             "profiles": []})");
  EXPECT_EQ(e.path, "$.profiles");

  e = config_error(
      R"({"apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration",
                       "percentageOfNodesToScore": 101})");
  EXPECT_EQ(e.path, "$.percentageOfNodesToScore");

  e = config_error(
      R"({"apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration",
                       "extenders": [{"urlPrefix": "http://x"}]})");
  EXPECT_EQ(e.path, "$.extenders");

  e = profile_error(R"({"pluginConfig": [{"name": "NodeResourcesFit", "args": {}},
                                         {"name": "NodeResourcesFit", "args": {}}]})");
  EXPECT_EQ(e.path, "$.profiles[0].pluginConfig[1].name");
  EXPECT_TRUE(contains(e.message, "duplicate")) << e.message;

  e = profile_error(R"({"pluginConfig": [{"name": "NodePorts", "args": {"x": 1}}]})");
  EXPECT_EQ(e.path, "$.profiles[0].pluginConfig[0].args");
  EXPECT_TRUE(contains(e.message, "takes no arguments")) << e.message;

  e = profile_error(
      R"({"plugins": {"score": {"enabled": [{"name": "ImageLocality", "weight": -2}]}}})");
  EXPECT_EQ(e.path, "$.profiles[0].plugins.score.enabled[0].weight");

  e = profile_error(R"({"plugins": {"score": {"enabled": [{"name": "ImageLocality",
                                                            "weight": 100000000000000000}]}}})");
  EXPECT_EQ(e.path, "$.profiles[0].plugins.score");
  EXPECT_TRUE(contains(e.message, "overflow")) << e.message;

  e = config_error("[]");
  EXPECT_EQ(e.path, "$");
}

TEST(EncodeProfile, DescribesPluginsAndArgs) {
  auto c = decode_config(kZ2jhUserSchedulerConfig);
  ASSERT_TRUE(c);
  boost::json::value v = encode_profile(c->profiles[0]);
  const auto& o = v.as_object();
  EXPECT_EQ(o.at("schedulerName").as_string(), "jupyterhub-user-scheduler");
  EXPECT_EQ(o.at("scoreWeights").as_object().at("NodeAffinity").as_int64(), 14631);
  EXPECT_FALSE(o.at("scoreWeights").as_object().contains("NodeResourcesBalancedAllocation"));
  EXPECT_EQ(o.at("scorePlugins").as_array().size(), 7u);
  EXPECT_EQ(o.at("filterPlugins").as_array().size(), kDefaultFilters.size());
  EXPECT_TRUE(o.at("preemption").as_bool());
  EXPECT_EQ(o.at("nodeResourcesFitArgs").as_object().at("type").as_string(), "MostAllocated");
  EXPECT_FALSE(o.at("nodeResourcesFitArgs").as_object().contains("shape"));
}

TEST(StrategyName, AllStrategies) {
  EXPECT_STREQ(strategy_name(ScoringStrategy::LeastAllocated), "LeastAllocated");
  EXPECT_STREQ(strategy_name(ScoringStrategy::MostAllocated), "MostAllocated");
  EXPECT_STREQ(strategy_name(ScoringStrategy::RequestedToCapacityRatio),
               "RequestedToCapacityRatio");
}

}  // namespace
}  // namespace tightpack
