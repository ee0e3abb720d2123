// One scheduling decision, run as kube-scheduler's framework runs it: PreFilter,
// Filter (plugins in profile order, first failure per node), PreScore, Score,
// NormalizeScore, weights, and on failure the FitError message with
// DefaultPreemption's verdict.
//
// A PodPlan compiles a pod against a cluster and a profile once: tolerations,
// selectors and image locality do not change when pods are placed, so their
// per-node verdicts are computed once and every later decision for the same
// pod (or its replicas) only looks at what placements change.
#pragma once

#include <array>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tightpack/cluster.hpp"
#include "tightpack/error.hpp"
#include "tightpack/framework/node_status.hpp"
#include "tightpack/framework/plugin_types.hpp"
#include "tightpack/framework/score_pipeline.hpp"
#include "tightpack/go_int.hpp"
#include "tightpack/kube_release.hpp"
#include "tightpack/model.hpp"
#include "tightpack/plugins/inter_pod_affinity.hpp"
#include "tightpack/plugins/pod_topology_spread.hpp"
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
  NodeStatus filter(const Cluster& c, NodeIndex n, const Relief* relief = nullptr) const;

  // The same in two parts, for callers that remember verdicts per node
  // generation: the filters that read the node and its own pods, with the
  // position of the first that fails (kNoFailure when none does), and then the
  // filters that read whole topology domains, which may change when any node
  // does (PodTopologySpread, InterPodAffinity, VolumeRestrictions'
  // ReadWriteOncePod check), applied to that.
  struct Verdict {
    uint8_t position = UINT8_MAX;
    NodeStatus status;
  };
  Verdict node_verdict(const Cluster& c, NodeIndex n, const Relief* relief = nullptr) const;
  NodeStatus with_domain_filters(const Cluster& c, NodeIndex n, const Verdict& v,
                                 const Relief* relief = nullptr,
                                 Plugin skip = Plugin::kCount) const;
  // The domain filters that can reject some node of `c` as it is (no victims
  // taken off), in profile order: a pod without terms, in a cluster where no
  // bound pod's anti-affinity selects it, has none, and decide then asks
  // nothing of them node by node.
  struct DomainFilters {
    std::array<std::pair<uint8_t, Plugin>, 3> order{};
    uint8_t size = 0;
  };
  DomainFilters active_domain_filters(const Cluster& c) const;
  NodeStatus with_domain_filters(const Cluster& c, NodeIndex n, const Verdict& v,
                                 const DomainFilters& active) const;
  // Every filter but PodTopologySpread, for the replica index that judges
  // PodTopologySpread by groups of nodes (SpreadReplicaIndex).
  NodeStatus filter_without_spread(const Cluster& c, NodeIndex n) const {
    return with_domain_filters(c, n, node_verdict(c, n), nullptr, Plugin::PodTopologySpread);
  }
  // PodTopologySpread's counts, when the plugin filters or scores this pod.
  plugins::SpreadCounts* spread_counts() const { return spread_ ? &*spread_ : nullptr; }
  // Whether, of the plugins reading whole topology domains, only
  // PodTopologySpread reads them for this pod: the others' verdicts and
  // scores do not move when copies of it are placed.
  bool only_spread_reads_domains(const ScoreVector& weight) const;
  // Whether some filter or score reads topology domains for this pod: after
  // a placement, more nodes than the one that changed may move.
  bool reads_domains(const ScoreVector& weight) const;
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
  DomainScores domain_scores(const Cluster& c, const std::vector<NodeIndex>& feasible,
                             const ScoreVector& weight) const;

  // Every modelled plugin's normalised score of node n, the j-th feasible
  // node of `domain`'s decision (none: those plugins give 0).
  ScoreVector normalised_scores(const Cluster& c, NodeIndex n, const FeasibleMax& max,
                                const NodePodsScores& pod_dependent,
                                const DomainScores* domain = nullptr, size_t j = 0) const;
  // Whether a score plugin scores this pod at all (its PreScore does not
  // skip); results list only those.
  bool scores_with(Plugin p) const;

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
  friend Decision decide(const PodPlan& plan, const Cluster& cluster);
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
  std::optional<NodeStatus> domain_filter(const Cluster& c, NodeIndex n, Plugin plugin,
                                          const Relief* relief) const;
  // How many of the pod's ReadWriteOncePod claims a bound pod uses already.
  int64_t read_write_once_pod_in_use(const Cluster& c) const;

  const Profile* profile_ = nullptr;
  std::string key_;
  int32_t priority_ = 0;
  bool preempt_never_ = false;
  PodUsage usage_;
  bool prefilter_conflict_ = false;
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
  // PodTopologySpread, when it filters or scores this pod: its position in
  // the filter order, and the counts, brought up to date before each use.
  uint8_t spread_position_ = UINT8_MAX;
  mutable std::optional<plugins::SpreadCounts> spread_;
  // InterPodAffinity, when the profile runs it: the pod's terms, the
  // plugin's position in the filter order, and its counts.
  std::shared_ptr<const AffinityTerms> affinity_terms_;
  uint8_t inter_pod_position_ = UINT8_MAX;
  mutable std::optional<plugins::AffinityCounts> inter_pod_;
  // The PreFilter that rejected every node, first in the profile's order.
  struct Rejection {
    Plugin plugin;
    std::string reason;
  };
  std::optional<Rejection> rejection_;
  // VolumeRestrictions' position when the pod has ReadWriteOncePod claims:
  // their users are counted over the whole cluster, as topology domains are
  // (with_domain_filters).
  uint8_t restrictions_position_ = UINT8_MAX;
  // The pod's volumes as the placed pod carries them; null without volumes.
  std::shared_ptr<const PodStorage> storage_;

  // decide() remembers filter() and the pod-dependent scores per node until
  // the node's generation changes, so that after a placement only that node
  // is recomputed. Not thread-safe: one PodPlan per thread.
  struct Cache {
    uint64_t instance = 0;
    std::vector<uint32_t> generation;  // UINT32_MAX: nothing cached
    std::vector<Verdict> verdict;
    std::vector<uint32_t> score_generation;
    std::vector<NodePodsScores> scores;
  };
  Cache& cache_for(const Cluster& c) const;
  mutable Cache cache_;
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
  std::vector<ScoreRow> scores;     // aligned with `feasible`
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
Decision decide(const PodPlan& plan, const Cluster& cluster);

// DefaultPreemption's PostFilter verdict for a decision where nothing fits.
Preemption evaluate_preemption(const PodPlan& plan, const Cluster& cluster, const Decision& d);

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
int64_t PodPlan::node_pods_score(const Cluster& c, NodeIndex n) const {
  static_assert(CycleState::contains<P>(), "a score column that reads the node's pods");
  return CycleState::PluginOf<P>::score(states_.get<P>(), c, n);
}

}  // namespace tightpack
