// Scale-up prediction: 1,000 Dask workers that fit nowhere today, over the 10
// pools of a busy DaskHub. Results and the command: bench/RESULTS.md.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <string>

#include "tightpack/pools/pools.hpp"
#include "tightpack/pools/scale_up_prediction.hpp"

namespace tightpack::bench {
namespace {

constexpr int64_t kGi = 1024LL * 1024 * 1024;

struct PoolShape {
  const char* name;
  int64_t milli_cpu;
  int64_t memory_gi;
  int64_t gpus;
  const char* taint;    // key=value, NoSchedule; "" for none
  const char* purpose;  // k8s.dask.org/node-purpose
  int64_t max_size;
  double price;
};

// Four pools take Dask workers (with different shapes, so that least-waste
// has a choice and max sizes make the loop move on to the next); the others
// are rejected by taints, the node affinity or resources.
constexpr PoolShape kPools[] = {
    {"core", 3920, 13, 0, "", "core", 12, 0.19},
    {"user", 7910, 58, 0, "hub.jupyter.org/dedicated=user", "user", 30, 0.52},
    {"dask-a", 15890, 120, 0, "dask=worker", "worker", 40, 0.26},
    {"dask-b", 7910, 58, 0, "dask=worker", "worker", 60, 0.13},
    {"dask-c", 31850, 250, 0, "dask=worker", "worker", 20, 0.52},
    {"dask-highcpu", 31850, 28, 0, "dask=worker", "worker", 30, 0.40},
    {"gpu-t4", 7910, 26, 1, "nvidia.com/gpu=present", "gpu", 10, 0.73},
    {"gpu-a100", 11900, 76, 1, "nvidia.com/gpu=present", "gpu", 12, 3.67},
    {"batch", 7910, 30, 0, "batch=true", "batch", 50, 0.20},
    {"arm", 15890, 60, 0, "", "arm-worker", 50, 0.30},
};
constexpr size_t kNodesPerPool = 10;

Labels sorted(Labels l) {
  std::sort(l.begin(), l.end());
  return l;
}

Pod pod_of(std::string name, int64_t milli_cpu, int64_t memory) {
  Pod p;
  p.ns = "daskhub";
  p.name = std::move(name);
  Container c;
  c.name = "main";
  c.image = "ghcr.io/dask/dask:2024.12.1";
  c.requests = {{"cpu", milli_cpu}, {"memory", memory}};
  p.containers.push_back(std::move(c));
  return p;
}

struct Input {
  pools::ClusterSnapshot snapshot;
  pools::PoolsConfig config;
  pools::ResolvedPools resolved;
  pools::Replicas replicas;
};

// Every existing node is nearly full, so no worker fits today.
Input make_input(int64_t replicas) {
  Input in;
  for (const PoolShape& shape : kPools) {
    pools::NodePool pool;
    pool.name = shape.name;
    pool.max_size = shape.max_size;
    pool.price_per_hour = shape.price;
    in.config.pools.push_back(pool);
    for (size_t i = 0; i < kNodesPerPool; ++i) {
      autoscaler::CaNode n;
      n.node.name = "gke-daskhub-" + std::string(shape.name) + "-" + std::to_string(i);
      n.node.labels = sorted({{"cloud.google.com/gke-nodepool", shape.name},
                              {"kubernetes.io/hostname", n.node.name},
                              {"k8s.dask.org/node-purpose", shape.purpose},
                              {"topology.kubernetes.io/zone", "us-central1-b"}});
      if (*shape.taint) {
        const std::string t = shape.taint;
        n.node.taints.push_back(
            {t.substr(0, t.find('=')), t.substr(t.find('=') + 1), "NoSchedule"});
      }
      n.node.allocatable = {
          {"cpu", shape.milli_cpu}, {"memory", shape.memory_gi * kGi}, {"pods", 110}};
      if (shape.gpus) n.node.allocatable.push_back({"nvidia.com/gpu", shape.gpus});
      std::sort(n.node.allocatable.begin(), n.node.allocatable.end());
      n.node.capacity = n.node.allocatable;
      // A DaemonSet pod, and a pod that leaves less than one worker's cpu.
      autoscaler::CaPod ds;
      ds.pod = pod_of("fluentbit-" + n.node.name, 100, 200LL << 20);
      ds.pod.node_name = n.node.name;
      ds.daemon_set = true;
      ds.controller_kind = "DaemonSet";
      ds.controller_name = "fluentbit";
      in.snapshot.pods.push_back(ds);
      autoscaler::CaPod busy;
      busy.pod = pod_of("busy-" + n.node.name, shape.milli_cpu - 100 - 500, kGi);
      busy.pod.node_name = n.node.name;
      in.snapshot.pods.push_back(busy);
      in.snapshot.nodes.push_back(std::move(n));
    }
  }
  std::vector<Node> nodes;
  for (const auto& n : in.snapshot.nodes) nodes.push_back(n.node);
  in.resolved = pools::resolve_pools(in.config, nodes);

  Pod worker = pod_of("dask-worker", 1000, 4 * kGi);
  worker.tolerations.push_back({"dask", "Equal", "worker", "NoSchedule", std::nullopt});
  worker.node_affinity.required = std::vector<NodeSelectorTerm>{
      NodeSelectorTerm{{{"k8s.dask.org/node-purpose", "In", {"worker"}}}, {}}};
  in.replicas = pools::Replicas{worker, std::vector<std::string>(static_cast<size_t>(replicas))};
  return in;
}

void BM_ScaleUpPrediction(benchmark::State& state) {
  const Input in = make_input(state.range(0));
  const Profile profile = default_profile();
  pools::ScaleUpPrediction p;
  for (auto _ : state) {
    auto r = pools::predict_scale_up(in.snapshot, in.resolved, in.config, profile, in.replicas);
    if (!r) {
      state.SkipWithError(r.error().what().c_str());
      return;
    }
    p = std::move(*r);
    benchmark::DoNotOptimize(p);
  }
  int64_t nodes = 0, placed = 0;
  for (const auto& g : p.growth) {
    nodes += g.nodes_added;
    placed += static_cast<int64_t>(g.replicas.size());
  }
  state.counters["pools_grown"] = static_cast<double>(p.growth.size());
  state.counters["nodes_added"] = static_cast<double>(nodes);
  state.counters["placed"] = static_cast<double>(placed);
  state.counters["loops"] = static_cast<double>(p.loops);
}
BENCHMARK(BM_ScaleUpPrediction)->Arg(1000)->ArgName("replicas")->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace tightpack::bench
