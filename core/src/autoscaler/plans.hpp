// PodPlans shared by pods that differ only by name. The replicas of one
// template (a corpus entry with "replicas": N, a user's N Dask workers, the
// pending pods of one ReplicaSet) compile to the same plan on a cluster, and
// compiling is most of what a loop over 1,000 pending pods costs: one plan
// per class instead of one per pod. Private to core.
#pragma once

#include <cstdint>
#include <optional>
#include <unordered_map>
#include <vector>

#include "tightpack/cluster.hpp"
#include "tightpack/error.hpp"
#include "tightpack/framework.hpp"
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
  Result<const PodPlan*> get(const Pod& pod, uint32_t cls);

 private:
  const Cluster& c_;
  const Profile& profile_;
  std::unordered_map<uint32_t, PodPlan> by_class_;
  std::optional<PodPlan> own_;
};

// Where nodes only gain pods (filter-out-schedulable, the estimator), a node
// that rejected a pod rejects every later pod of its class: each such no is
// asked once. Pods of no class are asked every time.
class ClassRejections {
 public:
  // Whether `plan`, for a pod of class `cls`, passes node `n` of `c`.
  bool fits(uint32_t cls, const PodPlan& plan, const Cluster& c, NodeIndex n) {
    std::vector<uint8_t>* rejected = nullptr;
    if (cls != kOwnClass) {
      rejected = &rejected_[cls];
      if (rejected->size() < c.size()) rejected->resize(c.size(), 0);
      if ((*rejected)[n]) return false;
    }
    if (!plan.prefilter_conflict() && plan.in_prefilter_set(n) && plan.filter(c, n).ok()) return true;
    if (rejected) (*rejected)[n] = 1;
    return false;
  }

 private:
  std::unordered_map<uint32_t, std::vector<uint8_t>> rejected_;
};

}  // namespace tightpack::autoscaler
