#include <algorithm>

#include "tightpack/framework.hpp"
#include "tightpack/plugins/normalize.hpp"

namespace tightpack {

Decision decide(const PodPlan& plan, const Cluster& c) {
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
      d.statuses.push_back(NodeStatus{Code::UnschedulableAndUnresolvable, Plugin::NodeAffinity});
    }
  } else {
    d.filtered.reserve(n);
    d.statuses.reserve(n);
    for (NodeIndex i = 0; i < n; ++i) {
      if (!plan.in_prefilter_set(i)) continue;
      NodeStatus s = plan.filter(c, i);
      d.filtered.push_back(i);
      d.statuses.push_back(s);
      if (s.ok()) d.feasible.push_back(i);
    }
  }

  if (!d.feasible.empty()) {
    const Profile& profile = plan.profile();
    std::array<int64_t, kScorePlugins.size()> weight{};
    for (size_t k = 0; k < kScorePlugins.size(); ++k) weight[k] = profile.score_weight(kScorePlugins[k]);
    int64_t max_taint = 0, max_affinity = 0;
    for (NodeIndex i : d.feasible) {
      max_taint = std::max(max_taint, plan.taint_raw(c, i));
      max_affinity = std::max(max_affinity, plan.affinity_raw(i));
    }
    d.scores.reserve(d.feasible.size());
    int64_t best = INT64_MIN;
    for (NodeIndex i : d.feasible) {
      ScoreRow row;
      std::array<int64_t, kScorePlugins.size()> raw{
          weight[0] ? plugins::default_normalize(plan.taint_raw(c, i), max_taint, true) : 0,
          weight[1] ? plugins::default_normalize(plan.affinity_raw(i), max_affinity, false) : 0,
          weight[2] ? plan.fit_score(c, i) : 0,
          weight[3] ? plan.balanced_score(c, i) : 0,
          weight[4] ? plan.image_score(i) : 0,
      };
      for (size_t k = 0; k < raw.size(); ++k) {
        row.weighted[k] = raw[k] * weight[k];
        row.total += row.weighted[k];
      }
      best = std::max(best, row.total);
      d.scores.push_back(row);
    }
    for (size_t j = 0; j < d.feasible.size(); ++j) {
      if (d.scores[j].total == best) d.top.push_back(d.feasible[j]);
    }
    std::sort(d.top.begin(), d.top.end(), [&](NodeIndex a, NodeIndex b) { return c.name(a) < c.name(b); });
    d.chosen = d.top.front();
    return d;
  }
  if (plan.profile().preemption) d.preemption = evaluate_preemption(plan, c, d);
  d.message = fit_error_message(plan, c, d);
  return d;
}

}  // namespace tightpack
