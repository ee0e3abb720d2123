// A pod's node selector and node affinity terms as
// k8s.io/component-helpers/scheduling/corev1/nodeaffinity reads them: the one
// place their matching semantics live. NodeAffinity filters and scores with
// them; PodTopologySpread counts the nodes the required terms admit; the
// volume plugins match a PersistentVolume's node affinity; the advice and
// the autoscaler's templates ask the same questions.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "tightpack/cluster.hpp"
#include "tightpack/model.hpp"

namespace tightpack {

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

}  // namespace tightpack
