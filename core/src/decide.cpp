#include <algorithm>

#include "tightpack/framework.hpp"
#include "tightpack/plugins/normalize.hpp"

namespace tightpack {

std::string invalid_score_error(Plugin plugin, int64_t score) {
  return std::string("plugin \"") + plugin_name(plugin) + "\" returns an invalid score " + std::to_string(score) +
         ", it should in the range of [0, 100] after normalizing";
}

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
    d.feasible.reserve(n);
    PodPlan::Cache& cache = plan.cache_for(c);
    for (NodeIndex i = 0; i < n; ++i) {
      if (!plan.in_prefilter_set(i)) continue;
      if (cache.generation[i] != c.generation(i)) {
        cache.status[i] = plan.filter(c, i);
        cache.generation[i] = c.generation(i);
      }
      const NodeStatus s = cache.status[i];
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
    // Normalised scores depend on the raw value only, and nodes share few raw
    // values: one division per distinct value.
    std::vector<int64_t> taint_norm(plan.taint_raw_by_set_.size());
    for (size_t t = 0; t < taint_norm.size(); ++t) {
      taint_norm[t] = plugins::default_normalize(plan.taint_raw_by_set_[t], max_taint, true);
    }
    int64_t last_affinity_raw = -1, last_affinity_norm = 0;
    PodPlan::Cache& cache = plan.cache_for(c);
    const bool dynamic_scores = weight[2] != 0 || weight[3] != 0 || weight[5] != 0;
    d.scores.resize(d.feasible.size());
    int64_t best = INT64_MIN;
    for (size_t j = 0; j < d.feasible.size(); ++j) {
      const NodeIndex i = d.feasible[j];
      if (dynamic_scores && cache.score_generation[i] != c.generation(i)) {
        cache.fit[i] = weight[2] ? plan.fit_score(c, i) : 0;
        cache.balanced[i] = weight[3] ? plan.balanced_score(c, i) : 0;
        cache.cohort[i] = weight[5] ? plan.cohort_score(c, i) : 0;
        cache.score_generation[i] = c.generation(i);
      }
      int64_t affinity = 0;
      if (weight[1]) {
        int64_t raw = plan.affinity_raw(i);
        if (raw != last_affinity_raw) {
          last_affinity_raw = raw;
          last_affinity_norm = plugins::default_normalize(raw, max_affinity, false);
        }
        affinity = last_affinity_norm;
      }
      const std::array<int64_t, kScorePlugins.size()> normalised{
          taint_norm[c.taint_set(i)], affinity, dynamic_scores ? cache.fit[i] : 0,
          dynamic_scores ? cache.balanced[i] : 0, plan.image_score(i),
          dynamic_scores ? cache.cohort[i] : 0};
      ScoreRow& row = d.scores[j];
      row.total = 0;
      for (size_t k = 0; k < normalised.size(); ++k) {
        if (weight[k] && (normalised[k] < 0 || normalised[k] > plugins::kMaxNodeScore)) {
          d.error = invalid_score_error(kScorePlugins[k], normalised[k]);
          d.feasible.clear();
          d.scores.clear();
          return d;
        }
        row.weighted[k] = normalised[k] * weight[k];
        row.total += row.weighted[k];
      }
      best = std::max(best, row.total);
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
