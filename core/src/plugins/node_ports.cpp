#include "tightpack/plugins/node_ports.hpp"

#include <algorithm>

namespace tightpack::plugins {

bool ports_conflict(const std::vector<HostPort>& wanted, const std::vector<HostPort>& used) {
  for (const auto& w : wanted) {
    for (const auto& u : used) {
      if (u.port != w.port || u.protocol != w.protocol) continue;
      if (w.ip == "0.0.0.0" || u.ip == "0.0.0.0" || u.ip == w.ip) return true;
    }
  }
  return false;
}

NodeStatus NodePortsPlugin::filter(const State& s, const Cluster& c, NodeIndex n,
                                   const Relief* relief) {
  bool conflict;
  if (relief && !relief->ports.empty()) {
    std::vector<HostPort> used = c.used_ports(n);
    for (const auto& gone : relief->ports) {
      auto it = std::find(used.begin(), used.end(), gone);
      if (it != used.end()) used.erase(it);
    }
    conflict = ports_conflict(s.wanted, used);
  } else {
    conflict = ports_conflict(s.wanted, c.used_ports(n));
  }
  if (conflict) return NodeStatus{Code::Unschedulable, kId};
  return {};
}

}  // namespace tightpack::plugins
