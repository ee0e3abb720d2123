// Node pools: the groups of identical nodes an autoscaler grows and shrinks.
//
// Pools come from tightpack's NodePools configuration document and, for the
// nodes no configured pool claims, from the cluster itself: nodes are grouped
// by the pool label their cloud puts on them, and an existing node serves as
// the template, as cluster-autoscaler does. Everything autoscaling-related
// (scale-up prediction, scale-down forecast) turns a cluster snapshot plus its
// pools into an autoscaler::AutoscaleScenario and runs cluster-autoscaler's
// own rules on it (autoscaler.hpp), so the corpus-checked code answers users.
#pragma once

#include <boost/json/value.hpp>
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "tightpack/autoscaler/node_template.hpp"
#include "tightpack/autoscaler/scenario.hpp"
#include "tightpack/error.hpp"
#include "tightpack/json_path.hpp"
#include "tightpack/model.hpp"
#include "tightpack/objects.hpp"

namespace tightpack::pools {

// GKE's node-pool label: a cluster whose nodes carry it is taken for GKE.
inline constexpr std::string_view kGkeNodePoolLabel = "cloud.google.com/gke-nodepool";

// Karpenter's NodePool label (v1beta1 and later): a node that carries it is
// Karpenter's to launch and consolidate.
inline constexpr std::string_view kKarpenterNodePoolLabel = "karpenter.sh/nodepool";

// The labels that name a node's pool, in the order they are looked for.
inline constexpr std::string_view kPoolLabels[] = {
    kGkeNodePoolLabel,                 // GKE
    "eks.amazonaws.com/nodegroup",     // EKS managed node groups
    "kubernetes.azure.com/agentpool",  // AKS
    kKarpenterNodePoolLabel,           // Karpenter
    "node.kubernetes.io/instance-type",
};

// Who adds and removes a pool's nodes, as far as the input tells. tightpack
// models cluster-autoscaler; a Karpenter pool's answers are still
// cluster-autoscaler's, and every answer that involves one says so.
enum class PoolAutoscaler : uint8_t {
  kClusterAutoscaler,
  kKarpenter,  // its nodes carry karpenter.sh/nodepool, or its nodeLabels name it
};
std::string_view autoscaler_name(PoolAutoscaler a);

// Until a node of a pool is ready. Cloud providers publish no figure; these
// are typical of GKE (a CPU node in ~3 minutes, a GPU node with its driver
// installer in ~10).
inline constexpr int64_t kDefaultProvisioningSeconds = 180;
inline constexpr int64_t kDefaultGpuProvisioningSeconds = 600;

enum class PoolSource : uint8_t {
  kConfigured,  // named in the NodePools document
  kInferred,    // found in the cluster by its pool label
};

struct NodePool {
  std::string name;
  PoolSource source = PoolSource::kConfigured;
  // Existing nodes belong to the pool when they carry every one of these
  // labels. A configured pool without `nodeLabels` claims the nodes whose
  // pool label (any of kPoolLabels) has the pool's name.
  Labels node_labels;
  // A new node as the cloud would create it. Configured pools may give one;
  // otherwise (and always for inferred pools) an existing ready node is the
  // template. A configured pool with neither cannot grow.
  std::optional<Node> template_node;
  std::vector<autoscaler::CaPod> template_pods;  // a new node's pods beyond DaemonSets
  int64_t min_size = 0;
  std::optional<int64_t> max_size;  // unknown for inferred pools
  int64_t provisioning_seconds = kDefaultProvisioningSeconds;
  // The document set provisioningTime; otherwise a GPU pool gets the GPU
  // default, judged by its template or, without one, by its nodes.
  bool provisioning_time_given = false;
  std::optional<double> price_per_hour;
  // Spot/preemptible capacity; for inferred pools, read from the clouds'
  // spot labels (cloud.google.com/gke-preemptible, eks.amazonaws.com/capacityType, …).
  bool preemptible = false;
  PoolAutoscaler autoscaler = PoolAutoscaler::kClusterAutoscaler;  // set by resolve_pools
  std::vector<std::string> nodes;  // existing nodes, by name, after resolve_pools
};

// The NodePools document (apiVersion tightpack.io/v1alpha1, kind NodePools).
struct PoolsConfig {
  std::vector<NodePool> pools;
  bool infer = true;  // group the nodes no configured pool claims by their pool labels
  std::vector<std::string> expanders{"least-waste"};
  autoscaler::Priorities priorities;  // for the priority expander
  // cluster-autoscaler's flags, at its defaults; the document sets them
  // under `autoscaler:` by their flag names in camelCase.
  autoscaler::Options options;
  int64_t scale_down_unneeded_seconds = 600;  // --scale-down-unneeded-time
};

inline constexpr std::string_view kPoolsApiVersion = "tightpack.io/v1alpha1";
inline constexpr std::string_view kPoolsKind = "NodePools";

// Decodes a NodePools document. Unknown fields are errors (a misspelt
// `maxSize` must not silently mean "unbounded"); durations are Go durations
// ("90s", "10m", "1h30m").
Result<PoolsConfig> decode_pools_config(const boost::json::value& doc, const JsonPath& path);

// The expander names cluster-autoscaler knows and tightpack implements.
bool known_expander(std::string_view name);

// A Go duration ("1h30m", "90s", "0") in whole seconds; fractions round down.
Result<int64_t> parse_duration(std::string_view text);

// The first of kPoolLabels the node carries, as (label, value).
std::optional<std::pair<std::string, std::string>> pool_label(const Node& node);

// Configured pools with their nodes, then one inferred pool per pool-label
// value among the remaining nodes (when the configuration allows), sorted by
// name. A node is in at most one pool; nodes in none are not autoscaled.
struct ResolvedPools {
  std::vector<NodePool> pools;
  // What the user should know: "pool gpu-a100 has no nodes and no template:
  // it cannot grow", "pool dask-workers was inferred: its max size is unknown".
  std::vector<std::string> notes;
};
ResolvedPools resolve_pools(const PoolsConfig& config, const std::vector<Node>& nodes);

// The label a pod selects pool `pool` by: the pool's first configured node
// label, else `node`'s pool label when it names the pool.
std::optional<std::pair<std::string, std::string>> selecting_label(const ResolvedPools& pools,
                                                                   std::string_view pool,
                                                                   const Node& node);

// A cluster as the autoscaler sees it: nodes with conditions, pods with
// controllers and volumes, and the DaemonSets, controllers and disruption
// budgets CA's rules read. Decoded from the same inputs as decode_objects (a
// v1 List as `kubectl get nodes,pods,daemonsets,pdb -A -o json` prints it, a
// NodeList or PodList, or {"nodes": […], "pods": […]}), by the same Node and
// Pod decoders.
struct ClusterSnapshot {
  std::vector<autoscaler::CaNode> nodes;
  std::vector<autoscaler::CaPod> pods;  // bound pods; pending ones are dropped
  std::vector<autoscaler::DaemonSetSpec> daemon_sets;
  std::vector<autoscaler::PdbSpec> pdbs;
  std::vector<autoscaler::CaPod> pending;  // pods without a node, not terminated
  std::set<std::string> controllers;       // "Kind/namespace/name" of the listed controllers
  // Controller kinds (DaemonSet, ReplicaSet, StatefulSet, Job,
  // ReplicationController) the snapshot carried objects of. A plain
  // `kubectl get nodes,pods` carries none: the controllers that pods name
  // are then taken to exist, rather than all blocking scale-down.
  std::set<std::string> listed_kinds;
  // Namespaces, Services, ReplicaSets, StatefulSets and ReplicationControllers,
  // as the scheduler reads them (PodTopologySpread's defaults).
  ApiObjects objects;
};
Result<ClusterSnapshot> decode_cluster_snapshot(const boost::json::value& v, const JsonPath& path);

// The snapshot and pools as a cluster-autoscaler scenario: one node group per
// pool (an unknown max size becomes current size + kMaxNodesPerScaleUp), the
// pools' prices, the configuration's expanders and thresholds; `pending`
// empty, scale-down off.
autoscaler::AutoscaleScenario autoscale_scenario(const ClusterSnapshot& snapshot,
                                                 const ResolvedPools& pools,
                                                 const PoolsConfig& config);
// The same with `pods` left empty, for a caller that hands the snapshot's
// bound pods to the rules by pointer (the scale-down forecast): copying and
// freeing 30,000 pods cost more than judging them.
autoscaler::AutoscaleScenario autoscale_scenario_without_pods(const ClusterSnapshot& snapshot,
                                                              const ResolvedPools& pools,
                                                              const PoolsConfig& config);

// A new node of one pool, as cluster-autoscaler imagines it
// (autoscaler::group_template): a sanitized copy of the pool's first ready
// node with that node's DaemonSet and mirror pods, or the pool's configured
// template with the DaemonSets that would run there.
struct PoolTemplate {
  std::string pool;
  autoscaler::NodeTemplate node;
};
// One per pool that can grow, in the pools' order. Copies only the pods of
// the nodes that serve as templates.
std::vector<PoolTemplate> pool_templates(const ClusterSnapshot& snapshot,
                                         const ResolvedPools& pools, const PoolsConfig& config);

}  // namespace tightpack::pools
