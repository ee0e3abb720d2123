// NodeName: a pod that names its node (spec.nodeName) fits that node only.
#pragma once

#include <string>
#include <vector>

#include "tightpack/framework/plugin.hpp"
#include "tightpack/kube_release.hpp"

namespace tightpack::plugins {

inline constexpr const char* kNodeNameReason = "node(s) didn't match the requested node name";

// The filter's verdict: false rejects the node (UnschedulableAndUnresolvable).
inline bool node_name_admits(const std::string& pod_node_name, const std::string& node) {
  return pod_node_name.empty() || pod_node_name == node;
}

struct NodeNamePlugin {
  static constexpr Plugin kId = Plugin::NodeName;
  struct State {
    std::string node_name;  // spec.nodeName, when the profile filters with the plugin
  };
  static State prepare(const PlanContext& ctx) {
    return ctx.profile.filter_enabled(kId) ? State{ctx.pod.node_name} : State{};
  }
  // v1.37's PreFilter: only the named node is filtered.
  static PreFilterNodes prefilter_nodes(const State& s, int kube_minor) {
    if (!kube_release::node_name_prefilter(kube_minor) || s.node_name.empty()) return {};
    return {false, std::set<std::string>{s.node_name}};
  }
  static bool can_reject(const State& s) { return !s.node_name.empty(); }
  static NodeStatus filter(const State& s, const Cluster& c, NodeIndex n) {
    return node_name_admits(s.node_name, c.name(n))
               ? NodeStatus{}
               : NodeStatus{Code::UnschedulableAndUnresolvable, kId};
  }
  static std::vector<std::string> reasons(const State&, const Cluster&, NodeIndex,
                                          const NodeStatus&, const ReasonContext&) {
    return {kNodeNameReason};
  }
};

}  // namespace tightpack::plugins
