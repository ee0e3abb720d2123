#include "spread_replica_index.hpp"

#include <algorithm>
#include <limits>
#include <numeric>

#include "tightpack/plugins/normalize.hpp"

namespace tightpack {
namespace {

int64_t normalize(Plugin p, int64_t raw, int64_t max) {
  switch (plugin_info(p).normalization) {
    case Normalization::kDefault:
      return plugins::default_normalize(raw, max, false);
    case Normalization::kDefaultReverse:
      return plugins::default_normalize(raw, max, true);
    default:
      return raw;
  }
}

}  // namespace

bool SpreadReplicaIndex::applies(const PodPlan& plan, const ScoreVector& weight) {
  return plan.spread_counts() && plan.only_spread_reads_domains(weight);
}

SpreadReplicaIndex::SpreadReplicaIndex(const PodPlan& plan, const Cluster& c)
    : plan_(plan), c_(c), spread_(*plan.spread_counts()) {
  const size_t n = c.size();
  weight_ = score_weights(plan.profile());
  pod_dependent_ = plan.has_pod_dependent_scores(weight_);
  std::vector<NodeIndex> by_name(n);
  std::iota(by_name.begin(), by_name.end(), 0);
  std::sort(by_name.begin(), by_name.end(),
            [&](NodeIndex a, NodeIndex b) { return c.name(a) < c.name(b); });
  rank_.resize(n);
  for (size_t r = 0; r < n; ++r) rank_[by_name[r]] = static_cast<uint32_t>(r);
  node_by_rank_ = std::move(by_name);
  spread_.sync(c);
  fits_.assign(n, 0);
  partial_.assign(n, 0);
  key_of_.resize(n);
  for (NodeIndex i = 0; i < n; ++i) {
    fits_[i] = plan.in_prefilter_set(i) && !plan.prefilter_conflict() &&
               plan.filter_without_spread(c, i).ok();
    if (fits_[i]) partial_[i] = partial_total(i);
    insert(i);
  }
  choose();
}

int64_t SpreadReplicaIndex::partial_total(NodeIndex n) {
  const PodPlan::Normalizers unused = plan_.normalizers(0, 0);
  const PodPlan::PodDependentScores none;
  ScoreVector v = plan_.normalised_scores(
      c_, n, unused, pod_dependent_ ? plan_.pod_dependent_scores(c_, n, weight_) : none);
  // Added per group: normalised over the feasible nodes, or the group's own.
  for (Plugin p : {Plugin::TaintToleration, Plugin::NodeAffinity, Plugin::PodTopologySpread,
                   Plugin::InterPodAffinity}) {
    v[score_slot(p)] = 0;
  }
  ScoreRow row;
  if (weigh(v, weight_, row)) invalid_ = true;
  return row.total;
}

void SpreadReplicaIndex::insert(NodeIndex n) {
  if (!fits_[n]) return;
  Key key(2 + spread_.signature_size());
  key[0] = plan_.taint_raw(c_, n);
  key[1] = plan_.affinity_raw(n);
  spread_.signature(n, key.data() + 2);
  auto [it, fresh] = groups_.try_emplace(key);
  Group& g = it->second;
  if (fresh) {
    g.taint_raw = key[0];
    g.affinity_raw = key[1];
    g.signature.assign(key.begin() + 2, key.end());
  }
  g.members.insert({-partial_[n], rank_[n]});
  key_of_[n] = std::move(key);
}

void SpreadReplicaIndex::erase(NodeIndex n) {
  if (key_of_[n].empty()) return;
  auto it = groups_.find(key_of_[n]);
  it->second.members.erase({-partial_[n], rank_[n]});
  if (it->second.members.empty()) groups_.erase(it);
  key_of_[n].clear();
}

void SpreadReplicaIndex::update(NodeIndex n) {
  std::vector<NodeIndex> moved;
  spread_.signature_dependents(n, moved);
  for (NodeIndex m : moved) erase(m);
  spread_.sync_node(c_, n);
  fits_[n] = plan_.filter_without_spread(c_, n).ok();
  if (fits_[n]) partial_[n] = partial_total(n);
  for (NodeIndex m : moved) insert(m);
  choose();
}

void SpreadReplicaIndex::choose() {
  best_.reset();
  tied_ = 0;
  // The groups PodTopologySpread admits: the feasible nodes.
  std::vector<const Group*> feasible;
  uint8_t detail = 0;
  for (const auto& [key, g] : groups_) {
    if (spread_.admits_signature(g.signature.data(), detail)) feasible.push_back(&g);
  }
  if (feasible.empty()) return;
  int64_t max_taint = 0, max_affinity = 0;
  for (const Group* g : feasible) {
    max_taint = std::max(max_taint, g->taint_raw);
    max_affinity = std::max(max_affinity, g->affinity_raw);
  }
  // PodTopologySpread's score: raw per group, normalised as
  // normalize_spread_scores does over the feasible nodes.
  const int64_t spread_weight = weight_[slot<Plugin::PodTopologySpread>()];
  const size_t unscored = spread_.signature_size() - 1;
  std::vector<int64_t> spread(feasible.size(), 0);
  if (spread_weight && spread_.scores()) {
    std::vector<const int64_t*> signatures;
    std::vector<size_t> nodes;
    for (const Group* g : feasible) {
      signatures.push_back(g->signature.data());
      nodes.push_back(g->members.size());
    }
    const std::vector<double> weights = spread_.topology_weights(signatures, nodes);
    int64_t min_score = std::numeric_limits<int64_t>::max(), max_score = 0;
    for (size_t j = 0; j < feasible.size(); ++j) {
      if (feasible[j]->signature[unscored]) {
        spread[j] = plugins::SpreadCounts::kNotScored;
        continue;
      }
      spread[j] = spread_.raw_score(feasible[j]->signature.data(), weights);
      min_score = std::min(min_score, spread[j]);
      max_score = std::max(max_score, spread[j]);
    }
    for (int64_t& s : spread) {
      if (s == plugins::SpreadCounts::kNotScored) {
        s = 0;
      } else if (max_score == 0) {
        s = plugins::kMaxNodeScore;
      } else {
        s = plugins::kMaxNodeScore * (max_score + min_score - s) / max_score;
      }
    }
  }
  const int64_t taint_weight = weight_[slot<Plugin::TaintToleration>()];
  const int64_t affinity_weight = weight_[slot<Plugin::NodeAffinity>()];
  int64_t best_total = std::numeric_limits<int64_t>::min();
  uint32_t best_rank = 0;
  std::vector<int64_t> total(feasible.size());
  for (size_t j = 0; j < feasible.size(); ++j) {
    const Group& g = *feasible[j];
    total[j] = -g.members.begin()->first +
               taint_weight * normalize(Plugin::TaintToleration, g.taint_raw, max_taint) +
               affinity_weight * normalize(Plugin::NodeAffinity, g.affinity_raw, max_affinity) +
               spread_weight * spread[j];
    const uint32_t rank = g.members.begin()->second;
    if (total[j] > best_total || (total[j] == best_total && rank < best_rank)) {
      best_total = total[j];
      best_rank = rank;
    }
  }
  for (size_t j = 0; j < feasible.size(); ++j) {
    if (total[j] != best_total) continue;
    const int64_t top = feasible[j]->members.begin()->first;
    for (auto it = feasible[j]->members.begin();
         it != feasible[j]->members.end() && it->first == top; ++it)
      ++tied_;
  }
  best_ = node_by_rank_[best_rank];
}

}  // namespace tightpack
