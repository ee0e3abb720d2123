// The autoscaler corpus' scenario as cluster-autoscaler sees a cluster: pods and
// nodes with what CA reads beyond scheduling, node groups, DaemonSets, budgets and
// the flags (core/autoscaler.go's options); and its decoders.
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
  std::optional<int64_t> grace_period;     // spec.terminationGracePeriodSeconds

  const std::string* annotation(std::string_view key) const;

  bool operator==(const CaPod&) const = default;
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

}  // namespace tightpack::autoscaler
