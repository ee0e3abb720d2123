// Fixes for copies of a pod that never run, or that run where they are not
// meant to (intent.hpp): changes to the pod its owner can make (a
// toleration, a node selector, smaller requests, fewer copies) and the one
// change to the cluster only its operator can make (a pool's max size).
//
// Every candidate is decided again on the same cluster by the same engine
// (WhatIfCluster::place: kube-scheduler's placement, then cluster-autoscaler's
// scale-up); one is kept only when more copies run where they are meant to
// and none more elsewhere. So a fix is never a true fact about some node that
// leads nowhere (a GPU toleration for a CPU worker, "ask for 0.51 cores" to
// squeeze onto a full node, a selector that is already right).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "tightpack/advice/intent.hpp"
#include "tightpack/advice/tiling.hpp"
#include "tightpack/error.hpp"
#include "tightpack/model.hpp"
#include "tightpack/profile.hpp"
#include "tightpack/what_if/what_if.hpp"

namespace tightpack::advice {

// Where the copies of one answer run.
struct Outcome {
  int64_t replicas = 0;
  int64_t now = 0;             // on existing nodes
  int64_t after_scale_up = 0;  // on the nodes cluster-autoscaler adds
  int64_t never = 0;
  int64_t off_pool = 0;  // running on pools not meant for the pod
  int64_t nodes = 0;     // existing nodes that take copies, and nodes added for them
  int64_t nodes_added = 0;
  int64_t ready_in_seconds = 0;  // until the last added node that takes copies is ready
  // Copies per pool (now and after scale-up), by name; "" is nodes in no pool.
  std::vector<std::pair<std::string, int64_t>> pools;

  int64_t meant() const { return now + after_scale_up - off_pool; }
};

Outcome outcome_of(const Placement& placement, const std::vector<PoolIntent>& intent);

// A change to the pod, as its owner would write it.
struct PodChange {
  std::vector<Toleration> add_tolerations;
  Labels add_node_selector;
  std::optional<Shape> shape;       // smaller requests
  std::optional<int64_t> replicas;  // fewer copies
  bool empty() const {
    return add_tolerations.empty() && add_node_selector.empty() && !shape && !replicas;
  }
};

// A pool's max size, which only the cluster's operator can change.
struct MaxSizeChange {
  std::string pool;
  int64_t from = 0, to = 0;
};

struct Fix {
  std::string pool;  // the pool the change is for ("" for fewer copies)
  PodChange change;
  std::optional<MaxSizeChange> max_size;
  Outcome outcome;
  int64_t gained = 0;  // copies running where meant, beyond the answer as it is
};

struct FixesInput {
  WhatIfCluster& cluster;
  const Pod& pod;  // admitted, as placed
  int64_t replicas = 1;
  const Profile& profile;
  const Placement& as_is;  // the pod's copies as they are
  const std::vector<pools::PoolTemplate>& templates;
  const std::vector<PoolIntent>& intent;
};

// The fixes, best first: most copies gained, then fewest nodes added, then
// the smallest change (a shape before a selector before a toleration, the
// operator's change last). Fewer copies, which gains none, comes after all
// the others when some copies never run. Empty when every copy runs where it
// is meant to, or when the cluster has no pools.
Result<std::vector<Fix>> find_fixes(const FixesInput& in);

}  // namespace tightpack::advice
