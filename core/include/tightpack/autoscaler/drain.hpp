// Scale-down's drainability: which pods a node's removal moves, what blocks it
// (simulator/drainability's rules) and the budgets left.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "tightpack/autoscaler/scenario.hpp"
#include "tightpack/model.hpp"

namespace tightpack::autoscaler {

enum class DrainBlock : uint8_t {
  kNone,
  kNotReplicated,
  kControllerNotFound,
  kUnmovableKubeSystemPod,
  kLocalStorageRequested,
  kNotSafeToEvictAnnotation,
  kNotEnoughPdb,
};

const char* drain_block_name(DrainBlock b);

// utils/drain IsPodLongTerminating: deleted (metadata.deletionTimestamp) longer
// ago than its grace period (30 s when unset) plus 30 s, before `now`. Without
// `now` (the scenario's clock) or a deletion timestamp, false.
bool long_terminating(const CaPod& p, std::optional<int64_t> now);

// Scale-down's drain rules on one pod by itself: whether removing its node
// evicts it, or which rule keeps the node. No budget is counted and no
// controller looked up: the pod of a what-if question is not created yet.
// Neither evicted nor blocking: a DaemonSet's, mirror or long-terminating
// pod, which goes with its node.
struct PodDrain {
  bool evicted = false;
  DrainBlock block = DrainBlock::kNone;
  bool operator==(const PodDrain&) const = default;
};
PodDrain drain_of(const CaPod& pod, const Options& options = {});

struct DrainResult {
  std::vector<size_t> to_move;  // indices into the node's pods
  DrainBlock block = DrainBlock::kNone;
  size_t blocking_pod = 0;
};

// Disruptions each budget has left (aligned with AutoscaleScenario::pdbs), as
// the scale-down planner's RemainingPdbTracker: a node found removable uses
// one per pod it moves, for the candidates simulated after it.
using RemainingPdbs = std::vector<int64_t>;
RemainingPdbs initial_pdbs(const AutoscaleScenario& s);
void remove_pods(const AutoscaleScenario& s, const std::vector<const Pod*>& moved,
                 RemainingPdbs& remaining);

// simulator.GetPodsToMove: every pod of the node through drainability.Rules
// (rules.Default, in its order), the first blocking pod wins. Budgets are one
// rule among them, checked per pod (kubernetes/autoscaler#6135). The
// empty-candidates sorting asks without listers and budgets: `remaining`
// nullptr (no budget at all) and `listers` false (no controller looked up).
DrainResult pods_to_move(const std::vector<const CaPod*>& pods, const AutoscaleScenario& s,
                         const RemainingPdbs* remaining, bool listers = true);

}  // namespace tightpack::autoscaler
