#include "tightpack/framework/framework.hpp"

#include <algorithm>
#include <set>

#include "tightpack/framework/per_node.hpp"
#include "tightpack/go_int.hpp"
#include "tightpack/kube_release.hpp"
#include "tightpack/plugins/inter_pod_affinity.hpp"
#include "tightpack/plugins/node_affinity.hpp"
#include "tightpack/plugins/node_volume_limits.hpp"
#include "tightpack/plugins/volume_binding.hpp"
#include "tightpack/plugins/volume_restrictions.hpp"
#include "tightpack/plugins/volume_zone.hpp"

namespace tightpack {
namespace {

std::string unsupported(const std::string& pod, const std::string& what) {
  return "pod " + pod + ": " + what +
         " is not supported by tightpack yet; kube-scheduler would consider it";
}

}  // namespace

// Longer than .clang-tidy allows: every plugin's per-pod state, in PreFilter's order.
// NOLINTNEXTLINE(readability-function-size)
Result<PodPlan> PodPlan::make(const Cluster& c, const Profile& profile, const Pod& pod, Use use) {
  PodPlan plan;
  plan.profile_ = &profile;
  plan.key_ = pod.key();
  auto uses = [&](Plugin p) { return profile.filter_enabled(p) || profile.score_weight(p) > 0; };
  if (pod.resource_claims && profile.dra_post_filter) {  // DynamicResources is enabled
    return Error{"", unsupported(plan.key_, "resource claims (DynamicResources)")};
  }
  plan.affinity_terms_ = plugins::affinity_terms(pod);
  if (uses(Plugin::InterPodAffinity) && !c.objects().namespaces_listed &&
      ((plan.affinity_terms_ && plugins::reads_namespace_labels(*plan.affinity_terms_)) ||
       c.namespace_label_readers() > 0)) {
    return Error{
        "", unsupported(plan.key_,
                        "an inter-pod affinity term's namespaceSelector on namespace labels when "
                        "the cluster's namespaces are not given (InterPodAffinity)")};
  }
  if (auto refused = plan.plan_volumes(c, profile, pod))
    return Error{"", unsupported(plan.key_, *refused)};
  if (profile.filters.size() >= kNoStaticFailure) return Error{"", "too many filter plugins"};
  plan.priority_ = pod.priority;
  plan.preempt_never_ = pod.preempt_never;
  plan.usage_ = c.usage_of(pod);

  const size_t n = c.size();
  plugins::RequiredNodeAffinity required(pod);
  required.bind(c);
  const PlanContext ctx{c, profile, pod, plan.usage_, use == Use::kFirstFit, required};
  if (auto failed = plan.prepare_plugins(ctx)) return *failed;

  // The PreFilters that restrict nodes, merged as RunPreFilterPlugins merges
  // their results.
  std::optional<std::set<std::string>> names;
  std::set<std::string> restricting;  // sorted, as sets.List prints them
  CycleState::for_each([&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (requires(const typename T::State& st) { T::prefilter_nodes(st, 0); }) {
      PreFilterNodes r =
          T::prefilter_nodes(plan.states_.template get<T::kId>(), profile.kube_minor);
      if (r.conflict) {
        plan.prefilter_conflict_ = true;
        return;
      }
      if (!r.names) return;
      restricting.insert(plugin_name(T::kId));
      if (names) {
        std::set<std::string> both;
        std::set_intersection(names->begin(), names->end(), r.names->begin(), r.names->end(),
                              std::inserter(both, both.begin()));
        names = std::move(both);
      } else {
        names = std::move(r.names);
      }
    }
  });
  if (names && !plan.prefilter_conflict_) {
    // The texts only a restriction needs (most pods have none).
    std::string listed;
    for (const auto& p : restricting) listed += (listed.empty() ? "" : " ") + p;
    plan.absent_reason_ = "node(s) didn't satisfy plugin(s) [" + listed + "]";
    if (names->empty()) {
      plan.merged_conflict_ = restricting.size() == 1 ? "node(s) didn't satisfy plugin " + listed
                                                      : plan.absent_reason_ + " simultaneously";
      plan.prefilter_conflict_ = true;
    }
  }
  if (names && !plan.prefilter_conflict_) {
    plan.in_set_.assign(n, 0);
    for (const auto& name : *names) {
      NodeIndex i = c.find(name);
      if (i < n) plan.in_set_[i] = 1;
    }
  }

  // Verdicts of the filters that ignore bound pods, first failure in profile order.
  plan.meta_ = std::make_shared<const PodMeta>(PodMeta{pod.ns, pod.labels, false});
  if (uses(Plugin::InterPodAffinity)) {
    plan.inter_pod_.emplace(c, pod, plan.affinity_terms_, profile.inter_pod_affinity,
                            profile.filter_enabled(Plugin::InterPodAffinity),
                            profile.score_weight(Plugin::InterPodAffinity) > 0, profile.kube_minor);
    for (size_t pos = 0; pos < profile.filters.size(); ++pos) {
      if (profile.filters[pos] == Plugin::InterPodAffinity)
        plan.inter_pod_position_ = static_cast<uint8_t>(pos);
    }
  }
  if (uses(Plugin::PodTopologySpread)) {
    auto hard =
        profile.filter_enabled(Plugin::PodTopologySpread)
            ? plugins::spread_constraints(pod, profile.spread, c.objects(), c.owners(), true)
            : std::vector<plugins::SpreadConstraint>{};
    auto soft =
        profile.score_weight(Plugin::PodTopologySpread) > 0
            ? plugins::spread_constraints(pod, profile.spread, c.objects(), c.owners(), false)
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
  // Only the filters that can reject some node for this pod, in order: those
  // that read the node's pods, and those that read the node alone.
  for (size_t pos = 0; pos < profile.filters.size(); ++pos) {
    const Plugin p = profile.filters[pos];
    const PluginInfo& info = plugin_info(p);
    if (p == Plugin::VolumeRestrictions && !plan.read_write_once_pod_.empty()) {
      plan.restrictions_position_ = static_cast<uint8_t>(pos);
    }
    // Their PreFilters skip, or they have nothing to check for this pod.
    bool can_reject = info.filter_reads == Reads::kNodePods
                          ? (p == Plugin::VolumeRestrictions && !plan.disks_.empty()) ||
                                (p == Plugin::NodeVolumeLimits && !plan.attachable_.empty())
                          : (p == Plugin::VolumeBinding && plan.binding_filters_) ||
                                (p == Plugin::VolumeZone && !plan.zone_topologies_.empty());
    CycleState::visit(p, [&](auto tag) {
      using T = typename decltype(tag)::type;
      if constexpr (requires(const typename T::State& st) { T::can_reject(st); }) {
        can_reject = T::can_reject(plan.states_.template get<T::kId>());
      } else if constexpr (
          requires(const typename T::State& st) { T::filter(st, c, NodeIndex{}); } ||
          requires(const typename T::State& st) { T::filter(st, c, NodeIndex{}, nullptr); }) {
        can_reject = true;  // a filter without a PreFilter that skips
      }
    });
    if (!info.modelled || !can_reject) continue;
    auto& into =
        info.filter_reads == Reads::kNodePods ? plan.dynamic_filters_ : plan.static_filters_;
    into.emplace_back(static_cast<uint8_t>(pos), p);
  }
  plan.first_fit_ = use == Use::kFirstFit;
  if (!plan.first_fit_) {
    if (plan.binding_filters_) {
      // FindPodVolumes once per node, for VolumeBinding's verdict (judge)
      // and its score.
      const plugins::PodClaims claims = plan.claims(c);
      std::vector<std::pair<int64_t, int64_t>> shape;
      if (plan.volume_scores_) {
        for (const ShapePoint& point : profile.volume_shape
                                           ? *profile.volume_shape
                                           : std::vector<ShapePoint>{{0, 10}, {100, 0}}) {
          shape.emplace_back(point.utilization, point.score * (plugins::kMaxNodeScore / 10));
        }
        plan.volume_score_.resize(n);
      }
      plan.binding_conflicts_.resize(n);
      // The score (0-100) and the conflicts (a byte) in one value.
      const plugins::VolumeNodeReads reads = plugins::find_pod_volumes_reads(c.storage(), claims);
      const std::vector<int64_t> found =
          per_node_by_labels(c, reads.keys, reads.name, [&](NodeIndex i) {
            const plugins::NodeVolumes v =
                plugins::find_pod_volumes(c.storage(), claims, c.node(i));
            return (plan.volume_scores_ ? plugins::volume_binding_score(v, shape) << 8 : 0) |
                   v.conflicts;
          });
      for (NodeIndex i = 0; i < n; ++i) {
        plan.binding_conflicts_[i] = static_cast<uint8_t>(found[i] & 0xff);
        if (plan.volume_scores_) plan.volume_score_[i] = found[i] >> 8;
      }
    }
    plan.judge_all(c);
  }

  return plan;
}

std::optional<Error> PodPlan::prepare_plugins(const PlanContext& ctx) {
  std::optional<Error> failed;
  CycleState::for_each([&](auto tag) {
    using T = typename decltype(tag)::type;
    if (failed) return;
    auto state = T::prepare(ctx);
    if constexpr (std::is_same_v<decltype(state), typename T::State>) {
      states_.template set<T::kId>(std::move(state));
    } else {
      if (!state) {
        failed = state.error();
        return;
      }
      states_.template set<T::kId>(std::move(*state));
    }
  });
  return failed;
}

NodeStatus PodPlan::static_filter(const Cluster& c, NodeIndex i, Plugin plugin) const {
  NodeStatus s;
  const bool typed = CycleState::visit(plugin, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (requires(const typename T::State& st) { T::filter(st, c, i); })
      s = T::filter(states_.template get<T::kId>(), c, i);
  });
  if (typed) return s;
  if (plugin == Plugin::VolumeBinding) {
    const uint8_t conflicts =
        binding_conflicts_.empty()
            ? plugins::find_pod_volumes(c.storage(), claims(c), c.node(i)).conflicts
            : binding_conflicts_[i];
    if (conflicts) {
      s = NodeStatus{Code::UnschedulableAndUnresolvable, plugin};
      s.detail = conflicts;
    }
  } else if (plugin == Plugin::VolumeZone) {
    if (!plugins::volume_zone_admits(zone_topologies_, c.node(i).labels))
      s = NodeStatus{Code::UnschedulableAndUnresolvable, plugin};
  }
  return s;
}

PodPlan::StaticVerdict PodPlan::judge(const Cluster& c, NodeIndex i) const {
  for (const auto& [pos, plugin] : static_filters_) {
    const NodeStatus s = static_filter(c, i, plugin);
    if (!s.ok()) return StaticVerdict{pos, s};
  }
  return StaticVerdict{};
}

void PodPlan::judge_all(const Cluster& c) {
  const size_t n = c.size();
  static_position_.assign(n, kNoStaticFailure);
  static_status_.assign(n, NodeStatus{});
  // Filter by filter, so that a typed plugin's filter runs in a loop of its
  // own rather than behind a dispatch per node; each node keeps the first
  // failure in the profile's order, as judge() finds it.
  for (const auto& filter : static_filters_) {
    // Named copies: a lambda may not capture a structured binding in C++20.
    const uint8_t pos = filter.first;
    const Plugin plugin = filter.second;
    const auto over_nodes = [&](auto&& verdict) {
      for (NodeIndex i = 0; i < n; ++i) {
        if (static_position_[i] != kNoStaticFailure) continue;
        const NodeStatus s = verdict(i);
        if (s.ok()) continue;
        static_position_[i] = pos;
        static_status_[i] = s;
      }
    };
    const bool typed = CycleState::visit(plugin, [&](auto tag) {
      using T = typename decltype(tag)::type;
      if constexpr (requires(const typename T::State& st) { T::filter(st, c, NodeIndex{}); }) {
        const auto& state = states_.template get<T::kId>();
        over_nodes([&](NodeIndex i) { return T::filter(state, c, i); });
      }
    });
    if (!typed) over_nodes([&](NodeIndex i) { return static_filter(c, i, plugin); });
  }
}

PodPlan::Verdict PodPlan::node_verdict(const Cluster& c, NodeIndex n, const Relief* relief) const {
  const StaticVerdict verdict =
      first_fit_ ? judge(c, n) : StaticVerdict{static_position_[n], static_status_[n]};
  const uint8_t static_position = verdict.position;
  for (const auto& [position, plugin] : dynamic_filters_) {
    if (position > static_position) break;
    NodeStatus typed_status;
    const bool typed = CycleState::visit(plugin, [&](auto tag) {
      using T = typename decltype(tag)::type;
      if constexpr (requires(const typename T::State& st) { T::filter(st, c, n, relief); })
        typed_status = T::filter(states_.template get<T::kId>(), c, n, relief);
    });
    if (typed) {
      if (!typed_status.ok()) return {position, typed_status};
      continue;
    }
    if (plugin == Plugin::VolumeRestrictions) {
      const auto& pods = c.pods_on(n);
      for (size_t k = 0; k < pods.size(); ++k) {
        if (!pods[k].storage ||
            (relief && std::find(relief->positions.begin(), relief->positions.end(), k) !=
                           relief->positions.end())) {
          continue;
        }
        if (plugins::disks_conflict(disks_, *pods[k].storage))
          return {position, NodeStatus{Code::Unschedulable, plugin}};
      }
      continue;
    }
    // NodeVolumeLimits
    const auto v = plugins::volume_limits(
        attachable_, attachable_drivers_, c.csi_node(n), c.pods_on(n), relief,
        kube_release::volume_limit_scaling(profile_->kube_minor), &c.attached_volumes(n));
    if (v.kind == plugins::VolumeLimitsVerdict::kAdmits) continue;
    NodeStatus s{Code::Unschedulable, plugin};
    s.detail =
        v.kind == plugins::VolumeLimitsVerdict::kExceeded ? 0 : static_cast<uint8_t>(1 + v.driver);
    return {position, s};
  }
  return {verdict.position, verdict.status};
}

NodeStatus PodPlan::with_domain_filters(const Cluster& c, NodeIndex n, const Verdict& v,
                                        const Relief* relief, Plugin skip) const {
  // The domain filters in profile order, each only where no filter before
  // it rejected the node.
  std::array<std::pair<uint8_t, Plugin>, 3> order{
      {{restrictions_position_, Plugin::VolumeRestrictions},
       {spread_position_, Plugin::PodTopologySpread},
       {inter_pod_position_, Plugin::InterPodAffinity}}};
  std::sort(order.begin(), order.end());
  for (const auto& [position, plugin] : order) {
    if (position >= v.position) break;
    if (plugin == skip) continue;
    if (auto s = domain_filter(c, n, plugin, relief)) return *s;
  }
  return v.status;
}

int64_t PodPlan::read_write_once_pod_in_use(const Cluster& c) const {
  int64_t in_use = 0;
  for (const std::string& name : read_write_once_pod_)
    in_use += c.claim_users(ns_ + "/" + name) > 0;
  return in_use;
}

PodPlan::DomainFilters PodPlan::active_domain_filters(const Cluster& c) const {
  DomainFilters out;
  auto add = [&](uint8_t position, Plugin plugin) { out.order[out.size++] = {position, plugin}; };
  if (restrictions_position_ != UINT8_MAX) {
    // Its verdict is the same on every node without victims: one question.
    if (read_write_once_pod_in_use(c) > 0) add(restrictions_position_, Plugin::VolumeRestrictions);
  }
  if (spread_ && spread_position_ != UINT8_MAX) {
    spread_->sync(c);
    if (spread_->filters()) add(spread_position_, Plugin::PodTopologySpread);
  }
  if (inter_pod_ && inter_pod_position_ != UINT8_MAX) {
    inter_pod_->sync(c);
    if (inter_pod_->may_reject()) add(inter_pod_position_, Plugin::InterPodAffinity);
  }
  std::sort(out.order.begin(), out.order.begin() + out.size);
  return out;
}

NodeStatus PodPlan::with_domain_filters(const Cluster& c, NodeIndex n, const Verdict& v,
                                        const DomainFilters& active) const {
  for (uint8_t k = 0; k < active.size; ++k) {
    const auto& [position, plugin] = active.order[k];
    if (position >= v.position) break;
    if (auto s = domain_filter(c, n, plugin, nullptr)) return *s;
  }
  return v.status;
}

std::optional<NodeStatus> PodPlan::domain_filter(const Cluster& c, NodeIndex n, Plugin plugin,
                                                 const Relief* relief) const {
  if (plugin == Plugin::InterPodAffinity) {
    inter_pod_->sync(c);
    uint8_t detail = 0;
    if (inter_pod_->admits(c, n, relief, detail)) return std::nullopt;
    NodeStatus s{detail == plugins::kAffinityNotMatched ? Code::UnschedulableAndUnresolvable
                                                        : Code::Unschedulable,
                 Plugin::InterPodAffinity};
    s.detail = detail;
    return s;
  }
  if (plugin == Plugin::VolumeRestrictions) {
    // The ReadWriteOncePod check reads the whole cluster's claim users (less
    // a preemption's victims).
    int64_t conflicting = read_write_once_pod_in_use(c);
    if (relief && conflicting > 0) {
      const auto& pods = c.pods_on(n);
      for (size_t k : relief->positions) {
        if (pods[k].storage)
          conflicting -= plugins::read_write_once_pod_refs(read_write_once_pod_, *pods[k].storage);
      }
    }
    if (conflicting == 0) return std::nullopt;
    NodeStatus s{Code::Unschedulable, Plugin::VolumeRestrictions};
    s.detail = 1;
    return s;
  }
  spread_->sync(c);  // PodTopologySpread
  uint8_t detail = 0;
  if (spread_->admits(c, n, relief, detail)) return std::nullopt;
  NodeStatus s{detail == plugins::kSpreadMissingLabel ? Code::UnschedulableAndUnresolvable
                                                      : Code::Unschedulable,
               Plugin::PodTopologySpread};
  s.detail = detail;
  return s;
}

NodeStatus PodPlan::filter(const Cluster& c, NodeIndex n, const Relief* relief) const {
  return with_domain_filters(c, n, node_verdict(c, n, relief), relief);
}

bool PodPlan::reads_domains(const ScoreVector& weight) const {
  // InterPodAffinity's scores of a pod without terms do not move when its
  // copies are placed, but they are normalised over the feasible nodes,
  // which the replica index does not do.
  return restrictions_position_ != UINT8_MAX ||
         (spread_ && (spread_->filters() ||
                      (spread_->scores() && weight[slot<Plugin::PodTopologySpread>()]))) ||
         (inter_pod_ && (inter_pod_->reads_domains() || (weight[slot<Plugin::InterPodAffinity>()] &&
                                                         !inter_pod_->score_skipped())));
}

bool PodPlan::only_spread_reads_domains(const ScoreVector& weight) const {
  return restrictions_position_ == UINT8_MAX && !assumes_volumes() &&
         (!inter_pod_ ||
          (!inter_pod_->reads_domains() &&
           (!weight[slot<Plugin::InterPodAffinity>()] || inter_pod_->score_skipped())));
}

NodeStatus PodPlan::prefilter_status() const {
  // RunPreFilterPlugins' own status for merged results with no node in
  // common names no plugin.
  if (merged_conflict_) return NodeStatus{Code::UnschedulableAndUnresolvable, Plugin::kCount};
  if (prefilter_conflict_ || !rejection_)
    return NodeStatus{Code::UnschedulableAndUnresolvable, Plugin::NodeAffinity};
  return NodeStatus{Code::UnschedulableAndUnresolvable, rejection_->plugin};
}

plugins::PodClaims PodPlan::claims(const Cluster& c) const {
  plugins::PodClaims out;
  auto resolve = [&](const std::vector<std::string>& keys,
                     std::vector<const PersistentVolumeClaim*>& into) {
    for (const std::string& key : keys) {
      const size_t slash = key.find('/');
      if (const PersistentVolumeClaim* claim =
              c.storage().claim(key.substr(0, slash), key.substr(slash + 1))) {
        into.push_back(claim);
      }
    }
  };
  resolve(bound_claims_, out.bound);
  resolve(delayed_claims_, out.delayed);
  plugins::resolve_candidates(c.storage(), out);
  return out;
}

std::optional<std::string> PodPlan::plan_volumes(const Cluster& c, const Profile& profile,
                                                 const Pod& pod) {
  if (pod.volumes.empty()) return std::nullopt;
  const bool claims = std::any_of(pod.volumes.begin(), pod.volumes.end(), [](const PodVolume& v) {
    return v.source == PodVolume::Source::kClaim || v.source == PodVolume::Source::kEphemeral;
  });
  const bool reads_claims = profile.filter_enabled(Plugin::VolumeBinding) ||
                            profile.filter_enabled(Plugin::VolumeZone) ||
                            profile.filter_enabled(Plugin::VolumeRestrictions) ||
                            profile.filter_enabled(Plugin::NodeVolumeLimits);
  if (claims && reads_claims && !c.objects().storage_listed) {
    return std::string(
        "persistent volume claims when the cluster's claims, volumes and classes are not given "
        "(VolumeBinding)");
  }
  const plugins::StorageState& st = c.storage();
  ns_ = pod.ns;
  storage_ = st.storage_of(pod);
  // The PreFilters in profile order: the first to reject decides for every node.
  for (Plugin p : profile.filters) {
    std::optional<std::string> rejection;
    switch (p) {
      case Plugin::VolumeRestrictions: {
        auto pre = plugins::volume_restrictions_prefilter(st, pod);
        rejection = std::move(pre.rejection);
        disks_ = std::move(pre.disks);
        read_write_once_pod_ = std::move(pre.read_write_once_pod);
        break;
      }
      case Plugin::NodeVolumeLimits:
        // NodeVolumeLimits translates in-tree volumes to CSI on every node
        // with a CSINode; the engine does not.
        if (!st.csi_nodes_empty() &&
            ((storage_ && storage_->in_tree) || c.in_tree_volume_pods() > 0)) {
          return std::string(
              "in-tree volumes on nodes with a CSINode (NodeVolumeLimits translates them to CSI)");
        }
        attachable_ = st.attachable(pod);
        for (const auto& [volume, driver] : attachable_)
          attachable_drivers_.push_back(st.csi_driver(driver));
        break;
      case Plugin::VolumeBinding: {
        auto pre = plugins::volume_binding_prefilter(st, pod);
        if (!pre) break;
        rejection = std::move(pre->rejection);
        for (const PersistentVolumeClaim* claim : pre->claims.bound) {
          const PersistentVolume* pv = st.volume(claim->volume_name);
          if (pv && plugins::migrates_to_csi(pv->in_tree_plugin) &&
              st.migrated(pv->in_tree_plugin)) {
            return "volume " + pv->name + " of in-tree plugin " + pv->in_tree_plugin +
                   " migrated to CSI (VolumeBinding translates its node affinity)";
          }
          bound_claims_.push_back(claim->key());
        }
        for (const PersistentVolumeClaim* claim : pre->claims.delayed)
          delayed_claims_.push_back(claim->key());
        binding_filters_ = true;
        volume_scores_ = kube_release::volume_binding_scores(profile.kube_minor) &&
                         profile.score_weight(Plugin::VolumeBinding) > 0;
        break;
      }
      case Plugin::VolumeZone: {
        auto pre = plugins::volume_zone_prefilter(st, pod);
        if (!pre) break;
        rejection = std::move(pre->rejection);
        zone_topologies_ = std::move(pre->topologies);
        break;
      }
      default:
        break;
    }
    if (rejection) {
      rejection_ = Rejection{p, std::move(*rejection)};
      return std::nullopt;
    }
  }
  return std::nullopt;
}

std::vector<std::string> PodPlan::reasons(const Cluster& c, NodeIndex n, const NodeStatus& s,
                                          const Relief* relief) const {
  std::vector<std::string> out;
  const ReasonContext context{profile_->kube_minor, prefilter_conflict_, relief};
  const bool typed = CycleState::visit(s.plugin, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (requires(const typename T::State& st) { T::reasons(st, c, n, s, context); }) {
      out = T::reasons(states_.template get<T::kId>(), c, n, s, context);
    }
  });
  if (typed) return out;
  switch (s.plugin) {
    case Plugin::kCount:
      if (merged_conflict_) return {*merged_conflict_};
      return {};
    case Plugin::PodTopologySpread:
      return {s.detail == plugins::kSpreadMissingLabel ? plugins::kSpreadMissingLabelReason
                                                       : plugins::kSpreadReason};
    case Plugin::InterPodAffinity:
      return {s.detail == plugins::kAffinityNotMatched ? plugins::kAffinityReason
              : s.detail == plugins::kAntiAffinityNotMatched
                  ? plugins::kAntiAffinityReason
                  : plugins::kExistingAntiAffinityReason};
    case Plugin::VolumeRestrictions:
    case Plugin::NodeVolumeLimits:
    case Plugin::VolumeBinding:
    case Plugin::VolumeZone:
      if (rejection_ && rejection_->plugin == s.plugin) return {rejection_->reason};
      if (s.plugin == Plugin::VolumeBinding) {
        return plugins::volume_binding_reasons(
            s.detail, kube_release::volume_reasons_reworded(profile_->kube_minor));
      }
      if (s.plugin == Plugin::VolumeZone) return {plugins::kVolumeZoneReason};
      if (s.plugin == Plugin::VolumeRestrictions) {
        if (s.detail != 1) return {plugins::kDiskConflictReason};
        return {kube_release::volume_reasons_reworded(profile_->kube_minor)
                    ? plugins::kReadWriteOncePodReason
                    : plugins::kReadWriteOncePodReasonV130};
      }
      if (s.detail == 0) return {plugins::kMaxVolumeCountReason};
      return {plugins::driver_not_installed_reason(attachable_[s.detail - 1].second)};
    default:
      return {};
  }
}

PodPlan::Cache& PodPlan::cache_for(const Cluster& c) const {
  if (cache_.instance != c.instance() || cache_.generation.size() != c.size()) {
    cache_.instance = c.instance();
    cache_.generation.assign(c.size(), UINT32_MAX);
    cache_.verdict.assign(c.size(), Verdict{});
    cache_.score_generation.assign(c.size(), UINT32_MAX);
    cache_.scores.assign(c.size(), NodePodsScores{});
  }
  return cache_;
}

}  // namespace tightpack
