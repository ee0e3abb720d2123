// InterPodAffinity (pkg/scheduler/framework/plugins/interpodaffinity, as of
// kube-scheduler v1.37.2, with InterPodAffinityHostnameFastPath off as it is
// by default):
// - Filter: the incoming pod's required affinity (UnschedulableAndUnresolvable
//   where no pod in the node's domain matches all its terms, unless no pod
//   anywhere does and the pod matches them itself), its required
//   anti-affinity and the bound pods' required anti-affinity (Unschedulable
//   where a matching pod shares the node's domain);
// - Score: the preferred terms of both sides and the bound pods' required
//   affinity terms (hardPodAffinityWeight), summed per topology domain and
//   normalised between the lowest and the highest raw score of the feasible
//   nodes.
//
// AffinityCounts keeps, for one incoming pod, what kube-scheduler's PreFilter
// and PreScore build by walking every bound pod, per node, and brings it up
// to date from the nodes whose pods changed (as SpreadCounts does), so that
// the replicas of one template cost one walk of the cluster, not one each.
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "tightpack/affinity_terms.hpp"
#include "tightpack/cluster.hpp"
#include "tightpack/framework/plugin.hpp"
#include "tightpack/labels.hpp"
#include "tightpack/model.hpp"
#include "tightpack/objects.hpp"
#include "tightpack/pointer_memo.hpp"
#include "tightpack/profile.hpp"

namespace tightpack::plugins {

inline constexpr const char* kAffinityReason = "node(s) didn't match pod affinity rules";
inline constexpr const char* kAntiAffinityReason = "node(s) didn't match pod anti-affinity rules";
inline constexpr const char* kExistingAntiAffinityReason =
    "node(s) didn't satisfy existing pods anti-affinity rules";
// NodeStatus::detail of an InterPodAffinity rejection.
inline constexpr uint8_t kAffinityNotMatched = 0;
inline constexpr uint8_t kAntiAffinityNotMatched = 1;
inline constexpr uint8_t kExistingAntiAffinityNotMatched = 2;

// InterPodAffinity's CycleState entry: the pod as its PreFilter and
// PreScore count the cluster for it. No `meta`: the profile runs neither.
struct InterPodAffinityState {
  std::shared_ptr<const AffinityTerms> own;  // the pod's terms; null for none
  std::shared_ptr<const PodMeta> meta;       // its namespace and labels
  InterPodAffinityArgs args;
  // Whether the profile runs the plugin's Filter, and its Score (false too
  // when PreScore always skips: the profile ignores the bound pods'
  // preferred terms and the pod has none).
  bool filters = false, scores = false;
  int kube_minor = 37;  // the release whose matching to follow (see own_term_matches)
};

class AffinityCounts {
 public:
  AffinityCounts(const Cluster& c, const InterPodAffinityState& s);

  // Whether placing copies of this pod can move the plugin's verdicts or
  // scores: only when the pod has terms of its own.
  bool reads_domains() const { return own_ != nullptr && (filters_ || scores_); }

  // Recounts the nodes whose pods changed since the last call (for a pod
  // without terms, only those where a pod with terms came or went).
  void sync(const Cluster& c);

  // Whether admits() can say no to some node without victims taken off
  // (after sync): the pod has required affinity, or a pod its required
  // anti-affinity selects is bound, or a bound pod's required anti-affinity
  // selects it.
  bool may_reject() const {
    return filters_ && ((own_ && !own_->required_affinity.empty()) || (own_ && anti_nonzero_ > 0) ||
                        existing_nonzero_ > 0);
  }

  // Filter: true when the node passes; else `detail` says why
  // (kAffinityNotMatched: UnschedulableAndUnresolvable; the two others:
  // Unschedulable). `relief` takes pods off the node first (RemovePod).
  bool admits(const Cluster& c, NodeIndex n, const Relief* relief, uint8_t& detail) const;

  // PreScore's Skip: no term of either side matched a pod on a node with
  // its topology key, or the pod has no preferred terms and the profile
  // ignores those of the bound pods.
  bool score_skipped() const { return !scores_ || score_hits_ == 0; }
  // Score over the feasible nodes, then NormalizeScore.
  void normalised_scores(const std::vector<NodeIndex>& feasible, std::vector<int64_t>& out) const;

