// Which Dask workers leave when a cluster shrinks (Retire): the newest
// replicas, upstream's choice (the scheduler's workers_to_close: the greatest
// address first), or node-aware (tightpack-dask's preload: the workers of
// nodes that then empty first).
#pragma once

#include <cstddef>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "tightpack/packing/pack_report.hpp"

namespace tightpack::packing {

struct GroupWorkers {
  const std::vector<std::string>& replicas;    // pod keys, by replica (newest last)
  std::map<std::string, std::string> running;  // pod key → node, for those bound
};

// The replicas that leave when the group shrinks by `leave`. Under upstream
// and node-aware rules the Dask scheduler chooses among the workers it knows,
// the running ones; the operator deletes the chosen workers' Deployments, and
// replicas still waiting for a node stay, unless more must go than run.
// `kept(node)`: whether something else keeps the node (node-aware only).
std::vector<std::string> retiring(
    const GroupWorkers& workers, size_t leave, Retire rule,
    const std::function<const std::string&(const std::string&)>& address,
    const std::function<bool(const std::string&)>& kept);

}  // namespace tightpack::packing
