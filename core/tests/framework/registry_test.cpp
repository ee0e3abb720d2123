#include "tightpack/plugins/registry.hpp"

#include <gtest/gtest.h>

#include <set>
#include <string>

#include "tightpack/framework/framework.hpp"

namespace tightpack {
namespace {

TEST(Registry, EveryPluginIsFoundByItsName) {
  std::set<std::string> names;
  for (const auto& p : kPluginTable) {
    EXPECT_TRUE(names.insert(p.name).second) << p.name << " is registered twice";
    auto found = find_plugin(p.name);
    ASSERT_TRUE(found) << p.name;
    EXPECT_EQ(*found, p.plugin);
    EXPECT_STREQ(plugin_name(p.plugin), p.name);
  }
  EXPECT_FALSE(find_plugin("NodeResourceFit"));
  EXPECT_FALSE(find_plugin(""));
}

TEST(Registry, ScoreColumnsAreTheModelledScorePluginsInOrder) {
  size_t k = 0;
  for (const auto& p : kPluginTable) {
    const bool column = p.modelled && (p.ext & ext::kScore);
    EXPECT_EQ(score_slot(p.plugin) < kScoreSlots, column) << p.name;
    if (!column) continue;
    ASSERT_LT(k, kScoreSlots);
    EXPECT_EQ(kScorePlugins[k], p.plugin);
    EXPECT_EQ(score_slot(p.plugin), k);
    ++k;
  }
  EXPECT_EQ(k, kScoreSlots);
  static_assert(slot<Plugin::TaintToleration>() == 0);
}

TEST(Registry, ScorePluginsThatScoreByTheirOwnFormulaAreNotNormalisedAgain) {
  // NormalizeScore is implemented by exactly these of the modelled ones.
  for (Plugin p : kScorePlugins) {
    const Normalization want = p == Plugin::TaintToleration     ? Normalization::kDefaultReverse
                               : p == Plugin::NodeAffinity      ? Normalization::kDefault
                               : p == Plugin::PodTopologySpread ? Normalization::kSpread
                               : p == Plugin::InterPodAffinity  ? Normalization::kMinMax
                                                                : Normalization::kNone;
    EXPECT_EQ(plugin_info(p).normalization, want) << plugin_name(p);
  }
}

TEST(Weigh, SumsWeightedScoresAndNamesTheFirstOutOfRange) {
  ScoreVector normalised{}, weight{};
  normalised[slot<Plugin::NodeAffinity>()] = 50;
  weight[slot<Plugin::NodeAffinity>()] = 2;
  normalised[slot<Plugin::NodeResourcesFit>()] = 30;
  weight[slot<Plugin::NodeResourcesFit>()] = 1;
  normalised[slot<Plugin::ImageLocality>()] = 1000;  // disabled: not checked
  ScoreRow row;
  EXPECT_FALSE(weigh(normalised, weight, row));
  EXPECT_EQ(row.total, 130);
  EXPECT_EQ(row.weighted[slot<Plugin::NodeAffinity>()], 100);
  weight[slot<Plugin::ImageLocality>()] = 1;
  auto invalid = weigh(normalised, weight, row);
  ASSERT_TRUE(invalid);
  EXPECT_EQ(*invalid, Plugin::ImageLocality);
}

}  // namespace
}  // namespace tightpack
