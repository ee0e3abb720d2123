// Scale-up prediction per node pool: for the replicas of a user's pod that fit
// nowhere today, which pools cluster-autoscaler grows, by how many nodes,
// which replicas the new nodes take and when they can run; and for the
// replicas no pool can take, a reason the user can act on.
//
// The answer is cluster-autoscaler's own loop (autoscaler.hpp, checked on
// the shared corpus) run on the cluster snapshot turned into a scenario
// (pools::autoscale_scenario): no second bin-packer. This file only feeds it
// and translates its records.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "tightpack/cluster.hpp"
#include "tightpack/error.hpp"
#include "tightpack/model.hpp"
#include "tightpack/pools/pools.hpp"
#include "tightpack/profile.hpp"
#include "tightpack/simulate.hpp"

namespace tightpack::pools {

// cluster-autoscaler's --scan-interval: a pool chosen in the second loop is
// asked for its nodes this much later than one chosen in the first.
inline constexpr int64_t kScanIntervalSeconds = 10;

// The user's replicas of one pod as the scheduler placed them today.
struct Replicas {
  Pod pod;  // as the user wrote it; replica i is named <name>-<i>
  // Per replica, the node it lands on today; empty when it fits nowhere.
  std::vector<std::string> nodes;
};

// The replicas of a simulate_replicas run on `cluster`.
Replicas replicas_of(const Pod& pod, const SimulationResult& result, const Cluster& cluster);

// One pool cluster-autoscaler grows.
struct PoolGrowth {
  std::string pool;
  PoolSource source = PoolSource::kConfigured;
  int64_t nodes_added = 0;  // the increases of every loop that chose the pool
  // The estimator's node counts summed over those loops. The estimator stops
  // at the pool's room, so this exceeds nodes_added only when
  // --max-nodes-total or the cluster's resource limits cap the increase.
  int64_t estimated = 0;
  std::optional<int64_t> max_size;
  bool max_size_reached = false;        // the pool ends at its max size
  std::vector<int64_t> loops;           // the loops that chose it, from 1
  std::vector<std::string> replicas;    // namespace/name of the user's replicas on the new nodes
  std::vector<std::string> other_pods;  // the cluster's own pending pods on the new nodes
  int64_t provisioning_seconds = 0;
  // Until the last of the new nodes is ready: the scan interval for each
  // loop before the last that chose the pool, plus its provisioning time.
  int64_t ready_in_seconds = 0;
  // The pool has no node today: its new nodes are the NodePools document's
  // template, not a copy of a running node.
  bool template_from_configuration = false;
  std::optional<double> price_per_hour;        // of one node
  std::optional<double> added_price_per_hour;  // nodes_added × price_per_hour
  bool preemptible = false;
  PoolAutoscaler autoscaler = PoolAutoscaler::kClusterAutoscaler;  // the pool's
  // Pools the expanders could not tell from this one in some loop: the
  // lowest name was chosen (cluster-autoscaler picks at random).
  std::vector<std::string> tied;
};

// Why one pool does not take a replica.
struct PoolDetail {
  std::string pool;
  // cluster-autoscaler's own record: the first filter that rejects the
  // replica on the pool's template, or why the pool was skipped.
  std::vector<std::string> autoscaler;
  // Every filter that rejects the replica on a new node of the pool, each
  // run on its own (CA stops at the first); empty when all pass.
  std::vector<std::string> filters;
};

// Replicas that can never run, with one reason.
struct Unplaced {
  std::vector<std::string> replicas;  // namespace/name
  // What to change: "no pool offers nvidia.com/gpu", "max size 10 of pool
  // gpu-t4 reached", "untolerated taint dask=worker:NoSchedule on every pool
  // that fits (dask-workers)".
  std::string reason;
  std::vector<PoolDetail> pools;  // every pool that can grow, by name
  // The same as data: pools that would take a replica but are at their max
  // size (name, max), and resources the replica asks for that no pool offers.
  std::vector<std::pair<std::string, int64_t>> pools_at_max;
  std::vector<std::string> unoffered;
  // Pools below their max size whose new node would take a replica but for
  // its volumes (VolumeBinding, VolumeZone: a disk in another zone): where
  // it could run if the volume were elsewhere.
  std::vector<std::string> blocked_by_volumes;
  // The same at any size: pools whose new node fails the replica on its
  // volumes alone. A pool at its max size is named here too, since raising
  // the max would not help a replica whose disk is elsewhere.
  std::vector<std::string> only_volumes_fail;
  // cluster-autoscaler's filters let the replica fit this existing node, so
  // no pool grows for it (the scheduling profile rejected it there, or the
  // node had room only once the scheduler last tried).
  std::string fits_node;
};

struct ScaleUpPrediction {
  std::vector<std::string> expanders;
  int64_t replicas_pending = 0;    // replicas that fit nowhere today
  std::vector<PoolGrowth> growth;  // in the order the pools first grow
  std::vector<Unplaced> unplaced;
  int64_t loops = 0;  // cluster-autoscaler loops run (0 when nothing was pending)
  std::vector<std::string> notes;

  bool every_replica_runs() const { return unplaced.empty(); }
};

// Runs cluster-autoscaler's scale-up loops on the snapshot with its pools:
// the replicas placed today are bound to their nodes, those that fit nowhere
// are pending next to the snapshot's own pending pods (which compete for the
// same scale-up, as CA sees them). `profile` supplies the filters; CA runs
// kube-scheduler's default ones (default_profile()). Errors only when a pod
// needs a feature the engine does not model.
Result<ScaleUpPrediction> predict_scale_up(const ClusterSnapshot& snapshot,
                                           const ResolvedPools& pools, const PoolsConfig& config,
                                           const Profile& profile, const Replicas& replicas);

// A taint as kubectl prints it: "dask=worker:NoSchedule", "key:NoSchedule".
std::string taint_text(const Taint& taint);

}  // namespace tightpack::pools
