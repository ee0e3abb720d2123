#include "what_if_inputs.hpp"

#include "synthetic_cluster.hpp"

namespace tightpack::bench {

std::string what_if_snapshot(size_t nodes) {
  return snapshot_json(make_cluster(nodes, kWhatIfPodsPerNode));
}

std::string place_request(int replicas, const std::string& profile) {
  // dask_worker() as a v1 Pod.
  return R"({"pod": {"apiVersion": "v1", "kind": "Pod",
  "metadata": {"name": "dask-worker", "namespace": "daskhub"},
  "spec": {"containers": [{"name": "worker", "image": "ghcr.io/dask/dask:2024.1.0",
    "resources": {"requests": {"cpu": "1", "memory": "4Gi"}, "limits": {"cpu": "1", "memory": "4Gi"}}}],
  "tolerations": [{"key": "k8s.dask.org/dedicated", "operator": "Equal", "value": "worker", "effect": "NoSchedule"},
                  {"key": "k8s.dask.org_dedicated", "operator": "Equal", "value": "worker", "effect": "NoSchedule"}],
  "affinity": {"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [{"weight": 100,
    "preference": {"matchExpressions": [{"key": "k8s.dask.org/node-purpose", "operator": "In", "values": ["worker"]}]}}]}}}},
 "replicas": )" +
         std::to_string(replicas) + R"(, "profile": ")" + profile + "\"}";
}

}  // namespace tightpack::bench
