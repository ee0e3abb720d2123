// One scheduling decision, run as kube-scheduler's framework runs it: PreFilter,
// Filter (plugins in profile order, first failure per node), PreScore, Score,
// NormalizeScore, weights, and on failure the FitError message with
// DefaultPreemption's verdict.
//
// A PodPlan compiles a pod against a cluster and a profile once: tolerations,
// selectors and image locality do not change when pods are placed, so their
// per-node verdicts are computed once and every later decision for the same
// pod (or its replicas) only looks at what placements change.
//
// A plan is immutable once made, and may be shared by threads. What its
// questions remember between calls against a cluster that changes (the
// counts of the plugins that read whole topology domains, decide()'s
// verdicts per node generation) is the asker's: a PlanScratch, one per
// thread, passed in.
#pragma once

#include <array>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tightpack/cluster.hpp"
#include "tightpack/error.hpp"
#include "tightpack/framework/node_status.hpp"
#include "tightpack/framework/plan_scratch.hpp"
#include "tightpack/framework/plugin_types.hpp"
#include "tightpack/framework/score_pipeline.hpp"
#include "tightpack/go_int.hpp"
#include "tightpack/kube_release.hpp"
#include "tightpack/model.hpp"
#include "tightpack/profile.hpp"

namespace tightpack {

struct Decision;

class PodPlan {
 public:
  // Errors when the pod needs what the engine does not model (an in-tree
  // volume migrated to CSI, claims or namespace labels the input does not
  // give).
  //
  // kFirstFit compiles only what filter() needs and judges a node's static
  // filters (taints, affinity, cordon) when first asked: cluster-autoscaler's
  // move simulation stops at the first node that fits, usually within a few,
  // and judging all 1,000 nodes for every pod it moves cost more than the rest
  // of a scale-down. Verdicts are the same; decide() needs a kDecide plan.
  enum class Use : uint8_t { kDecide, kFirstFit };
  static Result<PodPlan> make(const Cluster& cluster, const Profile& profile, const Pod& pod,
                              Use use = Use::kDecide);
  // The plan keeps a pointer to the profile: a temporary would dangle.
  static Result<PodPlan> make(const Cluster&, Profile&&, const Pod&, Use = Use::kDecide) = delete;

  const Profile& profile() const { return *profile_; }
  const std::string& key() const { return key_; }
  int32_t priority() const { return priority_; }
  bool preempt_never() const { return preempt_never_; }
  const PodUsage& usage() const { return usage_; }

  // Filter verdict of a node in the cluster's current state; `relief` takes
  // pods off the node first (preemption what-ifs).
  NodeStatus filter(PlanScratch& scratch, const Cluster& c, NodeIndex n,
                    const Relief* relief = nullptr) const;

