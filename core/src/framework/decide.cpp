#include <algorithm>

#include "tightpack/framework/framework.hpp"

namespace tightpack {

Decision decide(const PodPlan& plan, const Cluster& c, PlanScratch& scratch) {
  Decision d;
  d.pod = plan.key();
  d.num_all_nodes = c.size();
  if (c.size() == 0) {
    d.message = "no nodes available to schedule pods";
    return d;
  }
  const auto n = static_cast<NodeIndex>(c.size());
  if (plan.prefilter_conflict()) {
    d.prefilter_rejected = true;
    for (NodeIndex i = 0; i < n; ++i) {
      d.filtered.push_back(i);
      d.statuses.push_back(plan.prefilter_status());
    }
  } else {
    d.filtered.reserve(n);
    d.statuses.reserve(n);
    d.feasible.reserve(n);
    PlanScratch::Nodes& memo = plan.node_memo(scratch, c);
    const PodPlan::DomainFilters active = plan.active_domain_filters(scratch, c);
    for (NodeIndex i = 0; i < n; ++i) {
      if (!plan.in_prefilter_set(i)) continue;
      if (memo.generation[i] != c.generation(i)) {
        memo.verdict[i] = plan.node_verdict(c, i);
        memo.generation[i] = c.generation(i);
      }
      const NodeStatus s = plan.with_domain_filters(scratch, c, i, memo.verdict[i], active);
      d.filtered.push_back(i);
      d.statuses.push_back(s);
      if (s.ok()) d.feasible.push_back(i);
    }
  }

  if (!d.feasible.empty()) {
    const ScoreVector weight = score_weights(plan.profile());
    FeasibleMax max;
    for (NodeIndex i : d.feasible) max.add(plan.raw_by_max(c, i));
    PlanScratch::Nodes& memo = plan.node_memo(scratch, c);
    const bool pod_dependent = plan.has_pod_dependent_scores(weight);
    const PodPlan::DomainScores domain = plan.domain_scores(scratch, c, d.feasible, weight);
    d.scoring = plan.scoring(weight, domain);
    d.scores.resize(d.feasible.size());
    int64_t best = INT64_MIN;
    for (size_t j = 0; j < d.feasible.size(); ++j) {
      const NodeIndex i = d.feasible[j];
      if (pod_dependent && memo.score_generation[i] != c.generation(i)) {
        memo.scores[i] = plan.pod_dependent_scores(c, i, weight);
        memo.score_generation[i] = c.generation(i);
      }
      const NodePodsScores none{};
      const ScoreVector normalised =
          plan.normalised_scores(c, i, max, pod_dependent ? memo.scores[i] : none, &domain, j);
      if (auto invalid = weigh(normalised, weight, d.scores[j])) {
        d.error = invalid_score_error(*invalid, normalised[score_slot(*invalid)]);
        d.feasible.clear();
        d.scores.clear();
        return d;
      }
      best = std::max(best, d.scores[j].total);
    }
    for (size_t j = 0; j < d.feasible.size(); ++j) {
      if (d.scores[j].total == best) d.top.push_back(d.feasible[j]);
    }
    std::sort(d.top.begin(), d.top.end(),
              [&](NodeIndex a, NodeIndex b) { return c.name(a) < c.name(b); });
    d.chosen = d.top.front();
    return d;
  }
  if (plan.profile().preemption) d.preemption = evaluate_preemption(plan, c, scratch, d);
  d.message = fit_error_message(plan, c, d);
  return d;
}

}  // namespace tightpack
