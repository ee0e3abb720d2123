// cluster-autoscaler's utilization package: a node's share of its allocatable in use.
#pragma once

#include <string>
#include <vector>

#include "tightpack/model.hpp"

namespace tightpack::autoscaler {

struct Utilization {
  double cpu = 0;
  double memory = 0;
  double gpu = 0;
  bool gpu_node = false;
  std::string resource;  // the deciding resource
  double value = 0;
};

// utilization.Calculate: Σ podutils.PodRequests (init containers, sidecars,
// overhead; DaemonSet and mirror pods included) over allocatable, max of cpu
// and memory; GPU nodes by GPU alone.
Utilization node_utilization(const Node& node, const std::vector<const Pod*>& pods,
                             const std::string& gpu_label);

}  // namespace tightpack::autoscaler
