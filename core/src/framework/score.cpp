// The plan's scores, column by column, for the score pipeline
// (score_pipeline.hpp) that decide() and the replica indexes run.
#include "tightpack/framework/framework.hpp"

namespace tightpack {

bool PodPlan::has_pod_dependent_scores(const ScoreVector& weight) const {
  for (size_t slot : kNodePodsSlots) {
    if (weight[slot]) return true;
  }
  return false;
}

NodePodsScores PodPlan::pod_dependent_scores(const Cluster& c, NodeIndex n,
                                             const ScoreVector& weight) const {
  NodePodsScores s{};
  for_each_index<kNodePodsCount>([&](auto k) {
    if (weight[kNodePodsSlots[k]]) s[k] = node_pods_score<kScorePlugins[kNodePodsSlots[k]]>(c, n);
  });
  return s;
}

ScoreVector PodPlan::normalised_scores(const Cluster& c, NodeIndex n, const FeasibleMax& max,
                                       const NodePodsScores& pod_dependent,
                                       const DomainScores* domain, size_t j) const {
  ScoreVector v{};
  // The columns that read the node alone are in [0, 100] already, but for
  // those normalised by their maximum.
  for_each_index<kScoreSlots>([&](auto slot) {
    constexpr Plugin kPlugin = kScorePlugins[slot];
    if constexpr (plugin_info(kPlugin).score_reads == Reads::kNode)
      v[slot] = node_score<kPlugin>(c, n);
  });
  normalise_by_max(max, v);
  for (size_t k = 0; k < kNodePodsCount; ++k) v[kNodePodsSlots[k]] = pod_dependent[k];
  for (size_t k = 0; domain && k < kOverDomainsCount; ++k) {
    if (!domain->by_column[k].empty()) v[kOverDomainsSlots[k]] = domain->by_column[k][j];
  }
  return v;
}

PodPlan::DomainScores PodPlan::domain_scores(PlanScratch& scratch, const Cluster& c,
                                             const std::vector<NodeIndex>& feasible,
                                             const ScoreVector& weight) const {
  DomainScores out;
  for (size_t k = 0; k < kOverDomainsCount; ++k) {
    const Plugin p = kScorePlugins[kOverDomainsSlots[k]];
    if (!weight[kOverDomainsSlots[k]] || !prescore_keeps(p)) continue;
    CycleState::visit(p, [&](auto tag) {
      using T = typename decltype(tag)::type;
      if constexpr (HasCounts<T>) {
        T::domain_scores(states_.get<T::kId>(), counts<T::kId>(scratch, c), c, feasible,
                         out.by_column[k]);
      }
    });
  }
  return out;
}

bool PodPlan::prescore_keeps(Plugin p) const {
  bool keeps = true;
  CycleState::visit(p, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (requires(const typename T::State& st) { T::scores(st); })
      keeps = T::scores(states_.template get<T::kId>());
  });
  return keeps;
}

std::array<bool, kScoreSlots> PodPlan::scoring(const ScoreVector& weight,
                                               const DomainScores& domain) const {
  std::array<bool, kScoreSlots> out{};
  for (size_t k = 0; k < kScoreSlots; ++k)
    out[k] = weight[k] > 0 && prescore_keeps(kScorePlugins[k]);
  // Those that read topology domains may skip as their counts say.
  for (size_t k = 0; k < kOverDomainsCount; ++k)
    out[kOverDomainsSlots[k]] = out[kOverDomainsSlots[k]] && !domain.by_column[k].empty();
  return out;
}

}  // namespace tightpack
