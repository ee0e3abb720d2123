// Move, don't evict: which nodes can be emptied by moving their Dask workers
// elsewhere first (make before break), decided with the scheduler's own
// rules. cluster-autoscaler removes a node only once its pods are gone; it
// evicts movable ones (a worker's memory and running tasks lost) and keeps
// a node for a protected one. A move instead starts a replacement for each
// worker on another node, waits for it to join the Dask scheduler, then
// retires the old worker (its data moves to the others) so the node
// empties. The pack report plans with this once a model minute; the daemon
// will plan with the same function.
#pragma once

#include <cstddef>
#include <vector>

#include "tightpack/cluster.hpp"
#include "tightpack/error.hpp"
#include "tightpack/model.hpp"
#include "tightpack/profile.hpp"

namespace tightpack::packing {

// A node the caller would empty, with the pods to replace (every other pod
// there a DaemonSet or mirror pod): their specs as bound now.
struct MoveCandidate {
  NodeIndex node = 0;
  std::vector<const Pod*> movable;
};

// Where each replacement goes, in MoveCandidate::movable's order.
struct PlannedMove {
  NodeIndex node = 0;
  std::vector<NodeIndex> targets;
};

// Takes candidates in the order given, at most `max_moves`: each one's pods
// are decided again by `profile` on a copy of the cluster where neither it
// nor a node emptied by an earlier planned move takes pods, each placed
// before the next is decided, so a plan never overfills a node and never
// sends a pod to a node being emptied. A candidate that received an earlier
// move's replacement, or whose pods do not all fit elsewhere now, is
// skipped. No move adds a node: replacements go only to the cluster's.
Result<std::vector<PlannedMove>> plan_moves(const Cluster& cluster, const Profile& profile,
                                            const std::vector<MoveCandidate>& candidates,
                                            size_t max_moves);

}  // namespace tightpack::packing
