// A cluster loaded once, then asked what-if questions without decoding it
// again: where would N copies of a pod go under a profile, which pools
// cluster-autoscaler would grow for the copies that fit nowhere, and why one
// pod would land where it does. `tightpack predict` and the WebAssembly module
// behind the JupyterLab sidebar both ask through this class and encode its
// answers with the functions below, so both give the same bytes.
#pragma once

#include <boost/json/value.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tightpack/admission.hpp"
#include "tightpack/cluster.hpp"
#include "tightpack/error.hpp"
#include "tightpack/json_path.hpp"
#include "tightpack/model.hpp"
#include "tightpack/pools/forecast.hpp"
#include "tightpack/pools/pools.hpp"
#include "tightpack/pools/scale_up_prediction.hpp"
#include "tightpack/profile.hpp"
#include "tightpack/simulate.hpp"
#include "tightpack/what_if/mounted_claims.hpp"
#include "tightpack/what_if/unschedulable_facts.hpp"

namespace tightpack {

// The nodes cluster-autoscaler would add for the copies that fit nowhere.
struct ScaleUpAnswer {
  pools::ResolvedPools resolved;
  pools::ScaleUpPrediction prediction;
};

// One node that takes copies, with its fill before and after.
struct LandedNode {
  std::string node;
  std::optional<std::string> pool;
  int64_t replicas = 0;
  int64_t cpu_allocatable = 0, cpu_before = 0, cpu_after = 0;           // millicores
  int64_t memory_allocatable = 0, memory_before = 0, memory_after = 0;  // bytes
};

struct Placement {
  std::string scheduler_name;
  int64_t replicas = 0;
  int64_t placed = 0;
  std::vector<LandedNode> nodes;  // by name
  struct Copy {
    std::string pod;
    std::optional<std::string> node;
    size_t tied_nodes = 0;
  };
  std::vector<Copy> copies;
  std::string unschedulable_message;                      // for the first copy that fits nowhere
  std::optional<UnschedulableFacts> unschedulable_facts;  // the same copy's, as data
  // Pools whose nodes carry a NoSchedule/NoExecute taint the pod tolerates:
  // it may go there, and cluster-autoscaler may grow them for it. `pinned`:
  // its node selector/required affinity admits no node of another pool.
  struct ToleratedPoolTaint {
    std::string pool, taint;
    bool pinned = false;
    std::optional<std::pair<std::string, std::string>> node_label;  // what selects the pool
  };
  std::vector<ToleratedPoolTaint> tolerated_pool_taints;
  std::optional<ScaleUpAnswer> scale_up;  // when pools are in use
  // What cluster-autoscaler's scale-down does with the pod (its drain rules),
  // when the question gave the pod as the API would hold it (decode_admitted_pod).
  std::optional<autoscaler::PodDrain> drain;
  // The claims the pod mounts, as the cluster has them (class, binding mode,
  // volume and its zones): set, as `drain` is, by the callers that encode the
  // placement (mounted_claims), not by the advice's and the spawn page's
  // many placements that never show them.
  std::vector<MountedClaim> claims;
};

class WhatIfCluster {
 public:
  // The nodes and pods of `snapshot` (a v1 List as `kubectl get nodes,pods -A
  // -o json` prints it, which may also carry DaemonSets, controllers,
  // PodDisruptionBudgets, Services, Namespaces and the storage objects:
  // claims, volumes, classes, CSI objects; a NodeList or PodList; or
  // {"nodes": […], "pods": […]}). An unbound claim without a class gets the
  // default one (assign_default_storage_class): a notebook's home claim
  // about to be created is given as KubeSpawner sends it. Profiles:
  // kube-scheduler's default and the built-in ones.
  static Result<WhatIfCluster> load(const boost::json::value& snapshot, const JsonPath& path);
  // The same from a snapshot already decoded (the daemon's watch cache);
  // `path` names it in errors.
  static Result<WhatIfCluster> from_snapshot(pools::ClusterSnapshot snapshot, const JsonPath& path);

  // Answers from now on include cluster-autoscaler's scale-up over these
  // pools (an empty document infers them from the nodes' pool labels).
  void use_pools(pools::PoolsConfig config);
  bool has_pools() const { return pools_.has_value(); }

  // The profiles of a KubeSchedulerConfiguration, chosen by schedulerName
  // before the built-in names.
  void use_scheduler_configuration(SchedulerConfiguration config);

  // A profile by schedulerName: one of the configuration's, else a built-in
  // one (default, most-allocated, rtc, tightpack). Empty `name`: the pod's
  // own schedulerName when the configuration has it, else its first profile,
  // else kube-scheduler's default. A non-empty `release` ("v1.30", ...)
  // makes it decide and word as that kube-scheduler release does
  // (kube_release.hpp): zero-to-jupyterhub's released charts run v1.30.14.
  Result<Profile> profile(std::string_view name, const Pod& pod, std::string_view release) const;
  Result<Profile> profile(std::string_view name, const Pod& pod) const;

  // Places `replicas` copies of `pod` one after another (each seeing the
  // ones before), then puts the cluster back as it was.
  Result<Placement> place(const Pod& pod, int64_t replicas, const Profile& profile);
  // The same with some pools' max sizes changed, as their operator could
  // change them (pool name, new max size): what raising one would achieve.
  using MaxSizes = std::vector<std::pair<std::string, int64_t>>;
  Result<Placement> place(const Pod& pod, int64_t replicas, const Profile& profile,
                          const MaxSizes& max_sizes);

