// The score pipeline, written once for every way the engine places a pod:
// decide() for one decision, and the replica indexes (simulate.cpp,
// spread_replica_index.cpp) that keep a decision up to date as copies of a
// pod are placed. What it does is kube-scheduler's RunScorePlugins and
// NormalizeScore: each enabled plugin's score of every feasible node,
// normalised (by the highest raw score among the feasible nodes, or over
// them at once), checked against [0, 100], weighted and summed; the node with
// the highest total wins, ties going to the smallest name.
//
// It names no plugin: the registry says which columns are normalised how
// (kByMaxSlots, kNodePodsSlots, kOverDomainsSlots), and the plan gives each
// column's scores.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "tightpack/cluster.hpp"
#include "tightpack/plugins/normalize.hpp"
#include "tightpack/plugins/registry.hpp"
#include "tightpack/profile.hpp"

namespace tightpack {

// Calls f(std::integral_constant<size_t, K>{}) for K = 0 … N-1: a loop over
// registry columns the compiler unrolls, each step knowing its column.
template <size_t N, class F>
constexpr void for_each_index(F&& f) {
  [&]<size_t... K>(std::index_sequence<K...>) {
    (f(std::integral_constant<size_t, K>{}), ...);
  }
  (std::make_index_sequence<N>{});
}

// One value per modelled score plugin, in registry order (kScorePlugins).
using ScoreVector = std::array<int64_t, kScoreSlots>;

struct ScoreRow {
  ScoreVector weighted{};  // normalised score × weight
  int64_t total = 0;
};

// The profile's weight of every modelled score plugin (0: not scoring).
ScoreVector score_weights(const Profile& profile);

// RunScorePlugins' sum for one node: each enabled plugin's normalised score,
// checked against [0, 100], times its weight. Returns the first plugin whose
// score is out of range (kube-scheduler then fails the pod with an error),
// or nothing.
std::optional<Plugin> weigh(const ScoreVector& normalised, const ScoreVector& weight,
                            ScoreRow& row);

// RunScorePlugins' check of a normalised score; the error text when out of range.
std::string invalid_score_error(Plugin plugin, int64_t score);

// A node's raw scores of the columns normalised by their maximum over the
// feasible nodes, in kByMaxSlots order.
using RawByMax = std::array<int64_t, kByMaxCount>;
// A node's scores of the columns that read its pods, in kNodePodsSlots order.
using NodePodsScores = std::array<int64_t, kNodePodsCount>;

// The highest raw score of each column normalised by it, over a set of
// feasible nodes.
struct FeasibleMax {
  RawByMax max{};
  void add(const RawByMax& raw) {
    for (size_t k = 0; k < kByMaxCount; ++k) max[k] = std::max(max[k], raw[k]);
  }
};

// The same, kept while nodes leave the set: how many feasible nodes have
// each raw score.
class FeasibleMaxHistogram {
 public:
  void clear();
  void add(const RawByMax& raw);
  // Takes a node's raw scores out; whether some column's maximum moved.
  bool remove(const RawByMax& raw);
  FeasibleMax max() const;

 private:
  std::array<std::map<int64_t, int64_t>, kByMaxCount> count_;
};

// NormalizeScore of the K-th column normalised by its maximum.
template <size_t K>
int64_t normalize_by_max(int64_t raw, int64_t max) {
  constexpr bool kReverse =
      plugin_info(kScorePlugins[kByMaxSlots[K]]).normalization == Normalization::kDefaultReverse;
  return plugins::default_normalize(raw, max, kReverse);
}

// The columns normalised by their maximum: raw in `v`, normalised in place.
inline void normalise_by_max(const FeasibleMax& max, ScoreVector& v) {
  for_each_index<kByMaxCount>(
      [&](auto k) { v[kByMaxSlots[k]] = normalize_by_max<k>(v[kByMaxSlots[k]], max.max[k]); });
}

// Σ weight × normalised score of the columns normalised by their maximum.
inline int64_t weighted_by_max(const RawByMax& raw, const FeasibleMax& max,
                               const ScoreVector& weight) {
  int64_t sum = 0;
  for_each_index<kByMaxCount>(
      [&](auto k) { sum += weight[kByMaxSlots[k]] * normalize_by_max<k>(raw[k], max.max[k]); });
  return sum;
}

// The nodes ranked by name: a tie between totals goes to the lower rank, and
// the indexes compare integers instead of names.
struct NameRanks {
  explicit NameRanks(const Cluster& c);
  std::vector<uint32_t> rank;   // per node
  std::vector<NodeIndex> node;  // per rank
};

}  // namespace tightpack
