// PodTopologySpread (pkg/scheduler/framework/plugins/podtopologyspread, as of
// kube-scheduler v1.37.2): the pod's own topologySpreadConstraints, or, for a
// pod without any, the profile's default constraints with a selector deduced
// from the Services, ReplicaSets, StatefulSets and ReplicationControllers
// that select or own it. DoNotSchedule constraints filter (a node whose
// domain would exceed maxSkew over the least-loaded domain), ScheduleAnyway
// constraints score (fewer matching pods in the node's domains is better).
//
// SpreadCounts keeps, for one incoming pod, the number of matching pods on
// every node and in every topology domain, and brings them up to date from
// the nodes whose pods changed, so that the replicas of one template cost one
// count of the cluster, not one per replica.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "tightpack/cluster.hpp"
#include "tightpack/framework/plugin.hpp"
#include "tightpack/labels.hpp"
#include "tightpack/model.hpp"
#include "tightpack/node_affinity_terms.hpp"
#include "tightpack/objects.hpp"
#include "tightpack/pointer_memo.hpp"
#include "tightpack/profile.hpp"

namespace tightpack::plugins {

inline constexpr const char* kSpreadReason = "node(s) didn't match pod topology spread constraints";
inline constexpr const char* kSpreadMissingLabelReason =
    "node(s) didn't match pod topology spread constraints (missing required label)";
// NodeStatus::detail of a PodTopologySpread rejection.
inline constexpr uint8_t kSpreadSkew = 0;
inline constexpr uint8_t kSpreadMissingLabel = 1;

// topologySpreadConstraint: one constraint with its selector built.
struct SpreadConstraint {
  int32_t max_skew = 1;
  std::string topology_key;
  Selector selector;
  int32_t min_domains = 1;
  bool honor_node_affinity = true;  // nodeAffinityPolicy, Honor by default
  bool honor_node_taints = false;   // nodeTaintsPolicy, Ignore by default

  bool operator==(const SpreadConstraint&) const = default;
};

// helper.DefaultSelector: the selectors of the Services in the pod's
// namespace that select it, merged, plus the selector of the ReplicaSet,
// StatefulSet or ReplicationController that controls it.
Selector default_selector(const Pod& pod, const ApiObjects& objects, const OwnerIndex& owners);

// The constraints of one kind (hard: DoNotSchedule, for the filter; soft:
// ScheduleAnyway, for the score): the pod's own, with matchLabelKeys merged
// into their selectors, or, when it has none, the profile's defaults with the
// default selector (none when that selects nothing).
std::vector<SpreadConstraint> spread_constraints(const Pod& pod, const SpreadArgs& args,
                                                 const ApiObjects& objects,
                                                 const OwnerIndex& owners, bool hard);

// PodTopologySpread's CycleState entry: what its PreFilter and PreScore keep
// of the pod to count the cluster with. No constraint of either kind: the
// plugin neither filters nor scores the pod.
struct SpreadState {
  std::vector<SpreadConstraint> hard;  // DoNotSchedule, when the profile filters
  std::vector<SpreadConstraint> soft;  // ScheduleAnyway, when it scores
  // Nodes without every soft constraint's topology key are not scored
  // (false only for the system defaults).
  bool require_all_soft = true;
  // The pod's namespace, labels and tolerations, and its required node
  // affinity (the node inclusion policies).
  std::string ns;
  Labels labels;
  std::vector<Toleration> tolerations;
  std::optional<RequiredNodeAffinity> required;
};

class SpreadCounts {
 public:
  SpreadCounts(const Cluster& c, const SpreadState& s);

  bool filters() const { return !hard_.empty(); }
  bool scores() const { return !soft_.empty(); }

  // Recounts the nodes whose pods changed since the last call; nothing to do
  // when the cluster did not change.
  void sync(const Cluster& c);

  // Filter: true when the node passes; else `detail` says why (kSpreadSkew:
  // Unschedulable, kSpreadMissingLabel: UnschedulableAndUnresolvable).
  // `relief` takes pods off the node first (DefaultPreemption's RemovePod).
  bool admits(const Cluster& c, NodeIndex n, const Relief* relief, uint8_t& detail) const;

  // PreScore and Score over the feasible nodes: each node's raw score, or
  // kNotScored for a node that lacks a topology key (IgnoredNodes).
  static constexpr int64_t kNotScored = -1;
  void raw_scores(const Cluster& c, const std::vector<NodeIndex>& feasible,
                  std::vector<int64_t>& out) const;

