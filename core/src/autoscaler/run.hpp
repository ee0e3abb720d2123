// The records one autoscaler run produces, shared by the loop, scale-down and
// the encoder. Private to core.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "ca_state.hpp"
#include "tightpack/autoscaler/drain.hpp"
#include "tightpack/autoscaler/estimator.hpp"
#include "tightpack/autoscaler/expander.hpp"
#include "tightpack/autoscaler/node_template.hpp"
#include "tightpack/autoscaler/scenario.hpp"
#include "tightpack/autoscaler/utilization.hpp"
#include "tightpack/profile.hpp"

namespace tightpack::autoscaler {

struct OptionRecord {
  std::string group;
  int64_t node_count = 0;
  std::vector<std::string> pods;
  Waste waste;
};

struct ScaleUpRecord {
  int64_t loop = 0;
  std::string group;
  int64_t delta = 0;
  int64_t estimated = 0;
  std::vector<std::string> pods;
  std::vector<std::string> tied;
  std::vector<OptionRecord> considered;
};

using Reasons = std::map<std::string, std::vector<std::string>>;  // group → reasons

struct NoScaleUpRecord {
  std::vector<std::string> pods;
  Reasons rejected;
  Reasons skipped;
};

struct ScaleDownRecord {
  int64_t loop = 0;
  std::vector<std::string> unneeded;
  std::vector<std::string> empty;  // unneeded with nothing to move
  std::map<std::string, std::string> blocked;
  std::map<std::string, std::string> blocking_pods;
  // NoPlaceToMovePods: the first pod findPlaceFor found no node for. Explains
  // only; the corpus records no such field.
  std::map<std::string, std::string> unplaceable_pods;
  std::map<std::string, size_t> pods_to_move;  // unneeded nodes: how many pods a drain evicts
  std::map<std::string, Utilization> utilization;
};

// A pending pod that filter-out-schedulable packed onto a real node.
struct PlacedPod {
  const Pod* pod;  // within AutoscaleScenario::pending
  std::string node;
};

struct RunRecord {
  std::vector<ScaleUpRecord> scale_ups;
  std::vector<std::string> unhelped;
  std::vector<NoScaleUpRecord> no_scale_up;
  std::vector<std::string> fits_existing;  // first loop
  std::vector<OptionRecord> options;       // first loop
  int64_t loops = 0;
  std::string last_result;
  std::vector<int64_t> target_sizes;      // per group, after the loops
  std::vector<PlacedPod> placed_pending;  // by the last loop
  std::optional<ScaleDownRecord> scale_down;
  CaState state;  // as the last loop left it
};

// The loops: filter-out-schedulable, scale-up and the scale-down planner in
// each, as RunOnce runs them (the planner runs every loop, whether or not the
// scenario asks for its answer: it moves CA's round-robin). `scale_down`
// holds the last loop's planner when the scenario asks for it. An error when
// a pod needs a feature the engine does not model.
Result<RunRecord> run_loops(const AutoscaleScenario& s, const Profile& profile);

// What a loop's cluster snapshot holds when CA forks it to check a template
// or to estimate: the real and upcoming nodes with their pods and the pending
// pods packed onto them. A fork adds its nodes after these. Built only for pods whose verdict on a
// new node reads other nodes (plans.hpp: reads_other_nodes, or pods with inter-pod terms anywhere);
// for the rest a template copy judged alone answers the same.
struct SnapshotContents {
  std::vector<Node> nodes;
  std::vector<Pod> pods;
};

// The objects of `s` with the nodes of a fork, and, when `contents` is given,
// the snapshot's nodes and pods first.
struct ForkInput {
  const ApiObjects* objects = nullptr;
  const SnapshotContents* contents = nullptr;  // null: the fork holds only its own nodes
};

// The estimator inside a loop: `rr` is the run's round-robin, which moves as
// pods land on the nodes it opens, and `listed` the nodes the snapshot lists
// before them (real and upcoming); `fork` what else the snapshot holds.
Result<Estimate> estimate_in_snapshot(const NodeTemplate& t, const std::vector<const Pod*>& pods,
                                      const Profile& profile, int64_t max_nodes,
                                      const std::vector<uint32_t>& classes, NodeRoundRobin& rr,
                                      size_t listed, const ForkInput& fork = {});

// One loop's scale-down planner (UpdateClusterState) on the real nodes with
// `bound` pods and the pending pods filter-out-schedulable `placed` there,
// the groups at `targets`, `upcoming` upcoming nodes in the snapshot; `state`
// carries the round-robin, hints and the planner's memory between loops.
Result<ScaleDownRecord> plan_scale_down(const AutoscaleScenario& s,
                                        const std::vector<const CaPod*>& bound,
                                        const std::vector<PlacedPod>& placed,
                                        const std::vector<int64_t>& targets, size_t upcoming,
                                        int64_t loop, const Profile& profile, CaState& state);

// A pending pod where filterOutSchedulable puts it once the groups have
// reached `targets`: on a real node, or on an upcoming node of a group.
struct Landing {
  const Pod* pod;  // within AutoscaleScenario::pending
  std::string node;
  std::optional<size_t> group;  // the group of an upcoming node; none for a real node
};

// The first step of the loop after the last one: the pending pods CA helps,
// in priority order onto the real nodes and the nodes the groups asked for,
// from where `state` (the run's, copied) left CA's hints and round-robin.
// Pods that fit nowhere are left out.
Result<std::vector<Landing>> land_pending(const AutoscaleScenario& s, const Profile& profile,
                                          const std::vector<int64_t>& targets, CaState state);

// One planner pass with nothing remembered, on the cluster as the scenario
// gives it and the groups at `run.target_sizes`: what simulations over time
// and the forecast ask (run_loops's own planner runs inside its loops).
Result<ScaleDownRecord> run_scale_down(const AutoscaleScenario& s, const Profile& profile,
                                       const RunRecord& run);
// The same with the bound pods held by the caller, in place of `s.pods`
// (which it ignores): the scale-down forecast's, without a copy.
Result<ScaleDownRecord> run_scale_down(const AutoscaleScenario& s,
                                       const std::vector<const CaPod*>& pods,
                                       const Profile& profile, const RunRecord& run);

}  // namespace tightpack::autoscaler
