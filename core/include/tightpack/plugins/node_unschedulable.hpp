// NodeUnschedulable: a cordoned node (spec.unschedulable) admits only a pod
// that tolerates the node.kubernetes.io/unschedulable:NoSchedule taint.
#pragma once

#include <vector>

#include "tightpack/model.hpp"

namespace tightpack::plugins {

inline constexpr const char* kUnschedulableReason = "node(s) were unschedulable";

bool tolerates_unschedulable(const std::vector<Toleration>& tolerations);

// The filter's verdict: false rejects the node (UnschedulableAndUnresolvable).
inline bool unschedulable_admits(const Node& node, bool pod_tolerates_unschedulable) {
  return !node.unschedulable || pod_tolerates_unschedulable;
}

}  // namespace tightpack::plugins
