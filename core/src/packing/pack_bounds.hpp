// What a pool's workload pods need at least, at one instant: the figures
// pack-report sets beside the nodes a scheduler kept (docs/packing.md).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "tightpack/model.hpp"

namespace tightpack::packing {

// Per pool: the requests of its workload pods, and one node's room for them
// (its allocatable less what its DaemonSet and mirror pods take).
using PoolDemand = std::map<std::string, std::vector<ResourceList>>;
using PoolRoom = std::map<std::string, ResourceList>;

// ⌈Σ requests / one node's room⌉ over cpu, memory and every extended
// resource, per pool.
std::map<std::string, int64_t> lower_bounds(const PoolDemand& demand, const PoolRoom& room);

// First-fit decreasing of each pool's workload pods into empty nodes of the
// pool's room: what repacking every pod from scratch at this instant would
// need. Not a lower bound (first-fit decreasing is within 11/9 of the best
// packing) but one a scheduler that could move every pod at no cost would
// reach; between it and the lower bound lie the pods' shapes.
std::map<std::string, int64_t> repack_bounds(PoolDemand demand, const PoolRoom& room);

}  // namespace tightpack::packing