 private:
  // A topology pair (key, value) as (index into keys_, interned value).
  static uint64_t pair(uint32_t key, StrId value) { return (uint64_t{key} << 32) | value; }
  static uint32_t key_of(uint64_t pair) { return static_cast<uint32_t>(pair >> 32); }
  // Topology pair -> count, open addressing with linear probing: hostname
  // terms add one pair per node, and a map that allocates each entry spent
  // most of an anti-affinity decision in malloc and free.
  class Counts {
   public:
    int64_t& operator[](uint64_t key);
    const int64_t* find(uint64_t key) const;
    void erase(uint64_t key);
    void clear();

   private:
    static constexpr uint64_t kEmpty =
        ~uint64_t{0};  // no pair: key indices stay far below 2^32 - 1
    static size_t hash(uint64_t k) {
      k ^= k >> 33;
      k *= 0xff51afd7ed558ccdULL;
      k ^= k >> 33;
      return static_cast<size_t>(k);
    }
    void grow();
    std::vector<std::pair<uint64_t, int64_t>> slots_;
    size_t size_ = 0;
  };
  // What one node adds to a map: distinct pairs with their amounts.
  using Contribution = std::vector<std::pair<uint64_t, int64_t>>;
  struct NodeState {
    Contribution affinity, anti_affinity, existing, score;
    int64_t score_hits = 0;
    bool empty() const {
      return affinity.empty() && anti_affinity.empty() && existing.empty() && score.empty() &&
             score_hits == 0;
    }
  };
  // Which of the incoming pod's terms a bound pod's namespace and labels
  // match (memoised per PodMeta), and which of a bound pod's terms the
  // incoming pod matches (per AffinityTerms), with those terms' keys.
  struct OwnMatches {
    bool all_required_affinity = false;
    // Into own_bits_: one byte per required anti-affinity term, then per
    // preferred affinity term, then per preferred anti-affinity term (one
    // allocation for all the memo's entries, not three per entry).
    uint32_t bits = 0;
  };
  struct TheirMatches {
    std::shared_ptr<const AffinityTerms> keep;
    std::vector<uint8_t> required_affinity, required_anti_affinity, preferred_affinity,
        preferred_anti_affinity;
    std::vector<uint32_t> required_affinity_keys, required_anti_keys, preferred_affinity_keys,
        preferred_anti_keys;
  };

  uint32_t key_id(const std::string& key) const;
  bool own_term_matches(const AffinityTerm& t, const PodMeta& pod,
                        const Labels& namespace_labels) const;
  bool own_terms_all_match(const std::vector<AffinityTerm>& terms, const PodMeta& pod,
                           const Labels& namespace_labels) const;
  StrId value(uint32_t key, NodeIndex n) const {
    const std::vector<StrId>* column = columns_[key];
    return column ? (*column)[n] : kNoStr;
  }
  OwnMatches own_matches(const std::shared_ptr<const PodMeta>& meta) const;  // memoised
  OwnMatches match_own(const PodMeta& meta) const;
  const Labels& labels_of_namespace(const std::string& ns) const;
  const TheirMatches& their_matches(const std::shared_ptr<const AffinityTerms>& terms) const;
  // What the pods on node n add to each map.
  NodeState count_node(const Cluster& c, NodeIndex n) const;
  // What one pod on node n adds to the filter maps: for a node's count and
  // for a preemption's victims (RemovePod). Its part through the incoming
  // pod's terms (own) and through its own terms (their).
  void filter_contribution(NodeIndex n, const BoundPod& p, Contribution& affinity,
                           Contribution& anti_affinity, Contribution& existing) const;
  void own_filter(NodeIndex n, const OwnMatches& m, Contribution& affinity,
                  Contribution& anti_affinity) const;
  void their_filter(NodeIndex n, const BoundPod& p, Contribution& existing) const;
  // What one pod on node n adds to the score map.
  void own_score(NodeIndex n, const OwnMatches& m, NodeState& out) const;
  void their_score(NodeIndex n, const BoundPod& p, NodeState& out) const;
  // What a pod adds through the incoming pod's terms (m: which match it),
  // and what node n's pods with terms add through theirs.
  void count_own(NodeIndex n, const OwnMatches& m, NodeState& s) const;
  void count_pods_with_terms(const Cluster& c, NodeIndex n, NodeState& s) const;
  static void apply(Counts& counts, size_t& nonzero, const Contribution& contribution,
                    int64_t sign);
  // The first count, when every term of the pod's own that can select
  // anything has an In requirement on one key: the pods its terms can
  // select are those the cluster's label index lists under that key's
  // values, so only those and the pods with terms are looked at. False when
  // the terms have no such key.
  bool count_from_label_index(const Cluster& c);
  // Otherwise, before the first count: marks as counted the nodes none of
  // the pod's selectors can match a pod on (Cluster::mark_selector_candidates).
  void skip_nodes_without_candidates(const Cluster& c);
  // Counts node n as `s`.
  void record(NodeIndex n, NodeState s);
  void apply(const NodeState& s, int64_t sign);

