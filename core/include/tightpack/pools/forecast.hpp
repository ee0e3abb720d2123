// The scale-down forecast: which nodes cluster-autoscaler would find unneeded
// in a cluster (or in the cluster after a user's pods left), and for every
// node that stays, the blocker a user can act on.
//
// cluster-autoscaler's own rules decide: the snapshot and its pools become a
// scenario (pools::autoscale_scenario) and run through the scale-down code the
// autoscaler corpus checks. This part only takes pods away first and explains
// the verdicts.
#pragma once

#include <boost/json/value.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tightpack/autoscaler/drain.hpp"
#include "tightpack/autoscaler/utilization.hpp"
#include "tightpack/error.hpp"
#include "tightpack/model.hpp"
#include "tightpack/pools/pod_removal.hpp"
#include "tightpack/pools/pools.hpp"

namespace tightpack::pools {

struct NodeForecast {
  std::string node;
  std::string pool;  // empty: the node is in no pool (not autoscaled)
  bool pool_inferred = false;
  autoscaler::Utilization utilization;  // the deciding resource and value
  double threshold = 0;                 // the one that applies: GPU nodes have their own
  bool removable = false;
  bool empty = false;       // removable with nothing to move (DaemonSet and mirror pods only)
  size_t pods_to_move = 0;  // removable nodes: the pods a drain would evict
  // cluster-autoscaler's reason ("NotUnderutilized", "BlockedByPod/NotReplicated", …),
  // empty when removable.
  std::string reason;
  std::string blocking_pod;  // namespace/name, for the reasons a pod causes
  std::string message;       // the verdict in a sentence naming the numbers or the pod
};

struct PoolForecast {
  std::string name;
  bool inferred = false;  // min size unknown, taken as 0
  int64_t min_size = 0;
  int64_t nodes = 0;
  int64_t removable = 0;
};

struct ScaleDownForecast {
  std::vector<NodeForecast> nodes;  // in snapshot order
  std::vector<PoolForecast> pools;  // the pools that have nodes, by name
  int64_t removable = 0;
  int64_t not_autoscaled = 0;             // nodes in no pool
  int64_t unneeded_seconds = 600;         // --scale-down-unneeded-time
  std::vector<std::string> removed_pods;  // namespace/name, in snapshot order
  std::vector<std::string> notes;         // what the user should know about the answer
};

// Runs cluster-autoscaler's scale-down rules on the snapshot, after taking
// away the bound and pending pods `remove` names (none by default), at time
// `now` (Unix seconds; without it pods' ages are unknown and kube-system pods
// without a budget block as young ones do). Pending pods are not part of the
// forecast (see docs/forecast.md). Errors when a pod needs a scheduling
// feature the engine does not model.
Result<ScaleDownForecast> forecast_scale_down(const ClusterSnapshot& snapshot,
                                              const ResolvedPools& pools, const PoolsConfig& config,
                                              const PodRemoval& remove = {},
                                              std::optional<int64_t> now = std::nullopt);

// What a user can do about a blocker, by CA's reason name; empty when there
// is nothing to do but wait (removable) or no advice.
std::string_view blocker_fix(std::string_view reason);

// "72%", "49.9%": rounded down to a tenth, so that a value below a threshold
// never prints as the threshold.
std::string format_percent(double fraction);

// Seconds the way the configuration spells durations: "10m", "1h30m", "45s", "0s".
std::string format_duration(int64_t seconds);

// The forecast as one JSON document (the CLI's --output json, the sidebar).
boost::json::value forecast_json(const ScaleDownForecast& f);

}  // namespace tightpack::pools
