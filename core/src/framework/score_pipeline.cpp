#include "tightpack/framework/score_pipeline.hpp"

#include <algorithm>
#include <numeric>

#include "tightpack/plugins/normalize.hpp"

namespace tightpack {

ScoreVector score_weights(const Profile& profile) {
  ScoreVector weight{};
  for (size_t k = 0; k < kScoreSlots; ++k) weight[k] = profile.score_weight(kScorePlugins[k]);
  return weight;
}

std::optional<Plugin> weigh(const ScoreVector& normalised, const ScoreVector& weight,
                            ScoreRow& row) {
  row.total = 0;
  for (size_t k = 0; k < kScoreSlots; ++k) {
    if (weight[k] && (normalised[k] < 0 || normalised[k] > plugins::kMaxNodeScore))
      return kScorePlugins[k];
    row.weighted[k] = normalised[k] * weight[k];
    row.total += row.weighted[k];
  }
  return std::nullopt;
}

std::string invalid_score_error(Plugin plugin, int64_t score) {
  return std::string("plugin \"") + plugin_name(plugin) + "\" returns an invalid score " +
         std::to_string(score) + ", it should in the range of [0, 100] after normalizing";
}

void FeasibleMaxHistogram::clear() {
  for (auto& c : count_) c.clear();
}

void FeasibleMaxHistogram::add(const RawByMax& raw) {
  for (size_t k = 0; k < kByMaxCount; ++k) ++count_[k][raw[k]];
}

bool FeasibleMaxHistogram::remove(const RawByMax& raw) {
  const FeasibleMax before = max();
  for (size_t k = 0; k < kByMaxCount; ++k) {
    auto it = count_[k].find(raw[k]);
    if (it != count_[k].end() && --it->second == 0) count_[k].erase(it);
  }
  return max().max != before.max;
}

FeasibleMax FeasibleMaxHistogram::max() const {
  FeasibleMax out;  // 0 over no node
  for (size_t k = 0; k < kByMaxCount; ++k)
    out.max[k] = count_[k].empty() ? 0 : count_[k].rbegin()->first;
  return out;
}

NameRanks::NameRanks(const Cluster& c) : rank(c.size()), node(c.size()) {
  std::iota(node.begin(), node.end(), 0);
  std::sort(node.begin(), node.end(),
            [&](NodeIndex a, NodeIndex b) { return c.name(a) < c.name(b); });
  for (size_t r = 0; r < node.size(); ++r) rank[node[r]] = static_cast<uint32_t>(r);
}

}  // namespace tightpack
