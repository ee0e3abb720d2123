// N replicas of one pod template placed one after another, each seeing the
// placements before it: the question "where will my N workers go?".
//
// After a placement only the chosen node changed. Taint, selector, affinity
// and image verdicts do not move, and among the scores only that node's
// resource scores move, so each further replica costs a re-filter of one node
// and a logarithmic update of an ordered index of (total, name). The
// normalised TaintToleration and NodeAffinity scores depend on the maximum
// over feasible nodes; when a node holding that maximum stops fitting, every
// total is recomputed. The result equals running decide() for each replica.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "tightpack/cluster.hpp"
#include "tightpack/error.hpp"
#include "tightpack/framework/framework.hpp"
#include "tightpack/profile.hpp"

namespace tightpack {

struct ReplicaPlacement {
  std::string pod;                // <name>-<i>
  std::optional<NodeIndex> node;  // the smallest name among the best-scored nodes
  size_t tied = 0;                // how many nodes shared the best total
};

struct SimulationResult {
  std::vector<ReplicaPlacement> replicas;
  // For the first replica that fits nowhere: kube-scheduler's message (or the
  // scheduling error, see Decision::error). Later replicas fail the same way,
  // since an unschedulable pod changes nothing.
  std::string unschedulable_message;
  std::optional<Preemption> preemption;
};

// Places `replicas` copies of `pod` named <name>-<i> into `cluster`, which is
// updated as it goes.
Result<SimulationResult> simulate_replicas(Cluster& cluster, const Profile& profile, const Pod& pod,
                                           int64_t replicas);

}  // namespace tightpack
