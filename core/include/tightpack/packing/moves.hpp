// Move, don't evict: which nodes can be emptied by moving their Dask workers
// elsewhere first (make before break), decided with the scheduler's own
// rules. cluster-autoscaler removes a node only once its pods are gone; it
// evicts movable ones (a worker's memory and running tasks lost) and keeps
// a node for a protected one. A move instead starts a replacement for each
// worker on another node, waits for it to join the Dask scheduler, then
// retires the old worker (its data moves to the others) so the node
// empties. The pack report plans with this once a model minute, the daemon
// (scheduler/src/daemon/mover.hpp) once a minute on its watch cache.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tightpack/autoscaler/scenario.hpp"
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
// sends a pod to a node being emptied or cordoned (unschedulable in
// `cluster`, whatever the pod tolerates). A candidate that received an earlier
// move's replacement, or whose pods do not all fit elsewhere now, is
// skipped. No move adds a node: replacements go only to the cluster's.
Result<std::vector<PlannedMove>> plan_moves(const Cluster& cluster, const Profile& profile,
                                            const std::vector<MoveCandidate>& candidates,
                                            size_t max_moves);

// A move on a cluster as cluster-autoscaler sees it: the node emptied, and
// for each of its pods to move ("namespace/name") the node its replacement
// goes to.
struct ScenarioMove {
  std::string node;
  std::vector<std::pair<std::string, std::string>> pods;
};

struct MoveRules {
  size_t max_moves = 4;
  // A candidate's movable pods ask for at most this share of its
  // allocatable cpu: fuller nodes are left to empty by themselves.
  int64_t max_use_percent = 75;
  // The workload (a Dask cluster) a movable pod belongs to: a candidate with
  // a workload an earlier candidate has is skipped, so that a workload grows
  // and shrinks for one move at a time. Unset: every pod its own.
  std::function<std::string(const autoscaler::CaPod&)> workload_of;
  // Nodes that neither take a replacement nor are emptied: those that moves
  // in flight are emptying.
  std::set<std::string> closed;
};

// What the daemon plans and the conformance test checks against
// cluster-autoscaler's own loop. Candidates: nodes of a node group where every
// pod that is neither a DaemonSet nor a mirror pod is `movable`, at least one
// is, and they ask for at most `rules.max_use_percent` of its cpu, not
// closed; fewest pods first, then by name; one per workload. Nothing is
// planned while a pod of `s` is pending: room is wanted then. No replacement
// goes to an empty node cluster-autoscaler would remove without any move (a
// move onto it saves no node). The plan is plan_moves' with `profile`, then
// confirmed by the engine's cluster-autoscaler scale-down on the cluster
// after the moves (after_moves): a move whose node it would not find unneeded
// (its group at min size, the scale-down-disabled annotation, a pod its drain
// rules keep) is dropped.
Result<std::vector<ScenarioMove>> plan_scenario_moves(
    const autoscaler::AutoscaleScenario& s, const Profile& profile,
    const std::function<bool(const autoscaler::CaPod&)>& movable, const MoveRules& rules);

// The label a Dask cluster's workers carry, with the value "true", when
// their user allows moves: set on the DaskCluster, the operator copies it to
// every worker pod.
inline constexpr std::string_view kMoveLabel = "tightpack.io/move";

// A Dask worker (advice::pod_kind: the operator's or dask-gateway's labels)
// that may be moved: labelled kMoveLabel=true, or any with `all`.
bool movable_dask_worker(const autoscaler::CaPod& p, bool all);

// `tightpack moves`: a scenario in the autoscaler corpus format (or a corpus
// line with "scenario"), with an optional top-level "moves" object
// {"profile": "tightpack", "maxMoves": 4, "maxUsePercent": 75,
// "workers": "opted-in" | "all"}, in; plan_scenario_moves' answer out:
// {"moves": [{"node", "pods": [{"pod", "to"}]}], "pending": N}, or
// {"error": "…"} naming the field.
std::string moves_text(std::string_view text);

// `s` once `moves` are made and broken: each moved pod gone, its replacement
// (the same spec, named <name>-moved, or -moved-2… when a pod has that name)
// bound where the move said.
autoscaler::AutoscaleScenario after_moves(const autoscaler::AutoscaleScenario& s,
                                          const std::vector<ScenarioMove>& moves);

}  // namespace tightpack::packing
