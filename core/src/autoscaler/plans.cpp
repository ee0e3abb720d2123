#include "plans.hpp"

namespace tightpack::autoscaler {
namespace {

// The pod without what tells replicas apart.
Pod anonymous(const Pod& p) {
  Pod a = p;
  a.name.clear();
  a.uid.clear();
  a.creation_timestamp.clear();
  return a;
}

}  // namespace

std::vector<uint32_t> scheduling_classes(const std::vector<const Pod*>& pods) {
  std::vector<uint32_t> out;
  out.reserve(pods.size());
  std::vector<Pod> representatives;
  for (const Pod* p : pods) {
    Pod a = anonymous(*p);
    uint32_t cls = 0;
    while (cls < representatives.size() && !(representatives[cls] == a)) ++cls;
    if (cls == representatives.size()) representatives.push_back(std::move(a));
    out.push_back(cls);
  }
  return out;
}

BoundPod unreserved(BoundPod pod) {
  if (pod.storage && !pod.storage->delayed_claims.empty()) {
    auto storage = std::make_shared<PodStorage>(*pod.storage);
    storage->delayed_claims.clear();
    pod.storage = std::move(storage);
  }
  return pod;
}

bool reads_other_nodes(const Pod& pod) {
  if (!pod.topology_spread.empty() || !pod.pod_affinity_terms.empty()) return true;
  for (const PodVolume& v : pod.volumes) {
    if (v.source == PodVolume::Source::kClaim || v.source == PodVolume::Source::kEphemeral)
      return true;
  }
  return false;
}

Result<PlanWithScratch*> Plans::get(const Pod& pod, uint32_t cls) {
  if (cls == kOwnClass) {
    auto plan = PodPlan::make(c_, profile_, pod);
    if (!plan) return plan.error();
    own_.emplace(PlanWithScratch{std::move(*plan), {}});
    return &*own_;
  }
  auto it = by_class_.find(cls);
  if (it == by_class_.end()) {
    auto plan = PodPlan::make(c_, profile_, pod);
    if (!plan) return plan.error();
    it = by_class_.emplace(cls, PlanWithScratch{std::move(*plan), {}}).first;
  }
  return &it->second;
}

}  // namespace tightpack::autoscaler
