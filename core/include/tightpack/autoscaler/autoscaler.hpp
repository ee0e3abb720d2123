// cluster-autoscaler's decisions (master as of 2026-04-23, the commit
// tests/conformance/autoscaler-reference pins) on a cluster snapshot: which node group
// grows by how many nodes for the pending pods (loop after loop), and which
// nodes scale-down finds unneeded. Fit questions go through the same filters
// kube-scheduler runs (PodPlan over a Cluster with the default profile), which
// is what CA's "scheduler predicates" are.
//
// Integers where CA is integer; double exactly where CA computes in float64
// (estimator scores, least-waste, utilization), operation for operation.
#pragma once

#include <boost/json/value.hpp>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tightpack/error.hpp"
#include "tightpack/json_path.hpp"
#include "tightpack/model.hpp"
#include "tightpack/objects.hpp"
#include "tightpack/profile.hpp"

namespace tightpack::autoscaler {

// A pod with what CA reads beyond scheduling.
struct CaPod {
  Pod pod;
  std::string controller_kind;  // ownerReference with controller: true; empty when none
  std::string controller_name;
  std::vector<std::string> local_volumes;  // emptyDir and hostPath volume names
  bool mirror = false;                     // kubernetes.io/config.mirror
  bool daemon_set = false;                 // DaemonSet controller or the daemonset-pod annotation
  std::optional<int64_t> created;          // metadata.creationTimestamp, Unix seconds