  // kube-scheduler's decision for one pod, every node's filter verdict and
  // every score plugin's scores, encoded as `tightpack replay` encodes one.
  Result<boost::json::object> explain(const Pod& pod, const Profile& profile) const;

  // cluster-autoscaler's scale-down after the pods `remove` names left,
  // judging pods' ages at `now` (Unix seconds): which nodes go and what keeps
  // the others. Needs pools.
  Result<pools::ScaleDownForecast> forecast(const pools::PodRemoval& remove,
                                            std::optional<int64_t> now = std::nullopt) const;

  // Placement::tolerated_pool_taints for `pod` (needs pools).
  std::vector<Placement::ToleratedPoolTaint> tolerated_pool_taints(const Pod& pod) const;

  // Every node with its pool, taints and fill, for drawing the cluster.
  boost::json::object summary() const;

  const Cluster& cluster() const { return cluster_; }
  const pools::ClusterSnapshot& snapshot() const { return snapshot_; }
  // Whether the cluster's API server runs ExtendedResourceToleration, as far
  // as its nodes tell: GKE's does, and GKE's nodes carry its node-pool label;
  // elsewhere it runs only where an operator turned it on, which no node shows.
  bool runs_extended_resource_toleration() const;
  // The admission a question's pod gets unless the question says otherwise.
  AdmissionOptions admission() const;
  const pools::ResolvedPools* resolved_pools() const {
    return pools_ ? &pools_->resolved : nullptr;
  }
  const pools::PoolsConfig* pools_config() const { return pools_ ? &pools_->config : nullptr; }
  // A node's pool (null: none, or no pools in use).
  const std::string* pool_of(NodeIndex n) const;

 private:
  struct Pools {
    pools::PoolsConfig config;
    pools::ResolvedPools resolved;
    std::vector<std::optional<std::string>> pool_of;  // by node index
  };

  WhatIfCluster(pools::ClusterSnapshot snapshot, Cluster cluster);

  pools::ClusterSnapshot snapshot_;
  Cluster cluster_;
  std::optional<Pools> pools_;
  SchedulerConfiguration config_;
};

// {"schedulerName", "replicas", "placed", "nodes": […], "placements": […],
//  "unschedulable"?, "scaleUp"?, "claims", "admission"}: the output of `tightpack
//  predict --output json`, with what admission changed in the pod.
boost::json::object encode_placement(const Placement& placement,
                                     const std::vector<AdmissionChange>& admitted);
boost::json::object encode_scale_up(const ScaleUpAnswer& answer);

// What the WebAssembly module is asked, as JSON documents: a place request
// {"pod": <v1 Pod>, "replicas": N, "profile"?: name, "release"?: "v1.30",
// "admission"?: {"extendedResourceToleration"?: bool}} or an explain request
// without "replicas". Unknown fields are errors. The pod is admitted as the
// API server would (admission.hpp) before it is decoded.
struct WhatIfRequest {
  Pod pod;
  int64_t replicas = 1;
  std::string profile;
  std::string release;  // empty: v1.37
  std::vector<AdmissionChange> admitted;
  autoscaler::PodDrain drain;
};
inline constexpr int64_t kMaxWhatIfReplicas = 1000000;
// The pod is admitted under `admission` (WhatIfCluster::admission()), but for
// what the question's own "admission" sets.
Result<WhatIfRequest> decode_what_if_request(const boost::json::value& doc, bool with_replicas,
                                             const AdmissionOptions& admission);

// A document the what-if layer loads, with the name its errors carry: the file
// a command read, or what the browser calls it ("snapshot", "pools",
// "schedulerConfig").
struct NamedDocument {
  std::string name;
  boost::json::value doc;
};

// What a what-if cluster is loaded from. Without a NodePools document the pools
// are inferred from the nodes' pool labels if infer_pools is set: the sidebar
// always answers with scale-up, `tightpack predict` only when given --pools.
struct WhatIfInputs {
  NamedDocument snapshot;
  std::optional<NamedDocument> scheduler_config;
  std::optional<NamedDocument> pools;
  bool infer_pools = true;
};

// The one loader: `tightpack predict` (documents it read, JSON or YAML) and the
// WebAssembly module (text, below) both load through it. An error reads
// "<name>: <what is wrong>".
Result<WhatIfCluster> load_what_if_cluster(const WhatIfInputs& inputs);

// Text in, JSON text out, never a thrown error: the entry points of the
// WebAssembly bindings. A failure is {"error": "…"} naming the field and value.
// Empty pools or configuration text: none given (pools are inferred).
Result<WhatIfCluster> load_what_if_cluster(std::string_view snapshot_json,
                                           std::string_view pools_json,
                                           std::string_view scheduler_config_json);
// {"nodes": N, "pods": N, "pendingPods": N, "pools": N}: what was loaded.
std::string loaded_text(const WhatIfCluster& cluster);
std::string summary_text(const WhatIfCluster& cluster);
std::string place_text(WhatIfCluster& cluster, std::string_view request_json);
std::string explain_text(const WhatIfCluster& cluster, std::string_view request_json);
// {"remove"?: "<label selector, kubectl syntax>", "now"?: "<RFC 3339>"} ->
// the forecast's JSON
// (what `tightpack forecast --output json` prints).
std::string forecast_text(const WhatIfCluster& cluster, std::string_view request_json);
std::string error_text(std::string_view message);
// A quantity as the API server reads one (resource.ParseQuantity), for the
// sidebar's form: {"sign": -1 | 0 | 1}, or {"error": "invalid quantity …"}
// when the API server would refuse the text.
std::string quantity_text(std::string_view quantity);

}  // namespace tightpack
