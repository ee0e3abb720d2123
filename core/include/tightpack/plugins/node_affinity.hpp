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

#include "tightpack/model.hpp"

namespace tightpack::plugins {

// One parsed nodeSelectorTerm. A term that failed to parse (bad operator, wrong
// number of values, non-integer Gt/Lt value) matches no node, as upstream.
class NodeSelectorTermMatcher {
 public:
  explicit NodeSelectorTermMatcher(const NodeSelectorTerm& term);
  bool matches(const Node& node) const;

 private:
  NodeSelectorTerm term_;
  bool valid_ = true;
};

class RequiredNodeAffinity {
 public:
  explicit RequiredNodeAffinity(const Pod& pod);
  bool matches(const Node& node) const;
  bool trivial() const { return node_selector_.empty() && !terms_; }

 private:
  Labels node_selector_;
  std::optional<std::vector<NodeSelectorTermMatcher>> terms_;
};

class PreferredNodeAffinity {
 public:
  explicit PreferredNodeAffinity(const Pod& pod);
  int64_t score(const Node& node) const;  // sum of the weights of matching terms
  bool empty() const { return terms_.empty(); }

 private:
  std::vector<std::pair<int64_t, NodeSelectorTermMatcher>> terms_;
};

// NodeAffinity.PreFilter: the node names that matchFields on metadata.name
// allows, nothing when every node may match, or a conflict.
struct NodeNameRestriction {
  bool conflict = false;
  std::optional<std::set<std::string>> names;
};
NodeNameRestriction node_name_restriction(const Pod& pod);

inline constexpr const char* kNodeAffinityReason = "node(s) didn't match Pod's node affinity/selector";
inline constexpr const char* kNodeAffinityConflictReason = "pod affinity terms conflict";

}  // namespace tightpack::plugins
