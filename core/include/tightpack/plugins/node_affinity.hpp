// NodeAffinity: spec.nodeSelector plus required node affinity (filter), the
// metadata.name restriction its PreFilter derives from matchFields, and
// preferred node affinity (score), with the semantics of
// k8s.io/component-helpers/scheduling/corev1/nodeaffinity.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "tightpack/cluster.hpp"
#include "tightpack/error.hpp"
#include "tightpack/framework/plugin.hpp"
#include "tightpack/model.hpp"

namespace tightpack::plugins {

// labels.Requirement.Matches for one nodeSelectorTerm requirement, given the
// node's value for its key (nullptr when the node lacks the label). The one
// place these semantics live; the matchers below only find the value.
bool requirement_matches(const NodeSelectorRequirement& r, const std::string* value);

// One parsed nodeSelectorTerm. A term that failed to parse (bad operator, wrong
// number of values, non-integer Gt/Lt value) matches no node, as upstream.
// Matching works on a Node, or on a node of a Cluster after bind(), where a
// label is a column lookup instead of a search.
class NodeSelectorTermMatcher {
 public:
  explicit NodeSelectorTermMatcher(const NodeSelectorTerm& term);
  void bind(const Cluster& cluster);
  bool matches(const Node& node) const;
  bool matches(const Cluster& cluster, NodeIndex n) const;
  // As matched against a node that has only these labels and no name
  // (volume.CheckNodeAffinity: a PersistentVolume's node affinity).
  bool matches_labels(const Labels& labels) const;
  bool valid() const { return valid_; }
  // What the verdict depends on: these label keys and, with fields, the node name.
  void collect_keys(std::vector<std::string>& keys) const;
  bool uses_fields() const { return !term_.match_fields.empty(); }

 private:
  template <class ValueOf>
  bool match_with(ValueOf&& value_of, std::string_view node_name) const;

  NodeSelectorTerm term_;
  bool valid_ = true;
  std::vector<const std::vector<StrId>*> columns_;  // per match expression, after bind()
};

class RequiredNodeAffinity {
 public:
  explicit RequiredNodeAffinity(const Pod& pod);
  void bind(const Cluster& cluster);
  bool matches(const Node& node) const;
  bool matches(const Cluster& cluster, NodeIndex n) const;
  bool trivial() const { return node_selector_.empty() && !terms_; }
  void collect_keys(std::vector<std::string>& keys) const;
  bool uses_fields() const;

 private:
  Labels node_selector_;
  std::vector<const std::vector<StrId>*> selector_columns_;
  std::optional<std::vector<NodeSelectorTermMatcher>> terms_;
};

class PreferredNodeAffinity {
 public:
  explicit PreferredNodeAffinity(const Pod& pod);
  void bind(const Cluster& cluster);
  int64_t score(const Node& node) const;  // sum of the weights of matching terms
  int64_t score(const Cluster& cluster, NodeIndex n) const;
  bool empty() const { return terms_.empty(); }
  // Index (in spec) of the first term that does not parse, or -1. kube-scheduler
  // fails the scheduling attempt then (NewPreferredSchedulingTerms).
  int first_invalid_term() const { return first_invalid_; }
  void collect_keys(std::vector<std::string>& keys) const;
  bool uses_fields() const;

 private:
  std::vector<std::pair<int64_t, NodeSelectorTermMatcher>> terms_;
  int first_invalid_ = -1;
};

// NodeAffinity.PreFilter: the node names that matchFields on metadata.name
// allows, nothing when every node may match, or a conflict.
using NodeNameRestriction = PreFilterNodes;
NodeNameRestriction node_name_restriction(const Pod& pod);

inline constexpr const char* kNodeAffinityReason =
    "node(s) didn't match Pod's node affinity/selector";
inline constexpr const char* kNodeAffinityConflictReason = "pod affinity terms conflict";

struct NodeAffinityPlugin {
  static constexpr Plugin kId = Plugin::NodeAffinity;
  struct State {
    NodeNameRestriction restriction;  // PreFilter; when the profile filters with it
    // Filter, when the pod's required affinity is not trivial: per node
    // (judged once per label combination), or, in a first-fit plan, the
    // matcher for the nodes asked.
    std::vector<uint8_t> match;
    std::optional<RequiredNodeAffinity> required;
    // Score: the raw sum of matching preferred terms' weights per node;
    // empty when the pod has none or the profile does not score with it.
    std::vector<int64_t> preferred;
  };
  // An error when a preferred term does not parse and the profile scores
  // with the plugin: kube-scheduler's PreScore fails the pod then.
  static Result<State> prepare(const PlanContext& ctx);
  static PreFilterNodes prefilter_nodes(const State& s, int) { return s.restriction; }
  static bool can_reject(const State& s) { return s.required || !s.match.empty(); }
  static NodeStatus filter(const State& s, const Cluster& c, NodeIndex n) {
    const bool admits = s.required ? s.required->matches(c, n) : s.match.empty() || s.match[n];
    return admits ? NodeStatus{} : NodeStatus{Code::UnschedulableAndUnresolvable, kId};
  }
  static int64_t score(const State& s, const Cluster&, NodeIndex n) {
    return s.preferred.empty() ? 0 : s.preferred[n];
  }
  static std::vector<std::string> reasons(const State&, const Cluster&, NodeIndex,
                                          const NodeStatus&, const ReasonContext& ctx) {
    return {ctx.prefilter_conflict ? kNodeAffinityConflictReason : kNodeAffinityReason};
  }
};

}  // namespace tightpack::plugins
