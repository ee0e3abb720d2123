// NodePorts: a wanted host port conflicts with a used one on the same protocol
// and port when either binds 0.0.0.0 or both bind the same address
// (framework.HostPortInfo.CheckConflict).
#pragma once

#include <vector>

#include "tightpack/cluster.hpp"

namespace tightpack::plugins {

bool ports_conflict(const std::vector<HostPort>& wanted, const std::vector<HostPort>& used);

inline constexpr const char* kNodePortsReason =
    "node(s) didn't have free ports for the requested pod ports";

}  // namespace tightpack::plugins
