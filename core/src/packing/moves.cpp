#include "tightpack/packing/moves.hpp"

#include <algorithm>
#include <string>

#include "tightpack/framework/framework.hpp"

namespace tightpack::packing {
namespace {

// Nothing more goes to node n of `c` (as a cordon reads to the scheduler).
bool close_node(Cluster& c, NodeIndex n) {
  Node node = c.node(n);
  node.unschedulable = true;
  return c.update_node(n, std::move(node));
}

}  // namespace

Result<std::vector<PlannedMove>> plan_moves(const Cluster& cluster, const Profile& profile,
                                            const std::vector<MoveCandidate>& candidates,
                                            size_t max_moves) {
  std::vector<PlannedMove> planned;
  std::vector<uint8_t> receives(cluster.size(), 0);
  Cluster after = cluster;  // with the planned moves made
  for (const MoveCandidate& candidate : candidates) {
    if (planned.size() >= max_moves) break;
    if (candidate.node >= cluster.size() || receives[candidate.node] || candidate.movable.empty()) {
      continue;
    }
    Cluster trial = after;
    if (!close_node(trial, candidate.node)) continue;
    PlannedMove move{candidate.node, {}};
    for (size_t i = 0; i < candidate.movable.size(); ++i) {
      Pod replacement = *candidate.movable[i];
      replacement.node_name.clear();
      replacement.name += "-moved";
      auto plan = PodPlan::make(trial, profile, replacement);
      if (!plan) return plan.error();
      const Decision d = decide(*plan, trial);
      if (!d.chosen) break;
      trial.place(*d.chosen, plan->bound(replacement.key()));
      move.targets.push_back(*d.chosen);
    }
    if (move.targets.size() != candidate.movable.size()) continue;
    for (NodeIndex t : move.targets) receives[t] = 1;
    after = std::move(trial);
    planned.push_back(std::move(move));
  }
  return planned;
}

}  // namespace tightpack::packing
