// The packing report: a sequence of workloads arriving and leaving (users
// starting and stopping Dask clusters, adapt() shrinking them), replayed under
// several scheduler profiles, with the nodes each leaves busy next to the
// lower bound. This is the number tightpack exists to lower: a busy node is
// one cluster-autoscaler cannot remove.
//
// Pods that fit nowhere wait in a queue (first come, first served) and are
// retried after every event, as kube-scheduler's queue retries them when
// pods leave. With `pools` the cluster autoscales: see autoscale in the
// scenario format (docs/packing.md).
#pragma once

#include <boost/json/value.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tightpack/error.hpp"
#include "tightpack/model.hpp"
#include "tightpack/pools/pools.hpp"
#include "tightpack/profile.hpp"

namespace tightpack::packing {

// Which workers leave when adapt() or scale(n) shrinks a Dask cluster.
enum class Retire : uint8_t {
  // The newest replica first: SpecCluster.scale(n)'s rule (it pops the newest
  // spec), and this report's only rule until 2026-12-04.
  kNewest,
  // distributed's Scheduler.workers_to_close, which the dask-kubernetes
  // operator and dask-gateway call: idle first, least data first (every
  // retired worker here is idle and holds none), then the greatest address
  // string, "tcp://<pod IP>:" (Scheduler.workers is a SortedDict by address).
  // Pod IPs are modelled as GKE assigns them: a /24 per node, in the order
  // nodes join, and host-local IPAM's next free address on the node.
  kUpstream,
  // tightpack-dask's preload: the same number, taken node by node, the nodes
  // that can then empty first (nothing else there besides DaemonSet pods, a
  // pool above its min size), fewest of the cluster's workers first, then
  // the node's name; within a node, upstream's order.
  kNodeAware,
};

std::string_view retire_name(Retire r);
Result<Retire> parse_retire(std::string_view name);

// What empties half-used nodes besides cluster-autoscaler's own evictions.
enum class Consolidate : uint8_t {
  kNone,
  // Once a model minute, nodes whose every workload pod is a Dask worker
  // (a pod with a controller, of a workload started or scaled at least 5
  // minutes ago: adapt() grows a cluster when work arrives, and a mover
  // waits for idle workers) are emptied by plan_scenario_moves (moves.hpp:
  // at most three quarters used, confirmed by cluster-autoscaler's rules
  // and min sizes), at most four nodes a minute and one move per workload
  // at a time. The replacements start on the planned nodes at once; the old
  // workers retire a minute later (the replacements have joined); the node
  // takes no pod meanwhile and until cluster-autoscaler removes it (20
  // minutes at most), unless a pod that fits nowhere else would be given
  // it once the move is done: a move must never make a user wait for a new
  // node, and nothing is planned while a pod waits. A start, scale or stop
  // of the workload before the retirement abandons the move: its
  // replacements go, the old workers stay.
  kMove,
};

std::string_view consolidate_name(Consolidate c);
Result<Consolidate> parse_consolidate(std::string_view name);

struct Event {
  int64_t at = 0;  // seconds from the start
  enum class Kind : uint8_t { kStart, kStop, kScale } kind = Kind::kStart;
  std::string group;  // the workload: a user's Dask cluster, a notebook
  // kStart: the template; replicas are named <group>-<i>. Its
  // ownerReferences say what blocks scale-down (none: a bare pod, as
  // KubeSpawner's notebooks are; a ReplicaSet, as the Dask operator's
  // one-replica worker Deployments make them, moves).
  autoscaler::CaPod pod;
  int64_t replicas = 0;          // kStart: how many; kScale: how many from now on
  std::optional<Retire> retire;  // kScale: the scenario's rule unless set
};

struct PackScenario {
  pools::ClusterSnapshot cluster;  // the nodes, and pods already running (never leave)
  std::vector<std::string> profile_names{"default", "most-allocated", "tightpack"};
  std::vector<Profile> profiles;
  std::vector<Event> events;  // sorted by `at`, stable
  int64_t end = 0;            // seconds; defaults to the last event
  // With pools the cluster autoscales as cluster-autoscaler would: every
  // minute pending pods trigger a scale-up (nodes join after the pool's
  // provisioning time) and nodes unneeded for scaleDownUnneededTime go.
  std::optional<pools::PoolsConfig> pools;
  Retire retire = Retire::kNewest;  // for every shrink without its own
  Consolidate consolidate = Consolidate::kNone;
};

inline constexpr int64_t kMaxEvents = 100000;
inline constexpr int64_t kMaxReplicasPerEvent = 10000;

Result<PackScenario> decode_pack_scenario(const boost::json::value& doc);

struct PoolFigures {
  std::string pool;
  int64_t busy_at_end = 0;     // nodes with a workload pod (not DaemonSet/mirror)
  int64_t nodes_at_end = 0;    // all nodes of the pool at the end
  double node_hours = 0;       // autoscaling: nodes that existed, × time
  double busy_node_hours = 0;  // ∫ the pool's busy nodes dt
  int64_t lower_bound = 0;     // ⌈Σ requests / node allocatable⌉ of the pool's pods at the end
  double lower_bound_node_hours = 0;  // ∫ that bound dt: no packing can use fewer
  // ∫ first-fit decreasing of the pool's pods into empty nodes dt: what
  // repacking every pod at every instant would keep (shapes included).
  double repack_node_hours = 0;
};

struct ProfileFigures {
  std::string profile;  // the scenario's name for it
  std::string scheduler_name;
  int64_t busy_at_end = 0;
  int64_t peak_busy = 0;
  double busy_node_hours = 0;  // ∫ busy nodes dt over [0, end]
  double node_hours = 0;       // ∫ nodes dt (differs from busy only when autoscaling)
  int64_t pending_at_end = 0;
  // ∫ pods waiting dt: what users wait for nodes to boot (a scale-up) or for
  // room, in pod-hours.
  double pending_pod_hours = 0;
  int64_t lower_bound = 0;  // Σ over pools
  double lower_bound_node_hours = 0;
  double repack_node_hours = 0;  // Σ over pools, PoolFigures::repack_node_hours
  int64_t scale_ups = 0, nodes_added = 0, nodes_removed = 0;
  // Pods cluster-autoscaler evicted to remove their nodes (their controllers
  // made them again): for a Dask worker, its memory and running tasks lost.
  int64_t pods_evicted = 0;
  // Consolidate::kMove: nodes emptied by moves, the workers moved, moves
  // abandoned, and the replacements' overlap with the workers they replaced;
  // emptied nodes a waiting pod took back before cluster-autoscaler removed
  // them (moves that saved nothing).
  int64_t nodes_emptied = 0, workers_moved = 0, moves_abandoned = 0, emptied_taken_back = 0;
  int64_t moves = 0;  // made and broken (nodes_emptied less the abandoned)
  // Workers stopped while they may have run tasks: every worker
  // cluster-autoscaler evicted (the model has no tasks, so each counts), and
  // every worker a move retired within 5 minutes of its workload's last start
  // or scale (the model's busy rule); the goal is 0.
  int64_t tasks_interrupted = 0;
  double move_overlap_worker_hours = 0;
  std::vector<PoolFigures> pools;
};

struct PackReport {
  std::vector<ProfileFigures> profiles;
  int64_t end = 0;
  Retire retire = Retire::kNewest;  // the scenario's rule, named with every figure
  Consolidate consolidate = Consolidate::kNone;
};

Result<PackReport> run_pack_report(const PackScenario& s);

boost::json::value encode_pack_report(const PackReport& r);
// A profile's Consolidate::kMove figures ("moves", "tasksInterrupted",
// "nodesEmptied", …) added to its JSON entry: the report's and the DaskHub
// day's.
void encode_move_figures(const ProfileFigures& f, boost::json::object& entry);

// Text in, one JSON document out ({"error": "…"} when it cannot be decoded).
std::string pack_report_text(std::string_view scenario_json);

}  // namespace tightpack::packing
