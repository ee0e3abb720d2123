// The records one autoscaler run produces, shared by the loop, scale-down and
// the encoder. Private to core.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "tightpack/autoscaler.hpp"
#include "tightpack/profile.hpp"

namespace tightpack::autoscaler {

struct OptionRecord {
  std::string group;
  int64_t node_count = 0;
  std::vector<std::string> pods;
  Waste waste;
};

struct ScaleUpRecord {
  int64_t loop = 0;
  std::string group;
  int64_t delta = 0;
  int64_t estimated = 0;
  std::vector<std::string> pods;
  std::vector<std::string> tied;
  std::vector<OptionRecord> considered;
};

using Reasons = std::map<std::string, std::vector<std::string>>;  // group → reasons

struct NoScaleUpRecord {
  std::vector<std::string> pods;
  Reasons rejected;
  Reasons skipped;
};

struct ScaleDownRecord {
  int64_t loop = 0;
  std::vector<std::string> unneeded;
  std::vector<std::string> empty;  // unneeded with nothing to move
  std::map<std::string, std::string> blocked;
  std::map<std::string, std::string> blocking_pods;
  std::map<std::string, Utilization> utilization;
};

// A pending pod that filter-out-schedulable packed onto a real node.
struct PlacedPod {
  const Pod* pod;  // within AutoscaleScenario::pending
  std::string node;
};

struct RunRecord {
  std::vector<ScaleUpRecord> scale_ups;
  std::vector<std::string> unhelped;
  std::vector<NoScaleUpRecord> no_scale_up;
  std::vector<std::string> fits_existing;  // first loop
  std::vector<OptionRecord> options;       // first loop
  int64_t loops = 0;
  std::string last_result;
  std::vector<int64_t> target_sizes;      // per group, after the loops
  std::vector<PlacedPod> placed_pending;  // by the last loop
  std::optional<ScaleDownRecord> scale_down;
};

// The scale-up loops; an error when a pod needs a feature the engine does not model.
Result<RunRecord> run_scale_up(const AutoscaleScenario& s, const Profile& profile);

// Unneeded nodes in the state the loops left.
Result<ScaleDownRecord> run_scale_down(const AutoscaleScenario& s, const Profile& profile,
                                       const RunRecord& run);

}  // namespace tightpack::autoscaler