  // The same in two parts, for callers that remember verdicts per node
  // generation: the filters that read the node and its own pods, with the
  // position of the first that fails (kNoFailure when none does), and then the
  // filters that read whole topology domains, which may change when any node
  // does (PodTopologySpread, InterPodAffinity, VolumeRestrictions'
  // ReadWriteOncePod check), applied to that.
  using Verdict = NodeVerdict;
  Verdict node_verdict(const Cluster& c, NodeIndex n, const Relief* relief = nullptr) const;
  NodeStatus with_domain_filters(PlanScratch& scratch, const Cluster& c, NodeIndex n,
                                 const Verdict& v, const Relief* relief = nullptr,
                                 Plugin skip = Plugin::kCount) const;
  // The domain filters that can reject some node of `c` as it is (no victims
  // taken off), in profile order: a pod without terms, in a cluster where no
  // bound pod's anti-affinity selects it, has none, and decide then asks
  // nothing of them node by node.
  struct DomainFilters {
    std::array<std::pair<uint8_t, Plugin>, kDomainFilterPlugins> order{};
    uint8_t size = 0;
  };
  DomainFilters active_domain_filters(PlanScratch& scratch, const Cluster& c) const;
  NodeStatus with_domain_filters(PlanScratch& scratch, const Cluster& c, NodeIndex n,
                                 const Verdict& v, const DomainFilters& active) const;
  // Every filter but `skip`'s domain filter, for the replica index that
  // judges PodTopologySpread by groups of nodes (SpreadReplicaIndex).
  NodeStatus filter_without(PlanScratch& scratch, const Cluster& c, NodeIndex n,
                            Plugin skip) const {
    return with_domain_filters(scratch, c, n, node_verdict(c, n), nullptr, skip);
  }
  // A plugin's Counts, counted when first asked for and brought up to date
  // with `c`.
  template <Plugin P>
  typename CycleState::PluginOf<P>::Counts& counts(PlanScratch& scratch, const Cluster& c) const;
  // Whether some filter or score reads topology domains for this pod: after
  // a placement, more nodes than the one that changed may move.
  bool reads_domains(PlanScratch& scratch, const Cluster& c, const ScoreVector& weight) const;
  // Whether, of the plugins reading whole topology domains, only `p` reads
  // them for this pod, and placing it assumes no volume: the others'
  // verdicts and scores do not move when copies of it are placed.
  bool only_reads_domains_through(Plugin p, PlanScratch& scratch, const Cluster& c,
                                  const ScoreVector& weight) const;
  // Whether placing the pod makes VolumeBinding assume something of its
  // claims (unbound WaitForFirstConsumer ones): a plan made before that
  // placement no longer sees the storage as the cluster does.
  bool assumes_volumes() const { return storage_ && !storage_->delayed_claims.empty(); }
  // kube-scheduler's reasons for a verdict.
  std::vector<std::string> reasons(const Cluster& c, NodeIndex n, const NodeStatus& status,
                                   const Relief* relief = nullptr) const;

  // PreFilter outcome: a plugin rejected every node (NodeAffinity's
  // metadata.name restriction names no node, a volume plugin's claim is
  // missing, ...), or nodes outside the metadata.name restriction are not
  // filtered.
  bool prefilter_conflict() const { return prefilter_conflict_ || rejection_.has_value(); }
  // The status every node gets when a PreFilter rejects them.
  NodeStatus prefilter_status() const;
  bool in_prefilter_set(NodeIndex n) const { return in_set_.empty() || in_set_[n]; }
  // The reason of the nodes outside that set: "node(s) didn't satisfy plugin(s) [NodeAffinity]".
  const std::string& absent_reason() const { return absent_reason_; }

  // A plugin's CycleState entry (plugin_types.hpp), as its extension points read it.
  template <Plugin P>
  const typename CycleState::PluginOf<P>::State& state() const {
    return states_.get<P>();
  }

  // The score pipeline's inputs (score_pipeline.hpp), column by column.
  // The raw scores normalised by their maximum over the feasible nodes.
  RawByMax raw_by_max(const Cluster& c, NodeIndex n) const {
    RawByMax raw{};
    for_each_index<kByMaxCount>(
        [&](auto k) { raw[k] = node_score<kScorePlugins[kByMaxSlots[k]]>(c, n); });
    return raw;
  }
  // The scores that read the node's pods, for the plugins `weight` enables;
  // the incremental paths recompute them when the node's pods change.
  bool has_pod_dependent_scores(const ScoreVector& weight) const;
  NodePodsScores pod_dependent_scores(const Cluster& c, NodeIndex n,
                                      const ScoreVector& weight) const;

  // The normalised scores of the plugins that normalise over the decision's
  // feasible nodes at once and read whole topology domains, in
  // kOverDomainsSlots order: one score per feasible node, or none when the
  // plugin does not score this pod.
  struct DomainScores {
    std::array<std::vector<int64_t>, kOverDomainsCount> by_column;
  };
  DomainScores domain_scores(PlanScratch& scratch, const Cluster& c,
                             const std::vector<NodeIndex>& feasible,
                             const ScoreVector& weight) const;

  // Every modelled plugin's normalised score of node n, the j-th feasible
  // node of `domain`'s decision (none: those plugins give 0).
  ScoreVector normalised_scores(const Cluster& c, NodeIndex n, const FeasibleMax& max,
                                const NodePodsScores& pod_dependent,
                                const DomainScores* domain = nullptr, size_t j = 0) const;
  // The score columns that score this pod (`weight` enables them and their
  // PreScore does not skip): results list only those. `domain`: this
  // decision's scores of the columns that read topology domains, empty
  // where their PreScore skipped.
  std::array<bool, kScoreSlots> scoring(const ScoreVector& weight,
                                        const DomainScores& domain) const;

