#include "tightpack/framework/framework.hpp"

#include <algorithm>
#include <atomic>
#include <set>

#include "tightpack/go_int.hpp"
#include "tightpack/kube_release.hpp"
#include "tightpack/node_affinity_terms.hpp"

namespace tightpack {
namespace {

std::string unsupported(const std::string& pod, const std::string& what) {
  return "pod " + pod + ": " + what +
         " is not supported by tightpack yet; kube-scheduler would consider it";
}

}  // namespace

Result<PodPlan> PodPlan::make(const Cluster& c, const Profile& profile, const Pod& pod, Use use) {
  PodPlan plan;
  static std::atomic<uint64_t> last_id{0};
  plan.id_ = ++last_id;
  plan.profile_ = &profile;
  plan.key_ = pod.key();
  if (pod.resource_claims && profile.dra_post_filter) {  // DynamicResources is enabled
    return Error{"", unsupported(plan.key_, "resource claims (DynamicResources)")};
  }
  plan.affinity_terms_ = affinity_terms(pod);
  // What a plugin would read that the input does not give, first in the
  // plugin list's order.
  std::optional<std::string> unmodelled;
  CycleState::for_each([&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (requires { T::unmodelled_input(c, profile, pod, nullptr); }) {
      if (!unmodelled)
        unmodelled = T::unmodelled_input(c, profile, pod, plan.affinity_terms_.get());
    }
  });
  if (unmodelled) return Error{"", unsupported(plan.key_, *unmodelled)};
  if (!pod.volumes.empty()) plan.storage_ = c.storage().storage_of(pod);
  if (profile.filters.size() >= kNoStaticFailure) return Error{"", "too many filter plugins"};
  plan.priority_ = pod.priority;
  plan.preempt_never_ = pod.preempt_never;
  plan.usage_ = c.usage_of(pod);

  const size_t n = c.size();
  RequiredNodeAffinity required(pod);
  required.bind(c);
  const PlanContext ctx{c,
                        profile,
                        pod,
                        plan.usage_,
                        use == Use::kFirstFit,
                        required,
                        plan.storage_.get(),
                        plan.affinity_terms_};
  const std::optional<Error> failed = plan.prepare_plugins(ctx);
  // RunPreFilterPlugins: the first PreFilter in the profile's order that
  // fails the pod decides, before any PreScore's error.
  for (const Plugin p : profile.filters) {
    std::optional<PreFilterFailure> failure;
    CycleState::visit(p, [&](auto tag) {
      using T = typename decltype(tag)::type;
      if constexpr (requires(const typename T::State& st) { T::prefilter_failure(st); })
        failure = T::prefilter_failure(plan.states_.template get<T::kId>());
    });
    if (!failure) continue;
    if (failure->unmodelled) return Error{"", unsupported(plan.key_, failure->text)};
    plan.rejection_ = Rejection{p, std::move(failure->text)};
    break;
  }
  if (failed) return *failed;

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
        if (!plan.prefilter_conflict_) plan.conflicting_ = T::kId;
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
  // Only the filters that can reject some node for this pod, in order: those
  // that read the node's pods, and those that read the node alone.
  for (size_t pos = 0; pos < profile.filters.size(); ++pos) {
    const Plugin p = profile.filters[pos];
    const PluginInfo& info = plugin_info(p);
    // Their PreFilters skip, or they have nothing to check for this pod.
    bool can_reject = false;
    CycleState::visit(p, [&](auto tag) {
      using T = typename decltype(tag)::type;
      if constexpr (HasDomainFilter<T>) {
        if (T::domain_filters(plan.states_.template get<T::kId>()))
          plan.domain_filters_.emplace_back(static_cast<uint8_t>(pos), p);
      }
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
  if (!plan.first_fit_) plan.judge_all(c);
  return plan;
}

std::optional<Error> PodPlan::prepare_plugins(const PlanContext& ctx) {
  std::optional<Error> failed;
  // Every plugin is prepared, so that the PreFilters' verdicts can be read
  // in the profile's order whichever PreScore fails.
  CycleState::for_each([&](auto tag) {
    using T = typename decltype(tag)::type;
    auto state = T::prepare(ctx);
    if constexpr (std::is_same_v<decltype(state), typename T::State>) {
      states_.template set<T::kId>(std::move(state));
    } else if (state) {
      states_.template set<T::kId>(std::move(*state));
    } else if (!failed) {
      failed = state.error();
    }
  });
  return failed;
}

NodeStatus PodPlan::static_filter(const Cluster& c, NodeIndex i, Plugin plugin) const {
  NodeStatus s;
  CycleState::visit(plugin, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (requires(const typename T::State& st) { T::filter(st, c, i); })
      s = T::filter(states_.template get<T::kId>(), c, i);
  });
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
    CycleState::visit(plugin, [&](auto tag) {
      using T = typename decltype(tag)::type;
      if constexpr (requires(const typename T::State& st) { T::filter(st, c, NodeIndex{}); }) {
        const auto& state = states_.template get<T::kId>();
        over_nodes([&](NodeIndex i) { return T::filter(state, c, i); });
      }
    });
  }
}

PodPlan::Verdict PodPlan::node_verdict(const Cluster& c, NodeIndex n, const Relief* relief) const {
  const StaticVerdict verdict =
      first_fit_ ? judge(c, n) : StaticVerdict{static_position_[n], static_status_[n]};
  const uint8_t static_position = verdict.position;
  for (const auto& [position, plugin] : dynamic_filters_) {
    if (position > static_position) break;
    NodeStatus status;
    CycleState::visit(plugin, [&](auto tag) {
      using T = typename decltype(tag)::type;
      if constexpr (requires(const typename T::State& st) { T::filter(st, c, n, relief); })
        status = T::filter(states_.template get<T::kId>(), c, n, relief);
    });
    if (!status.ok()) return {position, status};
  }
  return {verdict.position, verdict.status};
}

NodeStatus PodPlan::with_domain_filters(PlanScratch& scratch, const Cluster& c, NodeIndex n,
                                        const Verdict& v, const Relief* relief, Plugin skip) const {
  // The domain filters in profile order, each only where no filter before
  // it rejected the node.
  for (const auto& [position, plugin] : domain_filters_) {
    if (position >= v.position) break;
    if (plugin == skip) continue;
    if (auto s = domain_filter(scratch, c, n, plugin, relief)) return *s;
  }
  return v.status;
}

PodPlan::DomainFilters PodPlan::active_domain_filters(PlanScratch& scratch,
                                                      const Cluster& c) const {
  DomainFilters out;
  for (const auto& [position, plugin] : domain_filters_) {
    bool may_reject = false;
    CycleState::visit(plugin, [&](auto tag) {
      using T = typename decltype(tag)::type;
      if constexpr (HasDomainFilter<T> && HasCounts<T>) {
        may_reject = T::domain_may_reject(states_.get<T::kId>(), counts<T::kId>(scratch, c), c);
      } else if constexpr (HasDomainFilter<T>) {
        may_reject = T::domain_may_reject(states_.get<T::kId>(), c);
      }
    });
    if (may_reject) out.order[out.size++] = {position, plugin};
  }
  return out;
}

NodeStatus PodPlan::with_domain_filters(PlanScratch& scratch, const Cluster& c, NodeIndex n,
                                        const Verdict& v, const DomainFilters& active) const {
  for (uint8_t k = 0; k < active.size; ++k) {
    const auto& [position, plugin] = active.order[k];
    if (position >= v.position) break;
    if (auto s = domain_filter(scratch, c, n, plugin, nullptr)) return *s;
  }
  return v.status;
}

std::optional<NodeStatus> PodPlan::domain_filter(PlanScratch& scratch, const Cluster& c,
                                                 NodeIndex n, Plugin plugin,
                                                 const Relief* relief) const {
  std::optional<NodeStatus> out;
  CycleState::visit(plugin, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (HasDomainFilter<T> && HasCounts<T>) {
      out = T::domain_filter(states_.get<T::kId>(), counts<T::kId>(scratch, c), c, n, relief);
    } else if constexpr (HasDomainFilter<T>) {
      out = T::domain_filter(states_.get<T::kId>(), c, n, relief);
    }
  });
  return out;
}

NodeStatus PodPlan::filter(PlanScratch& scratch, const Cluster& c, NodeIndex n,
                           const Relief* relief) const {
  return with_domain_filters(scratch, c, n, node_verdict(c, n, relief), relief);
}

bool PodPlan::reads_domains(PlanScratch& scratch, const Cluster& c,
                            const ScoreVector& weight) const {
  bool reads = false;
  CycleState::for_each([&](auto tag) {
    using T = typename decltype(tag)::type;
    reads = reads || plugin_reads_domains<T>(scratch, c, weight);
  });
  return reads;
}

bool PodPlan::only_reads_domains_through(Plugin p, PlanScratch& scratch, const Cluster& c,
                                         const ScoreVector& weight) const {
  if (assumes_volumes()) return false;
  bool others = false;
  CycleState::for_each([&](auto tag) {
    using T = typename decltype(tag)::type;
    others = others || (T::kId != p && plugin_reads_domains<T>(scratch, c, weight));
  });
  return !others;
}

NodeStatus PodPlan::prefilter_status() const {
  // RunPreFilterPlugins' own status for merged results with no node in
  // common names no plugin.
  if (merged_conflict_) return NodeStatus{Code::UnschedulableAndUnresolvable, Plugin::kCount};
  if (prefilter_conflict_) return NodeStatus{Code::UnschedulableAndUnresolvable, conflicting_};
  return NodeStatus{Code::UnschedulableAndUnresolvable,
                    rejection_ ? rejection_->plugin : Plugin::kCount};
}

std::vector<std::string> PodPlan::reasons(const Cluster& c, NodeIndex n, const NodeStatus& s,
                                          const Relief* relief) const {
  // A PreFilter's rejection of every node is worded by its text.
  if (rejection_ && rejection_->plugin == s.plugin) return {rejection_->reason};
  std::vector<std::string> out;
  const ReasonContext context{profile_->kube_minor, prefilter_conflict_, relief};
  const bool typed = CycleState::visit(s.plugin, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (requires(const typename T::State& st) { T::reasons(st, c, n, s, context); }) {
      out = T::reasons(states_.template get<T::kId>(), c, n, s, context);
    }
  });
  if (typed) return out;
  // RunPreFilterPlugins' own status for merged results names no plugin.
  if (s.plugin == Plugin::kCount && merged_conflict_) return {*merged_conflict_};
  return {};
}

PlanScratch::Nodes& PodPlan::node_memo(PlanScratch& scratch, const Cluster& c) const {
  scratch.serve(id_);
  PlanScratch::Nodes& m = scratch.nodes_;
  if (m.instance != c.instance() || m.generation.size() != c.size()) {
    m.instance = c.instance();
    m.generation.assign(c.size(), UINT32_MAX);
    m.verdict.assign(c.size(), Verdict{});
    m.score_generation.assign(c.size(), UINT32_MAX);
    m.scores.assign(c.size(), NodePodsScores{});
  }
  return m;
}

}  // namespace tightpack
