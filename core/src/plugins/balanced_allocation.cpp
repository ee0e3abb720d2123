// NodeResourcesBalancedAllocation's score is inline (hot loop); its PreScore is here.
#include "tightpack/plugins/balanced_allocation.hpp"

#include <algorithm>

#include "tightpack/kube_release.hpp"

namespace tightpack::plugins {

BalancedAllocationPlugin::State BalancedAllocationPlugin::prepare(const PlanContext& ctx) {
  State s;
  const int minor = ctx.profile.kube_minor;
  s.scores_the_change = kube_release::balanced_scores_the_change(minor);
  s.sidecars_summed = kube_release::nonzero_sums_sidecars(minor);
  if (ctx.first_fit) return s;
  s.scored = scored_resources(ctx.cluster, ctx.pod, ctx.profile.balanced_resources, false);
  s.skip = kube_release::balanced_skips_best_effort(minor) &&
           std::all_of(s.scored.pod_request.begin(), s.scored.pod_request.end(),
                       [](int64_t r) { return r == 0; });
  return s;
}

}  // namespace tightpack::plugins
