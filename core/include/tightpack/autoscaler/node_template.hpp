// The node a group would add (CA's node infos provider and template sanitizing).
#pragma once

#include <string>
#include <vector>

#include "tightpack/autoscaler/scenario.hpp"
#include "tightpack/model.hpp"

namespace tightpack::autoscaler {

// A node of a group as CA imagines a new one: the node and the pods it
// starts with (DaemonSet and mirror pods).
struct NodeTemplate {
  Node node;
  std::vector<Pod> pods;
};

// From the first ready node of the group, else the group's template with its
// template pods and the DaemonSet pods that would run on it.
NodeTemplate group_template(const AutoscaleScenario& s, const NodeGroupSpec& g);

// A copy of a node under a new name, its hostname label following (as CA's
// sanitizing deep copy does for every node it imagines).
Node renamed_copy(const Node& from, std::string name);

// daemon.NodeShouldRunDaemonPod: the node selector, required node affinity and
// NoSchedule/NoExecute taints admit the pod (resources do not matter).
bool daemon_set_runs_on(const Pod& pod, const Node& node);

}  // namespace tightpack::autoscaler
