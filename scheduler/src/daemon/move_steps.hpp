// One move of Dask workers off a node (core's packing/moves.hpp plans it),
// step by step: make (the worker group raised by the workers on the node),
// drain (the node named `emptying` to the cluster's tightpack-dask preload,
// which pauses those workers until they are idle and answers `drained=`),
// break (the group lowered back: the operator retires, and tightpack-dask's
// workers_to_close chooses, the drained workers), done once the node has
// none of them. Decided here from what the mover observes, without I/O, so
// that every path is tested; mover.cpp makes the API calls.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "tightpack/error.hpp"

namespace tightpack::daemon {

enum class MovePhase { Making, Draining, Breaking };
std::string_view phase_name(MovePhase phase);

// A move in flight, kept as an annotation on the DaskCluster (not on its
// worker group: the operator copies a group's annotations into every worker
// it makes), so that a leader that takes over can undo what another began.
struct MoveState {
  std::string worker_group;  // the DaskWorkerGroup raised, in the DaskCluster's namespace
  std::string node;          // the node being emptied
  int64_t from = 0;          // the group's replicas, as its user asked
  int64_t to = 0;            // during the move: from + its workers on the node
  MovePhase phase = MovePhase::Making;
  int64_t since = 0;  // Unix seconds, when the phase began
  std::string by;     // the daemon (leader election identity) that began it

  bool operator==(const MoveState&) const = default;
};
inline constexpr std::string_view kMoveStateAnnotation = "tightpack.io/move-state";
std::string encode_move_state(const MoveState& state);
// The annotation's value; the error names the field and the value.
Result<MoveState> decode_move_state(std::string_view text);

// What the mover sees of a move at one tick.
struct MoveObserved {
  std::optional<int64_t> replicas;  // the group's spec.worker.replicas; nullopt: the group is gone
  int64_t running_elsewhere = 0;    // the group's workers running on other nodes
  int64_t on_node = 0;              // the group's workers (not terminating) on the node
  bool drained = false;      // the cluster's preload said the node's workers are idle, paused
  bool room_wanted = false;  // a pod waits that no node takes now
};

struct MoveTimeouts {
  std::chrono::seconds make{300};   // for the replacements to run
  std::chrono::seconds drain{720};  // for the preload to say drained (its own limit is 10 min)
  std::chrono::seconds brk{300};    // for the operator to retire the workers on the node
};

enum class MoveAction {
  Wait,
  Drain,         // the replacements run: name the node emptying, phase Draining
  Lower,         // drained: the group back to `from`, phase Breaking
  Done,          // the node has none of the group's workers
  Abandon,       // end the move, the group's size left as it is (its user's, or already `from`)
  AbandonLower,  // end the move, the group back to `from` first
};
std::string_view action_name(MoveAction action);

struct MoveStep {
  MoveAction action = MoveAction::Wait;
  std::string why;  // for the log, and the metric's result when the move ends
};

// `now` in Unix seconds.
MoveStep next_move_step(const MoveState& state, const MoveObserved& seen, int64_t now,
                        const MoveTimeouts& timeouts);

}  // namespace tightpack::daemon
