// The scale-down forecast on a 1,000-node DaskHub: every node through
// cluster-autoscaler's rules, the move simulation for each candidate.
// Results and the command: bench/RESULTS.md.
#include <benchmark/benchmark.h>

#include <string>

#include "synthetic_cluster.hpp"
#include "tightpack/pools/forecast.hpp"
#include "tightpack/pools/pools.hpp"

namespace tightpack::bench {
namespace {

struct Input {
  pools::ClusterSnapshot snapshot;
  pools::PoolsConfig config;
};

bool is_pool(const Node& n, std::string_view pool) {
  const std::string* v = find_label(n.labels, "cloud.google.com/gke-nodepool");
  return v && *v == pool;
}

// The synthetic cluster (30 pods a node) with what cluster-autoscaler reads:
// a DaemonSet pod per node, kube-dns with a disruption budget on core nodes,
// Dask workers of the operator on worker nodes (annotated safe-to-evict on
// three worker nodes in four; on the rest they block as custom-controller pods),
// ReplicaSet pods elsewhere, a GPU in use on busy GPU nodes. `under_percent`
// of the nodes have their requests halved (about 20% utilization: scale-down
// candidates whose pods must find room elsewhere); the others have them
// raised to about 70%.
Input make_input(size_t nodes, int64_t under_percent) {
  SyntheticCluster c = make_cluster(nodes, 30);
  Input in;
  for (const char* name : {"core", "dask-workers", "gpu"}) {
    pools::NodePool p;
    p.name = name;
    p.min_size = std::string_view(name) == "core" ? 3 : 0;
    in.config.pools.push_back(std::move(p));
  }
  std::vector<bool> under(c.nodes.size());
  for (size_t i = 0; i < c.nodes.size(); ++i) {
    under[i] = static_cast<int64_t>(i * 37 % 100) < under_percent;
    autoscaler::CaNode n;
    n.node = c.nodes[i];
    in.snapshot.nodes.push_back(std::move(n));
  }
  const Pod worker = dask_worker();
  for (size_t k = 0; k < c.pods.size(); ++k) {
    const size_t i = k / 30, slot = k % 30;
    const Node& n = c.nodes[i];
    autoscaler::CaPod p;
    p.pod = c.pods[k];
    for (auto& [resource, amount] : p.pod.containers.mut()[0].requests) {
      amount = under[i] ? amount / 2 : amount * 5 / 3;
    }
    if (slot == 0) {
      p.pod.ns = "kube-system";
      p.controller_kind = "DaemonSet";
      p.controller_name = "fluentbit";
      p.daemon_set = true;
    } else if (slot == 1 && is_pool(n, "core")) {
      p.pod.ns = "kube-system";
      p.pod.labels = {{"k8s-app", "kube-dns"}};
      p.controller_kind = "ReplicaSet";
      p.controller_name = "kube-dns";
    } else if (is_pool(n, "dask-workers")) {
      const std::string user = "user-" + std::to_string(i % 50);
      // As the Dask operator makes workers: one-replica Deployments, so
      // ReplicaSet-owned and movable; one worker node in four runs workers
      // whose template keeps them (safe-to-evict "false").
      p.pod.labels = {{"dask.org/cluster-name", user}, {"dask.org/component", "worker"}};
      p.pod.tolerations = worker.tolerations;
      p.pod.node_affinity = worker.node_affinity;
      // Each worker its own Deployment, named as the Deployment controller
      // names them: ReplicaSet <deployment>-<hash>, the pod labelled with the hash.
      p.pod.labels.emplace_back("pod-template-hash", "7c9f8d6b5d");
      p.controller_kind = "ReplicaSet";
      p.controller_name = user + "-default-worker-" + std::to_string(i) + "x" +
                          std::to_string(slot) + "-7c9f8d6b5d";
      if (i % 4 == 0) {
        p.pod.annotations = {{"cluster-autoscaler.kubernetes.io/safe-to-evict", "false"}};
      }
    } else {
      p.controller_kind = "ReplicaSet";
      p.controller_name = "app-" + std::to_string(slot % 5);
      if (is_pool(n, "gpu")) {
        p.pod.tolerations = {{"nvidia.com/gpu", "Exists", "", "NoSchedule", std::nullopt}};
        if (slot == 2 && !under[i])
          p.pod.containers.mut()[0].requests.push_back({"nvidia.com/gpu", 1});
      }
    }
    in.snapshot.pods.push_back(std::move(p));
  }
  autoscaler::PdbSpec dns;
  dns.ns = "kube-system";
  dns.selector = LabelSelector{{{"k8s-app", "kube-dns"}}, {}};
  dns.disruptions_allowed = 1;
  in.snapshot.pdbs.push_back(dns);
  return in;
}

void BM_ScaleDownForecast(benchmark::State& state) {
  const Input in = make_input(static_cast<size_t>(state.range(0)), state.range(1));
  std::vector<Node> nodes;
  for (const auto& n : in.snapshot.nodes) nodes.push_back(n.node);
  pools::ScaleDownForecast f;
  for (auto _ : state) {
    const pools::ResolvedPools resolved = pools::resolve_pools(in.config, nodes);
    auto r = pools::forecast_scale_down(in.snapshot, resolved, in.config);
    if (!r) {
      state.SkipWithError(r.error().what().c_str());
      return;
    }
    f = std::move(*r);
    benchmark::DoNotOptimize(f);
  }
  int64_t simulated = 0, moved = 0;
  for (const auto& n : f.nodes) {
    const bool ran = n.removable || n.reason == "NoPlaceToMovePods";
    simulated += ran;
    moved += static_cast<int64_t>(n.pods_to_move);
  }
  state.counters["removable"] = static_cast<double>(f.removable);
  state.counters["move_simulations"] = static_cast<double>(simulated);
  state.counters["pods_moved"] = static_cast<double>(moved);
}
BENCHMARK(BM_ScaleDownForecast)
    ->ArgsProduct({{1000}, {20, 100}})
    ->ArgNames({"nodes", "under_percent"})
    ->Unit(benchmark::kMillisecond);

// A notebook's shrink (docs/notebook.md): the realistic forecast above after
// the operator deletes `deployments` worker Deployments by name (one worker
// each), the first in snapshot order.
void BM_ScaleDownForecastRemovingDeployments(benchmark::State& state) {
  const Input in = make_input(static_cast<size_t>(state.range(0)), 20);
  std::vector<Node> nodes;
  for (const auto& n : in.snapshot.nodes) nodes.push_back(n.node);
  pools::PodRemoval removal;
  for (const autoscaler::CaPod& p : in.snapshot.pods) {
    const std::string d = pools::deployment_of(p);
    if (d.empty() || static_cast<int64_t>(removal.deployments.size()) >= state.range(1)) continue;
    removal.deployments.push_back(d);
  }
  pools::ScaleDownForecast f;
  for (auto _ : state) {
    const pools::ResolvedPools resolved = pools::resolve_pools(in.config, nodes);
    auto r = pools::forecast_scale_down(in.snapshot, resolved, in.config, removal);
    if (!r) {
      state.SkipWithError(r.error().what().c_str());
      return;
    }
    f = std::move(*r);
    benchmark::DoNotOptimize(f);
  }
  state.counters["removed_pods"] = static_cast<double>(f.removed_pods.size());
  state.counters["removable"] = static_cast<double>(f.removable);
}
BENCHMARK(BM_ScaleDownForecastRemovingDeployments)
    ->ArgsProduct({{1000}, {10, 1000}})
    ->ArgNames({"nodes", "deployments"})
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace tightpack::bench
