// NodeUnschedulable: a cordoned node (spec.unschedulable) admits only a pod
// that tolerates the node.kubernetes.io/unschedulable:NoSchedule taint.
#pragma once

#include <string>
#include <vector>

#include "tightpack/framework/plugin.hpp"
#include "tightpack/model.hpp"

namespace tightpack::plugins {

inline constexpr const char* kUnschedulableReason = "node(s) were unschedulable";

bool tolerates_unschedulable(const std::vector<Toleration>& tolerations);

// The filter's verdict: false rejects the node (UnschedulableAndUnresolvable).
inline bool unschedulable_admits(const Node& node, bool pod_tolerates_unschedulable) {
  return !node.unschedulable || pod_tolerates_unschedulable;
}

struct NodeUnschedulablePlugin {
  static constexpr Plugin kId = Plugin::NodeUnschedulable;
  struct State {
    // The pod does not tolerate cordoned nodes and some node may be one (a
    // first-fit plan does not look for them first).
    bool rejects_cordoned = false;
  };
  static State prepare(const PlanContext& ctx);
  static bool can_reject(const State& s) { return s.rejects_cordoned; }
  static NodeStatus filter(const State&, const Cluster& c, NodeIndex n) {
    return unschedulable_admits(c.node(n), false)
               ? NodeStatus{}
               : NodeStatus{Code::UnschedulableAndUnresolvable, kId};
  }
  static std::vector<std::string> reasons(const State&, const Cluster&, NodeIndex,
                                          const NodeStatus&, const ReasonContext&) {
    return {kUnschedulableReason};
  }
};

}  // namespace tightpack::plugins
