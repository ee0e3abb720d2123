// Scoring: the plugins' normalised scores of a node and RunScorePlugins'
// weighted sum, shared by decide() and the replica index (simulate.cpp).
#include "tightpack/framework/framework.hpp"
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

namespace {

int64_t normalize(Plugin p, int64_t raw, int64_t max) {
  switch (plugin_info(p).normalization) {
    case Normalization::kDefault:
      return plugins::default_normalize(raw, max, false);
    case Normalization::kDefaultReverse:
      return plugins::default_normalize(raw, max, true);
    case Normalization::kNone:
    case Normalization::kSpread:  // over the feasible nodes at once: domain_scores
    case Normalization::kMinMax:
      break;
  }
  return raw;
}

}  // namespace

PodPlan::Normalizers PodPlan::normalizers(int64_t max_taint, int64_t max_affinity) const {
  Normalizers n;
  // Nodes share few taint sets: one division per set.
  n.taint_by_set.resize(taint_raw_by_set_.size());
  for (size_t t = 0; t < n.taint_by_set.size(); ++t) {
    n.taint_by_set[t] = normalize(Plugin::TaintToleration, taint_raw_by_set_[t], max_taint);
  }
  n.max_affinity = max_affinity;
  return n;
}

bool PodPlan::has_pod_dependent_scores(const ScoreVector& weight) const {
  for (size_t k = 0; k < kScoreSlots; ++k) {
    if (weight[k] && plugin_info(kScorePlugins[k]).score_reads == Reads::kNodePods) return true;
  }
  return false;
}

PodPlan::PodDependentScores PodPlan::pod_dependent_scores(const Cluster& c, NodeIndex n,
                                                          const ScoreVector& weight) const {
  PodDependentScores s;
  if (weight[slot<Plugin::NodeResourcesFit>()]) s.fit = fit_score(c, n);
  if (weight[slot<Plugin::NodeResourcesBalancedAllocation>()]) s.balanced = balanced_score(c, n);
  if (weight[slot<Plugin::TightpackCohort>()]) s.cohort = cohort_score(c, n);
  return s;
}

ScoreVector PodPlan::normalised_scores(const Cluster& c, NodeIndex n, const Normalizers& norm,
                                       const PodDependentScores& pod_dependent,
                                       const DomainScores* domain, size_t j) const {
  static_assert(kScoreSlots == 9, "every modelled score plugin has its normalised score here");
  ScoreVector v{};
  v[slot<Plugin::TaintToleration>()] = norm.taint_by_set[c.taint_set(n)];
  v[slot<Plugin::NodeAffinity>()] =
      normalize(Plugin::NodeAffinity, affinity_raw(n), norm.max_affinity);
  v[slot<Plugin::NodeResourcesFit>()] = pod_dependent.fit;
  v[slot<Plugin::NodeResourcesBalancedAllocation>()] = pod_dependent.balanced;
  v[slot<Plugin::ImageLocality>()] = image_score(n);
  v[slot<Plugin::VolumeBinding>()] = volume_score(n);
  if (domain && !domain->spread.empty()) v[slot<Plugin::PodTopologySpread>()] = domain->spread[j];
  if (domain && !domain->inter_pod.empty())
    v[slot<Plugin::InterPodAffinity>()] = domain->inter_pod[j];
  v[slot<Plugin::TightpackCohort>()] = pod_dependent.cohort;
  return v;
}

PodPlan::DomainScores PodPlan::domain_scores(const Cluster& c,
                                             const std::vector<NodeIndex>& feasible,
                                             const ScoreVector& weight) const {
  DomainScores out;
  if (spread_ && spread_->scores() && weight[slot<Plugin::PodTopologySpread>()]) {
    spread_->sync(c);
    spread_->raw_scores(c, feasible, out.spread);
    plugins::normalize_spread_scores(out.spread);
  }
  if (inter_pod_ && weight[slot<Plugin::InterPodAffinity>()]) {
    inter_pod_->sync(c);
    if (!inter_pod_->score_skipped()) inter_pod_->normalised_scores(feasible, out.inter_pod);
  }
  return out;
}

bool PodPlan::scores_with(Plugin p) const {
  if (profile_->score_weight(p) <= 0) return false;
  if (p == Plugin::PodTopologySpread)
    return spread_ && spread_->scores();  // PreScore skips otherwise
  // As of the last decision (PreScore skips when no term matched).
  if (p == Plugin::InterPodAffinity) return inter_pod_ && !inter_pod_->score_skipped();
  // v1.37 scores every pod (0 without claims); results list it only for
  // pods with claims, where it can be more.
  if (p == Plugin::VolumeBinding) return volume_scores_;
  return true;
}

}  // namespace tightpack
