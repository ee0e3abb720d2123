// PodPlans shared by pods that differ only by name. The replicas of one
// template (a corpus entry with "replicas": N, a user's N Dask workers, the
// pending pods of one ReplicaSet) compile to the same plan on a cluster, and
// compiling is most of what a loop over 1,000 pending pods costs: one plan
// per class instead of one per pod. Private to core.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "tightpack/cluster.hpp"
#include "tightpack/error.hpp"
#include "tightpack/framework/framework.hpp"
#include "tightpack/model.hpp"
#include "tightpack/profile.hpp"

namespace tightpack::autoscaler {

// The class of a pod that shares its plan with no other.
inline constexpr uint32_t kOwnClass = UINT32_MAX;

// Per pod, a class id: pods equal in every field but name, uid and creation
// time get the same id. A plan reads none of those (its key only names the
// pod in errors; placements take the key explicitly).
std::vector<uint32_t> scheduling_classes(const std::vector<const Pod*>& pods);

// The plans of one cluster, one per class.
class Plans {
 public:
  Plans(const Cluster& c, const Profile& profile) : c_(c), profile_(profile) {}

  // The plan for `pod` of class `cls`; for kOwnClass a fresh one, valid
  // until the next such call.
  Result<PlanWithScratch*> get(const Pod& pod, uint32_t cls);

 private:
  const Cluster& c_;
  const Profile& profile_;
  std::unordered_map<uint32_t, PlanWithScratch> by_class_;
  std::optional<PlanWithScratch> own_;
};

// CA's snapshot runs PreFilter and Filter for a pod it places, never Reserve
// (predicate_snapshot.go: SchedulePod and SchedulePodOnAnyNodeMatching run
// Reserve only for a pod with DRA claims, which the engine refuses): the
// placed copy holds its claims, but VolumeBinding assumes nothing, and every
// later simulated pod sees a WaitForFirstConsumer claim still unbound.
BoundPod unreserved(BoundPod pod);

// Whether a pod's verdict on a node can depend on other nodes' pods: its
// spread constraints and inter-pod terms count pods over topology domains,
// and VolumeRestrictions counts every pod that uses a ReadWriteOncePod claim.
// Existing pods' anti-affinity terms are the cluster's (Cluster::affinity_pods).
bool reads_other_nodes(const Pod& pod);

// scheduling.SimilarPodsScheduling (filter-out-schedulable's
// TrySchedulePods): once a pod with a controller found no node, a later pod
// of the same controller with an equal spec and labels is not tried at all
// (its hint still is), though the snapshot may have changed since, as when
// a Dask scheduler its workers need in their zone lands in between. Pods of
// one class are such pods; CA keeps at most 10 specs per controller.
class SimilarPods {
 public:
  bool unschedulable(const Pod& pod, uint32_t cls) const {
    if (!pod.controller || cls == kOwnClass) return false;
    auto it = by_controller_.find(pod.controller->uid);
    return it != by_controller_.end() &&
           std::find(it->second.begin(), it->second.end(), cls) != it->second.end();
  }
  void set_unschedulable(const Pod& pod, uint32_t cls) {
    if (!pod.controller || pod.controller->kind == "DaemonSet" || cls == kOwnClass) return;
    std::vector<uint32_t>& classes = by_controller_[pod.controller->uid];
    if (classes.size() < kMaxPodsPerOwnerRef) classes.push_back(cls);
  }

 private:
  static constexpr size_t kMaxPodsPerOwnerRef = 10;
  std::unordered_map<std::string, std::vector<uint32_t>> by_controller_;
};

// Where nodes only gain pods (filter-out-schedulable, the estimator), a node
// that rejected a pod rejects every later pod of its class: each such no is
// asked once. Pods of no class are asked every time, and so are pods whose
// filters read topology domains: a spread constraint's skew or a required
// affinity term can turn a no into a yes when other nodes gain pods.
class ClassRejections {
 public:
  // Whether `p`, for a pod of class `cls`, passes node `n` of `c`.
  bool fits(uint32_t cls, PlanWithScratch& p, const Cluster& c, NodeIndex n) {
    const PodPlan& plan = p.plan;
    std::vector<uint8_t>* rejected = nullptr;
    if (cls != kOwnClass && !plan.reads_domains(p.scratch, c, ScoreVector{})) {
      rejected = &rejected_[cls];
      if (rejected->size() < c.size()) rejected->resize(c.size(), 0);
      if ((*rejected)[n]) return false;
    }
    if (!plan.prefilter_conflict() && plan.in_prefilter_set(n) && plan.filter(p.scratch, c, n).ok())
      return true;
    if (rejected) (*rejected)[n] = 1;
    return false;
  }

 private:
  std::unordered_map<uint32_t, std::vector<uint8_t>> rejected_;
};

}  // namespace tightpack::autoscaler
