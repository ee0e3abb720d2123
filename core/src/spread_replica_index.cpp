#include "spread_replica_index.hpp"

#include <algorithm>
#include <limits>

namespace tightpack {
bool SpreadReplicaIndex::applies(const PodPlan& plan, PlanScratch& scratch, const Cluster& c,
                                 const ScoreVector& weight) {
  const plugins::SpreadState& spread = plan.state<Plugin::PodTopologySpread>();
  return (!spread.hard.empty() || !spread.soft.empty()) &&
         plan.only_reads_domains_through(Plugin::PodTopologySpread, scratch, c, weight);
}

SpreadReplicaIndex::SpreadReplicaIndex(const PodPlan& plan, PlanScratch& scratch, const Cluster& c)
    : plan_(plan),
      scratch_(scratch),
      c_(c),
      spread_(plan.counts<Plugin::PodTopologySpread>(scratch, c)),
      ranks_(c) {
  const size_t n = c.size();
  weight_ = score_weights(plan.profile());
  pod_dependent_ = plan.has_pod_dependent_scores(weight_);
  spread_.sync(c);
  fits_.assign(n, 0);
  partial_.assign(n, 0);
  key_of_.resize(n);
  for (NodeIndex i = 0; i < n; ++i) {
    fits_[i] = plan.in_prefilter_set(i) && !plan.prefilter_conflict() &&
               plan.filter_without(scratch, c, i, Plugin::PodTopologySpread).ok();
    if (fits_[i]) partial_[i] = partial_total(i);
    insert(i);
  }
  choose();
}

int64_t SpreadReplicaIndex::partial_total(NodeIndex n) {
  const NodePodsScores none{};
  ScoreVector v = plan_.normalised_scores(
      c_, n, FeasibleMax{}, pod_dependent_ ? plan_.pod_dependent_scores(c_, n, weight_) : none);
  // Added per group: normalised over the feasible nodes, or the group's own.
  for (size_t slot : kByMaxSlots) v[slot] = 0;
  for (size_t slot : kOverDomainsSlots) v[slot] = 0;
  ScoreRow row;
  if (weigh(v, weight_, row)) invalid_ = true;
  return row.total;
}

void SpreadReplicaIndex::insert(NodeIndex n) {
  if (!fits_[n]) return;
  const RawByMax raw = plan_.raw_by_max(c_, n);
  Key key(kByMaxCount + spread_.signature_size());
  std::copy(raw.begin(), raw.end(), key.begin());
  spread_.signature(n, key.data() + kByMaxCount);
  auto [it, fresh] = groups_.try_emplace(key);
  Group& g = it->second;
  if (fresh) {
    g.raw = raw;
    g.signature.assign(key.begin() + kByMaxCount, key.end());
  }
  g.members.insert({-partial_[n], ranks_.rank[n]});
  key_of_[n] = std::move(key);
}

void SpreadReplicaIndex::erase(NodeIndex n) {
  if (key_of_[n].empty()) return;
  auto it = groups_.find(key_of_[n]);
  it->second.members.erase({-partial_[n], ranks_.rank[n]});
  if (it->second.members.empty()) groups_.erase(it);
  key_of_[n].clear();
}

void SpreadReplicaIndex::update(NodeIndex n) {
  std::vector<NodeIndex> moved;
  spread_.signature_dependents(n, moved);
  for (NodeIndex m : moved) erase(m);
  spread_.sync_node(c_, n);
  fits_[n] = plan_.filter_without(scratch_, c_, n, Plugin::PodTopologySpread).ok();
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
  FeasibleMax max;
  for (const Group* g : feasible) max.add(g->raw);
  // PodTopologySpread's score: raw per group, normalised as over the
  // feasible nodes.
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
    for (size_t j = 0; j < feasible.size(); ++j) {
      spread[j] = feasible[j]->signature[unscored]
                      ? plugins::SpreadCounts::kNotScored
                      : spread_.raw_score(feasible[j]->signature.data(), weights);
    }
    plugins::normalize_spread_scores(spread);
  }
  int64_t best_total = std::numeric_limits<int64_t>::min();
  uint32_t best_rank = 0;
  std::vector<int64_t> total(feasible.size());
  for (size_t j = 0; j < feasible.size(); ++j) {
    const Group& g = *feasible[j];
    total[j] = -g.members.begin()->first + weighted_by_max(g.raw, max, weight_) +
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
  best_ = ranks_.node[best_rank];
}

}  // namespace tightpack
