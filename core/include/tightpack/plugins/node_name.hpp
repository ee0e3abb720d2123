// NodeName: a pod that names its node (spec.nodeName) fits that node only.
#pragma once

#include <string>

namespace tightpack::plugins {

inline constexpr const char* kNodeNameReason = "node(s) didn't match the requested node name";

// The filter's verdict: false rejects the node (UnschedulableAndUnresolvable).
inline bool node_name_admits(const std::string& pod_node_name, const std::string& node) {
  return pod_node_name.empty() || pod_node_name == node;
}

}  // namespace tightpack::plugins
