// Seeded synthetic DaskHub-like clusters for the benchmarks: a core pool, a
// preemptible Dask worker pool tainted dask=worker:NoSchedule, a GPU pool;
// every node with labels, images and `pods_per_node` bound pods.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tightpack/model.hpp"

namespace tightpack::bench {

struct SyntheticCluster {
  std::vector<Node> nodes;
  std::vector<Pod> pods;
};

SyntheticCluster make_cluster(size_t nodes, size_t pods_per_node, uint64_t seed = 42);

// The cluster as `kubectl get nodes,pods -A -o json` prints it, with the fields
// scheduling reads (no managedFields, env, volumes or container statuses).
std::string snapshot_json(const SyntheticCluster& cluster);

// snapshot_json of make_cluster(nodes, 30), made once per size: the snapshot the
// parse benchmarks read.
const std::string& snapshot_text(size_t nodes);

// A Dask worker: 1 cpu, 4Gi, tolerates the worker taint, prefers the worker pool.
Pod dask_worker();

}  // namespace tightpack::bench
