// A filter's verdict on one node (framework.Status of a Filter plugin): the
// code, the plugin that gave it, and which of the plugin's reasons.
#pragma once

#include <cstdint>

#include "tightpack/plugins/registry.hpp"

namespace tightpack {

enum class Code : uint8_t { Success, Unschedulable, UnschedulableAndUnresolvable };

struct NodeStatus {
  Code code = Code::Success;
  Plugin plugin = Plugin::kCount;
  int16_t taint = -1;  // TaintToleration: index of the untolerated taint
  // Which of the plugin's reasons: PodTopologySpread's, VolumeBinding's set
  // of conflicts, VolumeRestrictions' and NodeVolumeLimits' (a driver's
  // index).
  uint8_t detail = 0;
  bool ok() const { return code == Code::Success; }
};

}  // namespace tightpack