  const std::string* annotation(std::string_view key) const;
};

struct CaNode {
  Node node;
  bool ready = true;  // no Ready condition counts as ready
  bool scale_down_disabled = false;
};

struct NodeGroupSpec {
  std::string name;
  int64_t min_size = 0;
  int64_t max_size = 0;
  std::vector<std::string> nodes;
  std::optional<int64_t> target_size;  // defaults to the number of nodes
  Node template_node;
  std::vector<CaPod> template_pods;
};

struct DaemonSetSpec {
  std::string ns;
  std::string name;
  Pod pod_template;
};

struct PdbSpec {
  std::string ns;
  std::optional<LabelSelector> selector;  // absent selects nothing
  int64_t disruptions_allowed = 0;
};

struct Options {
  double scale_down_utilization_threshold = 0.5;
  double scale_down_gpu_utilization_threshold = 0.5;
  int32_t expendable_pods_priority_cutoff = -10;
  bool skip_nodes_with_system_pods = true;
  bool skip_nodes_with_local_storage = true;
  // Pods whose controller is a kind CA does not look up (a DaskWorkerGroup,
  // as the Dask operator owned workers before 2023.6) count as not
  // replicated. Today's operator workers are ReplicaSet-owned; dask-gateway's
  // name owners without controller: true, so they have no controller at all.
  bool skip_nodes_with_custom_controller_pods = true;
  int64_t max_loops = 10;
  int64_t max_nodes_total = 0;                                 // 0: no limit
  int64_t max_cores_total = 320000;                            // --cores-total max
  int64_t max_memory_total_gib = 6400000;                      // --memory-total max, GiB
  std::string gpu_label = "cloud.google.com/gke-accelerator";  // GCE's
  // The time of the first loop, Unix seconds (the corpus option `now`). Pods
  // are aged against it; without it a pod's age is unknown and it counts as
  // new (the reference makes pods without a creationTimestamp a minute old).
  std::optional<int64_t> now;
};

using Priorities = std::vector<std::pair<int64_t, std::vector<std::string>>>;

struct AutoscaleScenario {
  std::vector<CaNode> nodes;
  std::vector<CaPod> pods;  // bound pods
  std::vector<NodeGroupSpec> groups;
  std::vector<CaPod> pending;  // replicas already expanded to <name>-<i>
  std::vector<std::string> expanders{"random"};
  Priorities priorities;
  // Price per hour of one node, by group name, for the price expander
  // (NodePools documents carry prices; the corpus format does not).
  std::map<std::string, double> prices;
  bool scale_down = false;
  std::vector<DaemonSetSpec> daemon_sets;
  std::set<std::string> controllers;  // "Kind/namespace/name" of the listed controllers
  std::vector<PdbSpec> pdbs;
  Options options;
  // The cluster objects the scheduler framework's listers serve (the same
  // optional lists as a scheduling scenario's): every snapshot the run
  // builds reads them. The ReplicaSets, StatefulSets and
  // ReplicationControllers are in `controllers` too, for the drain rules.
  ApiObjects objects;
};

// core_utils.IsExpendablePod: below --expendable-pods-priority-cutoff.
// CA helps no such pending pod, and its cluster snapshot holds no such bound
// pod (static_autoscaler.go: FilterOutExpendablePods before
// SetClusterState): every simulation, template, utilization and drain
// treats it as already preempted.
inline bool expendable(const Pod& pod, const Options& options) {
  return pod.priority < options.expendable_pods_priority_cutoff;
}

// Accepts a corpus line ({"scenario": …}) or a bare scenario. An unknown
// key is an error that names it.
Result<AutoscaleScenario> decode_autoscale_scenario(const boost::json::value& doc);

// The profile of CA's scheduler framework handle (simulator/framework/
// handle.go: schedulerconfiglatest.Default(), one profile): kube-scheduler's
// default profile of the k8s.io/kubernetes release cluster-autoscaler
// vendors, v1.35, where NodeVolumeLimits' VolumeLimitScaling check is off.
Profile ca_profile();

// The object decoders the scenario decoder is made of, for other inputs that
// carry the same objects (cluster snapshots, NodePools templates).
Result<CaNode> decode_ca_node(const boost::json::value& v, const JsonPath& path);
Result<CaPod> decode_ca_pod(const boost::json::value& v, const JsonPath& path);
Status decode_ca_pod_into(const boost::json::value& v, const JsonPath& path, CaPod& pod);
// A node template need not be named; it is then "template-node-for-<group>".
Result<Node> decode_template_node(const boost::json::value& v, const JsonPath& path,
                                  const std::string& group);
Result<DaemonSetSpec> decode_daemon_set(const boost::json::value& v, const JsonPath& path);
Result<PdbSpec> decode_pdb(const boost::json::value& v, const JsonPath& path);
// metadata.namespace ("default" when empty) and metadata.name.
Result<std::pair<std::string, std::string>> decode_object_name(const boost::json::value& v,
                                                               const JsonPath& path);

// ---------------------------------------------------------------- templates

// A node of a group as CA imagines a new one: the node and the pods it
// starts with (DaemonSet and mirror pods).
struct NodeTemplate {
  Node node;
  std::vector<Pod> pods;
};

// From the first ready node of the group, else the group's template with its
// template pods and the DaemonSet pods that would run on it.
NodeTemplate group_template(const AutoscaleScenario& s, const NodeGroupSpec& g);

// A copy of a node under a new name, its hostname label following (as CA's
// sanitizing deep copy does for every node it imagines).
Node renamed_copy(const Node& from, std::string name);

// daemon.NodeShouldRunDaemonPod: the node selector, required node affinity and
// NoSchedule/NoExecute taints admit the pod (resources do not matter).
bool daemon_set_runs_on(const Pod& pod, const Node& node);

// ---------------------------------------------------------------- estimator

// calculatePodScore: cpu/allocatable_cpu + memory/allocatable_memory of the
// template, over container requests.
double estimator_score(const Pod& pod, const Node& template_node);

struct Estimate {
  int64_t node_count = 0;         // new nodes that received pods
  std::vector<size_t> scheduled;  // indices into the input pods, in packing order
};

// The estimator's limiter (estimator/threshold_based_limiter.go with the
// thresholds core/autoscaler.go gives it): --max-nodes-per-scaleup, the
// group's room (max size − target size, sng_capacity_threshold.go; similar
// groups count only with --balance-similar-node-groups, off by default) and
// the cluster's (--max-nodes-total − nodes incl. upcoming,
// cluster_capacity_threshold.go), the smallest positive one; −1 when a
// threshold leaves no room at all. kubernetes/autoscaler#5917 (CA 1.28) added
// the last two: before, the estimate ignored the group's max size.
inline constexpr int64_t kMaxNodesPerScaleUp = 1000;
int64_t estimation_limit(int64_t max_size, int64_t target_size, int64_t max_nodes_total,
                         int64_t current_nodes);

// BinpackingNodeEstimator: largest pods first onto fresh copies of the
// template, round-robin over the copies opened (from a fresh start: no other
// placement came before), at most `max_nodes` of them (−1: none). Once the limiter refuses
// a node, the pods left still try the nodes already opened. `classes`, when
// given, is aligned with `pods`: pods of one class differ only by name and
// share one PodPlan.
Result<Estimate> estimate(const NodeTemplate& t, const std::vector<const Pod*>& pods,
                          const Profile& profile, int64_t max_nodes = kMaxNodesPerScaleUp,
                          const std::vector<uint32_t>& classes = {});

// ---------------------------------------------------------------- expanders

struct ExpansionOption {
  std::string group;
  int64_t node_count = 0;
  std::vector<const Pod*> pods;
  const Node* template_node = nullptr;
};

struct Waste {
  double cpu = 0;
  double memory = 0;
  double score() const { return cpu + memory; }
};

// expander/waste: over the template's capacity, for the uncapped node count.
Waste waste_of(const ExpansionOption& o);

// Each filter narrows `among` (indices into options) as CA's BestOptions does.
std::vector<size_t> least_waste(const std::vector<ExpansionOption>& options,
                                const std::vector<size_t>& among);
std::vector<size_t> most_pods(const std::vector<ExpansionOption>& options,
                              const std::vector<size_t>& among);
// Options of the highest priority whose regexps match the group name (Go's
// unanchored match); all of `among` when none matches.
std::vector<size_t> priority_filter(const std::vector<ExpansionOption>& options,
                                    const std::vector<size_t>& among, const Priorities& priorities);

// tightpack's price expander: the options whose added nodes cost least per
// hour (node_count × the group's price); groups without a price rank after
// priced ones, and when no option is priced all of `among` stay. CA's own
// price expander also weighs how well each node fits the pods' preferred
// node price; this is the simpler "cheapest added nodes per hour".
std::vector<size_t> price_filter(const std::vector<ExpansionOption>& options,
                                 const std::vector<size_t>& among,
                                 const std::map<std::string, double>& prices);

struct Choice {
  size_t chosen = 0;
  std::vector<size_t> tied;  // the options the final random pick chose among (>1 when tied)
};

// The expander chain: each named filter in turn, stopping at one option; a
// remaining tie goes to the lowest group name (CA picks at random).
Choice choose_option(const std::vector<ExpansionOption>& options,
                     const std::vector<std::string>& expanders, const Priorities& priorities,
                     const std::map<std::string, double>& prices = {});

// The increase after the expander: capped to the group's max size.
int64_t capped_delta(int64_t estimated, int64_t target_size, int64_t max_size);

// What the cluster-wide resource limits leave for a scale-up: every group at
// its target size with its template's capacity, plus the nodes of no group.
struct ResourcesLeft {
  int64_t cores = 0;
  int64_t memory = 0;  // bytes
};
ResourcesLeft resources_left(const AutoscaleScenario& s, const std::vector<NodeTemplate>& templates,
                             const std::vector<int64_t>& target_sizes);

// One new node's capacity in the limits' units: whole cores (rounded up), bytes.
ResourcesLeft node_delta(const Node& template_node);

// "max cluster cpu limit reached" and the like when one more node would not
// fit the limits; empty when it would.
std::string limit_exceeded(const ResourcesLeft& left, const ResourcesLeft& per_node);

// The increase the limits allow for `delta` nodes of `per_node` each.
int64_t apply_resource_limits(int64_t delta, const ResourcesLeft& left,
                              const ResourcesLeft& per_node);

// ---------------------------------------------------------------- scale-down

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

struct Utilization {
  double cpu = 0;
  double memory = 0;
  double gpu = 0;
  bool gpu_node = false;
  std::string resource;  // the deciding resource
  double value = 0;
};

// utilization.Calculate: Σ container requests (DaemonSet and mirror pods
// included) over allocatable, max of cpu and memory; GPU nodes by GPU alone.
Utilization node_utilization(const Node& node, const std::vector<const Pod*>& pods,
                             const std::string& gpu_label);

// ---------------------------------------------------------------- the run

// Runs the loops (and scale-down when asked) and encodes the result document.
boost::json::value run_autoscale(const AutoscaleScenario& s);

// Text in, one JSON document out ({"error": "…"} when it cannot be decoded).
std::string autoscale_text(std::string_view scenario_json);

}  // namespace tightpack::autoscaler