  // For simulate's replica index, which groups nodes that admit and score
  // alike. A node's signature: per constraint (hard, then soft) its domain,
  // or, for a constraint over kubernetes.io/hostname, the count it reads (its
  // domain's for a hard one, its own for a soft one), kNoDomain where the node
  // lacks the key; last, 1 when the node is not scored (kNotScored). Nodes of
  // equal signatures get the same verdict and the same raw score, whatever
  // the counts are.
  size_t signature_size() const { return hard_.size() + soft_.size() + 1; }
  void signature(NodeIndex n, int64_t* out) const;
  // The nodes whose signature a change of node n's pods may change: n, and
  // the nodes sharing a hostname domain with it.
  void signature_dependents(NodeIndex n, std::vector<NodeIndex>& out) const;
  // admits() of the nodes of a signature.
  bool admits_signature(const int64_t* signature, uint8_t& detail) const;
  // PreScore's topology weights, from the scored feasible nodes: per soft
  // constraint, for one over kubernetes.io/hostname their number, else how
  // many distinct domains they are in (a node without the key being in "").
  // `signatures` are those of the feasible nodes (one per group), `nodes`
  // how many nodes have each.
  std::vector<double> topology_weights(const std::vector<const int64_t*>& signatures,
                                       const std::vector<size_t>& nodes) const;
  // The raw score of a signature's nodes with those weights (not for
  // signatures of unscored nodes).
  int64_t raw_score(const int64_t* signature, const std::vector<double>& weights) const;
  // sync() for one node whose pods changed.
  void sync_node(const Cluster& c, NodeIndex n);

 private:
  // One constraint over the nodes: each node's domain (its label value,
  // interned; kNoDomain when it lacks the key), whether its pods count, and
  // the matching pods per domain.
  static constexpr int32_t kNoDomain = -1;
  struct Domains {
    SpreadConstraint constraint;
    size_t selector = 0;  // into selectors_
    bool hostname = false;
    std::vector<int32_t> domain;   // per node
    std::vector<uint8_t> counted;  // per node
    std::vector<int64_t> total;    // per domain
    std::vector<uint8_t> listed;   // per domain: a counted node has it (TpValueToMatchNum's keys)
    size_t listed_count = 0;
    int64_t min_total = 0;  // over listed domains, after sync()
    bool self_match = false;
  };
  struct Matcher {
    Selector selector;
    mutable PointerMemo<PodMeta, uint8_t> memo;  // 1: no, 2: yes
    std::vector<int64_t> per_node;
  };

  int64_t count(const Matcher& m, const std::vector<BoundPod>& pods) const;
  void recount(const Cluster& c, NodeIndex i);
  void update_min(Domains& d) const;
  // Per hard constraint over kubernetes.io/hostname, the nodes of each domain
  // (built when first asked).
  mutable std::vector<std::vector<std::vector<NodeIndex>>> nodes_of_domain_;
  bool matches(const Matcher& m, const BoundPod& p) const;
  size_t matcher_for(const Selector& s);
  void build(const Cluster& c, const std::vector<SpreadConstraint>& list, bool hard,
             bool require_all, const RequiredNodeAffinity& required, std::vector<Domains>& out);

  std::string ns_;
  Labels pod_labels_;
  std::vector<Toleration> tolerations_;
  std::vector<Matcher> matchers_;
  std::vector<Domains> hard_, soft_;
  bool require_all_soft_ = true;
  std::vector<uint8_t> has_all_soft_keys_;  // per node
  std::vector<uint32_t> generation_;        // per node, as counted
  uint64_t instance_ = 0, epoch_ = UINT64_MAX;
};

struct PodTopologySpreadPlugin {
  static constexpr Plugin kId = Plugin::PodTopologySpread;
  using State = SpreadState;
  using Counts = SpreadCounts;
  static State prepare(const PlanContext& ctx);
  static Counts count(const State& s, const Cluster& c) { return SpreadCounts(c, s); }
  static bool scores(const State& s) { return !s.soft.empty(); }  // PreScore skips otherwise
  static bool domain_filters(const State& s) { return !s.hard.empty(); }
  static bool domain_may_reject(const State& s, Counts&, const Cluster&) {
    return domain_filters(s);
  }
  static std::optional<NodeStatus> domain_filter(const State& s, Counts& counts, const Cluster& c,
                                                 NodeIndex n, const Relief* relief);
  static void domain_scores(const State& s, Counts& counts, const Cluster& c,
                            const std::vector<NodeIndex>& feasible, std::vector<int64_t>& out);
  static bool reads_domains(const State& s, bool weighted, auto&& /*counts*/) {
    return !s.hard.empty() || (weighted && !s.soft.empty());
  }
  static std::vector<std::string> reasons(const State&, const Cluster&, NodeIndex,
                                          const NodeStatus& status, const ReasonContext&) {
    return {status.detail == kSpreadMissingLabel ? kSpreadMissingLabelReason : kSpreadReason};
  }
};

// topologyNormalizingWeight and scoreForCount, in float64 as upstream.
double spread_topology_weight(size_t size);
double spread_score_for_count(int64_t count, int32_t max_skew, double topology_weight);

// PodTopologySpread.NormalizeScore over raw scores (kNotScored: 0).
void normalize_spread_scores(std::vector<int64_t>& scores);

}  // namespace tightpack::plugins
