// The two levers beyond any scheduler's reach on a day of workloads
// (bench/RESULTS.md, "What would close it"): workers whose shape tiles the
// node, and cluster-autoscaler's scale-down timing. Each is the scenario
// changed as its owner would change it, replayed by the same report.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tightpack/error.hpp"
#include "tightpack/model.hpp"
#include "tightpack/packing/pack_report.hpp"

namespace tightpack::packing {

// One workload (a start event's group) at a shape that tiles its pool's node.
struct TiledWorkload {
  std::string group;
  std::string pool;
  int64_t per_node_before = 0, per_node_after = 0;
  ResourceList before, after;  // the pod's whole request, per resource it asks for
};

// The scenario with each started workload's pod at the first shape that
// tiles its pool's new node (advice::tile: cluster-autoscaler's template of
// the pool, the pod's own filters), where that node would otherwise be more
// than 10 % idle in its binding resource. A pod several pools admit is tiled
// for the first such pool. Needs pools; `tiled` lists what changed.
Result<PackScenario> tile_workloads(const PackScenario& s, std::vector<TiledWorkload>& tiled);

// The scenario with cluster-autoscaler's --scale-down-unneeded-time at
// `seconds` (pools needed).
Result<PackScenario> with_unneeded_time(const PackScenario& s, int64_t seconds);

}  // namespace tightpack::packing