  // decide()'s verdicts and scores per node generation, sized for `c`.
  PlanScratch::Nodes& node_memo(PlanScratch& scratch, const Cluster& c) const;

  // The placed copy of this pod.
  BoundPod bound(std::string key) const {
    BoundPod placed{std::move(key), priority_, usage_, {}, 0, meta_, storage_, affinity_terms_};
    // Reserve: what the plugins write on the placed pod for later pods to read.
    CycleState::for_each([&](auto tag) {
      using T = typename decltype(tag)::type;
      if constexpr (requires(const typename T::State& st) { T::reserve(st, placed); })
        T::reserve(states_.template get<T::kId>(), placed);
    });
    return placed;
  }

 private:
  PodPlan() = default;

  static constexpr uint8_t kNoStaticFailure = UINT8_MAX;

  // The score of a column that reads the node alone (raw when it is
  // normalised by its maximum), and of one that reads the node's pods.
  template <Plugin P>
  int64_t node_score(const Cluster& c, NodeIndex n) const;
  template <Plugin P>
  int64_t node_pods_score(const Cluster& c, NodeIndex n) const;

  // The first filter that ignores bound pods and rejects the node, with its
  // position in the profile's filter order (kNoStaticFailure when none does).
  struct StaticVerdict {
    uint8_t position = kNoStaticFailure;
    NodeStatus status;
  };
  StaticVerdict judge(const Cluster& c, NodeIndex n) const;
  // Every node's StaticVerdict, into the kDecide plan's columns.
  void judge_all(const Cluster& c);
  // One of those filters' verdict on a node.
  NodeStatus static_filter(const Cluster& c, NodeIndex n, Plugin plugin) const;
  // The plugins' own PreFilters and PreScores (plugin_types.hpp); an error
  // when one fails the pod.
  std::optional<Error> prepare_plugins(const PlanContext& ctx);
  // One of the filters that read whole topology domains; nothing when it
  // admits the node.
  std::optional<NodeStatus> domain_filter(PlanScratch& scratch, const Cluster& c, NodeIndex n,
                                          Plugin plugin, const Relief* relief) const;
  // A plugin's reads_domains (framework/plugin.hpp); false for the others.
  template <class T>
  bool plugin_reads_domains(PlanScratch& scratch, const Cluster& c,
                            const ScoreVector& weight) const;
  // Whether a score plugin's PreScore keeps the pod, as far as its state says.
  bool prescore_keeps(Plugin p) const;

