#include "tightpack/framework/score_pipeline.hpp"

#include <gtest/gtest.h>

#include <algorithm>

#include "tightpack/plugins/normalize.hpp"

namespace tightpack {
namespace {

TEST(ScorePipeline, ColumnsAreClassedByTheRegistry) {
  // Every column is got one way: normalised by its maximum, read from the
  // node's pods, normalised over the domains, or read from the node as is.
  for (size_t slot = 0; slot < kScoreSlots; ++slot) {
    const PluginInfo& info = plugin_info(kScorePlugins[slot]);
    const int classes =
        static_cast<int>(std::count(kByMaxSlots.begin(), kByMaxSlots.end(), slot)) +
        static_cast<int>(std::count(kNodePodsSlots.begin(), kNodePodsSlots.end(), slot)) +
        static_cast<int>(std::count(kOverDomainsSlots.begin(), kOverDomainsSlots.end(), slot));
    EXPECT_EQ(
        classes,
        info.score_reads == Reads::kNode && info.normalization == Normalization::kNone ? 0 : 1)
        << info.name;
  }
  EXPECT_EQ((std::array{slot<Plugin::TaintToleration>(), slot<Plugin::NodeAffinity>()}),
            kByMaxSlots);
}

TEST(ScorePipeline, NormalisesByTheMaximumAsDefaultNormalizeScore) {
  // TaintToleration's column is reversed, NodeAffinity's is not.
  for (int64_t max : {0, 1, 3, 7, 100, 12345}) {
    for (int64_t raw = 0; raw <= max; ++raw) {
      const int64_t scaled = max == 0 ? raw : 100 * raw / max;
      EXPECT_EQ(normalize_by_max<0>(raw, max), max == 0 ? 100 : 100 - scaled) << raw << "/" << max;
      EXPECT_EQ(normalize_by_max<1>(raw, max), scaled) << raw << "/" << max;
    }
  }
}

TEST(ScorePipeline, TheHistogramSaysWhenAMaximumMoves) {
  FeasibleMaxHistogram h;
  h.add({3, 0});
  h.add({5, 0});
  h.add({5, 1});
  EXPECT_EQ(h.max().max, (RawByMax{5, 1}));
  EXPECT_FALSE(h.remove({5, 0}));  // another node still has 5, and 1
  EXPECT_TRUE(h.remove({5, 1}));
  EXPECT_EQ(h.max().max, (RawByMax{3, 0}));
  EXPECT_TRUE(h.remove({3, 0}));  // none left: 0, as over no node
  EXPECT_EQ(h.max().max, (RawByMax{0, 0}));
  h.add({0, 0});
  EXPECT_FALSE(h.remove({0, 0}));
}

TEST(ScorePipeline, WeighsTheColumnsNormalisedByTheMaximum) {
  ScoreVector weight{};
  weight[slot<Plugin::TaintToleration>()] = 3;
  weight[slot<Plugin::NodeAffinity>()] = 2;
  FeasibleMax max;
  max.add({4, 10});
  max.add({0, 5});
  EXPECT_EQ(max.max, (RawByMax{4, 10}));
  // (100 - 100·2/4)·3 + (100·5/10)·2
  EXPECT_EQ(weighted_by_max({2, 5}, max, weight), 50 * 3 + 50 * 2);
  ScoreVector v{};
  v[slot<Plugin::TaintToleration>()] = 2;
  v[slot<Plugin::NodeAffinity>()] = 5;
  normalise_by_max(max, v);
  EXPECT_EQ(v[slot<Plugin::TaintToleration>()], 50);
  EXPECT_EQ(v[slot<Plugin::NodeAffinity>()], 50);
}

}  // namespace
}  // namespace tightpack
