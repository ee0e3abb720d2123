#include "tightpack/advice/advice.hpp"

namespace tightpack::advice {

Result<Advice> advise(WhatIfCluster& cluster, const Pod& pod, std::optional<int64_t> replicas,
                      const Profile& profile) {
  if (!cluster.has_pools()) {
    return Error{"pools", "advice needs node pools: none were given or found on the nodes"};
  }
  Advice a;
  a.scheduler_name = profile.scheduler_name;
  a.replicas = replicas;
  const auto templates =
      pools::pool_templates(cluster.snapshot(), *cluster.resolved_pools(), *cluster.pools_config());
  a.intent = pool_intent(pod, templates, cluster.snapshot(), *cluster.resolved_pools());
  auto tiling = tile(templates, cluster.snapshot().objects, profile, pod, {}, &a.intent);
  if (!tiling) return tiling.error();
  a.tiling = std::move(*tiling);
  if (!replicas) return a;

  auto placed = cluster.place(pod, *replicas, profile);
  if (!placed) return placed.error();
  a.as_is = outcome_of(*placed, a.intent);
  for (const PoolTiling& t : a.tiling) {
    if (!t.worth_tiling) continue;
    auto smaller = resized(pod, t.suggestions.front().requests);
    if (!smaller) continue;
    auto again = cluster.place(*smaller, *replicas, profile);
    if (!again) return again.error();
    a.at_first_suggestion.emplace_back(t.pool, outcome_of(*again, a.intent));
  }
  auto fixes =
      find_fixes(FixesInput{cluster, pod, *replicas, profile, *placed, templates, a.intent});
  if (!fixes) return fixes.error();
  a.fixes = std::move(*fixes);
  return a;
}

}  // namespace tightpack::advice