  // Copies of a plan are the same plan: they share the id a scratch serves.
  uint64_t id_ = 0;
  const Profile* profile_ = nullptr;
  std::string key_;
  int32_t priority_ = 0;
  bool preempt_never_ = false;
  PodUsage usage_;
  bool prefilter_conflict_ = false;
  // The PreFilter whose own terms conflict (NodeAffinity's), when one does.
  Plugin conflicting_ = Plugin::kCount;
  // PreFilters that restricted the nodes and left none in common ("didn't
  // satisfy plugin(s) [NodeAffinity NodeName] simultaneously").
  std::optional<std::string> merged_conflict_;
  std::vector<uint8_t> in_set_;
  std::string absent_reason_;
  // Filters that read the node's pods (NodePorts, NodeResourcesFit and the
  // volume limits) with their position in the profile's filter order.
  std::vector<std::pair<uint8_t, Plugin>> dynamic_filters_;
  // The filters that ignore bound pods and can reject some node for this pod,
  // with their position in the profile's filter order, and what they read.
  std::vector<std::pair<uint8_t, Plugin>> static_filters_;
  // The CycleState of the plugins that are types (plugin_types.hpp).
  CycleState states_;
  // kDecide plans: every node's StaticVerdict, as two columns. kFirstFit
  // plans judge a node when asked, each node being asked once per plan.
  bool first_fit_ = false;
  std::vector<uint8_t> static_position_;
  std::vector<NodeStatus> static_status_;
  std::shared_ptr<const PodMeta> meta_;
  // The pod's inter-pod affinity terms, as the placed pod carries them.
  std::shared_ptr<const AffinityTerms> affinity_terms_;
  // The filters that read whole topology domains for this pod, with their
  // position in the profile's filter order, in that order.
  std::vector<std::pair<uint8_t, Plugin>> domain_filters_;
  // The PreFilter that rejected every node, first in the profile's order.
  struct Rejection {
    Plugin plugin;
    std::string reason;
  };
  std::optional<Rejection> rejection_;
  // The pod's volumes as the placed pod carries them; null without volumes.
  std::shared_ptr<const PodStorage> storage_;
};

// A plan kept for many questions, with the scratch they fill in.
struct PlanWithScratch {
  PodPlan plan;
  PlanScratch scratch;
};

struct Preemption {
  // Whether evicting lower-priority pods could make room on some node.
  bool helps = false;
  // The PostFilter message (without "preemption: "): why no node can be
  // freed, or, when one can, the node chosen and the number of victims.
  std::string message;
};

struct Decision {
  std::string pod;
  size_t num_all_nodes = 0;
  bool prefilter_rejected = false;
  std::vector<NodeIndex> filtered;   // nodes the filters ran on (all, or the PreFilter set)
  std::vector<NodeStatus> statuses;  // aligned with `filtered`
  std::vector<NodeIndex> feasible;
  std::vector<ScoreRow> scores;  // aligned with `feasible`
  // The score columns that scored the pod (PodPlan::scoring).
  std::array<bool, kScoreSlots> scoring{};
  std::vector<NodeIndex> top;       // highest total, sorted by node name
  std::optional<NodeIndex> chosen;  // the smallest name in `top`
  std::string message;              // the FailedScheduling text when nothing fits
  std::optional<Preemption> preemption;
  // Set when scheduling fails with an error rather than a FitError: a score
  // plugin returned a score outside [0, 100] (only wrapped int64 sums of
  // absurd requests do that). Nothing is chosen then.
  std::string error;
};

// Filters and scores every node (kube-scheduler samples only from 100 nodes
// on; predictions and conformance look at all of them).
Decision decide(const PodPlan& plan, const Cluster& cluster, PlanScratch& scratch);

// DefaultPreemption's PostFilter verdict for a decision where nothing fits.
Preemption evaluate_preemption(const PodPlan& plan, const Cluster& cluster, PlanScratch& scratch,
                               const Decision& d);

// The "0/N nodes are available: …" message of a decision where nothing fits.
std::string fit_error_message(const PodPlan& plan, const Cluster& cluster, const Decision& d);

// ------------------------------------------------------------------ impl
// The pod-dependent scores run for every feasible node: inline.

template <Plugin P>
int64_t PodPlan::node_score(const Cluster& c, NodeIndex n) const {
  static_assert(CycleState::contains<P>(), "a score column that reads the node alone");
  return CycleState::PluginOf<P>::score(states_.get<P>(), c, n);
}

template <Plugin P>
typename CycleState::PluginOf<P>::Counts& PodPlan::counts(PlanScratch& scratch,
                                                          const Cluster& c) const {
  using T = typename CycleState::PluginOf<P>;
  scratch.serve(id_);
  auto& slot = scratch.counts_.get<P>();
  if (slot) {
    slot->sync(c);
  } else {
    slot.emplace(T::count(states_.get<P>(), c));
  }
  return *slot;
}

template <class T>
bool PodPlan::plugin_reads_domains(PlanScratch& scratch, const Cluster& c,
                                   const ScoreVector& weight) const {
  const auto& st = states_.get<T::kId>();
  bool weighted = false;
  if constexpr ((plugin_info(T::kId).ext & ext::kScore) != 0) weighted = weight[slot<T::kId>()];
  if constexpr (HasCounts<T>) {
    return T::reads_domains(
        st, weighted, [&]() -> auto& { return counts<T::kId>(scratch, c); });
  } else if constexpr (requires { T::reads_domains(st, weighted); }) {
    return T::reads_domains(st, weighted);
  }
  return false;
}

template <Plugin P>
int64_t PodPlan::node_pods_score(const Cluster& c, NodeIndex n) const {
  static_assert(CycleState::contains<P>(), "a score column that reads the node's pods");
  return CycleState::PluginOf<P>::score(states_.get<P>(), c, n);
}

}  // namespace tightpack
