// Whether one pod can start and when, in plain words: what the hub's spawn
// page shows beside a profile before the user presses Start, and what
// tightpack's scheduler posts as an event on a pod that waits for a node
// (KubeSpawner streams a pod's events to the spawn's progress bar). Both are
// read off the same placement and cluster-autoscaler prediction as the
// sidebar's answer, so the three never disagree.
#pragma once

#include <boost/json/object.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tightpack/pools/scale_up_prediction.hpp"

namespace tightpack {

struct Placement;

struct Outlook {
  enum class Kind : uint8_t {
    kNow,      // a node has room for it today
    kNewNode,  // none has; cluster-autoscaler adds one that will
    kCannot,   // none has, and cluster-autoscaler adds none that would
  };
  Kind kind = Kind::kCannot;
  // kNewNode: the pools that grow for it, and until the last of their new
  // nodes is ready (PoolGrowth::ready_in_seconds).
  std::vector<std::string> pools;
  int64_t ready_in_seconds = 0;
  // kCannot: what stops it, in words a user can act on or pass on.
  std::string reason;

  bool operator==(const Outlook&) const = default;
};

// The outlook of the first copy of a placement. Without pools in use a copy
// that fits nowhere is kCannot with kube-scheduler's message.
Outlook outlook_of(const Placement& placement);
// The outlook of one pod that fits on no node today, from the scale-up
// predicted for it alone (Replicas with one copy).
Outlook outlook_of(const pools::ScaleUpPrediction& prediction);

// What a pod that waits for room is told, from the same prediction: nothing
// when cluster-autoscaler's filters fit it on an existing node (the room
// appeared after the scheduler's attempt, whose next one takes it).
std::optional<Outlook> waiting_outlook(const pools::ScaleUpPrediction& prediction);

// "now", "new-node", "cannot".
std::string_view outlook_kind_name(Outlook::Kind kind);
// Minutes as the sidebar rounds them: "about 9 minutes", "under a minute".
std::string wait_text(int64_t seconds);
// The spawn page's words: "Ready now: a node has room for it.", "About 10
// minutes: cluster-autoscaler adds a node to pool gpu-t4 for it.", "Cannot
// start now: pool gpu-t4 is at its maximum size (2 nodes)."
std::string outlook_text(const Outlook& outlook);
// The event's note on a pod that waits, `ready_in_seconds` counted down from
// when the wait was first predicted.
std::string outlook_event_note(const Outlook& outlook, int64_t ready_in_seconds);

// {"kind", "summary", "message", "pools"?, "readyInSeconds"?, "reason"?}
boost::json::object encode_outlook(const Outlook& outlook);

}  // namespace tightpack
