// NodeAffinity: spec.nodeSelector plus required node affinity (filter), the
// metadata.name restriction its PreFilter derives from matchFields, and
// preferred node affinity (score). The terms' matching, with the semantics of
// k8s.io/component-helpers/scheduling/corev1/nodeaffinity, is
// node_affinity_terms.hpp, which other parts of the engine read too.
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
#include "tightpack/node_affinity_terms.hpp"

namespace tightpack::plugins {

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