  const Cluster* cluster_ = nullptr;
  std::shared_ptr<const AffinityTerms> own_;
  std::shared_ptr<const PodMeta> meta_;
  Labels namespace_labels_;  // the incoming pod's namespace's
  InterPodAffinityArgs args_;
  bool filters_ = false, scores_ = false;
  bool has_preferred_ = false;
  bool self_match_ = false;  // the pod matches all its required affinity terms
  bool legacy_namespace_selectors_ = false;
  std::vector<uint32_t> required_affinity_keys_, required_anti_keys_, preferred_affinity_keys_,
      preferred_anti_keys_;
  // Interned topology keys and the nodes' values of each; grown as bound
  // pods' terms name new keys.
  mutable std::vector<std::string> keys_;
  mutable std::vector<const std::vector<StrId>*> columns_;
  std::vector<uint8_t> key_in_existing_, key_in_score_;  // per key: the map has pairs of it
  mutable PointerMemo<PodMeta, OwnMatches> own_memo_;
  mutable std::vector<uint8_t> own_bits_;
  bool own_reads_namespaces_ = false;  // some term has a namespace selector
  // Namespace labels by namespace; a deque, so that a reference handed out
  // stays valid when more are added.
  mutable std::deque<std::pair<std::string, Labels>> namespace_labels_memo_;
  mutable std::unordered_map<const AffinityTerms*, TheirMatches> their_memo_;
  std::vector<uint32_t> generation_;                  // per node, as counted
  std::unordered_map<NodeIndex, NodeState> counted_;  // nodes that add something
  Counts affinity_, anti_affinity_, existing_, score_;
  size_t affinity_nonzero_ = 0, anti_nonzero_ = 0, existing_nonzero_ = 0;
  int64_t score_hits_ = 0;
  uint64_t instance_ = 0, epoch_ = UINT64_MAX;
};

struct InterPodAffinityPlugin {
  static constexpr Plugin kId = Plugin::InterPodAffinity;
  using State = InterPodAffinityState;
  using Counts = AffinityCounts;
  // A term's namespaceSelector on namespace labels, the pod's or a bound
  // pod's, when the input does not give the cluster's namespaces.
  static std::optional<std::string> unmodelled_input(const Cluster& c, const Profile& profile,
                                                     const Pod& pod, const AffinityTerms* terms);
  static State prepare(const PlanContext& ctx);
  static Counts count(const State& s, const Cluster& c) { return AffinityCounts(c, s); }
  // False when its PreScore skips whatever the counts are (else they say).
  static bool scores(const State& s) { return s.scores; }
  static bool domain_filters(const State& s) { return s.filters; }
  static bool domain_may_reject(const State&, Counts& counts, const Cluster&) {
    return counts.may_reject();
  }
  static std::optional<NodeStatus> domain_filter(const State& s, Counts& counts, const Cluster& c,
                                                 NodeIndex n, const Relief* relief);
  static void domain_scores(const State&, Counts& counts, const Cluster&,
                            const std::vector<NodeIndex>& feasible, std::vector<int64_t>& out) {
    if (!counts.score_skipped()) counts.normalised_scores(feasible, out);
  }
  // Its scores of a pod without terms do not move when copies of the pod
  // are placed, but they are normalised over the feasible nodes, which the
  // replica index does not do.
  static bool reads_domains(const State& s, bool weighted, auto&& counts) {
    return (s.own && (s.filters || s.scores)) ||
           (weighted && s.scores && !counts().score_skipped());
  }
  static std::vector<std::string> reasons(const State&, const Cluster&, NodeIndex,
                                          const NodeStatus& status, const ReasonContext&) {
    return {status.detail == kAffinityNotMatched       ? kAffinityReason
            : status.detail == kAntiAffinityNotMatched ? kAntiAffinityReason
                                                       : kExistingAntiAffinityReason};
  }
};

}  // namespace tightpack::plugins
