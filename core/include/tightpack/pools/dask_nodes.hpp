// Where one Dask cluster's workers run, and what else keeps each of those
// nodes: what a Dask scheduler needs to retire workers so that nodes empty
// (tightpack-dask's preload), and nothing about anyone else's pods.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tightpack/autoscaler/scenario.hpp"
#include "tightpack/pools/pools.hpp"

namespace tightpack::pools {

// A Dask cluster's workers: pods in `ns` labelled as the dask-kubernetes
// operator labels them (dask.org/cluster-name=<name>, dask.org/component=worker)
// or as dask-gateway does (gateway.dask.org/cluster=<name>,
// app.kubernetes.io/component=dask-worker).
struct DaskCluster {
  std::string ns;
  std::string name;
  bool has_worker(const autoscaler::CaPod& p) const;
};

struct DaskNodeHint {
  std::string node;
  int64_t workers = 0;  // the cluster's running workers there
  // Something besides those workers keeps the node once they go, in
  // cluster-autoscaler's terms: another pod that is neither a DaemonSet nor a
  // mirror pod (the cluster's own scheduler included), the node's
  // scale-down-disabled annotation, or its pool at its min size.
  bool kept = false;
};

// One hint per node with a worker of `cluster`, by node name. `pools` may be
// empty (no pool is then at its min size).
std::vector<DaskNodeHint> dask_node_hints(const std::vector<const autoscaler::CaNode*>& nodes,
                                          const std::vector<const autoscaler::CaPod*>& pods,
                                          const ResolvedPools& pools, const DaskCluster& cluster);

}  // namespace tightpack::pools
