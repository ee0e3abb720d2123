#include "tightpack/simulate.hpp"

#include <algorithm>
#include <set>

#include "spread_replica_index.hpp"

namespace tightpack {
namespace {

class ReplicaIndex {
 public:
  ReplicaIndex(const PodPlan& plan, PlanScratch& scratch, const Cluster& c)
      : plan_(plan), scratch_(scratch), c_(c), ranks_(c) {
    const size_t n = c.size();
    weight_ = score_weights(plan.profile());
    pod_dependent_ = plan.has_pod_dependent_scores(weight_);
    feasible_.assign(n, 0);
    total_.assign(n, 0);
    for (NodeIndex i = 0; i < n; ++i) {
      if (plan.in_prefilter_set(i) && !plan.prefilter_conflict() && plan.filter(scratch, c, i).ok())
        feasible_[i] = 1;
    }
    rebuild();
  }

  bool empty() const { return order_.empty(); }
  bool saw_invalid_score() const { return invalid_; }
  NodeIndex best() const { return ranks_.node[order_.begin()->second]; }
  size_t tied() const {
    size_t t = 0;
    for (auto it = order_.begin(); it != order_.end() && it->first == order_.begin()->first; ++it)
      ++t;
    return t;
  }

  // The node just received a replica.
  void update(NodeIndex n) {
    order_.erase({-total_[n], ranks_.rank[n]});
    if (!plan_.filter(scratch_, c_, n).ok()) {
      feasible_[n] = 0;
      // The normalised scores move only when the maximum over feasible nodes does.
      if (by_max_.remove(plan_.raw_by_max(c_, n))) rebuild();
      return;
    }
    total_[n] = total_of(n);
    order_.insert({-total_[n], ranks_.rank[n]});
  }

 private:
  // A score outside [0, 100] makes kube-scheduler fail the pod with an error;
  // decide() reports it, so the index only notes that it saw one.
  int64_t total_of(NodeIndex n) {
    const NodePodsScores none{};
    const ScoreVector normalised = plan_.normalised_scores(
        c_, n, max_, pod_dependent_ ? plan_.pod_dependent_scores(c_, n, weight_) : none);
    ScoreRow row;
    if (weigh(normalised, weight_, row)) invalid_ = true;
    return row.total;
  }

  void rebuild() {
    by_max_.clear();
    for (NodeIndex i = 0; i < c_.size(); ++i) {
      if (feasible_[i]) by_max_.add(plan_.raw_by_max(c_, i));
    }
    max_ = by_max_.max();
    order_.clear();
    for (NodeIndex i = 0; i < c_.size(); ++i) {
      if (!feasible_[i]) continue;
      total_[i] = total_of(i);
      order_.insert({-total_[i], ranks_.rank[i]});
    }
  }

  const PodPlan& plan_;
  PlanScratch& scratch_;
  const Cluster& c_;
  const NameRanks ranks_;
  ScoreVector weight_{};
  bool pod_dependent_ = false;
  std::vector<uint8_t> feasible_;
  std::vector<int64_t> total_;
  FeasibleMaxHistogram by_max_;
  FeasibleMax max_;
  std::set<std::pair<int64_t, uint32_t>> order_;  // (-total, name rank)
  bool invalid_ = false;
};

}  // namespace

namespace {

// Places the replicas with an index (ReplicaIndex or SpreadReplicaIndex):
// each further replica is an update of the node that received the last one.
template <class Index>
SimulationResult place_with(Index& index, Cluster& cluster, const PodPlan& plan,
                            PlanScratch& scratch, const Pod& pod, int64_t replicas) {
  SimulationResult result;
  result.replicas.reserve(static_cast<size_t>(std::max<int64_t>(replicas, 0)));
  for (int64_t r = 0; r < replicas; ++r) {
    ReplicaPlacement placement;
    placement.pod = pod.ns + "/" + pod.name + "-" + std::to_string(r);
    if (index.empty() || index.saw_invalid_score()) {
      // Nothing changes once a replica fails, so the first failure speaks for all.
      if (result.unschedulable_message.empty()) {
        Decision d = decide(plan, cluster, scratch);
        result.unschedulable_message = d.error.empty() ? d.message : d.error;
        result.preemption = d.preemption;
      }
      result.replicas.push_back(std::move(placement));
      continue;
    }
    NodeIndex n = index.best();
    placement.node = n;
    placement.tied = index.tied();
    cluster.place(n, plan.bound(placement.pod));
    index.update(n);
    result.replicas.push_back(std::move(placement));
  }
  return result;
}

}  // namespace

Result<SimulationResult> simulate_replicas(Cluster& cluster, const Profile& profile, const Pod& pod,
                                           int64_t replicas) {
  auto plan = PodPlan::make(cluster, profile, pod);
  if (!plan) return plan.error();
  PlanScratch scratch;
  const ScoreVector weight = score_weights(profile);
  const bool reads_domains = plan->reads_domains(scratch, cluster, weight);
  if (reads_domains && SpreadReplicaIndex::applies(*plan, scratch, cluster, weight)) {
    SpreadReplicaIndex index(*plan, scratch, cluster);
    return place_with(index, cluster, *plan, scratch, pod, replicas);
  }
  if (reads_domains || plan->assumes_volumes()) {
    // A placement moves the counts of every node in its topology domains, so
    // each replica is decided afresh (the scratch's per-node memos still spare
    // the nodes whose pods did not change); one that makes VolumeBinding
    // assume a claim changes what the next replica's plan reads.
    SimulationResult result;
    result.replicas.reserve(static_cast<size_t>(std::max<int64_t>(replicas, 0)));
    for (int64_t r = 0; r < replicas; ++r) {
      ReplicaPlacement placement;
      placement.pod = pod.ns + "/" + pod.name + "-" + std::to_string(r);
      if (result.unschedulable_message.empty()) {
        if (r > 0 && plan->assumes_volumes()) {
          plan = PodPlan::make(cluster, profile, pod);
          if (!plan) return plan.error();
        }
        Decision d = decide(*plan, cluster, scratch);
        if (d.chosen) {
          placement.node = *d.chosen;
          placement.tied = d.top.size();
          cluster.place(*d.chosen, plan->bound(placement.pod));
        } else {
          result.unschedulable_message = d.error.empty() ? d.message : d.error;
          result.preemption = d.preemption;
        }
      }
      result.replicas.push_back(std::move(placement));
    }
    return result;
  }
  ReplicaIndex index(*plan, scratch, cluster);
  return place_with(index, cluster, *plan, scratch, pod, replicas);
}

}  // namespace tightpack
