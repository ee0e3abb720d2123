// What cluster-autoscaler carries from one placement to the next and from one
// loop to the next, besides the cluster: where its round-robin stands, where
// pods went last time, and what its scale-down planner remembers. Private to
// core.
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>

#include "tightpack/autoscaler/scenario.hpp"
#include "tightpack/autoscaler/utilization.hpp"
#include "tightpack/cluster.hpp"

namespace tightpack::autoscaler {

// clustersnapshot.NewLastIndexOrderMapping(1), the plugin runner's default
// node ordering: a pod placed "on any node" is tried on the snapshot's nodes
// from the one after the last match, round the list. CA keeps one for every
// such placement (filter-out-schedulable, each estimation, scale-down's
// findPlaceFor), loop after loop, and remembers a position, not a node: when
// the list grows or shrinks the same position names another node. The list is
// the real nodes in the scenario's order (those scale-down removed gone), the
// upcoming nodes group by group, then the estimator's new nodes; CA's own list
// comes from Go maps, so this is one of the orders it can take.
class NodeRoundRobin {
 public:
  // Where the walk over a list of `n` nodes starts.
  size_t start(size_t n) const { return n == 0 ? 0 : (last_ + 1) % n; }
  void matched(size_t position) { last_ = position; }

 private:
  size_t last_ = 0;
};

// scheduling.Hints: the node each pod went to, tried first next time. A hint
// lives through one DropOld; using it keeps it. CA keys them by pod UID; the
// engine by the scenario's pod object (two pending pods may share a name).
// Only hints to real nodes matter (an upcoming node's name changes every
// loop), and a real node has the same index in every snapshot of a run: the
// scenario's.
class PodHints {
 public:
  using Key = const void*;
  std::optional<NodeIndex> get(Key pod) const {
    if (auto it = current_.find(pod); it != current_.end()) return it->second;
    if (auto it = old_.find(pod); it != old_.end()) return it->second;
    return std::nullopt;
  }
  void set(Key pod, NodeIndex real_node) { current_[pod] = real_node; }
  void drop_old() {
    old_ = std::move(current_);
    current_.clear();
  }

 private:
  std::unordered_map<Key, NodeIndex> current_;
  std::unordered_map<Key, NodeIndex> old_;
};

// A node the planner's simulation found unremovable: what it recorded then.
// CA does not simulate it again within --unremovable-node-recheck-timeout
// (5 minutes, longer than any run here) and reports it RecentlyUnremovable;
// the result keeps the first reason.
struct UnremovableRecord {
  std::string reason;
  std::optional<std::string> blocking_pod;
  std::optional<std::string> unplaceable_pod;
  std::optional<Utilization> utilization;
};

struct CaState {
  NodeRoundRobin round_robin;
  PodHints pending_hints;  // filter-out-schedulable's HintingSimulator
  PodHints removal_hints;  // the RemovalSimulator's
  // The planner: the nodes the last loop found unneeded (simulated first,
  // after empty ones), and those found unremovable.
  std::set<std::string> previous_unneeded;
  std::map<std::string, UnremovableRecord> unremovable;
};

}  // namespace tightpack::autoscaler
