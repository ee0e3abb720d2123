#include "tightpack/framework.hpp"

#include <algorithm>
#include <unordered_map>

#include "tightpack/go_int.hpp"
#include "tightpack/plugins/balanced_allocation.hpp"
#include "tightpack/plugins/image_locality.hpp"
#include "tightpack/plugins/inter_pod_affinity.hpp"
#include "tightpack/plugins/node_affinity.hpp"
#include "tightpack/plugins/node_name.hpp"
#include "tightpack/plugins/node_ports.hpp"
#include "tightpack/plugins/node_unschedulable.hpp"
#include "tightpack/plugins/taint_toleration.hpp"
#include "tightpack/pod_resources.hpp"

namespace tightpack {
namespace {

int64_t amount(const ResourceList& list, std::string_view name) {
  const int64_t* v = find_resource(list, name);
  return v ? *v : 0;
}

PodPlan::ResourceColumns columns_for(const Cluster& c, const std::string& name) {
  using RC = PodPlan::ResourceColumns;
  if (name == "cpu") return {RC::kCpu};
  if (name == "memory") return {RC::kMemory};
  if (name == "ephemeral-storage") return {RC::kEphemeral};
  uint32_t s = c.scalar_index(name);
  if (is_scalar_resource(name) && s != UINT32_MAX) return {RC::kScalar, s};
  return {};
}

// Calls compute(n) once per distinct combination of the values of `keys`
// (nodes of a pool share them) and fills the result for every node; when the
// verdict also depends on the node's name, or on many keys, once per node.
template <class Compute>
std::vector<int64_t> per_node_by_labels(const Cluster& c, std::vector<std::string> keys, bool uses_name,
                                        Compute&& compute) {
  std::sort(keys.begin(), keys.end());
  keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
  std::vector<int64_t> out(c.size());
  if (uses_name || keys.size() > 2) {
    for (NodeIndex i = 0; i < c.size(); ++i) out[i] = compute(i);
    return out;
  }
  const std::vector<StrId>* first = keys.size() > 0 ? c.label_column(keys[0]) : nullptr;
  const std::vector<StrId>* second = keys.size() > 1 ? c.label_column(keys[1]) : nullptr;
  std::unordered_map<uint64_t, int64_t> memo;
  for (NodeIndex i = 0; i < c.size(); ++i) {
    uint64_t key = (first ? (*first)[i] : kNoStr) | (uint64_t{second ? (*second)[i] : kNoStr} << 32);
    auto [it, fresh] = memo.try_emplace(key, 0);
    if (fresh) it->second = compute(i);
    out[i] = it->second;
  }
  return out;
}

std::string unsupported(const std::string& pod, const std::string& what) {
  return "pod " + pod + ": " + what + " is not supported by tightpack yet; kube-scheduler would consider it";
}

}  // namespace

Result<PodPlan> PodPlan::make(const Cluster& c, const Profile& profile, const Pod& pod, Use use) {
  PodPlan plan;
  plan.profile_ = &profile;
  plan.key_ = pod.key();
  auto uses = [&](Plugin p) { return profile.filter_enabled(p) || profile.score_weight(p) > 0; };
  if ((pod.has_pod_affinity || pod.has_pod_anti_affinity) && uses(Plugin::InterPodAffinity)) {
    return Error{"", unsupported(plan.key_, "inter-pod affinity (InterPodAffinity)")};
  }
  if (uses(Plugin::InterPodAffinity)) {
    // Bound pods' terms matter only if one of them can select this pod.
    for (const auto& holder : c.pods_with_pod_affinity()) {
      for (const auto& term : holder.terms) {
        if (plugins::term_may_select(term, holder.ns, pod)) {
          return Error{"", unsupported(plan.key_, std::string(term.anti ? "anti-affinity" : "affinity") +
                                                      " of bound pod " + holder.key +
                                                      " selecting it (InterPodAffinity)")};
        }
      }
    }
  }
  if (pod.has_claim_volumes && (uses(Plugin::VolumeBinding) || uses(Plugin::VolumeZone) ||
                                uses(Plugin::VolumeRestrictions) || uses(Plugin::NodeVolumeLimits))) {
    return Error{"", unsupported(plan.key_, "persistent or CSI volumes (VolumeBinding)")};
  }
  if (profile.filters.size() >= kNoStaticFailure) return Error{"", "too many filter plugins"};
  plan.priority_ = pod.priority;
  plan.preempt_never_ = pod.preempt_never;
  plan.usage_ = c.usage_of(pod);
  plan.fit_request_ = plugins::fit_request(c, plan.usage_, profile.fit);

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

  // Verdicts of the filters that ignore bound pods, first failure in profile order.
  const bool tolerates_unschedulable = plugins::tolerates_unschedulable(pod.tolerations);
  plan.taint_by_set_.assign(c.taint_set_count(), -2);
  plan.node_name_ = pod.node_name;
  plan.tolerations_ = pod.tolerations;
  plugins::RequiredNodeAffinity required(pod);
  required.bind(c);
  plan.meta_ = std::make_shared<const PodMeta>(PodMeta{pod.ns, pod.labels, false});
  if (uses(Plugin::PodTopologySpread)) {
    auto hard = profile.filter_enabled(Plugin::PodTopologySpread)
                    ? plugins::spread_constraints(pod, profile.spread, c.objects(), true)
                    : std::vector<plugins::SpreadConstraint>{};
    auto soft = profile.score_weight(Plugin::PodTopologySpread) > 0
                    ? plugins::spread_constraints(pod, profile.spread, c.objects(), false)
                    : std::vector<plugins::SpreadConstraint>{};
    if (!hard.empty() || !soft.empty()) {
      // Only the system defaults score nodes without every topology key.
      const bool require_all = !pod.topology_spread.empty() || !profile.spread.system_defaulting;
      plan.spread_.emplace(c, pod, std::move(hard), std::move(soft), require_all,
                           [&](NodeIndex i) { return required.matches(c, i); });
      for (size_t pos = 0; pos < profile.filters.size(); ++pos) {
        if (profile.filters[pos] == Plugin::PodTopologySpread && plan.spread_->filters()) {
          plan.spread_position_ = static_cast<uint8_t>(pos);
        }
      }
    }
  }
  for (size_t pos = 0; pos < profile.filters.size(); ++pos) {
    Plugin p = profile.filters[pos];
    const PluginInfo& info = plugin_info(p);
    const bool skipped = p == Plugin::NodePorts && plan.usage_.host_ports.empty();  // its PreFilter skips
    if (info.modelled && info.filter_reads == Reads::kNodePods && !skipped) {
      plan.dynamic_filters_.emplace_back(static_cast<uint8_t>(pos), p);
    }
  }
  // Only the static filters that can reject some node for this pod, in order.
  // A first-fit plan does not look for cordoned nodes first: NodeUnschedulable
  // rejects none when there is none.
  bool any_cordoned = use == Use::kFirstFit;
  for (NodeIndex i = 0; i < n && !any_cordoned; ++i) any_cordoned = c.node(i).unschedulable;
  for (size_t pos = 0; pos < profile.filters.size(); ++pos) {
    Plugin p = profile.filters[pos];
    bool can_reject = (p == Plugin::NodeUnschedulable && any_cordoned && !tolerates_unschedulable) ||
                      (p == Plugin::NodeName && !pod.node_name.empty()) || p == Plugin::TaintToleration ||
                      (p == Plugin::NodeAffinity && !required.trivial());
    if (can_reject) plan.static_filters_.emplace_back(static_cast<uint8_t>(pos), p);
  }
  plan.first_fit_ = use == Use::kFirstFit;
  if (plan.first_fit_) {
    if (!required.trivial()) plan.required_ = std::move(required);
  } else {
    std::vector<int64_t> affinity_match;
    if (!required.trivial()) {
      std::vector<std::string> keys;
      required.collect_keys(keys);
      affinity_match = per_node_by_labels(c, keys, required.uses_fields(),
                                          [&](NodeIndex i) { return int64_t{required.matches(c, i)}; });
    }
    plan.static_position_.resize(n);
    plan.static_status_.resize(n);
    for (NodeIndex i = 0; i < n; ++i) {
      const StaticVerdict v = plan.judge(c, i, affinity_match.empty() || affinity_match[i]);
      plan.static_position_[i] = v.position;
      plan.static_status_[i] = v.status;
    }
  }

  // Scores that ignore bound pods.
  auto prefer = plugins::prefer_no_schedule_tolerations(pod.tolerations);
  plan.taint_raw_by_set_.resize(c.taint_set_count());
  for (uint32_t s = 0; s < c.taint_set_count(); ++s) {
    plan.taint_raw_by_set_[s] = plugins::intolerable_prefer_no_schedule(c.taints_of_set(s), prefer);
  }
  plugins::PreferredNodeAffinity preferred(pod);
  if (preferred.first_invalid_term() >= 0 && profile.score_weight(Plugin::NodeAffinity) > 0) {
    return Error{"spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[" +
                     std::to_string(preferred.first_invalid_term()) + "]",
                 "pod " + plan.key_ + ": the preferred node affinity term does not parse, so kube-scheduler "
                                      "fails to schedule the pod (NodeAffinity PreScore)"};
  }
  if (!plan.first_fit_ && !preferred.empty() && profile.score_weight(Plugin::NodeAffinity) > 0) {
    preferred.bind(c);
    std::vector<std::string> keys;
    preferred.collect_keys(keys);
    plan.affinity_raw_ = per_node_by_labels(c, keys, preferred.uses_fields(),
                                            [&](NodeIndex i) { return preferred.score(c, i); });
  }
  if (!plan.first_fit_ && profile.score_weight(Plugin::ImageLocality) > 0) {
    auto images = plugins::pod_images(c, pod);
    const size_t threshold_images = plugins::threshold_image_count(pod, profile.kube_minor);
    std::vector<int64_t> by_set(c.image_set_count(), -1);
    plan.image_score_.resize(n);
    for (NodeIndex i = 0; i < n; ++i) {
      int64_t& score = by_set[c.image_set(i)];
      if (score < 0) score = plugins::image_locality_score(c, i, images, threshold_images);
      plan.image_score_[i] = score;
    }
  }
  plan.cohort_ = plugins::cohort_of(pod);
  if (plan.first_fit_) return plan;  // what follows serves the scores
  ResourceList non_zero = pod_requests(pod, true);
  ResourceList real = pod_requests(pod, false);
  for (const auto& r : profile.fit.resources) {
    plan.fit_columns_.push_back(columns_for(c, r.name));
    plan.fit_pod_request_.push_back(amount(non_zero, r.name));
  }
  plan.balanced_skip_ = true;
  for (const auto& r : profile.balanced_resources) {
    plan.balanced_columns_.push_back(columns_for(c, r.name));
    plan.balanced_pod_request_.push_back(amount(real, r.name));
    // Best-effort pods skip BalancedAllocation (PreScore returns Skip).
    if (plan.balanced_pod_request_.back() != 0) plan.balanced_skip_ = false;
  }
  return plan;
}

PodPlan::StaticVerdict PodPlan::judge(const Cluster& c, NodeIndex i, bool affinity_ok) const {
  for (const auto& [pos, plugin] : static_filters_) {
    NodeStatus s;
    switch (plugin) {
      case Plugin::NodeUnschedulable:
        // Listed only for pods that do not tolerate cordoned nodes.
        if (!plugins::unschedulable_admits(c.node(i), false)) s.code = Code::UnschedulableAndUnresolvable;
        break;
      case Plugin::NodeName:
        if (!plugins::node_name_admits(node_name_, c.name(i))) s.code = Code::UnschedulableAndUnresolvable;
        break;
      case Plugin::TaintToleration: {
        int& t = taint_by_set_[c.taint_set(i)];
        if (t == -2) t = plugins::first_untolerated_taint(c.taints_of_set(c.taint_set(i)), tolerations_);
        if (t >= 0) {
          s.code = Code::UnschedulableAndUnresolvable;
          s.taint = static_cast<int16_t>(t);
        }
        break;
      }
      default:  // NodeAffinity
        if (!affinity_ok) s.code = Code::UnschedulableAndUnresolvable;
        break;
    }
    if (!s.ok()) {
      s.plugin = plugin;
      return StaticVerdict{pos, s};
    }
  }
  return StaticVerdict{};
}

PodPlan::Verdict PodPlan::node_verdict(const Cluster& c, NodeIndex n, const Relief* relief) const {
  const StaticVerdict verdict = first_fit_ ? judge(c, n, !required_ || required_->matches(c, n))
                                           : StaticVerdict{static_position_[n], static_status_[n]};
  const uint8_t static_position = verdict.position;
  for (const auto& [position, plugin] : dynamic_filters_) {
    if (position > static_position) break;
    if (plugin == Plugin::NodeResourcesFit) {
      if (relief) {  // a preemption dry run asks only whether the pod fits
        if (!plugins::fits(c, n, fit_request_, relief)) return {position, NodeStatus{Code::Unschedulable, plugin}};
        continue;
      }
      switch (plugins::fit_verdict(c, n, fit_request_)) {
        case plugins::FitVerdict::kFits: continue;
        case plugins::FitVerdict::kInsufficient: return {position, NodeStatus{Code::Unschedulable, plugin}};
        case plugins::FitVerdict::kUnresolvable:
          return {position, NodeStatus{Code::UnschedulableAndUnresolvable, plugin}};
      }
      continue;
    }
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
    if (conflict) return {position, NodeStatus{Code::Unschedulable, plugin}};
  }
  return {verdict.position, verdict.status};
}

NodeStatus PodPlan::with_domain_filters(const Cluster& c, NodeIndex n, const Verdict& v, const Relief* relief) const {
  if (spread_position_ < v.position) {
    spread_->sync(c);
    uint8_t detail = 0;
    if (!spread_->admits(c, n, relief, detail)) {
      NodeStatus s{detail == plugins::kSpreadMissingLabel ? Code::UnschedulableAndUnresolvable : Code::Unschedulable,
                   Plugin::PodTopologySpread};
      s.detail = detail;
      return s;
    }
  }
  return v.status;
}

NodeStatus PodPlan::filter(const Cluster& c, NodeIndex n, const Relief* relief) const {
  return with_domain_filters(c, n, node_verdict(c, n, relief), relief);
}

bool PodPlan::reads_domains(const ScoreVector& weight) const {
  return spread_ && (spread_->filters() || (spread_->scores() && weight[slot<Plugin::PodTopologySpread>()]));
}

std::vector<std::string> PodPlan::reasons(const Cluster& c, NodeIndex n, const NodeStatus& s,
                                          const Relief* relief) const {
  switch (s.plugin) {
    case Plugin::NodeUnschedulable: return {plugins::kUnschedulableReason};
    case Plugin::NodeName: return {plugins::kNodeNameReason};
    case Plugin::TaintToleration: return {plugins::kUntoleratedTaintReason};
    case Plugin::NodeAffinity:
      return {prefilter_conflict_ ? plugins::kNodeAffinityConflictReason : plugins::kNodeAffinityReason};
    case Plugin::NodePorts: return {plugins::kNodePortsReason};
    case Plugin::NodeResourcesFit: return plugins::fit_reasons(c, n, fit_request_, relief);
    case Plugin::PodTopologySpread:
      return {s.detail == plugins::kSpreadMissingLabel ? plugins::kSpreadMissingLabelReason : plugins::kSpreadReason};
    default: return {};
  }
}

PodPlan::Cache& PodPlan::cache_for(const Cluster& c) const {
  if (cache_.instance != c.instance() || cache_.generation.size() != c.size()) {
    cache_.instance = c.instance();
    cache_.generation.assign(c.size(), UINT32_MAX);
    cache_.verdict.assign(c.size(), Verdict{});
    cache_.score_generation.assign(c.size(), UINT32_MAX);
    cache_.scores.assign(c.size(), PodDependentScores{});
  }
  return cache_;
}

}  // namespace tightpack
