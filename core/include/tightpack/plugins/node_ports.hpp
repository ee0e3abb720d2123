// NodePorts: a wanted host port conflicts with a used one on the same protocol
// and port when either binds 0.0.0.0 or both bind the same address
// (framework.HostPortInfo.CheckConflict).
#pragma once

#include <string>
#include <vector>

#include "tightpack/cluster.hpp"
#include "tightpack/framework/plugin.hpp"

namespace tightpack::plugins {

bool ports_conflict(const std::vector<HostPort>& wanted, const std::vector<HostPort>& used);

inline constexpr const char* kNodePortsReason =
    "node(s) didn't have free ports for the requested pod ports";

struct NodePortsPlugin {
  static constexpr Plugin kId = Plugin::NodePorts;
  struct State {
    std::vector<HostPort> wanted;  // the pod's host ports
  };
  static State prepare(const PlanContext& ctx) { return State{ctx.usage.host_ports}; }
  // PreFilter skips a pod without host ports.
  static bool can_reject(const State& s) { return !s.wanted.empty(); }
  static NodeStatus filter(const State& s, const Cluster& c, NodeIndex n, const Relief* relief);
  static std::vector<std::string> reasons(const State&, const Cluster&, NodeIndex,
                                          const NodeStatus&, const ReasonContext&) {
    return {kNodePortsReason};
  }
};

}  // namespace tightpack::plugins
