#include "tightpack/plugins/node_ports.hpp"

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

}  // namespace tightpack::plugins
