#include "tightpack/framework.hpp"

#include <algorithm>
#include <map>

#include "tightpack/plugins/balanced_allocation.hpp"
#include "tightpack/plugins/image_locality.hpp"
#include "tightpack/plugins/node_affinity.hpp"
#include "tightpack/plugins/node_ports.hpp"
#include "tightpack/plugins/normalize.hpp"
#include "tightpack/plugins/taint_toleration.hpp"
#include "tightpack/pod_resources.hpp"

namespace tightpack {
namespace {

constexpr const char* kUnschedulableReason = "node(s) were unschedulable";
constexpr const char* kNodeNameReason = "node(s) didn't match the requested node name";

int64_t amount(const ResourceList& list, std::string_view name) {
  const int64_t* v = find_resource(list, name);
  return v ? *v : 0;
}

// Where a scored resource's numbers come from (calculateResourceAllocatableRequest).
struct ResourceColumns {
  enum Kind { kCpu, kMemory, kEphemeral, kScalar, kNone } kind = kNone;
  uint32_t scalar = 0;
};

ResourceColumns columns_for(const Cluster& c, const std::string& name) {
  if (name == "cpu") return {ResourceColumns::kCpu};
  if (name == "memory") return {ResourceColumns::kMemory};
  if (name == "ephemeral-storage") return {ResourceColumns::kEphemeral};
  uint32_t s = c.scalar_index(name);
  if (is_scalar_resource(name) && s != UINT32_MAX) return {ResourceColumns::kScalar, s};
  return {};
}

// Fills (requested incl. the pod, allocatable) for each scored resource.
// `non_zero` picks the NonZeroRequested columns for cpu and memory.
template <class Specs>
void node_pairs(const Cluster& c, NodeIndex n, const Specs& specs, const std::vector<int64_t>& pod_request,
                bool non_zero, int64_t* requested, int64_t* allocatable) {
  for (size_t i = 0; i < specs.size(); ++i) {
    requested[i] = allocatable[i] = 0;
    int64_t pod = pod_request[i];
    ResourceColumns col = columns_for(c, specs[i].name);
    switch (col.kind) {
      case ResourceColumns::kCpu:
        allocatable[i] = c.alloc_cpu()[n];
        requested[i] = (non_zero ? c.nz_cpu()[n] : c.req_cpu()[n]) + pod;
        break;
      case ResourceColumns::kMemory:
        allocatable[i] = c.alloc_memory()[n];
        requested[i] = (non_zero ? c.nz_memory()[n] : c.req_memory()[n]) + pod;
        break;
      case ResourceColumns::kEphemeral:
        allocatable[i] = c.alloc_ephemeral()[n];
        requested[i] = c.req_ephemeral()[n] + pod;
        break;
      case ResourceColumns::kScalar:
        // A scalar resource the pod does not request is left out of the score.
        if (pod == 0 || !c.has_scalar(col.scalar, n)) break;
        allocatable[i] = c.alloc_scalar(col.scalar)[n];
        requested[i] = c.req_scalar(col.scalar)[n] + pod;
        break;
      case ResourceColumns::kNone:
        break;
    }
    if (allocatable[i] == 0) requested[i] = 0;
  }
}

std::string unsupported(const std::string& pod, const std::string& what) {
  return "pod " + pod + ": " + what + " is not supported by tightpack yet; kube-scheduler would consider it";
}

}  // namespace

Result<PodPlan> PodPlan::make(const Cluster& c, const Profile& profile, const Pod& pod) {
  PodPlan plan;
  plan.profile_ = &profile;
  plan.key_ = pod.key();
  auto uses = [&](Plugin p) { return profile.filter_enabled(p) || profile.score_weight(p) > 0; };
  if ((pod.has_pod_affinity || pod.has_pod_anti_affinity) && uses(Plugin::InterPodAffinity)) {
    return Error{"", unsupported(plan.key_, "inter-pod affinity (InterPodAffinity)")};
  }
  if (c.pods_with_pod_affinity() > 0 && uses(Plugin::InterPodAffinity)) {
    return Error{"", unsupported(plan.key_, "inter-pod affinity of bound pods (" +
                                                c.first_pod_with_pod_affinity() + ", InterPodAffinity)")};
  }
  if (pod.has_topology_spread && uses(Plugin::PodTopologySpread)) {
    return Error{"", unsupported(plan.key_, "topologySpreadConstraints (PodTopologySpread)")};
  }
  if (pod.has_claim_volumes && (uses(Plugin::VolumeBinding) || uses(Plugin::VolumeZone) ||
                                uses(Plugin::VolumeRestrictions) || uses(Plugin::NodeVolumeLimits))) {
    return Error{"", unsupported(plan.key_, "persistent or CSI volumes (VolumeBinding)")};
  }
  plan.priority_ = pod.priority;
  plan.preempt_never_ = pod.preempt_never;
  plan.node_name_ = pod.node_name;
  plan.usage_ = c.usage_of(pod);
  plan.fit_request_ = plugins::fit_request(c, plan.usage_, profile.fit);
  plan.tolerations_ = pod.tolerations;
  plan.tolerates_unschedulable_ = plugins::tolerates_unschedulable(pod.tolerations);

  const size_t n = c.size();
  if (profile.filter_enabled(Plugin::NodeAffinity)) {
    auto restriction = plugins::node_name_restriction(pod);
    plan.prefilter_conflict_ = restriction.conflict;
    if (restriction.names) {
      plan.in_set_.assign(n, 0);
      for (const auto& name : *restriction.names) {
        NodeIndex i = c.find(name);
        if (i < n) plan.in_set_[i] = 1;
      }
    }
  }

  // The verdicts of the filters that ignore bound pods, first failure in profile order.
  std::vector<int> taint_by_set(c.taint_set_count(), -2);
  plugins::RequiredNodeAffinity required(pod);
  plan.static_status_.assign(n, NodeStatus{});
  for (NodeIndex i = 0; i < n; ++i) {
    const Node& node = c.node(i);
    for (Plugin p : profile.filters) {
      NodeStatus s;
      if (p == Plugin::NodeUnschedulable) {
        if (node.unschedulable && !plan.tolerates_unschedulable_) s.code = Code::UnschedulableAndUnresolvable;
      } else if (p == Plugin::NodeName) {
        if (!pod.node_name.empty() && pod.node_name != node.name) s.code = Code::UnschedulableAndUnresolvable;
      } else if (p == Plugin::TaintToleration) {
        int& t = taint_by_set[c.taint_set(i)];
        if (t == -2) t = plugins::first_untolerated_taint(c.taints_of_set(c.taint_set(i)), pod.tolerations);
        if (t >= 0) {
          s.code = Code::UnschedulableAndUnresolvable;
          s.taint = static_cast<int16_t>(t);
        }
      } else if (p == Plugin::NodeAffinity) {
        if (!required.trivial() && !required.matches(node)) s.code = Code::UnschedulableAndUnresolvable;
      }
      if (!s.ok()) {
        s.plugin = p;
        plan.static_status_[i] = s;
        break;
      }
    }
  }

  auto prefer = plugins::prefer_no_schedule_tolerations(pod.tolerations);
  plan.taint_raw_by_set_.resize(c.taint_set_count());
  for (uint32_t s = 0; s < c.taint_set_count(); ++s) {
    plan.taint_raw_by_set_[s] = plugins::intolerable_prefer_no_schedule(c.taints_of_set(s), prefer);
  }
  plugins::PreferredNodeAffinity preferred(pod);
  if (!preferred.empty() && profile.score_weight(Plugin::NodeAffinity) > 0) {
    plan.affinity_raw_.resize(n);
    for (NodeIndex i = 0; i < n; ++i) plan.affinity_raw_[i] = preferred.score(c.node(i));
  }
  if (profile.score_weight(Plugin::ImageLocality) > 0) {
    auto images = plugins::pod_images(c, pod);
    plan.image_score_.resize(n);
    for (NodeIndex i = 0; i < n; ++i) plan.image_score_[i] = plugins::image_locality_score(c, i, images);
  }
  ResourceList non_zero = pod_requests(pod, true);
  ResourceList real = pod_requests(pod, false);
  for (const auto& r : profile.fit.resources) plan.fit_pod_request_.push_back(amount(non_zero, r.name));
  plan.balanced_skip_ = true;
  for (const auto& r : profile.balanced_resources) {
    plan.balanced_pod_request_.push_back(amount(real, r.name));
    if (plan.balanced_pod_request_.back() != 0) plan.balanced_skip_ = false;
  }
  return plan;
}

NodeStatus PodPlan::filter(const Cluster& c, NodeIndex n, const Relief* relief) const {
  const NodeStatus& fixed = static_status_[n];
  for (Plugin p : profile_->filters) {
    if (!fixed.ok() && p == fixed.plugin) return fixed;
    if (p == Plugin::NodePorts && !usage_.host_ports.empty()) {
      bool conflict;
      if (relief && !relief->ports.empty()) {
        std::vector<HostPort> used = c.used_ports(n);
        for (const auto& gone : relief->ports) {
          auto it = std::find(used.begin(), used.end(), gone);
          if (it != used.end()) used.erase(it);
        }
        conflict = plugins::ports_conflict(usage_.host_ports, used);
      } else {
        conflict = plugins::ports_conflict(usage_.host_ports, c.used_ports(n));
      }
      if (conflict) return NodeStatus{Code::Unschedulable, Plugin::NodePorts};
    } else if (p == Plugin::NodeResourcesFit) {
      if (!plugins::fits(c, n, fit_request_, relief)) return NodeStatus{Code::Unschedulable, Plugin::NodeResourcesFit};
    }
  }
  return NodeStatus{};
}

std::vector<std::string> PodPlan::reasons(const Cluster& c, NodeIndex n, const NodeStatus& s,
                                          const Relief* relief) const {
  switch (s.plugin) {
    case Plugin::NodeUnschedulable: return {kUnschedulableReason};
    case Plugin::NodeName: return {kNodeNameReason};
    case Plugin::TaintToleration:
      return {plugins::untolerated_taint_reason(c.taints_of_set(c.taint_set(n))[static_cast<size_t>(s.taint)])};
    case Plugin::NodeAffinity:
      return {prefilter_conflict_ ? plugins::kNodeAffinityConflictReason : plugins::kNodeAffinityReason};
    case Plugin::NodePorts: return {plugins::kNodePortsReason};
    case Plugin::NodeResourcesFit: return plugins::fit_reasons(c, n, fit_request_, relief);
    default: return {};
  }
}

int64_t PodPlan::fit_score(const Cluster& c, NodeIndex n) const {
  int64_t requested[16], allocatable[16];
  size_t count = std::min<size_t>(profile_->fit.resources.size(), 16);
  node_pairs(c, n, profile_->fit.resources, fit_pod_request_, true, requested, allocatable);
  return plugins::resource_allocation_score(profile_->fit, requested, allocatable, count);
}

int64_t PodPlan::balanced_score(const Cluster& c, NodeIndex n) const {
  if (balanced_skip_) return 0;
  int64_t requested[16], allocatable[16];
  size_t count = std::min<size_t>(profile_->balanced_resources.size(), 16);
  node_pairs(c, n, profile_->balanced_resources, balanced_pod_request_, false, requested, allocatable);
  return plugins::balanced_allocation_score(requested, allocatable, count);
}

}  // namespace tightpack
